#include "ec/on_curve.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "ec/fq_ifma.hpp"

namespace cuzk::ec {

namespace {

template <class C>
size_t first_off_curve_impl(std::span<const Affine<C>> pts) {
  if (!fq_ifma::active()) {
    for (size_t i = 0; i < pts.size(); ++i) {
      if (!pts[i].is_on_curve()) return i;
    }
    return pts.size();
  }
  // The kernel takes pointers to the finite points, in groups of up to kGroup.
  static_assert(offsetof(Affine<C>, x) == 0 && offsetof(Affine<C>, y) == sizeof(typename C::Base));
  constexpr size_t kGroup = 256;
  std::array<const uint64_t*, kGroup> ptr;
  std::array<size_t, kGroup> at;
  std::array<uint8_t, kGroup> ok;
  size_t i = 0;
  while (i < pts.size()) {
    size_t k = 0;
    for (; i < pts.size() && k < kGroup; ++i) {
      if (pts[i].infinity) continue;
      ptr[k] = reinterpret_cast<const uint64_t*>(&pts[i]);
      at[k++] = i;
    }
    if (k == 0) continue;
    if constexpr (std::is_same_v<C, G1Config>) {
      fq_ifma::g1_on_curve(ptr.data(), k, ok.data());
    } else {
      fq_ifma::g2_on_curve(ptr.data(), k, ok.data());
    }
    for (size_t e = 0; e < k; ++e) {
      if (!ok[e]) return at[e];
    }
  }
  return pts.size();
}

}  // namespace

size_t first_off_curve(std::span<const G1Affine> pts) {
  return first_off_curve_impl<G1Config>(pts);
}
size_t first_off_curve(std::span<const G2Affine> pts) {
  return first_off_curve_impl<G2Config>(pts);
}

}  // namespace cuzk::ec
