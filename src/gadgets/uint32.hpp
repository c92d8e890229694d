#pragma once
// 32-bit words in a circuit, with the R1CS of bellperson's src/gadgets/uint32.rs: 32 Booleans,
// least significant first, plus the (optional) value. Rotations and shifts only rewire bits;
// xor, ch and maj work bit by bit (constant folding included); addmany adds 2..10 words modulo
// 2^32 with its equality batched into a MultiEq.
#include <array>
#include <cassert>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "gadgets/boolean.hpp"
#include "gadgets/multieq.hpp"

namespace cuzk::gadgets {

class UInt32 {
 public:
  UInt32() : UInt32(constant(0)) {}

  static UInt32 constant(uint32_t value) {
    UInt32 r(Bits{}, value);
    for (size_t i = 0; i < 32; ++i) r.bits_[i] = Boolean::constant((value >> i) & 1);
    return r;
  }

  // 32 AllocatedBits, LSB first, each in namespace "allocated bit i".
  template <ConstraintSystem CS>
  static UInt32 alloc(CS& cs, std::optional<uint32_t> value) {
    UInt32 r(Bits{}, value);
    for (size_t i = 0; i < 32; ++i) {
      auto ns = cs.namespace_([&] { return "allocated bit " + std::to_string(i); });
      r.bits_[i] = AllocatedBit::alloc(cs, value ? std::optional<bool>((*value >> i) & 1) : std::nullopt);
    }
    return r;
  }

  const std::optional<uint32_t>& value() const { return value_; }
  const std::array<Boolean, 32>& bits() const { return bits_; }

  // Little-endian bit order (LSB first) and big-endian (MSB first), both ways.
  std::vector<Boolean> into_bits() const { return {bits_.begin(), bits_.end()}; }
  std::vector<Boolean> into_bits_be() const { return {bits_.rbegin(), bits_.rend()}; }
  static UInt32 from_bits(std::span<const Boolean> bits) {
    if (bits.size() != 32) throw std::invalid_argument("UInt32::from_bits: need 32 bits");
    UInt32 r(Bits{}, 0);
    for (size_t i = 0; i < 32; ++i) r.bits_[i] = bits[i];
    r.value_ = value_of(r.bits_);
    return r;
  }
  static UInt32 from_bits_be(std::span<const Boolean> bits) {
    if (bits.size() != 32) throw std::invalid_argument("UInt32::from_bits_be: need 32 bits");
    UInt32 r(Bits{}, 0);
    for (size_t i = 0; i < 32; ++i) r.bits_[i] = bits[31 - i];
    r.value_ = value_of(r.bits_);
    return r;
  }

  UInt32 rotr(size_t by) const {
    by %= 32;
    UInt32 r(Bits{}, value_ ? std::optional<uint32_t>(rotr32(*value_, by)) : std::nullopt);
    for (size_t i = 0; i < 32; ++i) r.bits_[i] = bits_[(i + by) % 32];
    return r;
  }
  // Vacated high bits are the constant false.
  UInt32 shr(size_t by) const {
    by %= 32;
    UInt32 r(Bits{}, value_ ? std::optional<uint32_t>(*value_ >> by) : std::nullopt);
    for (size_t i = 0; i < 32; ++i) r.bits_[i] = i + by < 32 ? bits_[i + by] : Boolean::constant(false);
    return r;
  }

  // Bitwise xor, bit i in namespace "xor of bit i".
  template <ConstraintSystem CS>
  UInt32 xor_(CS& cs, const UInt32& other) const {
    UInt32 r(Bits{}, value_ && other.value_ ? std::optional<uint32_t>(*value_ ^ *other.value_) : std::nullopt);
    for (size_t i = 0; i < 32; ++i) {
      auto ns = cs.namespace_([&] { return "xor of bit " + std::to_string(i); });
      r.bits_[i] = Boolean::xor_(cs, bits_[i], other.bits_[i]);
    }
    return r;
  }

  // Bitwise SHA-256 ch / maj, bit i in namespace "ch i" / "maj i".
  template <ConstraintSystem CS>
  static UInt32 sha256_ch(CS& cs, const UInt32& a, const UInt32& b, const UInt32& c) {
    std::optional<uint32_t> v;
    if (a.value_ && b.value_ && c.value_) v = (*a.value_ & *b.value_) ^ (~*a.value_ & *c.value_);
    UInt32 r(Bits{}, v);
    for (size_t i = 0; i < 32; ++i) {
      auto ns = cs.namespace_([&] { return "ch " + std::to_string(i); });
      r.bits_[i] = Boolean::sha256_ch(cs, a.bits_[i], b.bits_[i], c.bits_[i]);
    }
    return r;
  }
  template <ConstraintSystem CS>
  static UInt32 sha256_maj(CS& cs, const UInt32& a, const UInt32& b, const UInt32& c) {
    std::optional<uint32_t> v;
    if (a.value_ && b.value_ && c.value_) {
      v = (*a.value_ & *b.value_) ^ (*a.value_ & *c.value_) ^ (*b.value_ & *c.value_);
    }
    UInt32 r(Bits{}, v);
    for (size_t i = 0; i < 32; ++i) {
      auto ns = cs.namespace_([&] { return "maj " + std::to_string(i); });
      r.bits_[i] = Boolean::sha256_maj(cs, a.bits_[i], b.bits_[i], c.bits_[i]);
    }
    return r;
  }

  // Sum of 2..10 words modulo 2^32. If every operand bit is constant, the result is a constant
  // and nothing is allocated. Otherwise bitlen(n * (2^32 - 1)) result bits ("result bit i", each
  // an AllocatedBit) are allocated, and "sum of operand bits * 2^i = sum of result bits * 2^i" goes
  // into the MultiEq with that many bits; the carry bits beyond 32 are dropped.
  template <ConstraintSystem CS>
  static UInt32 addmany(MultiEq<CS>& cs, std::span<const UInt32> operands) {
    if (operands.size() < 2 || operands.size() > 10) throw std::invalid_argument("UInt32::addmany: 2..10 operands");
    uint64_t max_value = operands.size() * uint64_t{0xFFFFFFFFu};
    // The exact sum, meaningful only while `known` (a plain pair rather than an optional: GCC's
    // -Wmaybe-uninitialized misfires on the optional's payload here).
    uint64_t sum = 0;
    bool known = true;
    bool all_constants = true;
    LC lhs;
    for (const UInt32& op : operands) {
      known = known && op.value_.has_value();
      if (known) sum += *op.value_;
      Fr coeff = Fr::one();
      for (const Boolean& bit : op.bits_) {
        bit.add_to_lc(lhs, CS::one(), coeff);
        all_constants = all_constants && bit.is_constant();
        coeff = coeff + coeff;
      }
    }
    const std::optional<uint32_t> modular = known ? std::optional<uint32_t>(static_cast<uint32_t>(sum)) : std::nullopt;
    if (all_constants && modular) return constant(*modular);

    UInt32 r(Bits{}, modular);
    LC rhs;
    Fr coeff = Fr::one();
    size_t i = 0;
    for (; max_value != 0; ++i, max_value >>= 1) {
      auto ns = cs.namespace_([&] { return "result bit " + std::to_string(i); });
      AllocatedBit b = AllocatedBit::alloc(cs, known ? std::optional<bool>((sum >> i) & 1) : std::nullopt);
      rhs.add(coeff, b.var);
      if (i < 32) r.bits_[i] = b;
      coeff = coeff + coeff;
    }
    cs.enforce_equal(i, lhs, rhs);
    return r;
  }

 private:
  struct Bits {};
  UInt32(Bits, std::optional<uint32_t> value) : value_(value) {}

  static uint32_t rotr32(uint32_t v, size_t by) { return by == 0 ? v : (v >> by) | (v << (32 - by)); }
  static std::optional<uint32_t> value_of(const std::array<Boolean, 32>& bits) {
    uint32_t v = 0;
    for (size_t i = 0; i < 32; ++i) {
      const std::optional<bool> b = bits[i].value();
      if (!b) return std::nullopt;
      v |= uint32_t{*b} << i;
    }
    return v;
  }

  std::array<Boolean, 32> bits_;
  std::optional<uint32_t> value_;
};

}  // namespace cuzk::gadgets
