#pragma once
// The label as a circuit (storage-proofs-porep src/stacked/circuit/create_label.rs
// create_label_circuit): SHA-256 over the 1248-byte preimage of label.hpp, built from bits:
//   replica_id bits, padded with constant false to 256 | layer (UInt32, big-endian bits) |
//   node (UInt64, big-endian bits) | constant false up to 512 | each of the 37 parents' bits,
//   padded with constant false to a multiple of 256
// then the digest's bit numbering reversed per byte and its first 254 bits packed into one number
// ("result_num"), which equals the trimmed native label read as a little-endian field element.
//
// Which bits are constants changes the count: in the PoRep circuit replica_id and the parents are
// 255 allocated bits plus a constant 0 (to_bits_le of a number), the layer is a constant and the
// node is the allocated challenge: 522,268 SHA-256 constraints + 1 packing = 522,269.
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "filecoin/label.hpp"
#include "gadgets/bit_numbering.hpp"
#include "gadgets/multipack.hpp"
#include "gadgets/sha256.hpp"
#include "gadgets/uint32.hpp"
#include "gadgets/uint64.hpp"

namespace cuzk::filecoin {

template <r1cs::ConstraintSystem CS>
gadgets::AllocatedNum create_label_circuit(CS& cs, std::span<const gadgets::Boolean> replica_id,
                                           const std::vector<std::vector<gadgets::Boolean>>& parents,
                                           const gadgets::UInt32& layer, const gadgets::UInt64& node) {
  using gadgets::Boolean;
  if (replica_id.size() < 32 || replica_id.size() > 256) {
    throw std::invalid_argument("create_label_circuit: replica_id has " + std::to_string(replica_id.size()) +
                                " bits (32..256 allowed)");
  }
  if (parents.size() != kTotalParents) {
    throw std::invalid_argument("create_label_circuit: " + std::to_string(parents.size()) + " parents, " +
                                std::to_string(kTotalParents) + " expected");
  }
  std::vector<Boolean> bits(replica_id.begin(), replica_id.end());
  bits.resize(256, Boolean::constant(false));
  const std::vector<Boolean> l = layer.into_bits_be(), n = node.to_bits_be();
  bits.insert(bits.end(), l.begin(), l.end());
  bits.insert(bits.end(), n.begin(), n.end());
  bits.resize(512, Boolean::constant(false));
  for (const std::vector<Boolean>& p : parents) {
    bits.insert(bits.end(), p.begin(), p.end());
    while (bits.size() % 256 != 0) bits.push_back(Boolean::constant(false));
  }
  if (bits.size() != kLabelPreimageBytes * 8) {
    throw std::invalid_argument("create_label_circuit: a parent has more than 256 bits");
  }
  std::vector<Boolean> digest;
  {
    auto ns = cs.namespace_([] { return "hash"; });
    digest = gadgets::reverse_bit_numbering(gadgets::sha256(cs, std::span<const Boolean>(bits)));
  }
  digest.resize(gadgets::kFrCapacity);
  auto ns = cs.namespace_([] { return "result_num"; });
  return gadgets::pack_bits(cs, std::span<const Boolean>(digest));
}

}  // namespace cuzk::filecoin
