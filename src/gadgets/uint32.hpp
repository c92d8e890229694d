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
  // A word with a known value whose bit i is a constant where `constant_mask` has it, else the
  // variable var_of(i), read negated (a Not view) where `not_mask` has it: what values-only
  // gadgets (sha256_witness.hpp) produce. The bits are stored in place (set_allocated), not built
  // as temporaries and copied, for the store-forwarding reason given at xor_values_only.
  template <class VarOf>
  static UInt32 from_packed(uint32_t value, uint32_t constant_mask, uint32_t not_mask, VarOf&& var_of) {
    UInt32 r(Bits{}, value);
    for (size_t i = 0; i < 32; ++i) {
      const bool v = ((value >> i) & 1) != 0;
      if ((constant_mask >> i) & 1) {
        if (v) r.bits_[i] = Boolean::constant(true);  // the default is constant false
      } else {
        const bool neg = ((not_mask >> i) & 1) != 0;
        r.bits_[i].set_allocated(var_of(i), v != neg, neg);
      }
    }
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
    if constexpr (!r1cs::kCsReadsLinearCombinations<CS>) {
      if (value_ && other.value_) return xor_values_only(cs, other);
    }
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
    if constexpr (!r1cs::kCsReadsLinearCombinations<CS>) {
      if (v) return ch_maj_values_only(cs, a, b, c, *v, /*maj=*/false);
    }
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
    if constexpr (!r1cs::kCsReadsLinearCombinations<CS>) {
      if (v) return ch_maj_values_only(cs, a, b, c, *v, /*maj=*/true);
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
    // The packed sums are built only for a backend that reads them: under WitnessCS they were
    // most of the gadget's cost (one Fr doubling per bit here, one Fr multiplication per term when
    // MultiEq shifts them into its batch).
    constexpr bool kLc = r1cs::kCsReadsLinearCombinations<CS>;
    LC lhs;
    for (const UInt32& op : operands) {
      known = known && op.value_.has_value();
      if (known) sum += *op.value_;
      if constexpr (kLc) {
        Fr coeff = Fr::one();
        for (const Boolean& bit : op.bits_) {
          bit.add_to_lc(lhs, CS::one(), coeff);
          all_constants = all_constants && bit.is_constant();
          coeff = coeff + coeff;
        }
      } else {
        for (const Boolean& bit : op.bits_) all_constants = all_constants && bit.is_constant();
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
      if constexpr (!kLc) {
        if (known) {  // values only: the result bit in place (see Boolean::set_allocated)
          const bool bit = ((sum >> i) & 1) != 0;
          const Variable v = alloc_bit_value(cs, bit, "boolean");
          if (i < 32) r.bits_[i].set_allocated(v, bit, false);
          continue;
        }
      }
      AllocatedBit b = AllocatedBit::alloc(cs, known ? std::optional<bool>((sum >> i) & 1) : std::nullopt);
      if constexpr (kLc) {
        rhs.add(coeff, b.var);
        coeff = coeff + coeff;
      }
      if (i < 32) r.bits_[i] = b;
    }
    cs.enforce_equal(i, lhs, rhs);
    return r;
  }

 private:
  struct Bits {};
  UInt32(Bits, std::optional<uint32_t> value) : value_(value) {}

  // The values-only forms of xor_, sha256_ch and sha256_maj, for a backend whose enforce() is a
  // no-op (WitnessCS): the same aux variables in the same order with the same values as the
  // bit-by-bit Boolean calls, computed from the known words instead of through Boolean's folding
  // recursion and optional<bool> lifts (which cost ~25 ns per bit, most of the SHA-256 witness).
  // A bit pair or triple with a constant in it still goes through Boolean, whose folding decides
  // whether anything is allocated; those are rare outside the IV and padding.
  //
  // Bit i's "flip" is 1 when the Boolean is Not(v): the allocated bit v holds the effective value
  // xor flip.
  uint32_t constant_mask() const {
    uint32_t m = 0;
    for (size_t i = 0; i < 32; ++i) m |= uint32_t{bits_[i].is_constant()} << i;
    return m;
  }
  uint32_t not_mask() const {
    uint32_t m = 0;
    for (size_t i = 0; i < 32; ++i) m |= uint32_t{bits_[i].kind() == Boolean::Kind::Not} << i;
    return m;
  }
  template <ConstraintSystem CS>
  static Variable alloc_bit_value(CS& cs, bool underlying, const char* name) {
    return cs.alloc([name] { return name; }, [underlying] { return fr_from_bool(underlying); });
  }

  // Two non-constant bits x, y: Boolean::xor_ allocates x.bit ^ y.bit (whatever the kinds) and
  // returns it negated when exactly one of them is a Not.
  template <ConstraintSystem CS>
  UInt32 xor_values_only(CS& cs, const UInt32& other) const {
    const uint32_t value = *value_ ^ *other.value_;
    UInt32 r(Bits{}, value);
    const uint32_t either_constant = constant_mask() | other.constant_mask();
    const uint32_t result_not = not_mask() ^ other.not_mask();
    for (size_t i = 0; i < 32; ++i) {
      if ((either_constant >> i) & 1) {
        r.bits_[i] = Boolean::xor_(cs, bits_[i], other.bits_[i]);
      } else {
        const bool neg = (result_not >> i) & 1;
        const bool underlying = (((value >> i) & 1) != 0) != neg;
        r.bits_[i].set_allocated(alloc_bit_value(cs, underlying, "xor result"), underlying, neg);
      }
    }
    return r;
  }

  // Three non-constant bits: sha256_ch allocates "ch" (the effective value); sha256_maj allocates
  // "maj", then b & c (Boolean::and_ allocates the effective b & c for every kind pair: and,
  // and_not either way round, nor).
  template <ConstraintSystem CS>
  static UInt32 ch_maj_values_only(CS& cs, const UInt32& a, const UInt32& b, const UInt32& c, uint32_t value,
                                   bool maj) {
    UInt32 r(Bits{}, value);
    const uint32_t any_constant = a.constant_mask() | b.constant_mask() | c.constant_mask();
    const uint32_t bc = *b.value_ & *c.value_;
    for (size_t i = 0; i < 32; ++i) {
      if ((any_constant >> i) & 1) {
        r.bits_[i] = maj ? Boolean::sha256_maj(cs, a.bits_[i], b.bits_[i], c.bits_[i])
                         : Boolean::sha256_ch(cs, a.bits_[i], b.bits_[i], c.bits_[i]);
        continue;
      }
      const bool bit = ((value >> i) & 1) != 0;
      r.bits_[i].set_allocated(alloc_bit_value(cs, bit, maj ? "maj" : "ch"), bit, false);
      if (maj) alloc_bit_value(cs, ((bc >> i) & 1) != 0, "and result");
    }
    return r;
  }

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
