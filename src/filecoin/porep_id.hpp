#pragma once
// The PoRep identity that seeds the graphs: porep_id (32 bytes), the API version (which changes
// where the DRG predecessor goes), and the domain-separated seeds derived from porep_id
// (storage-proofs-core src/crypto/mod.rs derive_porep_domain_seed: SHA-256(tag || porep_id)).
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "filecoin/registered_proof.hpp"
#include "gadgets/sha256_native.hpp"

namespace cuzk::filecoin {

// PorepId and ApiVersion (one type for the graphs and the registered proofs) come from
// registered_proof.hpp.

// rust-filecoin-proofs-api registry.rs: id u64 LE, nonce u64 LE (0), 16 zero bytes.
inline PorepId porep_id_from_registered_proof(uint64_t id) {
  PorepId p{};
  for (size_t i = 0; i < 8; ++i) p[i] = static_cast<uint8_t>(id >> (8 * i));
  return p;
}

// Tags of storage-proofs-core src/crypto/mod.rs.
inline constexpr std::string_view kDrsampleDst = "Filecoin_DRSample";
inline constexpr std::string_view kFeistelDst = "Filecoin_Feistel";

inline gadgets::Sha256Digest derive_porep_domain_seed(std::string_view tag, const PorepId& porep_id) {
  std::vector<uint8_t> msg(tag.begin(), tag.end());
  msg.insert(msg.end(), porep_id.begin(), porep_id.end());
  return gadgets::sha256_native(msg);
}

}  // namespace cuzk::filecoin
