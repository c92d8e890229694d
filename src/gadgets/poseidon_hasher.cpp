#include "gadgets/poseidon_hasher.hpp"

#include <stdexcept>
#include <string>

#include "gadgets/poseidon_native.hpp"

namespace cuzk::gadgets {

void PoseidonHasher::check_arity(size_t n) {
  // filecoin-hashers src/poseidon.rs shared_hash_frs: POSEIDON_CONSTANTS_{2,4,8,16} only (arity 11
  // is used for SDR columns through neptune directly, not through the Merkle hasher).
  if (n != 2 && n != 4 && n != 8 && n != 16) {
    throw std::invalid_argument("PoseidonHasher: a Merkle node of " + std::to_string(n) +
                                " children is unsupported (filecoin-hashers accepts arity 2, 4, 8 or 16)");
  }
}

Fr PoseidonHasher::hash_children(std::span<const Fr> children, size_t /*height*/) {
  check_arity(children.size());
  return poseidon_hash(children.size(), children);
}

Fr PoseidonHasher::hash2(const Fr& a, const Fr& b) {
  const Fr both[2] = {a, b};
  return poseidon_hash(2, std::span<const Fr>(both));
}

}  // namespace cuzk::gadgets
