#include "gadgets/poseidon_round_constants.hpp"

#include <array>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace cuzk::gadgets {
namespace {

// round_numbers_are_secure(), in f32 exactly as neptune (this file is built with
// -ffp-contract=off so that no step is fused into an FMA with a different rounding).
bool round_numbers_are_secure(size_t t_int, size_t rf, size_t rp_int) {
  const float rp = static_cast<float>(rp_int);
  const float t = static_cast<float>(t_int);
  const float n = 256.0f;  // PRIME_BITLEN: neptune rounds Fr's 255 bits up to 256
  const float m = 128.0f;  // security level M
  const float rf_stat = m <= (n - 3.0f) * (t + 1.0f) ? 6.0f : 10.0f;
  const float rf_interp = 0.43f * m + std::log2(t) - rp;
  const float rf_grob_1 = 0.21f * n - rp;
  const float rf_grob_2 = (0.14f * n - 1.0f - rp) / (t - 1.0f);
  size_t rf_max = 0;
  for (float x : {rf_stat, rf_interp, rf_grob_1, rf_grob_2}) {
    // Rust's `f32 as usize` saturates: negatives (and NaN) become 0.
    const float c = std::ceil(x);
    const size_t v = (c > 0.0f) ? static_cast<size_t>(c) : 0;
    if (v > rf_max) rf_max = v;
  }
  return rf >= rf_max;
}

PoseidonRoundNumbers calc_round_numbers(size_t t) {
  size_t rf = 0, rp = 0;
  size_t min_sboxes = std::numeric_limits<size_t>::max();
  for (size_t rf_outer = 2; rf_outer <= 1000; rf_outer += 2) {
    // neptune binds `mut rf_test` to the outer loop and adds 2 to it for every secure R_P of the
    // inner loop, so the increase accumulates within one outer iteration; kept as is because the
    // result must be neptune's.
    size_t rf_test = rf_outer;
    for (size_t rp_loop = 4; rp_loop < 200; ++rp_loop) {
      size_t rp_test = rp_loop;
      if (!round_numbers_are_secure(t, rf_test, rp_test)) continue;
      rf_test += 2;
      rp_test = static_cast<size_t>(std::ceil(1.075f * static_cast<float>(rp_test)));
      const size_t sboxes = t * rf_test + rp_test;
      if (sboxes < min_sboxes || (sboxes == min_sboxes && rf_test < rf)) {
        rf = rf_test;
        rp = rp_test;
        min_sboxes = sboxes;
      }
    }
  }
  return {rf, rp};
}

// The Grain LFSR of the Poseidon paper (80-bit state, taps 62, 51, 38, 23, 13, 0).
class Grain {
 public:
  explicit Grain(const std::array<bool, 80>& init) : s_(init) {
    for (int i = 0; i < 160; ++i) step();
  }
  // Self-shrinking output: draw pairs (b1, b2) and output b2 when b1 is set.
  bool next() {
    while (!step()) step();
    return step();
  }

 private:
  bool step() {
    const bool b = s_[(pos_ + 62) % 80] ^ s_[(pos_ + 51) % 80] ^ s_[(pos_ + 38) % 80] ^ s_[(pos_ + 23) % 80] ^
                   s_[(pos_ + 13) % 80] ^ s_[pos_];
    s_[pos_] = b;  // the oldest bit leaves, the new one enters at the end of the window
    pos_ = (pos_ + 1) % 80;
    return b;
  }
  std::array<bool, 80> s_;
  size_t pos_ = 0;
};

}  // namespace

PoseidonRoundNumbers poseidon_round_numbers(size_t arity, PoseidonStrength strength) {
  if (arity == 0 || arity > 1000)
    throw std::invalid_argument("poseidon_round_numbers: arity " + std::to_string(arity) + " out of range 1..1000");
  PoseidonRoundNumbers r = calc_round_numbers(arity + 1);
  if (strength == PoseidonStrength::Strengthened) {
    r.partial_rounds = static_cast<size_t>(std::ceil(static_cast<double>(r.partial_rounds) * 1.25));
  }
  return r;
}

std::vector<Fr> poseidon_grain_round_constants(size_t width, size_t full_rounds, size_t partial_rounds) {
  if (width >= (1u << 12) || full_rounds >= (1u << 10) || partial_rounds >= (1u << 10)) {
    throw std::invalid_argument("poseidon_grain_round_constants: width/rounds do not fit the Grain header fields");
  }
  std::array<bool, 80> init{};
  size_t k = 0;
  auto put = [&](uint64_t value, int bits) {  // MSB first
    for (int i = bits - 1; i >= 0; --i) init[k++] = ((value >> i) & 1) != 0;
  };
  constexpr unsigned kFieldBits = 255;  // Fr::NUM_BITS
  put(1, 2);                            // field: GF(p)
  put(1, 4);                            // S-box: x^alpha (neptune's code 1 for alpha = 5)
  put(kFieldBits, 12);
  put(width, 12);
  put(full_rounds, 10);
  put(partial_rounds, 10);
  put((1u << 30) - 1, 30);
  Grain grain(init);

  const size_t count = (full_rounds + partial_rounds) * width;
  std::vector<Fr> out;
  out.reserve(count);
  while (out.size() < count) {
    // 255 bits, first drawn = most significant; as 32 big-endian bytes the first byte gets 7.
    ff::Limbs<4> v{};
    for (unsigned bit = kFieldBits; bit-- > 0;) {
      if (grain.next()) v[bit / 64] |= uint64_t{1} << (bit % 64);
    }
    if (!ff::less_than(v, Fr::MOD)) continue;  // rejection sampling: values >= p are skipped
    out.push_back(Fr::from_canonical(v));
  }
  return out;
}

}  // namespace cuzk::gadgets
