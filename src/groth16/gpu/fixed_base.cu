#include <cstring>
#include <optional>
#include <stdexcept>
#include <vector>

#include "gpu/cuda_error.hpp"
#include "gpu/curve.cuh"
#include "gpu/device.hpp"
#include "gpu/device_buffer.hpp"
#include "gpu/fr_io.cuh"
#include "gpu/warp_inverse.cuh"
#include "groth16/gpu/fixed_base.hpp"

namespace cuzk::gpu {

namespace {

constexpr unsigned kScalarBits = 255;  // r < 2^255
constexpr unsigned kG1Window = 12, kG2Window = 10;
constexpr unsigned kThreads = 128;
constexpr size_t kChunk = size_t{1} << 22;

// Bits [pos, pos + W) of a canonical scalar held as 8 little-endian words (pos, W compile-time
// after unrolling, so the words stay in registers).
template <unsigned W>
__device__ __forceinline__ uint32_t digit(const Fr& k, unsigned pos) {
  const unsigned word = pos / 32, off = pos % 32;
  uint32_t v = k.w[word] >> off;
  if (off + W > 32 && word + 1 < 8) v |= k.w[word + 1] << (32 - off);
  return v & ((1u << W) - 1);
}

// 48 big-endian bytes of a canonical Fq as twelve byte-swapped words, most significant first.
__device__ __forceinline__ void store_be(const Fq& canonical, uint32_t* out) {
#pragma unroll
  for (int j = 0; j < 12; ++j) out[j] = __byte_perm(canonical.w[11 - j], 0, 0x0123);
}
__device__ __forceinline__ void store_coord(const Fq& v, uint32_t* out) {
  store_be(v.from_mont(), out);
}
__device__ __forceinline__ void store_coord(const Fq2& v, uint32_t* out) {  // zcash: c1 then c0
  store_be(v.c1.from_mont(), out);
  store_be(v.c0.from_mont(), out + 12);
}

template <class C, unsigned W>
__global__ void fixed_base_kernel(const AffinePoint<C>* __restrict__ table, const Fr* __restrict__ scalars, size_t n,
                                  uint32_t* __restrict__ out) {
  using F = typename C::F;
  constexpr unsigned kWindows = (kScalarBits + W - 1) / W;
  constexpr size_t kRow = (size_t{1} << W) - 1;
  constexpr unsigned kWords = 2 * sizeof(F) / 4;  // one encoded point
  const size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x;
  const bool active = i < n;
  XyzzPoint<C> acc = XyzzPoint<C>::identity();
  if (active) {
    const Fr k = load_fr(scalars + i).from_mont();
#pragma unroll
    for (unsigned win = 0; win < kWindows; ++win) {
      const uint32_t d = digit<W>(k, win * W);
      if (d != 0) acc = acc.add_affine(table[win * kRow + d - 1]);
    }
  }
  // Every lane takes part in the warp's inversion (the identity and idle lanes invert one).
  const bool ident = acc.is_identity();
  const F zzz_inv = warp_inverse(ident ? F::one() : acc.ZZZ);
  if (!active) return;
  uint32_t* o = out + i * kWords;
  if (ident) {
#pragma unroll
    for (unsigned j = 0; j < kWords; ++j) o[j] = 0;
    o[0] = 0x40;  // the infinity flag in byte 0 (little-endian word: its lowest byte)
    return;
  }
  const F z_inv = zzz_inv * acc.ZZ;  // 1/Z for Z = ZZZ/ZZ
  const F zz_inv = z_inv.sqr();
  store_coord(acc.X * zz_inv, o);
  store_coord(acc.Y * zzz_inv, o + kWords / 2);
}

template <class HostF>
void host_to_device(const HostF& h, void* out) {
  std::memcpy(out, h.raw().data(), sizeof(h.raw()));
}
void host_to_device(const ec::G2Config::Base& h, void* out) {
  host_to_device(h.c0, out);
  host_to_device(h.c1, static_cast<uint8_t*>(out) + sizeof(h.c0.raw()));
}

// The window table of the generator, built on the CPU (groth16::FixedBaseTable) and copied over.
template <class HC, class DC>
DeviceBuffer<AffinePoint<DC>> upload_table(const ec::Affine<HC>& gen, unsigned w) {
  const groth16::FixedBaseTable<HC> t(gen, w);
  const auto entries = t.entries();
  std::vector<AffinePoint<DC>> host(entries.size());
  for (size_t i = 0; i < entries.size(); ++i) {
    if (entries[i].is_identity()) throw std::logic_error("fixed-base table: identity entry");
    host_to_device(entries[i].x, &host[i].x);
    host_to_device(entries[i].y, &host[i].y);
  }
  DeviceBuffer<AffinePoint<DC>> d(host.size());
  d.upload(host);
  CUZK_CUDA_CHECK(cudaDeviceSynchronize());
  return d;
}

}  // namespace

struct GpuFixedBaseMultiplier::Impl {
  int device = 0;
  std::string name;
  std::optional<DeviceBuffer<AffinePoint<G1Curve>>> t1;
  std::optional<DeviceBuffer<AffinePoint<G2Curve>>> t2;
  DeviceBuffer<Fr> scalars;
  DeviceBuffer<uint32_t> out;

  // The caller has made `device` current (g1/g2).
  template <class C, unsigned W>
  void run(const AffinePoint<C>* table, std::span<const groth16::Fr> sc, std::span<uint8_t> dst, size_t pb) {
    if (dst.size() != sc.size() * pb) throw std::invalid_argument("GpuFixedBaseMultiplier: output size mismatch");
    for (size_t b = 0; b < sc.size(); b += kChunk) {
      const size_t n = std::min(kChunk, sc.size() - b);
      CUZK_CUDA_CHECK(cudaMemcpy(scalars.data(), sc.data() + b, n * sizeof(Fr), cudaMemcpyHostToDevice));
      const unsigned blocks = static_cast<unsigned>((n + kThreads - 1) / kThreads);
      fixed_base_kernel<C, W><<<blocks, kThreads>>>(table, scalars.data(), n, out.data());
      CUZK_CUDA_CHECK(cudaGetLastError());
      CUZK_CUDA_CHECK(cudaMemcpy(dst.data() + b * pb, out.data(), n * pb, cudaMemcpyDeviceToHost));
    }
  }
};

GpuFixedBaseMultiplier::GpuFixedBaseMultiplier(int device) : impl_(std::make_unique<Impl>()) {
  impl_->device = device;
  CUZK_CUDA_CHECK(cudaSetDevice(device));
  cudaDeviceProp prop{};
  CUZK_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  impl_->name = prop.name;
  impl_->scalars = DeviceBuffer<Fr>(kChunk);
  impl_->out = DeviceBuffer<uint32_t>(kChunk * 48);  // a G2 point is 48 words
}

GpuFixedBaseMultiplier::~GpuFixedBaseMultiplier() = default;

std::string GpuFixedBaseMultiplier::describe() const {
  return "gpu " + std::to_string(impl_->device) + " (" + impl_->name + ")";
}

void GpuFixedBaseMultiplier::prepare(uint64_t, uint64_t) {}

void GpuFixedBaseMultiplier::g1(std::span<const groth16::Fr> sc, std::span<uint8_t> out) {
  CUZK_CUDA_CHECK(cudaSetDevice(impl_->device));
  if (!impl_->t1) impl_->t1.emplace(upload_table<ec::G1Config, G1Curve>(ec::g1_generator(), kG1Window));
  impl_->run<G1Curve, kG1Window>(impl_->t1->data(), sc, out, 96);
}

void GpuFixedBaseMultiplier::g2(std::span<const groth16::Fr> sc, std::span<uint8_t> out) {
  CUZK_CUDA_CHECK(cudaSetDevice(impl_->device));
  if (!impl_->t2) impl_->t2.emplace(upload_table<ec::G2Config, G2Curve>(ec::g2_generator(), kG2Window));
  impl_->run<G2Curve, kG2Window>(impl_->t2->data(), sc, out, 192);
}

size_t GpuFixedBaseMultiplier::chunk_points() const {
  return kChunk;
}

}  // namespace cuzk::gpu
