#pragma once
// Insertion of a number into a sequence at a position given by bits, and selection by bits
// (storage-proofs-core src/gadgets/insertion.rs): the Merkle path gadget places the current node
// among its siblings this way, so the order of picks and their shapes are part of the PoR R1CS.
//
// Costs, which the reference's tests assert: insert into 2 / 4 / 8 slots = 2 / 8 / 22 constraints
// (the hand-optimised tables), any other power of two = size·(size−1); select from n = n−1.
#include <bit>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "gadgets/num.hpp"

namespace cuzk::gadgets {

// cond ? a : b as a new number "pick result": (b − a) · cond = b − c.
template <ConstraintSystem CS>
AllocatedNum pick(CS& cs, const Boolean& cond, const AllocatedNum& a, const AllocatedNum& b) {
  std::optional<Fr> v;
  if (const std::optional<bool> c = cond.value()) v = *c ? a.value() : b.value();
  AllocatedNum c;
  {
    auto ns = cs.namespace_([] { return "pick result"; });
    c = AllocatedNum::alloc(cs, v);
  }
  cs.enforce([] { return "pick"; }, [&](LC lc) { return lc + b.var() - a.var(); },
             [&](LC) { return cond.lc(CS::one(), Fr::one()); }, [&](LC lc) { return lc + b.var() - c.var(); });
  return c;
}

namespace detail {

template <ConstraintSystem CS, class NameFn>
AllocatedNum named_pick(CS& cs, NameFn&& name, const Boolean& cond, const AllocatedNum& a, const AllocatedNum& b) {
  auto ns = cs.namespace_(std::forward<NameFn>(name));
  return pick(cs, cond, a, b);
}

inline void check_insert_shape(size_t slots, size_t bits, size_t elements) {
  if (elements + 1 != slots || bits != static_cast<size_t>(std::countr_zero(slots))) {
    throw std::invalid_argument("insert into " + std::to_string(slots) + " slots needs " + std::to_string(slots - 1) +
                                " elements and " + std::to_string(std::countr_zero(slots)) + " bits; got " +
                                std::to_string(elements) + " and " + std::to_string(bits));
  }
}

inline const AllocatedBit& allocated_unnegated(const Boolean& b, const char* what) {
  if (b.kind() != Boolean::Kind::Is) {
    throw std::invalid_argument(std::string("insert_8: ") + what + " must be an allocated, unnegated bit");
  }
  return b.bit();
}

}  // namespace detail

// The element selected by `bits` (least significant first) out of from (a power of two in size):
// a binary mux tree, consuming the most significant bit first ("pick i, j").
template <ConstraintSystem CS>
AllocatedNum select(CS& cs, std::span<const AllocatedNum> from, std::span<const Boolean> bits) {
  if (from.size() != (size_t{1} << bits.size())) {
    throw std::invalid_argument("select: " + std::to_string(from.size()) + " elements for " +
                                std::to_string(bits.size()) + " bits (need 2^bits)");
  }
  std::vector<AllocatedNum> state(from.begin(), from.end());
  size_t half = from.size() / 2;
  for (size_t i = 0; i < bits.size(); ++i) {
    const Boolean& bit = bits[bits.size() - 1 - i];
    std::vector<AllocatedNum> next;
    next.reserve(half);
    for (size_t j = 0; j < half; ++j) {
      next.push_back(detail::named_pick(
          cs, [&] { return "pick " + std::to_string(i) + ", " + std::to_string(j); }, bit, state[half + j], state[j]));
    }
    state = std::move(next);
    half /= 2;
  }
  return state.front();
}

// [x, e0] if bit is 0, [e0, x] if it is 1.
template <ConstraintSystem CS>
std::vector<AllocatedNum> insert_2(CS& cs, const AllocatedNum& x, std::span<const Boolean> bits,
                                   std::span<const AllocatedNum> e) {
  detail::check_insert_shape(2, bits.size(), e.size());
  std::vector<AllocatedNum> out;
  out.push_back(detail::named_pick(
      cs, [] { return "binary insert 0"; }, bits[0], e[0], x));
  out.push_back(detail::named_pick(
      cs, [] { return "binary insert 1"; }, bits[0], x, e[0]));
  return out;
}

// x at position b0 + 2·b1 among e0, e1, e2: two picks per output position, in the reference's
// order (p0_x0, p0, p1_x0, p1, p2_x1, p2, p3_x1, p3).
template <ConstraintSystem CS>
std::vector<AllocatedNum> insert_4(CS& cs, const AllocatedNum& x, std::span<const Boolean> bits,
                                   std::span<const AllocatedNum> e) {
  detail::check_insert_shape(4, bits.size(), e.size());
  const Boolean &b0 = bits[0], &b1 = bits[1];
  const AllocatedNum &a = x, &b = e[0], &c = e[1], &d = e[2];
  auto p = [&](const char* name, const Boolean& cond, const AllocatedNum& t, const AllocatedNum& f) {
    return detail::named_pick(
        cs, [name] { return name; }, cond, t, f);
  };
  const AllocatedNum p0_x0 = p("p0_x0", b0, b, a);
  const AllocatedNum p0 = p("p0", b1, b, p0_x0);
  const AllocatedNum p1_x0 = p("p1_x0", b0, a, b);
  const AllocatedNum p1 = p("p1", b1, c, p1_x0);
  const AllocatedNum p2_x1 = p("p2_x1", b0, d, a);
  const AllocatedNum p2 = p("p2", b1, p2_x1, c);
  const AllocatedNum p3_x1 = p("p3_x1", b0, a, d);
  const AllocatedNum p3 = p("p3", b1, p3_x1, d);
  return {p0, p1, p2, p3};
}

// x at position b0 + 2·b1 + 4·b2 among e0..e6: "b0 nor b1" and "b0 and b1" first, then 20 picks
// (p0: 2, p1: 3, p2: 3, p3: 2, p4: 2, p5: 3, p6: 3, p7: 2), as the reference's table.
template <ConstraintSystem CS>
std::vector<AllocatedNum> insert_8(CS& cs, const AllocatedNum& x, std::span<const Boolean> bits,
                                   std::span<const AllocatedNum> e) {
  detail::check_insert_shape(8, bits.size(), e.size());
  const Boolean &b0 = bits[0], &b1 = bits[1], &b2 = bits[2];
  const AllocatedBit& ab0 = detail::allocated_unnegated(b0, "bit 0");
  const AllocatedBit& ab1 = detail::allocated_unnegated(b1, "bit 1");
  Boolean nor01, and01;
  {
    auto ns = cs.namespace_([] { return "b0 nor b1"; });
    nor01 = AllocatedBit::nor(cs, ab0, ab1);
  }
  {
    auto ns = cs.namespace_([] { return "b0 and b1"; });
    and01 = AllocatedBit::and_(cs, ab0, ab1);
  }
  const AllocatedNum &a = x, &b = e[0], &c = e[1], &d = e[2], &ee = e[3], &f = e[4], &g = e[5], &h = e[6];
  auto p = [&](const char* name, const Boolean& cond, const AllocatedNum& t, const AllocatedNum& fl) {
    return detail::named_pick(
        cs, [name] { return name; }, cond, t, fl);
  };
  const AllocatedNum p0_xx0 = p("p0_xx0", nor01, a, b);
  const AllocatedNum p0 = p("p0", b2, b, p0_xx0);

  const AllocatedNum p1_x00 = p("p1_x00", b0, a, b);
  const AllocatedNum p1_xx0 = p("p1_xx0", b1, c, p1_x00);
  const AllocatedNum p1 = p("p1", b2, c, p1_xx0);

  const AllocatedNum p2_x10 = p("p2_x10", b0, d, a);
  const AllocatedNum p2_xx0 = p("p2_xx0", b1, p2_x10, c);
  const AllocatedNum p2 = p("p2", b2, d, p2_xx0);

  const AllocatedNum p3_xx0 = p("p3_xx0", and01, a, d);
  const AllocatedNum p3 = p("p3", b2, ee, p3_xx0);

  const AllocatedNum p4_xx1 = p("p4_xx1", nor01, a, f);
  const AllocatedNum p4 = p("p4", b2, p4_xx1, ee);

  const AllocatedNum p5_x01 = p("p5_x01", b0, a, f);
  const AllocatedNum p5_xx1 = p("p5_xx1", b1, g, p5_x01);
  const AllocatedNum p5 = p("p5", b2, p5_xx1, f);

  const AllocatedNum p6_x11 = p("p6_x11", b0, h, a);
  const AllocatedNum p6_xx1 = p("p6_xx1", b1, p6_x11, g);
  const AllocatedNum p6 = p("p6", b2, p6_xx1, g);

  const AllocatedNum p7_xx1 = p("p7_xx1", and01, a, h);
  const AllocatedNum p7 = p("p7", b2, p7_xx1, h);
  return {p0, p1, p2, p3, p4, p5, p6, p7};
}

// x inserted at the position given by bits (least significant first) into elements, whose size
// plus one must be 2^bits. Sizes 2, 4 and 8 use the tables above; others select each output
// position from its column of candidates ("choice at pos").
template <ConstraintSystem CS>
std::vector<AllocatedNum> insert(CS& cs, const AllocatedNum& x, std::span<const Boolean> bits,
                                 std::span<const AllocatedNum> elements) {
  const size_t size = elements.size() + 1;
  if (size != (size_t{1} << bits.size())) {
    throw std::invalid_argument("insert: " + std::to_string(elements.size()) + " elements + 1 is not 2^" +
                                std::to_string(bits.size()));
  }
  if (size == 2) return insert_2(cs, x, bits, elements);
  if (size == 4) return insert_4(cs, x, bits, elements);
  if (size == 8) return insert_8(cs, x, bits, elements);
  std::vector<AllocatedNum> out;
  out.reserve(size);
  for (size_t pos = 0; pos < size; ++pos) {
    // Column pos of the table "result when the index is i": x at i, the elements around it.
    std::vector<AllocatedNum> choices;
    choices.reserve(size);
    for (size_t index = 0; index < size; ++index) {
      choices.push_back(pos < index ? elements[pos] : pos == index ? x : elements[pos - 1]);
    }
    auto ns = cs.namespace_([&] { return "choice at " + std::to_string(pos); });
    out.push_back(select(cs, std::span<const AllocatedNum>(choices), bits));
  }
  return out;
}

}  // namespace cuzk::gadgets
