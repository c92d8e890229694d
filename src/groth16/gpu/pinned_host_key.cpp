// PinnedHostKey (pinned_host_key.hpp): the key's bases converted once into portable pinned memory.
#include "groth16/gpu/pinned_host_key.hpp"

#include <cuda_runtime_api.h>

#include <cstring>
#include <map>
#include <mutex>
#include <span>
#include <stdexcept>
#include <type_traits>

#include "ec/bls12_381.hpp"
#include "gpu/cuda_error.hpp"

namespace cuzk::gpu {

namespace {

// Points [0, pts.size()) to the device layout at dst (x, y; the identity as zeros), in parallel.
template <class Affine>
void to_device_layout(std::span<const Affine> pts, std::byte* dst, ThreadPool& pool) {
  using F = typename Affine::F;
  static_assert(std::is_trivially_copyable_v<F>, "field elements are copied as bytes");
  constexpr size_t kPoint = 2 * sizeof(F);
  pool.parallel_chunks(pts.size(), size_t{1} << 14, [&](size_t lo, size_t hi) {
    for (size_t i = lo; i < hi; ++i) {
      std::byte* d = dst + i * kPoint;
      if (pts[i].is_identity()) {
        std::memset(d, 0, kPoint);
      } else {
        std::memcpy(d, &pts[i].x, sizeof(F));
        std::memcpy(d + sizeof(F), &pts[i].y, sizeof(F));
      }
    }
  });
}

// The sink of one section: windows checked against the section's size, then converted.
template <class Affine>
auto section_sink(const char* name, uint64_t count, std::byte* dst, ThreadPool& pool) {
  return [=, &pool](uint64_t first, std::span<const Affine> pts) {
    if (first > count || pts.size() > count - first)
      throw std::runtime_error(std::string("PinnedHostKey: the key source sent points past the ") + name +
                               " section's " + std::to_string(count));
    to_device_layout(pts, dst + first * (2 * sizeof(typename Affine::F)), pool);
  };
}

std::mutex& registry_mutex() {
  static std::mutex mu;
  return mu;
}
std::map<std::string, std::weak_ptr<const PinnedHostKey>>& registry() {
  static std::map<std::string, std::weak_ptr<const PinnedHostKey>> r;
  return r;
}

}  // namespace

void PinnedHostKey::FreePinned::operator()(std::byte* p) const {
  if (p) cudaFreeHost(p);  // errors cannot be reported from a destructor
}

PinnedHostKey::Pinned PinnedHostKey::allocate(uint64_t bytes) {
  if (bytes == 0) return Pinned();
  void* p = nullptr;
  CUZK_CUDA_CHECK(cudaHostAlloc(&p, bytes, cudaHostAllocPortable));
  return Pinned(static_cast<std::byte*>(p));
}

std::shared_ptr<const PinnedHostKey> PinnedHostKey::load(const groth16::KeySource& src, bool with_b_g2,
                                                         ThreadPool* pool) {
  static_assert(2 * sizeof(ec::G1Affine::F) == kG1Bytes && 2 * sizeof(ec::G2Affine::F) == kG2Bytes,
                "device point layout");
  ThreadPool& tp = pool ? *pool : ThreadPool::global();
  std::shared_ptr<PinnedHostKey> key(new PinnedHostKey());
  key->sizes_ = src.sizes();
  const groth16::KeySizes& n = key->sizes_;
  const std::pair<groth16::G1Section, uint64_t> sections[] = {{groth16::G1Section::h, n.h},
                                                              {groth16::G1Section::l, n.l},
                                                              {groth16::G1Section::a, n.a},
                                                              {groth16::G1Section::b_g1, n.b_g1}};
  for (const auto& [s, count] : sections) {
    Pinned& dst = key->g1_[static_cast<size_t>(s)];
    dst = allocate(count * kG1Bytes);
    src.read_g1(s, section_sink<ec::G1Affine>(groth16::section_name(s), count, dst.get(), tp));
  }
  if (with_b_g2) {
    key->b_g2_ = allocate(n.b_g2 * kG2Bytes);
    src.read_b_g2(section_sink<ec::G2Affine>("b_g2", n.b_g2, key->b_g2_.get(), tp));
  }
  return key;
}

std::shared_ptr<const PinnedHostKey> PinnedHostKey::shared(const std::string& id, const groth16::KeySource& src,
                                                           bool with_b_g2, ThreadPool* pool) {
  if (id.empty()) return load(src, with_b_g2, pool);
  std::lock_guard lock(registry_mutex());
  auto& reg = registry();
  std::erase_if(reg, [](const auto& e) { return e.second.expired(); });
  std::weak_ptr<const PinnedHostKey>& slot = reg[id];
  if (std::shared_ptr<const PinnedHostKey> held = slot.lock()) {
    if (held->sizes() != src.sizes())
      throw std::invalid_argument("PinnedHostKey: the key '" + id +
                                  "' held in pinned memory has other sizes than the source given for it");
    if (held->has_b_g2() || !with_b_g2) return held;
    // Held without b_g2 (its provers sum G2 on the CPU): a full copy replaces it for later callers.
  }
  std::shared_ptr<const PinnedHostKey> fresh = load(src, with_b_g2, pool);
  slot = fresh;
  return fresh;
}

std::string PinnedHostKey::identity_of(const groth16::KeySource& src) {
  return src.identity();
}

uint64_t PinnedHostKey::bytes() const {
  uint64_t b = (sizes_.h + sizes_.l + sizes_.a + sizes_.b_g1) * kG1Bytes;
  return b_g2_ ? b + sizes_.b_g2 * kG2Bytes : b;
}

}  // namespace cuzk::gpu
