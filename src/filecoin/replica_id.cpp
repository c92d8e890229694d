#include "filecoin/replica_id.hpp"

#include <vector>

#include "gadgets/sha256_native.hpp"

namespace cuzk::filecoin {

Bytes32 replica_id(const Bytes32& prover_id, uint64_t sector_id, const Bytes32& ticket, const Bytes32& comm_d,
                   const PorepId& porep_id) {
  std::vector<uint8_t> msg;
  msg.reserve(32 + 8 + 32 * 3);
  msg.insert(msg.end(), prover_id.begin(), prover_id.end());
  for (int i = 7; i >= 0; --i) msg.push_back(static_cast<uint8_t>(sector_id >> (8 * i)));
  msg.insert(msg.end(), ticket.begin(), ticket.end());
  msg.insert(msg.end(), comm_d.begin(), comm_d.end());
  msg.insert(msg.end(), porep_id.begin(), porep_id.end());
  Bytes32 id = gadgets::sha256_native(msg);
  id[31] &= 0x3f;  // fr32 "trim": the value is then < 2^254 < r
  return id;
}

Bytes32 prover_id_from_actor_id(uint64_t actor_id) {
  Bytes32 id{};
  size_t i = 0;
  do {
    uint8_t byte = actor_id & 0x7f;
    actor_id >>= 7;
    if (actor_id != 0) byte |= 0x80;
    id[i++] = byte;
  } while (actor_id != 0);
  return id;
}

std::optional<uint64_t> actor_id_from_prover_id(const Bytes32& prover_id) {
  uint64_t id = 0;
  for (size_t i = 0; i < 10; ++i) {  // a u64 takes at most 10 LEB128 bytes
    id |= uint64_t{prover_id[i] & 0x7fu} << (7 * i);
    // Re-encoding catches a payload that is not the shortest one, bits past 64 and trailing bytes.
    if (!(prover_id[i] & 0x80)) {
      return prover_id_from_actor_id(id) == prover_id ? std::optional<uint64_t>(id) : std::nullopt;
    }
  }
  return std::nullopt;
}

}  // namespace cuzk::filecoin
