#include "groth16/key_source.hpp"

#include <algorithm>
#include <cstdio>

namespace cuzk::groth16 {

KeySizes KeySizes::of(const ProvingKey& pk) {
  return {pk.vk.ic.size(), pk.h.size(), pk.l.size(), pk.a.size(), pk.b_g1.size(), pk.b_g2.size()};
}

uint64_t KeySizes::host_bytes() const {
  return (ic + h + l + a + b_g1) * sizeof(G1Affine) + b_g2 * sizeof(G2Affine);
}

uint64_t KeySizes::params_file_bytes() const {
  constexpr uint64_t g1 = 96, g2 = 192, count = 4;  // uncompressed points, u32 counts
  // The vk (alpha, beta, delta in G1; beta, gamma, delta in G2; the ic list), then five sections.
  return 3 * g1 + 3 * g2 + count + ic * g1 + 5 * count + (h + l + a + b_g1) * g1 + b_g2 * g2;
}

const char* section_name(G1Section s) {
  switch (s) {
    case G1Section::h:
      return "h";
    case G1Section::l:
      return "l";
    case G1Section::a:
      return "a";
    case G1Section::b_g1:
      return "b_g1";
  }
  return "?";
}

void MemoryKeySource::read_g1(G1Section section, const G1Sink& sink) const {
  const std::vector<G1Affine>* v = section == G1Section::h   ? &pk_.h
                                   : section == G1Section::l ? &pk_.l
                                   : section == G1Section::a ? &pk_.a
                                                             : &pk_.b_g1;
  sink(0, *v);
}

void MemoryKeySource::read_b_g2(const G2Sink& sink) const {
  sink(0, pk_.b_g2);
}

ProvingKey collect_key(const KeySource& src) {
  const KeySizes n = src.sizes();
  ProvingKey pk;
  pk.vk = src.vk();
  auto g1 = [&](G1Section s, std::vector<G1Affine>& out, uint64_t count) {
    out.resize(count);
    src.read_g1(s, [&](uint64_t first, std::span<const G1Affine> pts) {
      std::copy(pts.begin(), pts.end(), out.begin() + static_cast<std::ptrdiff_t>(first));
    });
  };
  g1(G1Section::h, pk.h, n.h);
  g1(G1Section::l, pk.l, n.l);
  g1(G1Section::a, pk.a, n.a);
  g1(G1Section::b_g1, pk.b_g1, n.b_g1);
  pk.b_g2.resize(n.b_g2);
  src.read_b_g2([&](uint64_t first, std::span<const G2Affine> pts) {
    std::copy(pts.begin(), pts.end(), pk.b_g2.begin() + static_cast<std::ptrdiff_t>(first));
  });
  return pk;
}

std::string MemoryKeySource::identity() const {
  char buf[48];
  std::snprintf(buf, sizeof buf, "memory:%p", static_cast<const void*>(&pk_));
  return buf;
}

}  // namespace cuzk::groth16
