#include "ec/encoding.hpp"

#include <algorithm>
#include <string>

namespace cuzk::ec {

namespace {

constexpr uint8_t FLAG_COMPRESSED = 0x80, FLAG_INFINITY = 0x40, FLAG_SORT = 0x20;
constexpr size_t FQ_BYTES = 48;

// Coordinate codecs per field, so that the G1 and G2 paths share one implementation.
void put_be(const Fq& a, uint8_t* out) {
  a.to_bytes_be(std::span<uint8_t>(out, FQ_BYTES));
}
void put_be(const Fq2& a, uint8_t* out) {
  put_be(a.c1, out);
  put_be(a.c0, out + FQ_BYTES);
}
Result<Fq> get_be(const uint8_t* in, Fq*) {
  return Fq::from_bytes_be(std::span<const uint8_t>(in, FQ_BYTES));
}
Result<Fq2> get_be(const uint8_t* in, Fq2*) {
  auto c1 = get_be(in, static_cast<Fq*>(nullptr));
  if (!c1) return make_error(c1.error() + " (c1)");
  auto c0 = get_be(in + FQ_BYTES, static_cast<Fq*>(nullptr));
  if (!c0) return make_error(c0.error() + " (c0)");
  return Fq2(*c0, *c1);
}

void put_mont_le(const Fq& a, uint8_t* out) {
  for (size_t i = 0; i < FQ_BYTES; ++i) out[i] = static_cast<uint8_t>(a.raw()[i / 8] >> (8 * (i % 8)));
}
void put_mont_le(const Fq2& a, uint8_t* out) {
  put_mont_le(a.c0, out);
  put_mont_le(a.c1, out + FQ_BYTES);
}
Result<Fq> get_mont_le(const uint8_t* in, Fq*) {
  ff::Limbs<6> l{};
  for (size_t i = 0; i < FQ_BYTES; ++i) l[i / 8] |= static_cast<uint64_t>(in[i]) << (8 * (i % 8));
  if (!ff::less_than(l, Fq::MOD)) return make_error("Fq: Montgomery value is not reduced (>= modulus)");
  return Fq::from_raw(l);
}
Result<Fq2> get_mont_le(const uint8_t* in, Fq2*) {
  auto c0 = get_mont_le(in, static_cast<Fq*>(nullptr));
  if (!c0) return make_error(c0.error() + " (c0)");
  auto c1 = get_mont_le(in + FQ_BYTES, static_cast<Fq*>(nullptr));
  if (!c1) return make_error(c1.error() + " (c1)");
  return Fq2(*c0, *c1);
}

bool in_subgroup(const G1Affine& p) {
  return g1_in_subgroup(p);
}
bool in_subgroup(const G2Affine& p) {
  return g2_in_subgroup(p);
}

template <class C>
Result<Affine<C>> validate(Affine<C> p, SubgroupCheck check) {
  if (!p.is_on_curve()) return make_error(std::string(C::NAME) + " point is not on the curve");
  if (check == SubgroupCheck::Yes && !in_subgroup(p))
    return make_error(std::string(C::NAME) + " point is not in the prime-order subgroup");
  return p;
}

template <class C, size_t LEN>
std::array<uint8_t, LEN> to_zcash(const Affine<C>& p, bool compressed) {
  using F = typename C::Base;
  constexpr size_t coord = sizeof(F) / sizeof(Fq) * FQ_BYTES;
  std::array<uint8_t, LEN> out{};
  if (p.infinity) {
    out[0] = FLAG_INFINITY | (compressed ? FLAG_COMPRESSED : 0);
    return out;
  }
  put_be(p.x, out.data());
  if (compressed) {
    out[0] |= FLAG_COMPRESSED;
    if (p.y.is_lexicographically_largest()) out[0] |= FLAG_SORT;
  } else {
    put_be(p.y, out.data() + coord);
  }
  return out;
}

template <class C>
Result<Affine<C>> from_zcash(std::span<const uint8_t> b, bool compressed, SubgroupCheck check) {
  using F = typename C::Base;
  constexpr size_t coord = sizeof(F) / sizeof(Fq) * FQ_BYTES;
  const size_t want = compressed ? coord : 2 * coord;
  const std::string what = std::string(C::NAME) + (compressed ? " compressed" : " uncompressed");
  if (b.size() != want) {
    return make_error(what + " point: expected " + std::to_string(want) + " bytes, got " + std::to_string(b.size()));
  }
  const uint8_t flags = b[0] & 0xe0;
  if (((flags & FLAG_COMPRESSED) != 0) != compressed)
    return make_error(what + " point: compression flag (0x80) does not match the encoding length");
  std::vector<uint8_t> buf(b.begin(), b.end());
  buf[0] &= 0x1f;
  if (flags & FLAG_INFINITY) {
    if (flags & FLAG_SORT) return make_error(what + " point: infinity flag set together with the sort flag");
    if (std::any_of(buf.begin(), buf.end(), [](uint8_t c) { return c != 0; }))
      return make_error(what + " point: infinity flag set but coordinates are not zero");
    return Affine<C>();
  }
  if (!compressed && (flags & FLAG_SORT))
    return make_error(what + " point: sort flag (0x20) set on an uncompressed point");
  auto x = get_be(buf.data(), static_cast<F*>(nullptr));
  if (!x) return make_error(what + " point: x " + x.error());
  if (!compressed) {
    auto y = get_be(buf.data() + coord, static_cast<F*>(nullptr));
    if (!y) return make_error(what + " point: y " + y.error());
    return validate(Affine<C>(*x, *y), check);
  }
  auto y = (x->square() * *x + C::b()).sqrt();
  if (!y) return make_error(what + " point: x is not the abscissa of a curve point");
  if (y->is_lexicographically_largest() != ((flags & FLAG_SORT) != 0)) *y = -*y;
  return validate(Affine<C>(*x, *y), check);
}

template <class C, size_t LEN>
std::array<uint8_t, LEN> to_snarkjs(const Affine<C>& p) {
  std::array<uint8_t, LEN> out{};
  if (p.infinity) return out;
  put_mont_le(p.x, out.data());
  put_mont_le(p.y, out.data() + LEN / 2);
  return out;
}

template <class C>
Result<Affine<C>> from_snarkjs(std::span<const uint8_t> b, size_t len, SubgroupCheck check) {
  using F = typename C::Base;
  const std::string what = std::string(C::NAME) + " snarkjs point";
  if (b.size() != len) {
    return make_error(what + ": expected " + std::to_string(len) + " bytes, got " + std::to_string(b.size()));
  }
  if (std::all_of(b.begin(), b.end(), [](uint8_t c) { return c == 0; })) return Affine<C>();
  auto x = get_mont_le(b.data(), static_cast<F*>(nullptr));
  if (!x) return make_error(what + ": x " + x.error());
  auto y = get_mont_le(b.data() + len / 2, static_cast<F*>(nullptr));
  if (!y) return make_error(what + ": y " + y.error());
  return validate(Affine<C>(*x, *y), check);
}

}  // namespace

std::array<uint8_t, G1_COMPRESSED> g1_to_compressed(const G1Affine& p) {
  return to_zcash<G1Config, G1_COMPRESSED>(p, true);
}
std::array<uint8_t, G1_UNCOMPRESSED> g1_to_uncompressed(const G1Affine& p) {
  return to_zcash<G1Config, G1_UNCOMPRESSED>(p, false);
}
std::array<uint8_t, G2_COMPRESSED> g2_to_compressed(const G2Affine& p) {
  return to_zcash<G2Config, G2_COMPRESSED>(p, true);
}
std::array<uint8_t, G2_UNCOMPRESSED> g2_to_uncompressed(const G2Affine& p) {
  return to_zcash<G2Config, G2_UNCOMPRESSED>(p, false);
}

Result<G1Affine> g1_from_compressed(std::span<const uint8_t> b, SubgroupCheck c) {
  return from_zcash<G1Config>(b, true, c);
}
Result<G1Affine> g1_from_uncompressed(std::span<const uint8_t> b, SubgroupCheck c) {
  return from_zcash<G1Config>(b, false, c);
}
Result<G2Affine> g2_from_compressed(std::span<const uint8_t> b, SubgroupCheck c) {
  return from_zcash<G2Config>(b, true, c);
}
Result<G2Affine> g2_from_uncompressed(std::span<const uint8_t> b, SubgroupCheck c) {
  return from_zcash<G2Config>(b, false, c);
}

std::array<uint8_t, G1_SNARKJS> g1_to_snarkjs(const G1Affine& p) {
  return to_snarkjs<G1Config, G1_SNARKJS>(p);
}
std::array<uint8_t, G2_SNARKJS> g2_to_snarkjs(const G2Affine& p) {
  return to_snarkjs<G2Config, G2_SNARKJS>(p);
}
Result<G1Affine> g1_from_snarkjs(std::span<const uint8_t> b, SubgroupCheck c) {
  return from_snarkjs<G1Config>(b, G1_SNARKJS, c);
}
Result<G2Affine> g2_from_snarkjs(std::span<const uint8_t> b, SubgroupCheck c) {
  return from_snarkjs<G2Config>(b, G2_SNARKJS, c);
}

}  // namespace cuzk::ec
