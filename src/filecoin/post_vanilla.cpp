#include "filecoin/post_vanilla.hpp"

#include <optional>
#include <string>

#include "filecoin/bincode.hpp"
#include "filecoin/c1_error.hpp"
#include "filecoin/merkle_bincode.hpp"
#include "filecoin/post_error.hpp"

namespace cuzk::filecoin {
namespace {

constexpr size_t kSectorProofMin = 8 + 2 * kBincodeDomainBytes;  // no inclusion proofs

class Parser {
 public:
  Parser(std::span<const uint8_t> bytes, size_t index) : r_(bytes), index_(index) {}

  FallbackPostSectorProof proof() {
    try {
      return read_proof();
    } catch (const BincodeFieldError& e) {
      throw PostVanillaError(index_, sector_id_, e.field(), e.problem());
    }
  }

 private:
  FallbackPostSectorProof read_proof() {
    const JsonPath root;
    FallbackPostSectorProof out;
    out.sector_id = read(root.field("sector_id"), [&] { return r_.u64(); });
    sector_id_ = out.sector_id;
    out.comm_r = read_domain(r_, root.field("comm_r"));
    const JsonPath vp = root.field("vanilla_proof");
    const JsonPath sectors = vp.field("sectors");
    const size_t n = read_seq_len(r_, sectors, kSectorProofMin);
    out.sectors.reserve(n);
    for (size_t i = 0; i < n; ++i) out.sectors.push_back(sector_proof(sectors.at(i)));
    read(root, [&] {
      r_.finish();
      return 0;
    });
    return out;
  }

  template <class F>
  auto read(const JsonPath& p, F&& f) -> decltype(f()) {
    try {
      return f();
    } catch (const BincodeError& e) {
      throw PostVanillaError(index_, sector_id_, p.str(), e.what());
    }
  }

  PostSectorProof sector_proof(const JsonPath& p) {
    PostSectorProof out;
    const JsonPath ips = p.field("inclusion_proofs");
    const size_t n = read_seq_len(r_, ips, kBincodeMerkleProofMin);
    out.inclusion_proofs.reserve(n);
    for (size_t i = 0; i < n; ++i) out.inclusion_proofs.push_back(read_merkle_proof(r_, ips.at(i)));
    out.comm_c = read_domain(r_, p.field("comm_c"));
    out.comm_r_last = read_domain(r_, p.field("comm_r_last"));
    return out;
  }

  BincodeReader r_;
  size_t index_;
  std::optional<uint64_t> sector_id_;
};

}  // namespace

FallbackPostSectorProof parse_post_sector_proof(std::span<const uint8_t> bytes, size_t index) {
  return Parser(bytes, index).proof();
}

std::vector<uint8_t> to_bincode(const FallbackPostSectorProof& proof) {
  BincodeWriter w;
  w.u64(proof.sector_id);
  w.bytes32(proof.comm_r);
  w.seq_len(proof.sectors.size());
  for (const PostSectorProof& s : proof.sectors) {
    w.seq_len(s.inclusion_proofs.size());
    for (const MerkleProof& mp : s.inclusion_proofs) write_merkle_proof(w, mp);
    w.bytes32(s.comm_c);
    w.bytes32(s.comm_r_last);
  }
  return std::move(w).take();
}

}  // namespace cuzk::filecoin
