#pragma once
// A KeySource that reports the points read through it to an operation: a device prover built from
// a streamed .params file (tens of GB at 32 GiB, a minute) shows its upload's progress in GetStatus.
#include <atomic>

#include "engine/operations.hpp"
#include "groth16/key_source.hpp"

namespace cuzk::engine {

class ProgressKeySource final : public groth16::KeySource {
 public:
  // Both must outlive this source.
  ProgressKeySource(const groth16::KeySource& inner, Operations::Handle& op) : inner_(inner), op_(op) {
    const groth16::KeySizes s = inner_.sizes();
    total_ = s.h + s.l + s.a + s.b_g1 + s.b_g2;
    op_.progress(0, total_);
  }
  const groth16::VerifyingKey& vk() const override { return inner_.vk(); }
  groth16::KeySizes sizes() const override { return inner_.sizes(); }
  const groth16::ProvingKey* in_memory() const override { return inner_.in_memory(); }
  void read_g1(groth16::G1Section section, const groth16::G1Sink& sink) const override {
    inner_.read_g1(section, [&](uint64_t first, std::span<const groth16::G1Affine> points) {
      sink(first, points);
      add(points.size());
    });
  }
  void read_b_g2(const groth16::G2Sink& sink) const override {
    inner_.read_b_g2([&](uint64_t first, std::span<const groth16::G2Affine> points) {
      sink(first, points);
      add(points.size());
    });
  }

 private:
  void add(uint64_t n) const { op_.progress(done_.fetch_add(n, std::memory_order_relaxed) + n, total_); }

  const groth16::KeySource& inner_;
  Operations::Handle& op_;
  uint64_t total_ = 0;
  mutable std::atomic<uint64_t> done_{0};
};

}  // namespace cuzk::engine
