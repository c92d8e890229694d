#include "gadgets/poseidon_ifma.hpp"

#include <vector>

#include "ff/fr_ifma.hpp"
#include "gadgets/poseidon_tables.hpp"

#if defined(CUZK_FR_IFMA)

// GCC 12 reports its own _mm512_undefined_epi32() (inside the shift intrinsics) as (maybe-)
// uninitialised.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif

namespace cuzk::gadgets::detail {
namespace {

using namespace ff::ifma52;

// Constant v into lane `lane` of a [limb][lane] block (to_limbs52_times16).
void put_lane(uint64_t* block, size_t lane, const Fr& v) {
  uint64_t l[5];
  to_limbs52_times16(l, v);
  for (size_t i = 0; i < 5; ++i) block[i * kLanes + lane] = l[i];
}

// A dense t x t matrix for out_j = sum_i m[i][j] s_i: per row i, m[i][1..t-1] as lane constants
// (5 limb rows of 8 lanes, unused lanes 0), and the first column m[i][0] as scalars.
struct DenseTable {
  std::vector<uint64_t> rows;  // [i][limb][lane]
  std::vector<Fr> col0;
};
// Per partial round: w_hat_1..t-1 and v_1..t-1 as lane constants, and w_hat_0 as a scalar; the
// MDS and pre-sparse matrices for the full rounds.
struct Tables {
  std::vector<uint64_t> w, v;  // [round][limb][lane]
  std::vector<Fr> w0;
  DenseTable mds, pre_sparse;
};

DenseTable dense_table(const FrMatrix& m, size_t t) {
  DenseTable d;
  d.rows.assign(t * 5 * kLanes, 0);
  for (size_t i = 0; i < t; ++i) {
    d.col0.push_back(m.at(i, 0));
    for (size_t j = 1; j < t; ++j) put_lane(&d.rows[i * 5 * kLanes], j - 1, m.at(i, j));
  }
  return d;
}

Tables build_tables(const PoseidonConstants& c) {
  Tables t;
  t.w.assign(c.partial_rounds * 5 * kLanes, 0);
  t.v.assign(c.partial_rounds * 5 * kLanes, 0);
  for (size_t r = 0; r < c.partial_rounds; ++r) {
    const PoseidonSparseMatrix& m = c.sparse_matrices[r];
    t.w0.push_back(m.w_hat[0]);
    for (size_t j = 1; j < c.width; ++j) {
      put_lane(&t.w[r * 5 * kLanes], j - 1, m.w_hat[j]);
      put_lane(&t.v[r * 5 * kLanes], j - 1, m.v_rest[j - 1]);
    }
  }
  t.mds = dense_table(c.mds, c.width);
  t.pre_sparse = dense_table(c.pre_sparse_matrix, c.width);
  return t;
}

// Asked for nine times per hash (the partial rounds and eight dense mixes).
const Tables& tables_for(const PoseidonConstants& c) {
  return cached_tables<Tables>(c, build_tables);
}

// x (< 2^52 limbs, any value below 2^260) -> 5 words.
struct Wide {
  uint64_t w[5];
};

// Multiples k*p, k = 16, 8, 4, 2, 1, as 5 words: a value below 32p reduces to [0, p) by one
// conditional subtraction of each.
struct Multiples {
  Wide m[5];
};
constexpr Multiples make_multiples() {
  Multiples r{};
  for (int k = 0; k < 5; ++k) {
    const unsigned shift = 4 - k;
    uint64_t carry = 0;
    for (int i = 0; i < 4; ++i) {
      const uint64_t x = Fr::MOD[i];
      r.m[k].w[i] = (x << shift) | carry;
      carry = shift == 0 ? 0 : x >> (64 - shift);
    }
    r.m[k].w[4] = carry;
  }
  return r;
}
constexpr Multiples kMultiples = make_multiples();

bool geq(const Wide& a, const Wide& b) {
  for (int i = 4; i >= 0; --i) {
    if (a.w[i] != b.w[i]) return a.w[i] > b.w[i];
  }
  return true;
}
void sub_in_place(Wide& a, const Wide& b) {
  uint64_t borrow = 0;
  for (int i = 0; i < 5; ++i) a.w[i] = ff::subb(a.w[i], b.w[i], borrow);
}

// The value of radix-2^52 limbs l (each < 2^56, the value < 2^260) plus a scalar (< p), when the
// sum is below 32p, reduced to [0, p).
Fr reduce_wide(const uint64_t (&l)[5], const Fr& scalar) {
  using u128 = unsigned __int128;
  Wide x;
  u128 acc = l[0] + (static_cast<u128>(l[1]) << 52);
  x.w[0] = static_cast<uint64_t>(acc);
  acc >>= 64;
  acc += static_cast<u128>(l[2]) << 40;
  x.w[1] = static_cast<uint64_t>(acc);
  acc >>= 64;
  acc += static_cast<u128>(l[3]) << 28;
  x.w[2] = static_cast<uint64_t>(acc);
  acc >>= 64;
  acc += static_cast<u128>(l[4]) << 16;
  x.w[3] = static_cast<uint64_t>(acc);
  x.w[4] = static_cast<uint64_t>(acc >> 64);
  uint64_t carry = 0;
  const auto& s = scalar.raw();
  for (int i = 0; i < 4; ++i) x.w[i] = ff::addc(x.w[i], s[i], carry);
  x.w[4] += carry;
  for (const Wide& m : kMultiples.m) {
    if (geq(x, m)) sub_in_place(x, m);
  }
  return Fr::from_raw(ff::Limbs<4>{x.w[0], x.w[1], x.w[2], x.w[3]});
}

// The sum over lanes of v (each lane normalised, < 2p: 8 lanes < 16p) plus a scalar, in [0, p).
CUZK_IFMA_INLINE Fr lane_sum_plus(const V5& v, const Fr& scalar) {
  uint64_t l[5];
  for (int i = 0; i < 5; ++i) l[i] = static_cast<uint64_t>(_mm512_reduce_add_epi64(v.l[i]));  // < 2^55
  return reduce_wide(l, scalar);
}

// Lanes 0..n-1 (limbs < 2^56, each value below 32p) into dst[0..n), reduced to [0, p).
CUZK_IFMA_INLINE void store_fr_lanes(const V5& v, Fr* dst, size_t n) {
  alignas(64) uint64_t out[5 * kLanes];
  store_row(out, v);
  for (size_t j = 0; j < n; ++j) {
    const uint64_t l[5] = {out[j], out[kLanes + j], out[2 * kLanes + j], out[3 * kLanes + j], out[4 * kLanes + j]};
    dst[j] = reduce_wide(l, Fr::zero());
  }
}

CUZK_IFMA void partial_rounds(const PoseidonConstants& c, Fr* s, const Fr* k, Fr*& o) {
  const Tables& tb = tables_for(c);
  V5 rest = pack_fr(c.width - 1, [&](size_t j) { return s[1 + j]; });  // elements 1..t-1
  Fr s0 = s[0];
  for (size_t r = 0; r < c.partial_rounds; ++r) {
    const Fr l2 = s0.square(), l4 = l2.square();
    const Fr x = l4 * s0 + k[r];
    if (o != nullptr) {
      o[0] = s0;
      o[1] = l2;
      o[2] = l4;
      o[3] = x;
      o += 4;
    }
    const V5 w = load_lanes(&tb.w[r * 5 * kLanes], kLanes), v = load_lanes(&tb.v[r * 5 * kLanes], kLanes);
    const V5 sum = mont_mul(w, rest);                    // w_hat_j s_j (old s_j), each < 2p
    rest = add_red(rest, mont_mul(v, broadcast_fr(x)));  // s_j + v_j s_0
    s0 = lane_sum_plus(sum, tb.w0[r] * x);
  }
  s[0] = s0;
  store_fr_lanes(rest, s + 1, c.width - 1);
}

// s := s·m for the dense table of m: lane j - 1 sums m[i][j] s_i (t vector products, added
// without reduction: below 2tp <= 18p), column 0 on the scalar side.
CUZK_IFMA void dense_mix(const DenseTable& d, Fr* s, size_t t) {
  V5 acc;
  for (int k = 0; k < 5; ++k) acc.l[k] = _mm512_setzero_si512();
  Fr first = Fr::zero();
  for (size_t i = 0; i < t; ++i) {
    const V5 p = mont_mul(load_lanes(&d.rows[i * 5 * kLanes], kLanes), broadcast_fr(s[i]));
    for (int k = 0; k < 5; ++k) acc.l[k] = _mm512_add_epi64(acc.l[k], p.l[k]);
    first += d.col0[i] * s[i];
  }
  s[0] = first;
  store_fr_lanes(acc, s + 1, t - 1);
}

bool usable(const PoseidonConstants& c) {
  // Below width 5 the vectors are mostly empty lanes: the scalar rounds are faster (arity 2).
  return c.width >= 5 && c.width <= kLanes + 1 && cpu_supported();
}

}  // namespace

bool poseidon_dense_mix_ifma(const PoseidonConstants& c, bool pre_sparse, Fr* s) {
  if (!usable(c)) return false;
  const Tables& tb = tables_for(c);
  dense_mix(pre_sparse ? tb.pre_sparse : tb.mds, s, c.width);
  return true;
}

bool poseidon_partial_rounds_ifma(const PoseidonConstants& c, Fr* s, const Fr* k, Fr*& o) {
  if (!usable(c)) return false;
  partial_rounds(c, s, k, o);
  return true;
}

}  // namespace cuzk::gadgets::detail

#else

namespace cuzk::gadgets::detail {
bool poseidon_partial_rounds_ifma(const PoseidonConstants&, Fr*, const Fr*, Fr*&) {
  return false;
}
bool poseidon_dense_mix_ifma(const PoseidonConstants&, bool, Fr*) {
  return false;
}
}  // namespace cuzk::gadgets::detail

#endif
