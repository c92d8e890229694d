#pragma once
// filecoin-hashers' Sha256Hasher (src/sha256.rs): the hash of tree D (the data commitment) and of
// SnapDeals' apex tree.
//
// Natively a node is SHA-256 of the children's 32-byte little-endian encodings, concatenated, with
// the digest trimmed to 254 bits (fr32.hpp). In-circuit each child is decomposed with to_bits_le
// (255 bits), its bit numbering reversed per byte (so SHA-256 sees the same bytes MSB first, with a
// constant 0 as each child's 256th bit), SHA-256'd with constant padding, and the digest's bits
// reversed back per byte and the first 254 packed into one number. For two children that is
// 2·256 + 44,866 + 1 = 45,379 constraints (filecoin-circuits.md 2.3).
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gadgets/bit_numbering.hpp"
#include "gadgets/fr32.hpp"
#include "gadgets/merkle_hasher.hpp"
#include "gadgets/multipack.hpp"
#include "gadgets/sha256.hpp"

namespace cuzk::gadgets {

struct Sha256Hasher {
  static constexpr std::string_view name() { return "sha256_hasher"; }

  // SHA-256 of the concatenated 32-byte encodings, trimmed (merkletree multi_node / node).
  static Fr hash_children(std::span<const Fr> children, size_t height = 0);
  static Fr hash2(const Fr& a, const Fr& b);
  // HashFunction::hash: SHA-256 of arbitrary bytes, trimmed.
  static Fr hash_bytes(std::span<const uint8_t> bytes);

  // hash_circuit: SHA-256 of the bits ("hash"), digest bits reversed per byte, the first 254
  // packed ("pack_le").
  template <ConstraintSystem CS>
  static AllocatedNum hash_circuit(CS& cs, std::span<const Boolean> bits) {
    std::vector<Boolean> digest;
    {
      auto ns = cs.namespace_([] { return "hash"; });
      digest = reverse_bit_numbering(sha256(cs, bits));
    }
    digest.resize(kFrCapacity);
    auto ns = cs.namespace_([] { return "pack_le"; });
    return pack_bits(cs, std::span<const Boolean>(digest));
  }

  // hash_multi_leaf_circuit: every child's to_bits_le ("i_num_into_bits"), byte-reversed, then
  // hash_circuit. The height does not enter SHA-256.
  template <ConstraintSystem CS>
  static AllocatedNum hash_multi_leaf_circuit(CS& cs, std::span<const AllocatedNum> children, size_t /*height*/) {
    std::vector<Boolean> bits;
    bits.reserve(children.size() * 256);
    for (size_t i = 0; i < children.size(); ++i) {
      auto ns = cs.namespace_([&] { return std::to_string(i) + "_num_into_bits"; });
      const std::vector<Boolean> b = reverse_bit_numbering(children[i].to_bits_le(cs));
      bits.insert(bits.end(), b.begin(), b.end());
    }
    return hash_circuit(cs, std::span<const Boolean>(bits));
  }

  // hash2_circuit: the same R1CS as hash_multi_leaf_circuit of two, under "a_bits" / "b_bits".
  template <ConstraintSystem CS>
  static AllocatedNum hash2_circuit(CS& cs, const AllocatedNum& a, const AllocatedNum& b) {
    std::vector<Boolean> bits;
    {
      auto ns = cs.namespace_([] { return "a_bits"; });
      bits = reverse_bit_numbering(a.to_bits_le(cs));
    }
    {
      auto ns = cs.namespace_([] { return "b_bits"; });
      const std::vector<Boolean> rb = reverse_bit_numbering(b.to_bits_le(cs));
      bits.insert(bits.end(), rb.begin(), rb.end());
    }
    return hash_circuit(cs, std::span<const Boolean>(bits));
  }
};

static_assert(MerkleHasher<Sha256Hasher>);

}  // namespace cuzk::gadgets
