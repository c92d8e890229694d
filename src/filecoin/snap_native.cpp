#include "filecoin/snap_native.hpp"

#include <stdexcept>
#include <string>

#include "gadgets/field_bits.hpp"
#include "gadgets/poseidon_native.hpp"

namespace cuzk::filecoin {
namespace {

// constants.rs POSEIDON_CONSTANTS_GEN_RANDOMNESS: arity 2, Standard, HashType::Custom(Arbitrary(1)).
Fr gen_randomness_hash(const Fr& a, const Fr& b) {
  const Fr both[2] = {a, b};
  return gadgets::poseidon_hash(both, gadgets::poseidon_constants(2), gadgets::PoseidonHashType::custom(1));
}

}  // namespace

Fr snap_phi(const Fr& comm_d_new, const Fr& comm_r_old) {
  return gen_randomness_hash(comm_d_new, comm_r_old);
}

Fr snap_rho(const Fr& phi, uint64_t high) {
  return gen_randomness_hash(phi, Fr::from_u64(high));
}

uint64_t snap_high_bits(const SnapCircuitShape& shape, uint64_t c, uint32_t h) {
  if (h == 0 || h > shape.challenge_bits()) {
    throw std::invalid_argument("SnapDeals: h = " + std::to_string(h) + " must be in 1.." +
                                std::to_string(shape.challenge_bits()));
  }
  return c >> (shape.challenge_bits() - h);
}

std::vector<uint64_t> snap_challenges(const SnapCircuitShape& shape, const Fr& comm_r_new, uint32_t k) {
  shape.validate();
  if (k >= shape.partitions) {
    throw std::invalid_argument("SnapDeals: partition " + std::to_string(k) + " of " +
                                std::to_string(shape.partitions));
  }
  const uint32_t bits = shape.random_bits(), per_digest = static_cast<uint32_t>(gadgets::kFrCapacity) / bits;
  const uint64_t partition_high = uint64_t{k} << bits;
  std::vector<uint64_t> out;
  out.reserve(shape.challenges);
  for (uint64_t index = uint64_t{k} * shape.digests(); out.size() < shape.challenges; ++index) {
    const std::vector<bool> digest = gadgets::fr_to_bits_le(gen_randomness_hash(comm_r_new, Fr::from_u64(index)));
    for (uint32_t i = 0; i < per_digest && out.size() < shape.challenges; ++i) {
      uint64_t c = 0;
      for (uint32_t b = 0; b < bits; ++b) c |= uint64_t{digest[i * bits + b]} << b;
      out.push_back(c | partition_high);
    }
  }
  return out;
}

std::vector<Fr> snap_encode_nodes(const SnapCircuitShape& shape, const Fr& phi, uint32_t h,
                                  std::span<const Fr> sector_key, std::span<const Fr> data) {
  if (sector_key.size() != shape.nodes || data.size() != shape.nodes) {
    throw std::invalid_argument("SnapDeals encoding: " + std::to_string(sector_key.size()) + " sector-key and " +
                                std::to_string(data.size()) + " data nodes, the sector has " +
                                std::to_string(shape.nodes));
  }
  // One rho per value of the high bits (vanilla.rs Rhos), nodes in order.
  std::vector<Fr> out(shape.nodes);
  uint64_t high = ~uint64_t{0};
  Fr rho;
  for (uint64_t i = 0; i < shape.nodes; ++i) {
    if (snap_high_bits(shape, i, h) != high) {
      high = snap_high_bits(shape, i, h);
      rho = snap_rho(phi, high);
    }
    out[i] = sector_key[i] + data[i] * rho;
  }
  return out;
}

}  // namespace cuzk::filecoin
