#pragma once
// A proving key of a circuit's exact shape whose points are test bases tiled from a small pool
// (ec::g1_test_bases / g2_test_bases), delivered window by window as a KeySource, so that a
// benchmark of a 2^27-row circuit holds no 47 GB key on the host (a real test-only setup of it
// takes ~130 M fixed-base multiplications per query). The MSMs do the same work for any bases;
// proofs made with it do not verify.
#include <algorithm>
#include <span>
#include <vector>

#include "ec/bls12_381.hpp"
#include "ec/msm.hpp"
#include "groth16/key_source.hpp"
#include "groth16/prover.hpp"
#include "poly/domain.hpp"

namespace cuzk::bench {

class TiledKeySource final : public groth16::KeySource {
 public:
  explicit TiledKeySource(const groth16::CircuitShape& cs)
      : g1_(ec::g1_test_bases(size_t{1} << 16, 7)), g2_(ec::g2_test_bases(size_t{1} << 14, 7)) {
    vk_.alpha_g1 = g1_[0];
    vk_.beta_g1 = g1_[1];
    vk_.delta_g1 = g1_[2];
    vk_.beta_g2 = g2_[0];
    vk_.gamma_g2 = g2_[1];
    vk_.delta_g2 = g2_[2];
    vk_.ic.assign(g1_.begin(), g1_.begin() + static_cast<std::ptrdiff_t>(std::min<size_t>(cs.num_inputs, g1_.size())));
    const uint64_t b = cs.b_input_count() + cs.b_aux_count();
    sizes_ = {.ic = cs.num_inputs,
              .h = poly::Domain::size_for(cs.num_constraints) - 1,
              .l = cs.num_aux,
              .a = cs.num_inputs + cs.a_aux_count(),
              .b_g1 = b,
              .b_g2 = b};
  }
  const groth16::VerifyingKey& vk() const override { return vk_; }
  groth16::KeySizes sizes() const override { return sizes_; }
  void read_g1(groth16::G1Section s, const groth16::G1Sink& sink) const override {
    const uint64_t n = s == groth16::G1Section::h   ? sizes_.h
                       : s == groth16::G1Section::l ? sizes_.l
                       : s == groth16::G1Section::a ? sizes_.a
                                                    : sizes_.b_g1;
    tile(g1_, n, sink);
  }
  void read_b_g2(const groth16::G2Sink& sink) const override { tile(g2_, sizes_.b_g2, sink); }

 private:
  // Windows of whole copies of the pool (16 copies a window).
  template <class P, class Sink>
  static void tile(const std::vector<P>& pool, uint64_t n, const Sink& sink) {
    std::vector<P> window;
    for (size_t r = 0; r < 16; ++r) window.insert(window.end(), pool.begin(), pool.end());
    for (uint64_t first = 0; first < n; first += window.size()) {
      const uint64_t k = std::min<uint64_t>(window.size(), n - first);
      sink(first, std::span<const P>(window.data(), k));
    }
  }
  std::vector<ec::G1Affine> g1_;
  std::vector<ec::G2Affine> g2_;
  groth16::VerifyingKey vk_;
  groth16::KeySizes sizes_;
};

}  // namespace cuzk::bench
