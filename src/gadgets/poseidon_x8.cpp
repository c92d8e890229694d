#include "gadgets/poseidon_x8.hpp"

#include <stdexcept>
#include <string>
#include <vector>

#include "ff/fr_ifma.hpp"
#include "gadgets/poseidon_tables.hpp"
#include "gadgets/poseidon_witness.hpp"

#if defined(CUZK_FR_IFMA)

// GCC 12 reports its own _mm512_undefined_epi32() (inside the shift intrinsics) as (maybe-)
// uninitialised.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif

namespace cuzk::gadgets {
namespace {

using namespace ff::ifma52;

// A constant stored times 16: its product with a state value keeps the state's Montgomery form.
Limbs52 constant_times16(const Fr& v) {
  Limbs52 r;
  to_limbs52_times16(r.v, v);
  return r;
}

struct Tables {
  std::vector<Limbs52> k;                // compressed round constants, times 16 (the x * 2^260 state)
  std::vector<Limbs52> k_plain;          // the same as they are (the witness's x * 2^256 state)
  std::vector<Limbs52> mds, pre_sparse;  // times 16, [i * t + j] = m(i, j)
  std::vector<Limbs52> w_hat, v_rest;    // times 16, per partial round: t, and t - 1
};

Tables build_tables(const PoseidonConstants& c) {
  Tables t;
  for (const Fr& k : c.compressed_round_constants) {
    t.k.push_back(constant_times16(k));
    t.k_plain.push_back(split52(k.raw()));
  }
  for (size_t i = 0; i < c.width; ++i) {
    for (size_t j = 0; j < c.width; ++j) {
      t.mds.push_back(constant_times16(c.mds.at(i, j)));
      t.pre_sparse.push_back(constant_times16(c.pre_sparse_matrix.at(i, j)));
    }
  }
  for (const PoseidonSparseMatrix& m : c.sparse_matrices) {
    for (const Fr& w : m.w_hat) t.w_hat.push_back(constant_times16(w));
    for (const Fr& v : m.v_rest) t.v_rest.push_back(constant_times16(v));
  }
  return t;
}

constexpr size_t kMaxWidth = 12;  // arities up to 11 (Filecoin's trees use 2, 4, 8 and 11)

// sum_n c[n] * x[n] / 2^260 mod p with one Montgomery reduction for all n < k: the products'
// limbs are summed first (each of the 10 accumulators gets at most 10 terms below 2^52 per
// product: below 2^59 for k <= 12 + the reduction's 10), then reduced as mont_mul does. For
// constants c[n] < p and x[n] < 2p the sum is below 2k p^2 and the result below
// 2k p^2 / 2^260 + p < 2p (k <= 12; p < 2^254.9). Half of mont_mul's multiplications per term.
CUZK_IFMA_INLINE V5 mont_dot(const Limbs52* c, const V5* x, size_t k, size_t c_stride) {
  const __m512i z = _mm512_setzero_si512();
  __m512i t[10];
  for (__m512i& v : t) v = z;
  for (size_t n = 0; n < k; ++n) {
    const Limbs52& cn = c[n * c_stride];
    for (int j = 0; j < 5; ++j) {
      const __m512i a = bc(cn.v[j]);
      for (int i = 0; i < 5; ++i) {
        t[i + j] = _mm512_madd52lo_epu64(t[i + j], a, x[n].l[i]);
        t[i + j + 1] = _mm512_madd52hi_epu64(t[i + j + 1], a, x[n].l[i]);
      }
    }
  }
  const __m512i pinv = bc(kPinv52);
  for (int i = 0; i < 5; ++i) {
    const __m512i m = _mm512_madd52lo_epu64(z, t[i], pinv);
    for (int j = 0; j < 5; ++j) {
      const __m512i pj = bc(kP.v[j]);
      t[i + j] = _mm512_madd52lo_epu64(t[i + j], pj, m);
      t[i + j + 1] = _mm512_madd52hi_epu64(t[i + j + 1], pj, m);
    }
    t[i + 1] = _mm512_add_epi64(t[i + 1], _mm512_srli_epi64(t[i], 52));
  }
  V5 r{{t[5], t[6], t[7], t[8], t[9]}};
  carry_u(r);
  return r;
}

// Eight states and the mixes both uses share: a product of a constant (stored times 16) with a
// state value keeps the state's Montgomery form, whichever it is.
class Lanes {
 protected:
  Lanes(const PoseidonConstants& c, const Tables& tb) : c_(c), tb_(tb), t_(c.width) {}

  // put(b, lane b of v) for b < count; v in [0, 2p), reduced to [0, p) here.
  template <class Put>
  CUZK_IFMA_INLINE static void unpack(const V5& v, size_t count, Put&& put) {
    __m512i a0, a1, a2, a3, z[4];
    to64(reduce_p(v), a0, a1, a2, a3);
    transpose_out(a0, a1, a2, a3, z[0], z[1], z[2], z[3]);
    alignas(64) uint64_t words[4 * kLanes];
    for (int i = 0; i < 4; ++i) _mm512_store_si512(words + 8 * i, z[i]);
    for (size_t b = 0; b < count; ++b) {
      const uint64_t* w = words + 4 * b;
      put(b, Fr::from_raw(ff::Limbs<4>{w[0], w[1], w[2], w[3]}));
    }
  }
  // 16 x, four modular doublings.
  CUZK_IFMA_INLINE static V5 times16(V5 v) {
    for (int d = 0; d < 4; ++d) v = add_red(v, v);
    return v;
  }

  // As poseidon_permute_optimized: the pre-sparse matrix after the last first-half full round, a
  // sparse matrix after each partial round, M otherwise.
  CUZK_IFMA void mix_round() {
    if (round_ + 1 == c_.half_full_rounds) {
      dense(tb_.pre_sparse);
    } else if (round_ >= c_.half_full_rounds && round_ < c_.half_full_rounds + c_.partial_rounds) {
      sparse(round_ - c_.half_full_rounds);
    } else {
      dense(tb_.mds);
    }
    ++round_;
  }
  // out_j = sum_i m(i, j) s_i: column j of m, one reduction per output.
  CUZK_IFMA void dense(const std::vector<Limbs52>& m) {
    V5 out[kMaxWidth];
    for (size_t j = 0; j < t_; ++j) out[j] = mont_dot(&m[j], s_, t_, t_);
    for (size_t j = 0; j < t_; ++j) s_[j] = out[j];
  }
  CUZK_IFMA void sparse(size_t r) {
    const Limbs52* w = &tb_.w_hat[r * t_];
    const Limbs52* v = &tb_.v_rest[r * (t_ - 1)];
    const V5 first = mont_dot(w, s_, t_, 1);
    for (size_t j = 1; j < t_; ++j) s_[j] = add_red(s_[j], mont_mul(broadcast5(v[j - 1].v), s_[0]));
    s_[0] = first;
  }

  const PoseidonConstants& c_;
  const Tables& tb_;
  size_t t_;
  size_t round_ = 0;
  V5 s_[kMaxWidth];
};

class Permutation : Lanes {
 public:
  Permutation(const PoseidonConstants& c, const Tables& tb) : Lanes(c, tb) {}

  CUZK_IFMA void run(std::span<Fr> states, size_t count) {
    load(states, count);
    for (size_t i = 0; i < t_; ++i) s_[i] = add_red(s_[i], key());
    for (size_t r = 0; r < c_.half_full_rounds; ++r) full_round(false);
    for (size_t r = 0; r < c_.partial_rounds; ++r) {
      s_[0] = add_red(sbox(s_[0]), key());
      mix_round();
    }
    for (size_t r = 1; r < c_.half_full_rounds; ++r) full_round(false);
    full_round(true);
    if (off_ != tb_.k.size()) throw std::logic_error("Poseidon x8: not every compressed round constant was used");
    store(states, count);
  }

 private:
  CUZK_IFMA V5 key() { return broadcast5(tb_.k[off_++].v); }
  CUZK_IFMA static V5 sbox(const V5& x) {
    const V5 x2 = mont_mul(x, x);
    return mont_mul(mont_mul(x2, x2), x);
  }
  CUZK_IFMA void full_round(bool last) {
    for (size_t i = 0; i < t_; ++i) {
      s_[i] = sbox(s_[i]);
      if (!last) s_[i] = add_red(s_[i], key());  // no key after the last S-box layer
    }
    mix_round();
  }
  // Fr (x * 2^256, canonical) -> x * 2^260 in [0, 2p).
  CUZK_IFMA void load(std::span<const Fr> states, size_t count) {
    for (size_t i = 0; i < t_; ++i) s_[i] = times16(pack_fr(count, [&](size_t b) { return states[b * t_ + i]; }));
  }
  // x * 2^260 -> x * 2^256 (a product with 2^256, Fr's one).
  CUZK_IFMA void store(std::span<Fr> states, size_t count) {
    const V5 one = broadcast_fr(Fr::one());
    for (size_t i = 0; i < t_; ++i) {
      unpack(mont_mul(s_[i], one), count, [&](size_t b, const Fr& x) { states[b * t_ + i] = x; });
    }
  }

  size_t off_ = 0;
};

// The witness keeps the state as x * 2^256, Fr's own form, so that each recorded value only needs
// reducing to [0, p): a product of two state values takes one operand times 16 (four modular
// doublings, cheaper than converting every recorded value with a product), a product with a
// constant takes the constant times 16 as the permutation does.
class Witness : Lanes {
 public:
  Witness(const PoseidonConstants& c, const Tables& tb, std::span<Fr* const> outs) : Lanes(c, tb), outs_(outs) {}

  CUZK_IFMA void run(std::span<const Fr> preimages, const Fr& tag, std::span<Fr> hashes) {
    // First round: the tag's S-box is a constant; the inputs are already allocated.
    const Fr x = tag + c_.compressed_round_constants[0];
    s_[0] = broadcast_fr(x.square().square() * x + c_.compressed_round_constants[t_]);
    for (size_t i = 1; i < t_; ++i) {
      V5 l2, l4;
      s_[i] = add_red(pow5(add_red(lanes_of(preimages, i - 1), plain_key(i)), l2, l4), plain_key(t_ + i));
      record(l2);
      record(l4);
      record(s_[i]);
    }
    mix_round();
    size_t off = 2 * t_;
    auto full_round = [&](bool last) {
      for (size_t i = 0; i < t_; ++i) s_[i] = sbox(s_[i], last ? nullptr : &tb_.k_plain[off + i]);
      if (!last) off += t_;
      mix_round();
    };
    for (size_t r = 1; r < c_.half_full_rounds; ++r) full_round(false);
    for (size_t r = 0; r < c_.partial_rounds; ++r) {
      s_[0] = sbox(s_[0], &tb_.k_plain[off++]);
      mix_round();
    }
    for (size_t r = 1; r < c_.half_full_rounds; ++r) full_round(false);
    full_round(true);
    const size_t end = record(s_[1]);  // "hash result": elements[1] allocated
    for (size_t b = 0; b < outs_.size(); ++b) hashes[b] = outs_[b][end];
    if (off != tb_.k.size() || end + 1 != poseidon_witness_len(c_)) {
      throw std::logic_error("Poseidon witness x8: the round structure does not match the constants");
    }
  }

 private:
  CUZK_IFMA V5 plain_key(size_t i) const { return broadcast5(tb_.k_plain[i].v); }
  // Element i of every lane's preimage (canonical, x * 2^256).
  CUZK_IFMA V5 lanes_of(std::span<const Fr> preimages, size_t i) const {
    return pack_fr(outs_.size(), [&](size_t b) { return preimages[b * c_.arity + i]; });
  }
  // l^5, and l^2 and l^4 on the way, in the x * 2^256 form.
  CUZK_IFMA static V5 pow5(const V5& l, V5& l2, V5& l4) {
    const V5 l16 = times16(l);
    l2 = mont_mul(l, l16);
    l4 = mont_mul(l2, times16(l2));
    return mont_mul(l4, l16);
  }
  // S-box of an allocated value: l, l^2, l^4, l^4 * l (+ post), recorded in that order.
  CUZK_IFMA V5 sbox(const V5& l, const Limbs52* post) {
    V5 l2, l4;
    V5 r = pow5(l, l2, l4);
    if (post != nullptr) r = add_red(r, broadcast5(post->v));
    record(l);
    record(l2);
    record(l4);
    record(r);
    return r;
  }
  // Lane b of v, reduced to [0, p), as value o_ of outs[b]; returns its position.
  CUZK_IFMA size_t record(const V5& v) {
    unpack(v, outs_.size(), [&](size_t b, const Fr& x) { outs_[b][o_] = x; });
    return o_++;
  }
  std::span<Fr* const> outs_;
  size_t o_ = 0;
};

}  // namespace

bool poseidon_permute_x8(const PoseidonConstants& c, std::span<Fr> states, size_t count) {
  if (count > kLanes || c.width > kMaxWidth || !cpu_supported()) return false;
  if (states.size() != count * c.width) {
    throw std::invalid_argument("poseidon_permute_x8: " + std::to_string(states.size()) + " elements for " +
                                std::to_string(count) + " states of width " + std::to_string(c.width));
  }
  if (count == 0) return true;
  Permutation(c, detail::cached_tables<Tables>(c, build_tables)).run(states, count);
  return true;
}

bool poseidon_witness_x8(const PoseidonConstants& c, std::span<const Fr> preimages, std::span<Fr* const> outs,
                         std::span<Fr> hashes, const PoseidonHashType& type) {
  if (outs.size() > kLanes || c.width > kMaxWidth || !cpu_supported()) return false;
  if (preimages.size() != outs.size() * c.arity || hashes.size() != outs.size()) {
    throw std::invalid_argument("poseidon_witness_x8: " + std::to_string(preimages.size()) + " inputs and " +
                                std::to_string(hashes.size()) + " hashes for " + std::to_string(outs.size()) +
                                " preimages of arity " + std::to_string(c.arity));
  }
  if (outs.empty()) return true;
  Witness(c, detail::cached_tables<Tables>(c, build_tables), outs).run(preimages, type.domain_tag(c.arity), hashes);
  return true;
}

}  // namespace cuzk::gadgets

#else

namespace cuzk::gadgets {
bool poseidon_permute_x8(const PoseidonConstants&, std::span<Fr>, size_t) {
  return false;
}
bool poseidon_witness_x8(const PoseidonConstants&, std::span<const Fr>, std::span<Fr* const>, std::span<Fr>,
                         const PoseidonHashType&) {
  return false;
}
}  // namespace cuzk::gadgets

#endif
