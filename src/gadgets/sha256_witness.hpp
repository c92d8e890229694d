#pragma once
// The values-only SHA-256 compression: what sha256_compression_function does under a backend
// that never reads constraints (WitnessCS), computed on packed words.
//
// Under such a backend the gadget's only observable effects are the aux values it appends, in
// order, and the Booleans it returns. This file reproduces exactly those: every allocation of the
// bit-level gadget (uint32.hpp, boolean.hpp) with the same value at the same position, and output
// words whose bits name the same variables. A word is a few machine words (value, masks, and its
// variables as an affine run; see Word) instead of 32 Booleans of 16 bytes each; xor, rotations
// and additions are word operations, and the aux values are appended in runs. Constant folding
// is decided with bit masks; a ch/maj bit with a constant operand (IV and padding) folds per bit
// in Boolean's own case order, since which of and/and-not/nor it allocates depends on the kinds.
//
// The bit-level gadget stays the definition: tests compare the full assignment of this path with
// TestCS's, variable by variable (tests/test_gadgets.cpp).
#include <array>
#include <bit>
#include <cstdint>
#include <span>
#include <vector>

#include "gadgets/uint32.hpp"

namespace cuzk::gadgets::sha256_witness {

using r1cs::Variable;

// A variable as one 32-bit word (bit 31: input, else aux), so that storing and copying it is one
// plain 4-byte move.
inline uint32_t pack_var(Variable v) {
  return v.index() | (v.is_input() ? 0x80000000u : 0u);
}
inline Variable unpack_var(uint32_t p) {
  return (p & 0x80000000u) != 0 ? Variable::input(p & 0x7fffffffu) : Variable::aux(p);
}

// UInt32 in packed form. Bit i is a constant when `constant` has it (its value is bit i of
// `value`), else the variable var(i), negated (a Not view) when `negated` has it. `value` is
// always the effective value. var(i) of a constant bit is meaningless and never read.
//
// Almost every word of the compression is a run of consecutive fresh variables (an addition's
// result bits, a ch, every other variable of a maj run), possibly rotated or shifted, so the
// variables are kept as an affine map var(i) = base + step * ((i + rot) mod 32) and a rotation
// only changes `rot`; only the few words that mix two sources (an xor with a shifted word's
// constant high bits, the IV-dependent bits of the first rounds, unordered input bits) hold an
// explicit table. Copies skip the table unless it is in use: copying Words (operands of the
// deferred additions) was a large part of the witness time when every Word carried 32 ids.
struct Word {
  uint32_t value = 0;
  uint32_t constant = 0;
  uint32_t negated = 0;
  uint32_t base = 0;
  uint32_t step = 1;  // modulo 2^32, so a descending run has step ~0u
  uint32_t rot = 0;
  bool is_table = false;
  std::array<uint32_t, 32> table;  // read only when is_table; deliberately not zero-filled

  Word() = default;
  Word(const Word& o) { *this = o; }
  Word& operator=(const Word& o) {
    value = o.value;
    constant = o.constant;
    negated = o.negated;
    base = o.base;
    step = o.step;
    rot = o.rot;
    is_table = o.is_table;
    if (o.is_table) table = o.table;
    return *this;
  }

  uint32_t var(size_t i) const { return is_table ? table[i] : base + step * ((static_cast<uint32_t>(i) + rot) & 31u); }
  void set_run(uint32_t first, uint32_t stride) {
    base = first;
    step = stride;
    rot = 0;
    is_table = false;
  }
  // Switches to the table form, keeping the current variables.
  void to_table() {
    if (is_table) return;
    for (size_t i = 0; i < 32; ++i) table[i] = var(i);
    is_table = true;
  }
  // Back to the affine form when the table is one (an input word's bits usually are).
  void compact() {
    if (!is_table || constant != 0) return;
    const uint32_t b = table[0], st = table[1] - table[0];
    for (uint32_t i = 0; i < 32; ++i) {
      if (table[i] != b + st * i) return;
    }
    set_run(b, st);
  }
};

inline bool bit(uint32_t m, size_t i) {
  return ((m >> i) & 1) != 0;
}

// Requires the table form.
inline void set_from_boolean(Word& w, size_t i, const Boolean& b) {
  const uint32_t m = uint32_t{1} << i;
  w.value = (w.value & ~m) | (b.value().value() ? m : 0);
  w.constant &= ~m;
  w.negated &= ~m;
  if (b.is_constant()) {
    w.constant |= m;
  } else {
    if (b.kind() == Boolean::Kind::Not) w.negated |= m;
    w.table[i] = pack_var(b.bit().var);
  }
}

inline Word from_uint32(const UInt32& u) {
  Word w;
  w.value = *u.value();
  w.is_table = true;
  for (size_t i = 0; i < 32; ++i) set_from_boolean(w, i, u.bits()[i]);
  w.compact();
  return w;
}

inline UInt32 to_uint32(const Word& w) {
  return UInt32::from_packed(w.value, w.constant, w.negated, [&w](size_t i) { return unpack_var(w.var(i)); });
}

inline Word constant_word(uint32_t v) {
  Word w;
  w.value = v;
  w.constant = ~uint32_t{0};
  return w;
}

inline Word rotr(const Word& w, int by) {
  Word r = w;
  r.value = std::rotr(w.value, by);
  r.constant = std::rotr(w.constant, by);
  r.negated = std::rotr(w.negated, by);
  if (w.is_table) {
    for (size_t i = 0; i < 32; ++i) r.table[i] = w.table[(i + static_cast<size_t>(by)) % 32];
  } else {
    r.rot = (w.rot + static_cast<uint32_t>(by)) & 31u;
  }
  return r;
}

// The vacated high bits are constant false; below them, bit i is w's bit i + by, which for the
// affine form is the rotation by `by`.
inline Word shr(const Word& w, int by) {
  Word r = rotr(w, by);
  r.value = w.value >> by;
  r.constant = (w.constant >> by) | ~(~uint32_t{0} >> by);
  r.negated = w.negated >> by;
  return r;
}

template <class CS>
uint32_t alloc_bit(CS& cs, bool value) {
  return pack_var(cs.alloc([] { return "boolean"; }, [value] { return fr_from_bool(value); }));
}

// Allocates n <= 64 bits (bit k of `bits`) as consecutive aux variables and returns the packed
// variable of the first; the k-th is first + k. In one call where the backend offers it
// (AssignmentCS::alloc_aux_bits), else one alloc each.
template <class CS>
uint32_t alloc_bits(CS& cs, uint64_t bits, size_t n) {
  if constexpr (requires { cs.alloc_aux_bits(bits, n); }) {
    return cs.alloc_aux_bits(bits, n);
  } else {
    uint32_t first = 0;
    for (size_t k = 0; k < n; ++k) {
      const uint32_t v = alloc_bit(cs, ((bits >> k) & 1) != 0);
      if (k == 0) first = v;
    }
    return first;
  }
}

// Boolean::xor_ per bit: two constants fold to a constant; one constant passes the other bit on,
// negated when the constant is true; two variables allocate their underlying xor, and the result
// is a Not view when exactly one of them was.
template <class CS>
Word xor_(CS& cs, const Word& x, const Word& y) {
  Word r;
  r.value = x.value ^ y.value;
  r.constant = x.constant & y.constant;
  const uint32_t only_x_const = x.constant & ~y.constant;
  const uint32_t only_y_const = y.constant & ~x.constant;
  const uint32_t alloc = ~(x.constant | y.constant);
  r.negated = (alloc & (x.negated ^ y.negated)) | (only_x_const & (y.negated ^ x.value)) |
              (only_y_const & (x.negated ^ y.value));
  // The allocated bits, in ascending position, packed into one run. Outside the IV and padding
  // they are the low bits (all 32, or those below a shr's constant high bits): a mask away.
  const uint32_t underlying = r.value ^ r.negated;
  uint64_t run = 0;
  size_t n = 0;
  if (alloc == ~uint32_t{0}) {
    run = underlying;
    n = 32;
  } else if ((alloc & (alloc + 1)) == 0) {
    run = underlying & alloc;
    n = static_cast<size_t>(std::popcount(alloc));
  } else {
    for (uint32_t m = alloc; m != 0; m &= m - 1, ++n) run |= uint64_t{bit(underlying, std::countr_zero(m))} << n;
  }
  uint32_t next = alloc_bits(cs, run, n);
  if ((alloc & (alloc + 1)) == 0 && (only_x_const | only_y_const) == 0) {
    r.set_run(next, 1);  // the other bits are constants
    return r;
  }
  r.is_table = true;
  for (size_t i = 0; i < 32; ++i) {
    if (bit(alloc, i)) {
      r.table[i] = next++;
    } else if (bit(only_x_const, i)) {
      r.table[i] = y.var(i);
    } else if (bit(only_y_const, i)) {
      r.table[i] = x.var(i);
    }
  }
  return r;
}

// One bit of a Word as a Boolean, without building one: a constant (`value`), or the variable
// `var` read directly or negated (a Not view; `value` is then the effective value).
struct BitOp {
  bool is_constant = true;
  bool value = false;
  bool negated = false;
  uint32_t var = 0;
};

inline BitOp bit_op(const Word& w, size_t i) {
  if (bit(w.constant, i)) return {true, bit(w.value, i), false, 0};
  return {false, bit(w.value, i), bit(w.negated, i), w.var(i)};
}

inline BitOp not_op(BitOp o) {
  o.value = !o.value;
  if (!o.is_constant) o.negated = !o.negated;
  return o;
}

inline bool is_constant_op(const BitOp& o, bool v) {
  return o.is_constant && o.value == v;
}

// Boolean::and_: false absorbs, true passes the other operand on; two variables allocate their
// effective conjunction (and, and-not or nor: the allocated value is the same), read directly.
template <class CS>
BitOp and_op(CS& cs, const BitOp& x, const BitOp& y) {
  if (is_constant_op(x, false) || is_constant_op(y, false)) return {};
  if (x.is_constant) return y;
  if (y.is_constant) return x;
  const bool v = x.value && y.value;
  return {false, v, false, alloc_bit(cs, v)};
}

// Boolean::sha256_ch and sha256_maj for one bit, case by case in their order.
template <class CS>
BitOp ch_op(CS& cs, const BitOp& a, const BitOp& b, const BitOp& c) {
  const bool v = (a.value && b.value) != (!a.value && c.value);
  if (a.is_constant && b.is_constant && c.is_constant) return {true, v, false, 0};
  if (is_constant_op(a, false)) return c;
  if (is_constant_op(b, false)) return and_op(cs, not_op(a), c);
  if (is_constant_op(c, false)) return and_op(cs, a, b);
  if (is_constant_op(c, true)) return not_op(and_op(cs, a, not_op(b)));
  if (is_constant_op(b, true)) return not_op(and_op(cs, not_op(a), not_op(c)));
  return {false, v, false, alloc_bit(cs, v)};
}

template <class CS>
BitOp maj_op(CS& cs, const BitOp& a, const BitOp& b, const BitOp& c) {
  const bool v = ((a.value && b.value) != (a.value && c.value)) != (b.value && c.value);
  if (a.is_constant && b.is_constant && c.is_constant) return {true, v, false, 0};
  if (is_constant_op(a, false)) return and_op(cs, b, c);
  if (is_constant_op(b, false)) return and_op(cs, a, c);
  if (is_constant_op(c, false)) return and_op(cs, a, b);
  if (is_constant_op(c, true)) return not_op(and_op(cs, not_op(a), not_op(b)));
  if (is_constant_op(b, true)) return not_op(and_op(cs, not_op(a), not_op(c)));
  if (is_constant_op(a, true)) return not_op(and_op(cs, not_op(b), not_op(c)));
  const BitOp r{false, v, false, alloc_bit(cs, v)};
  alloc_bit(cs, b.value && c.value);  // "b and c"
  return r;
}

// Boolean::sha256_ch / sha256_maj on words: three variables allocate ch (resp. maj, then b & c,
// whose and/and-not/nor form always holds the effective b & c); bits with a constant operand
// (the IV's, in the first rounds) fold bit by bit as Boolean does.
template <class CS>
Word ch_maj(CS& cs, const Word& a, const Word& b, const Word& c, bool maj) {
  Word r;
  r.value = maj ? (a.value & b.value) ^ (a.value & c.value) ^ (b.value & c.value)
                : (a.value & b.value) ^ (~a.value & c.value);
  const uint32_t all_var = ~(a.constant | b.constant | c.constant);
  const uint32_t bc = b.value & c.value;
  if (all_var == ~uint32_t{0}) {  // the usual case: one run (maj: maj_i and bc_i interleaved)
    if (!maj) {
      r.set_run(alloc_bits(cs, r.value, 32), 1);
    } else {
      uint64_t run = 0;
      for (size_t i = 0; i < 32; ++i) {
        run |= uint64_t{bit(r.value, i)} << (2 * i) | uint64_t{bit(bc, i)} << (2 * i + 1);
      }
      r.set_run(alloc_bits(cs, run, 64), 2);
    }
    return r;
  }
  r.is_table = true;
  for (size_t i = 0; i < 32; ++i) {
    const BitOp ba = bit_op(a, i), bb = bit_op(b, i), bcb = bit_op(c, i);
    const BitOp o = maj ? maj_op(cs, ba, bb, bcb) : ch_op(cs, ba, bb, bcb);
    const uint32_t m = uint32_t{1} << i;
    if (o.is_constant) r.constant |= m;
    if (o.negated) r.negated |= m;
    r.table[i] = o.var;
  }
  return r;
}

// The operands of an addition as far as UInt32::addmany's result depends on them: the exact
// integer sum, which bits are constant in every operand, and how many there are (the result
// width). Deferred additions keep only this, not the operand words.
struct Sum {
  uint64_t value = 0;
  uint32_t all_constant = ~uint32_t{0};
  uint64_t n = 0;

  Sum& add(const Word& w) {
    value += w.value;
    all_constant &= w.constant;
    ++n;
    return *this;
  }
  Sum& add_constant(uint32_t v) {
    value += v;
    ++n;
    return *this;
  }
};

// UInt32::addmany: all-constant operands fold to a constant; otherwise bitlen(n * (2^32 - 1))
// result bits are allocated and the low 32 are the word.
template <class CS>
Word addmany(CS& cs, const Sum& ops) {
  if (ops.all_constant == ~uint32_t{0}) return constant_word(static_cast<uint32_t>(ops.value));
  Word r;
  r.value = static_cast<uint32_t>(ops.value);
  const size_t nbits = static_cast<size_t>(std::bit_width(ops.n * uint64_t{0xFFFFFFFFu}));
  r.set_run(alloc_bits(cs, ops.value, nbits), 1);
  return r;
}

// bellperson's Maybe: a word, or an addition not yet computed (a's has 7 operands, e's 6, and
// the final h0 / h4 sums add one more).
struct Deferred {
  bool pending = false;
  Word concrete;
  Sum sum;

  template <class CS>
  Word compute(CS& cs) const {
    return pending ? addmany(cs, sum) : concrete;
  }
};

// Whether every value the compression needs is known (the values-only path requires it; without
// them the bit-level path reports the missing assignment).
inline bool all_values_known(std::span<const Boolean> input, std::span<const UInt32> current) {
  for (const Boolean& b : input) {
    if (!b.value()) return false;
  }
  for (const UInt32& u : current) {
    if (!u.value()) return false;
  }
  return true;
}

// sha256_compression_function for a backend whose enforce() is a no-op, in the same order of
// allocations (see sha256.hpp for that order).
template <class CS>
std::vector<UInt32> compression_function(CS& cs, std::span<const Boolean> input, std::span<const UInt32> current,
                                         const std::array<uint32_t, 64>& round_constants) {
  std::array<Word, 64> w;
  for (size_t i = 0; i < 16; ++i) {
    Word& wi = w[i];
    wi.is_table = true;
    for (size_t j = 0; j < 32; ++j) set_from_boolean(wi, j, input[32 * i + 31 - j]);
    wi.compact();
  }
  for (size_t i = 16; i < 64; ++i) {
    const Word s0 = xor_(cs, xor_(cs, rotr(w[i - 15], 7), rotr(w[i - 15], 18)), shr(w[i - 15], 3));
    const Word s1 = xor_(cs, xor_(cs, rotr(w[i - 2], 17), rotr(w[i - 2], 19)), shr(w[i - 2], 10));
    w[i] = addmany(cs, Sum().add(w[i - 16]).add(s0).add(w[i - 7]).add(s1));
  }

  std::array<Word, 8> cur;
  for (size_t k = 0; k < 8; ++k) cur[k] = from_uint32(current[k]);
  Deferred a, e;
  a.concrete = cur[0];
  e.concrete = cur[4];
  Word b = cur[1], c = cur[2], d = cur[3], f = cur[5], g = cur[6], h = cur[7];

  for (size_t i = 0; i < 64; ++i) {
    const Word new_e = e.compute(cs);
    const Word s1 = xor_(cs, xor_(cs, rotr(new_e, 6), rotr(new_e, 11)), rotr(new_e, 25));
    const Word ch = ch_maj(cs, new_e, f, g, /*maj=*/false);
    const Word new_a = a.compute(cs);
    const Word s0 = xor_(cs, xor_(cs, rotr(new_a, 2), rotr(new_a, 13)), rotr(new_a, 22));
    const Word maj = ch_maj(cs, new_a, b, c, /*maj=*/true);

    // temp1 = h + S1 + ch + k[i] + w[i]; e = temp1 + d; a = temp1 + S0 + maj.
    Sum temp1;
    temp1.add(h).add(s1).add(ch).add_constant(round_constants[i]).add(w[i]);
    e.sum = temp1;
    e.sum.add(d);
    e.pending = true;
    a.sum = temp1;
    a.sum.add(s0).add(maj);
    a.pending = true;
    h = g;
    g = f;
    f = new_e;
    d = c;
    c = b;
    b = new_a;
  }

  auto add2 = [&](const Word& x, const Word& y) { return addmany(cs, Sum().add(x).add(y)); };
  std::vector<UInt32> out;
  out.reserve(8);
  a.sum.add(cur[0]);
  out.push_back(to_uint32(a.compute(cs)));
  out.push_back(to_uint32(add2(cur[1], b)));
  out.push_back(to_uint32(add2(cur[2], c)));
  out.push_back(to_uint32(add2(cur[3], d)));
  e.sum.add(cur[4]);
  out.push_back(to_uint32(e.compute(cs)));
  out.push_back(to_uint32(add2(cur[5], f)));
  out.push_back(to_uint32(add2(cur[6], g)));
  out.push_back(to_uint32(add2(cur[7], h)));
  return out;
}

}  // namespace cuzk::gadgets::sha256_witness
