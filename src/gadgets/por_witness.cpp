#include "gadgets/por_witness.hpp"

#include <array>
#include <bit>
#include <stdexcept>
#include <string>
#include <vector>

#include "gadgets/poseidon_witness.hpp"
#include "gadgets/poseidon_x8.hpp"

namespace cuzk::gadgets {
namespace {

// Appends the values of the picks in order; pick(cond, a, b) = cond ? a : b (insertion.hpp).
class Picks {
 public:
  explicit Picks(Fr* out) : o_(out) {}
  const Fr& pick(bool cond, const Fr& a, const Fr& b) {
    *o_ = cond ? a : b;
    return *o_++;
  }
  void bit(bool v) { *o_++ = v ? Fr::one() : Fr::zero(); }
  Fr* end() const { return o_; }

 private:
  Fr* o_;
};

// select's mux tree over `state` (a power of two in size), most significant bit first: each
// round halves it in place, so state[0] ends as state[index].
void select_values(std::vector<Fr>& state, uint64_t index, Picks& p) {
  const size_t nbits = static_cast<size_t>(std::countr_zero(state.size()));
  size_t half = state.size() / 2;
  for (size_t i = 0; i < nbits; ++i) {
    const bool bit = (index >> (nbits - 1 - i)) & 1;
    // next[j] = bit ? state[half + j] : state[j], written over state[j] (read before written).
    for (size_t j = 0; j < half; ++j) state[j] = p.pick(bit, state[half + j], state[j]);
    half /= 2;
  }
}

// insert_2 / insert_4 / insert_8 / insert (select columns), same picks in the same order.
void insert_values(size_t size, const Fr& x, uint64_t index, std::span<const Fr> e, Picks& p, Fr* children) {
  const bool b0 = index & 1, b1 = (index >> 1) & 1, b2 = (index >> 2) & 1;
  if (size == 2) {
    children[0] = p.pick(b0, e[0], x);
    children[1] = p.pick(b0, x, e[0]);
    return;
  }
  if (size == 4) {
    const Fr &a = x, &b = e[0], &c = e[1], &d = e[2];
    const Fr p0_x0 = p.pick(b0, b, a);
    children[0] = p.pick(b1, b, p0_x0);
    const Fr p1_x0 = p.pick(b0, a, b);
    children[1] = p.pick(b1, c, p1_x0);
    const Fr p2_x1 = p.pick(b0, d, a);
    children[2] = p.pick(b1, p2_x1, c);
    const Fr p3_x1 = p.pick(b0, a, d);
    children[3] = p.pick(b1, p3_x1, d);
    return;
  }
  if (size == 8) {
    const bool nor01 = !b0 && !b1, and01 = b0 && b1;
    p.bit(nor01);
    p.bit(and01);
    const Fr &a = x, &b = e[0], &c = e[1], &d = e[2], &ee = e[3], &f = e[4], &g = e[5], &h = e[6];
    const Fr p0_xx0 = p.pick(nor01, a, b);
    children[0] = p.pick(b2, b, p0_xx0);
    const Fr p1_x00 = p.pick(b0, a, b);
    const Fr p1_xx0 = p.pick(b1, c, p1_x00);
    children[1] = p.pick(b2, c, p1_xx0);
    const Fr p2_x10 = p.pick(b0, d, a);
    const Fr p2_xx0 = p.pick(b1, p2_x10, c);
    children[2] = p.pick(b2, d, p2_xx0);
    const Fr p3_xx0 = p.pick(and01, a, d);
    children[3] = p.pick(b2, ee, p3_xx0);
    const Fr p4_xx1 = p.pick(nor01, a, f);
    children[4] = p.pick(b2, p4_xx1, ee);
    const Fr p5_x01 = p.pick(b0, a, f);
    const Fr p5_xx1 = p.pick(b1, g, p5_x01);
    children[5] = p.pick(b2, p5_xx1, f);
    const Fr p6_x11 = p.pick(b0, h, a);
    const Fr p6_xx1 = p.pick(b1, p6_x11, g);
    children[6] = p.pick(b2, p6_xx1, g);
    const Fr p7_xx1 = p.pick(and01, a, h);
    children[7] = p.pick(b2, p7_xx1, h);
    return;
  }
  // Each position selected from its column of candidates (select in insertion.hpp).
  std::vector<Fr> state(size);
  for (size_t pos = 0; pos < size; ++pos) {
    for (size_t i = 0; i < size; ++i) state[i] = pos < i ? e[pos] : pos == i ? x : e[pos - 1];
    select_values(state, index, p);
    children[pos] = state[0];
  }
}

void check_level(size_t arity, size_t siblings, uint64_t index, size_t values, size_t want) {
  if (arity < 2 || arity > kPoseidonMaxArity || !std::has_single_bit(arity) || siblings + 1 != arity ||
      index >= arity || values != want) {
    throw std::invalid_argument("PoR level witness: arity " + std::to_string(arity) + ", " + std::to_string(siblings) +
                                " siblings, index " + std::to_string(index) + ", " + std::to_string(values) +
                                " values (needs " + std::to_string(want) + ")");
  }
}

}  // namespace

size_t insert_witness_len(size_t arity) {
  if (arity == 2) return 2;
  if (arity == 4) return 8;
  if (arity == 8) return 22;
  return arity * (arity - 1);
}

size_t poseidon_insert_hash_witness_len(size_t arity) {
  return insert_witness_len(arity) + poseidon_witness_len(poseidon_constants(arity));
}

size_t poseidon_por_level_witness_len(size_t arity) {
  return static_cast<size_t>(std::countr_zero(arity)) + (arity - 1) + poseidon_insert_hash_witness_len(arity);
}

Fr poseidon_por_level_witness(size_t arity, const Fr& cur, std::span<const Fr> siblings, uint64_t index,
                              std::span<Fr> out) {
  check_level(arity, siblings.size(), index, out.size(), poseidon_por_level_witness_len(arity));
  Picks p(out.data());
  const size_t nbits = static_cast<size_t>(std::countr_zero(arity));
  for (size_t j = 0; j < nbits; ++j) p.bit((index >> j) & 1);
  Fr* o = p.end();
  for (const Fr& s : siblings) *o++ = s;
  const size_t used = static_cast<size_t>(o - out.data());
  return poseidon_insert_hash_witness(arity, cur, siblings, index, out.subspan(used));
}

void poseidon_por_level_witness_x8(size_t arity, std::span<const PorLevelLane> lanes, std::span<Fr> next) {
  if (lanes.size() > 8 || next.size() != lanes.size()) {
    throw std::invalid_argument("PoR level witness x8: " + std::to_string(lanes.size()) + " lanes, " +
                                std::to_string(next.size()) + " results (1..8, one per lane)");
  }
  const size_t want = poseidon_por_level_witness_len(arity);
  const size_t nbits = static_cast<size_t>(std::countr_zero(arity));
  std::array<Fr, 8 * kPoseidonMaxArity> children;
  std::array<Fr*, 8> traces;
  for (size_t b = 0; b < lanes.size(); ++b) {
    const PorLevelLane& l = lanes[b];
    check_level(arity, l.siblings.size(), l.index, l.out.size(), want);
    Fr* o = l.out.data();
    for (size_t j = 0; j < nbits; ++j) *o++ = ((l.index >> j) & 1) ? Fr::one() : Fr::zero();
    for (const Fr& sib : l.siblings) *o++ = sib;
    Picks picks(o);
    insert_values(arity, l.cur, l.index, l.siblings, picks, &children[b * arity]);
    traces[b] = picks.end();
  }
  const PoseidonConstants& c = poseidon_constants(arity);
  const std::span<const Fr> pre(children.data(), lanes.size() * arity);
  if (!poseidon_witness_x8(c, pre, std::span<Fr* const>(traces.data(), lanes.size()), next)) {
    const size_t len = poseidon_witness_len(c);
    for (size_t b = 0; b < lanes.size(); ++b) {
      next[b] = poseidon_witness(c, pre.subspan(b * arity, arity), std::span<Fr>(traces[b], len));
    }
  }
}

Fr poseidon_insert_hash_witness(size_t arity, const Fr& cur, std::span<const Fr> siblings, uint64_t index,
                                std::span<Fr> out) {
  check_level(arity, siblings.size(), index, out.size(), poseidon_insert_hash_witness_len(arity));
  Picks picks(out.data());
  std::array<Fr, kPoseidonMaxArity> children;
  insert_values(arity, cur, index, siblings, picks, children.data());
  const size_t used = static_cast<size_t>(picks.end() - out.data());
  return poseidon_witness(poseidon_constants(arity), std::span<const Fr>(children.data(), arity), out.subspan(used));
}

Fr select_witness(std::span<const Fr> from, uint64_t index, std::span<Fr> out) {
  if (from.empty() || !std::has_single_bit(from.size()) || index >= from.size() || out.size() + 1 != from.size()) {
    throw std::invalid_argument("select witness: " + std::to_string(from.size()) + " elements, index " +
                                std::to_string(index) + ", " + std::to_string(out.size()) + " values");
  }
  Picks p(out.data());
  std::vector<Fr> state(from.begin(), from.end());
  select_values(state, index, p);
  return state[0];
}

}  // namespace cuzk::gadgets
