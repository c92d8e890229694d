#pragma once
// 64 Booleans read as an unsigned integer (storage-proofs-core src/gadgets/uint64.rs): the PoRep
// challenge index is one, hashed big-endian into the label preimage and packed into one public
// input.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gadgets/multipack.hpp"

namespace cuzk::gadgets {

class UInt64 {
 public:
  static UInt64 constant(uint64_t value) {
    UInt64 r;
    for (size_t i = 0; i < 64; ++i) r.bits_[i] = Boolean::constant((value >> i) & 1);
    r.value_ = value;
    return r;
  }

  // 64 AllocatedBits "allocated bit i", least significant first: 64 constraints.
  template <ConstraintSystem CS>
  static UInt64 alloc(CS& cs, std::optional<uint64_t> value) {
    UInt64 r;
    for (size_t i = 0; i < 64; ++i) {
      auto ns = cs.namespace_([&] { return "allocated bit " + std::to_string(i); });
      r.bits_[i] = AllocatedBit::alloc(cs, value ? std::optional<bool>((*value >> i) & 1) : std::nullopt);
    }
    r.value_ = value;
    return r;
  }

  const std::optional<uint64_t>& value() const { return value_; }
  std::vector<Boolean> to_bits_le() const { return {bits_.begin(), bits_.end()}; }
  std::vector<Boolean> to_bits_be() const { return {bits_.rbegin(), bits_.rend()}; }

  // One public input holding the value (64 bits fit one chunk): 1 input, 1 constraint.
  template <ConstraintSystem CS>
  void pack_into_input(CS& cs) const {
    pack_into_inputs(cs, std::span<const Boolean>(bits_));
  }

 private:
  std::array<Boolean, 64> bits_;
  std::optional<uint64_t> value_;
};

}  // namespace cuzk::gadgets
