// GpuProver (gpu_prover.hpp): no kernels of its own; it drives GpuPce, compute_h and Msm.
#include "groth16/gpu/gpu_prover.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <future>
#include <initializer_list>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "ec/msm.hpp"
#include "gpu/cuda_error.hpp"
#include "gpu/device.hpp"
#include "gpu/device_buffer.hpp"
#include "gpu/msm.hpp"
#include "gpu/msm_sizing.hpp"
#include "gpu/ntt.hpp"
#include "groth16/gpu/h_poly.hpp"
#include "groth16/gpu/pce_matvec.hpp"
#include "poly/domain.hpp"
#include "util/stopwatch.hpp"

namespace cuzk::gpu {

namespace {

using cuzk::Stopwatch;

using ec::Fr;
using groth16::CircuitShape;
using groth16::ProofMsms;
using groth16::ProveTimings;

void add_time(ProveTimings* t, double ProveTimings::*field, double s) {
  if (t) t->*field += s;
}

std::string gib(uint64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f GiB", static_cast<double>(bytes) / double(1ull << 30));
  return buf;
}

using msm_detail::msm_scratch_bytes;

// Window tables (GpuProverOptions::msm_table_bits) for every base set a prover holds, and their
// device bytes: shared by both provers and their memory estimates.
void precompute_tables(std::initializer_list<G1DeviceBases*> g1, G2DeviceBases& g2, const GpuProverOptions& opt) {
  if (opt.msm_table_bits == 0) return;
  for (G1DeviceBases* g : g1) g->precompute(opt.msm_table_bits);
  if (opt.b_g2_on_gpu) g2.precompute(opt.msm_table_bits);
}
uint64_t table_bytes(std::initializer_list<size_t> g1_sizes, size_t g2_size, const GpuProverOptions& opt) {
  if (opt.msm_table_bits == 0) return 0;
  uint64_t b = opt.b_g2_on_gpu ? G2DeviceBases::bytes_for_table(g2_size, opt.msm_table_bits) : 0;
  for (size_t n : g1_sizes) b += G1DeviceBases::bytes_for_table(n, opt.msm_table_bits);
  return b;
}

unsigned slot_count(const GpuProverOptions& opt) {
  return std::clamp(opt.witness_slots, 1u, 2u);
}

unsigned log2_exact(size_t m) {
  unsigned k = 0;
  while ((size_t{1} << k) < m) ++k;
  return k;
}

}  // namespace

std::string GpuProverMemory::describe() const {
  return gib(total()) + " (bases " + gib(bases) + ", PCE " + gib(pce) + ", z/a/b/c " + gib(vectors) +
         ", MSM and NTT scratch " + gib(scratch) + ")";
}

struct GpuProver::Impl {
  groth16::KeySizes key;
  // The CPU G2 MSM's bases (opt.b_g2_on_gpu false): the in-memory key's, or a copy of the
  // streamed section (the only part of a streamed key the host keeps).
  std::span<const ec::G2Affine> b_g2_host;
  std::vector<ec::G2Affine> b_g2_copy;
  GpuProverOptions opt;
  CircuitShape shape;
  GpuProverMemory mem;
  size_t m = 0;
  unsigned log_m = 0;
  uint64_t b_inputs = 0, b_aux = 0, a_aux = 0;

  // One witness in flight: its z on the device, its pinned staging and the stream its upload
  // goes on (the kernels run on `stream`). With two, one uploads while the other's kernels run.
  struct Slot {
    DeviceBuffer<Fr> z;
    PinnedBuffer<Fr> z_host;
    Stream copy;
  };
  std::optional<GpuPce> pce;
  G1DeviceBases h, l, a, b1;
  G2DeviceBases b2;
  DeviceBuffer<Fr> abc;
  std::vector<std::unique_ptr<Slot>> slots;
  std::vector<Slot*> free_slots;  // guarded by slot_mu
  std::mutex slot_mu;
  std::condition_variable slot_cv;
  std::mutex kernels_mu;  // one witness's kernels at a time: abc, the MSM engines and `stream`
  std::shared_ptr<const GpuDomain> domain;
  std::optional<Stream> stream;
  std::optional<Event> h_start, h_end;  // around H on `stream`: its device time when overlapping
  std::optional<G1Msm> g1;
  std::optional<G2Msm> g2;
  std::atomic<unsigned> fail_next{0};

  // A free slot for the length of one stage1 call.
  class SlotLease {
   public:
    explicit SlotLease(Impl& impl) : impl_(impl) {
      std::unique_lock lock(impl_.slot_mu);
      impl_.slot_cv.wait(lock, [&] { return !impl_.free_slots.empty(); });
      slot_ = impl_.free_slots.back();
      impl_.free_slots.pop_back();
    }
    ~SlotLease() {
      {
        std::lock_guard lock(impl_.slot_mu);
        impl_.free_slots.push_back(slot_);
      }
      impl_.slot_cv.notify_one();
    }
    SlotLease(const SlotLease&) = delete;
    SlotLease& operator=(const SlotLease&) = delete;
    Slot& operator*() const { return *slot_; }

   private:
    Impl& impl_;
    Slot* slot_ = nullptr;
  };

  Impl(const groth16::KeySource& src, const pce::Pce* p, CircuitShape sh, const GpuProverOptions& o)
      : key(src.sizes()), opt(o), shape(std::move(sh)) {
    groth16::validate_key(key, shape);
    m = poly::Domain::size_for(shape.num_constraints);
    log_m = log2_exact(m);
    b_inputs = shape.b_input_count();
    b_aux = shape.b_aux_count();
    a_aux = shape.a_aux_count();
    mem = p ? GpuProver::memory_needed(key, *p, opt) : GpuProver::memory_needed(key, shape, opt);

    CUZK_CUDA_CHECK(cudaSetDevice(opt.device));
    size_t free_b = 0, total_b = 0;
    CUZK_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    if (mem.total() > free_b) {
      throw DeviceMemoryShort("GpuProver: device " + std::to_string(opt.device) + " has " + gib(free_b) + " free of " +
                              gib(total_b) + ", but this key and circuit need " + mem.describe() +
                              (opt.b_g2_on_gpu ? "; running the G2 MSM on the CPU saves the b_g2 bases" : "") +
                              "; free device memory, use a larger device, or prove on the CPU (--backend cpu)");
    }

    if (p) pce.emplace(*p);
    upload_bases(src);
    precompute_tables({&h, &l, &a, &b1}, b2, opt);
    abc = DeviceBuffer<Fr>(3 * m);
    for (unsigned i = 0; i < slot_count(opt); ++i) {
      auto slot = std::make_unique<Slot>();
      slot->z = DeviceBuffer<Fr>(shape.num_inputs + shape.num_aux);
      slot->z_host = PinnedBuffer<Fr>(shape.num_inputs + shape.num_aux);
      free_slots.push_back(slot.get());
      slots.push_back(std::move(slot));
    }
    domain = GpuDomain::get(log_m, poly::RootConvention::Zcash);  // twiddles built now, not in the first proof
    stream.emplace();
    h_start.emplace();
    h_end.emplace();
    g1.emplace();
    if (opt.b_g2_on_gpu) g2.emplace();
    CUZK_CUDA_CHECK(cudaDeviceSynchronize());
  }

  // The bases, section by section, as the source delivers them (a streamed key: one window at a
  // time, so the host never holds the whole key).
  void upload_bases(const groth16::KeySource& src) {
    const std::pair<G1DeviceBases*, groth16::G1Section> g1s[] = {{&h, groth16::G1Section::h},
                                                                 {&l, groth16::G1Section::l},
                                                                 {&a, groth16::G1Section::a},
                                                                 {&b1, groth16::G1Section::b_g1}};
    const uint64_t counts[] = {key.h, key.l, key.a, key.b_g1};
    for (size_t i = 0; i < 4; ++i) {
      G1DeviceBases& dst = *g1s[i].first;
      dst = G1DeviceBases(counts[i]);
      src.read_g1(g1s[i].second, [&](uint64_t first, std::span<const ec::G1Affine> pts) { dst.upload(first, pts); });
    }
    if (opt.b_g2_on_gpu) {
      b2 = G2DeviceBases(key.b_g2);
      src.read_b_g2([&](uint64_t first, std::span<const ec::G2Affine> pts) { b2.upload(first, pts); });
    } else if (const groth16::ProvingKey* pk = src.in_memory()) {
      b_g2_host = pk->b_g2;
    } else {
      b_g2_copy.resize(key.b_g2);
      src.read_b_g2([&](uint64_t first, std::span<const ec::G2Affine> pts) {
        std::copy(pts.begin(), pts.end(), b_g2_copy.begin() + static_cast<std::ptrdiff_t>(first));
      });
      b_g2_host = b_g2_copy;
    }
  }

  // `after`: a stream whose queued work the device MSM waits for first.
  ec::G2 b_g2_msm(const Fr* z, cudaStream_t after, std::span<const Fr> inputs, std::span<const Fr> aux,
                  ProveTimings* t) {
    Stopwatch sw;
    ec::G2 r;
    if (opt.b_g2_on_gpu) {
      CUZK_CUDA_CHECK(cudaSetDevice(opt.device));
      r = g2->run_device(b2.view(0, b_inputs), z, shape.num_inputs, {.density = &shape.b_input_density}, after) +
          g2->run_device(b2.view(b_inputs, b_aux), z + shape.num_inputs, shape.num_aux,
                         {.density = &shape.b_aux_density}, after);
    } else {
      ThreadPool& pool = opt.pool ? *opt.pool : ThreadPool::global();
      const std::span<const ec::G2Affine> pts = b_g2_host;
      r = ec::msm(pts.first(b_inputs), inputs, {.density = &shape.b_input_density, .pool = &pool}) +
          ec::msm(pts.subspan(b_inputs), aux, {.density = &shape.b_aux_density, .pool = &pool});
    }
    add_time(t, &ProveTimings::msm_b_g2_s, sw.lap());
    return r;
  }

  void check_witness(std::span<const Fr> inputs, std::span<const Fr> aux) const {
    if (inputs.size() != shape.num_inputs || aux.size() != shape.num_aux) {
      throw std::invalid_argument("GpuProver: expected " + std::to_string(shape.num_inputs) + " inputs and " +
                                  std::to_string(shape.num_aux) + " aux values, got " + std::to_string(inputs.size()) +
                                  " and " + std::to_string(aux.size()));
    }
    if (inputs.empty() || !inputs[0].is_one()) throw std::invalid_argument("GpuProver: inputs[0] (ONE) must be 1");
  }

  // Witness to the slot's pinned memory and on to its z, chunk by chunk, so that the host's copy
  // of chunk k+1 overlaps the DMA of chunk k (at 32 GiB the witness is 4.2 GB: copy and DMA are
  // each ~0.1 s, and run one after the other otherwise). Returns when z is on the device. The test
  // hook fails here.
  void upload_z(Slot& slot, std::span<const Fr> inputs, std::span<const Fr> aux) {
    const uint64_t ni = shape.num_inputs, na = shape.num_aux;
    std::copy(inputs.begin(), inputs.end(), slot.z_host.data());
    ThreadPool& pool = opt.pool ? *opt.pool : ThreadPool::global();
    // 64 MiB chunks: large enough for full-speed DMA and parallel copies, small enough that the
    // first DMA starts early.
    constexpr uint64_t kChunk = uint64_t{1} << 21;
    uint64_t sent = 0;  // elements of z_host already queued for DMA (the inputs go with the first chunk)
    for (uint64_t lo = 0;; lo += kChunk) {
      const uint64_t hi = std::min(na, lo + kChunk);
      pool.parallel_chunks(hi - lo, size_t{1} << 15, [&](size_t a, size_t b) {
        std::copy(aux.begin() + static_cast<std::ptrdiff_t>(lo + a), aux.begin() + static_cast<std::ptrdiff_t>(lo + b),
                  slot.z_host.data() + ni + lo + a);
      });
      CUZK_CUDA_CHECK(cudaMemcpyAsync(slot.z.data() + sent, slot.z_host.data() + sent, (ni + hi - sent) * sizeof(Fr),
                                      cudaMemcpyHostToDevice, slot.copy));
      sent = ni + hi;
      if (hi == na) break;
    }
    slot.copy.sync();
    unsigned pending = fail_next.load();
    while (pending > 0 && !fail_next.compare_exchange_weak(pending, pending - 1)) {
    }
    if (pending > 0) {
      throw CudaError(cudaErrorLaunchFailure,
                      "GpuProver: injected failure (test hook) on device " + std::to_string(opt.device));
    }
  }

  // The witness's slot and its upload; then, holding the kernels' lock, `kernels(z)`.
  template <class Kernels>
  ProofMsms with_witness(std::span<const Fr> inputs, std::span<const Fr> aux, ProveTimings* t, Kernels&& kernels) {
    check_witness(inputs, aux);
    CUZK_CUDA_CHECK(cudaSetDevice(opt.device));
    SlotLease slot(*this);
    Stopwatch sw;
    upload_z(*slot, inputs, aux);
    add_time(t, &ProveTimings::upload_s, sw.lap());
    std::lock_guard kernels_lock(kernels_mu);
    add_time(t, &ProveTimings::device_wait_s, sw.lap());
    return kernels(*slot);
  }

  ProofMsms stage1(std::span<const Fr> inputs, std::span<const Fr> aux, ProveTimings* t) {
    if (!pce) throw std::logic_error("GpuProver::stage1: this prover has no Pce; use stage1_abc");
    return with_witness(inputs, aux, t, [&](Slot& slot) {
      Stopwatch sw;
      Fr* d_a = abc.data();
      pce->matvec(slot.z.data(), d_a, d_a + m, d_a + 2 * m, m, *stream);
      stream->sync();
      add_time(t, &ProveTimings::matvec_s, sw.lap());
      return h_and_msms(slot, inputs, aux, t);
    });
  }

  ProofMsms stage1_abc(std::span<const Fr> inputs, std::span<const Fr> aux, std::span<const Fr> a_in,
                       std::span<const Fr> b_in, std::span<const Fr> c_in, ProveTimings* t) {
    const uint64_t n = shape.num_constraints;
    if (a_in.size() != n || b_in.size() != n || c_in.size() != n) {
      throw std::invalid_argument("GpuProver: a, b, c must have num_constraints = " + std::to_string(n) +
                                  " elements each (got " + std::to_string(a_in.size()) + ", " +
                                  std::to_string(b_in.size()) + ", " + std::to_string(c_in.size()) + ")");
    }
    return with_witness(inputs, aux, t, [&](Slot& slot) {
      Stopwatch sw;
      const std::span<const Fr> parts[3] = {a_in, b_in, c_in};
      for (size_t k = 0; k < 3; ++k) {
        Fr* dst = abc.data() + k * m;
        if (n > 0)
          CUZK_CUDA_CHECK(cudaMemcpyAsync(dst, parts[k].data(), n * sizeof(Fr), cudaMemcpyHostToDevice, *stream));
        if (m > n) CUZK_CUDA_CHECK(cudaMemsetAsync(dst + n, 0, (m - n) * sizeof(Fr), *stream));
      }
      stream->sync();
      add_time(t, &ProveTimings::matvec_s, sw.lap());
      return h_and_msms(slot, inputs, aux, t);
    });
  }

  // H from a, b, c in abc, and the five MSMs. The l, a and b_g1 MSMs (and G2) need only z: with
  // opt.overlap_h they run while H's transforms do (the hope: the NTTs leave issue slots idle and
  // the MSMs are multiplication-bound; measured, the MSMs lost more than H gained), waiting on the
  // idle `slot.copy` (z is there) instead of `stream`; h_poly_s is then H's device time. The h MSM
  // follows H either way.
  ProofMsms h_and_msms(Slot& slot, std::span<const Fr> inputs, std::span<const Fr> aux, ProveTimings* t) {
    const cudaStream_t s = *stream;
    const Fr* z = slot.z.data();
    const uint64_t ni = shape.num_inputs, na = shape.num_aux;
    Fr* d_a = abc.data();
    Fr* d_b = d_a + m;
    Fr* d_c = d_b + m;
    const cudaStream_t z_ready = opt.overlap_h ? cudaStream_t{slot.copy} : s;
    Stopwatch sw;
    if (opt.overlap_h) {
      h_start->record(s);
      compute_h(d_a, d_b, d_c, log_m, poly::RootConvention::Zcash, s);
      h_end->record(s);
    } else {
      compute_h(d_a, d_b, d_c, log_m, poly::RootConvention::Zcash, s);
      stream->sync();
      add_time(t, &ProveTimings::h_poly_s, sw.lap());
    }

    // G2 concurrently (its own stream, or the CPU) with the G1 MSMs on this thread.
    std::future<ec::G2> g2_done = std::async(std::launch::async, [&] { return b_g2_msm(z, z_ready, inputs, aux, t); });
    ProofMsms out;
    out.l = g1->run_device(l.view(), z + ni, na, {}, z_ready);
    add_time(t, &ProveTimings::msm_l_s, sw.lap());
    out.a = g1->run_device(a.view(0, ni), z, ni, {}, z_ready) +
            g1->run_device(a.view(ni, a_aux), z + ni, na, {.density = &shape.a_aux_density}, z_ready);
    add_time(t, &ProveTimings::msm_a_s, sw.lap());
    out.b_g1 = g1->run_device(b1.view(0, b_inputs), z, ni, {.density = &shape.b_input_density}, z_ready) +
               g1->run_device(b1.view(b_inputs, b_aux), z + ni, na, {.density = &shape.b_aux_density}, z_ready);
    add_time(t, &ProveTimings::msm_b_g1_s, sw.lap());
    if (opt.overlap_h) {
      stream->sync();
      add_time(t, &ProveTimings::h_poly_s, 1e-3 * h_end->elapsed_ms_since(*h_start));
      sw.lap();
    }
    out.h = g1->run_device(h.view(), d_a, m - 1, {}, s);
    add_time(t, &ProveTimings::msm_h_s, sw.lap());
    out.b_g2 = g2_done.get();
    return out;
  }
};

GpuProverMemory GpuProver::memory_needed(const groth16::KeySizes& key, const pce::Pce& pce,
                                         const GpuProverOptions& options) {
  CircuitShape sizes;
  sizes.num_inputs = pce.num_inputs();
  sizes.num_aux = pce.num_aux();
  sizes.num_constraints = pce.num_constraints();
  GpuProverMemory mem = memory_needed(key, sizes, options);
  mem.pce = pce.section_bytes_total();
  return mem;
}

GpuProverMemory GpuProver::memory_needed(const groth16::KeySizes& key, const groth16::CircuitShape& shape,
                                         const GpuProverOptions& options) {
  GpuProverMemory mem;
  const uint64_t g1 = G1DeviceBases::kBytesPerBase, g2 = G2DeviceBases::kBytesPerBase;
  mem.bases = (key.h + key.l + key.a + key.b_g1) * g1 + (options.b_g2_on_gpu ? key.b_g2 * g2 : 0);
  mem.bases += table_bytes({key.h, key.l, key.a, key.b_g1}, key.b_g2, options);
  const uint64_t m = poly::Domain::size_for(shape.num_constraints);
  const uint64_t cols = shape.num_inputs + shape.num_aux;
  mem.vectors = (slot_count(options) * cols + 3 * m) * sizeof(Fr);
  const int sms = 144;  // upper bound for the slice/partial buffers (H200: 132)
  const uint64_t n1 = std::max<uint64_t>({m, shape.num_aux, shape.num_inputs});
  const unsigned tb = options.msm_table_bits;
  // The G2 MSM takes its scalars from the resident z through the B density: its buffers grow to
  // the bases it sums (b_g2: 33 M at 32 GiB), not to the 130 M columns (that estimate left no
  // room for G2 on an H200 at 32 GiB), plus the density bitmap and prefix of every column.
  mem.scratch = msm_scratch_bytes(n1, 192, sms, tb) +
                (options.b_g2_on_gpu ? msm_scratch_bytes(key.b_g2, 384, sms, tb) + cols / 8 * 2 : 0) + m * sizeof(Fr) +
                (uint64_t{64} << 20);  // twiddles, CUDA and CUB overheads
  return mem;
}

GpuProverMemory GpuProver::memory_needed(const groth16::ProvingKey& pk, const pce::Pce& pce,
                                         const GpuProverOptions& options) {
  return memory_needed(groth16::KeySizes::of(pk), pce, options);
}

GpuProverMemory GpuProver::memory_needed(const groth16::ProvingKey& pk, const groth16::CircuitShape& shape,
                                         const GpuProverOptions& options) {
  return memory_needed(groth16::KeySizes::of(pk), shape, options);
}

GpuProver::GpuProver(const groth16::KeySource& key, const pce::Pce& pce, const GpuProverOptions& options)
    : impl_(std::make_unique<Impl>(key, &pce, CircuitShape::of(pce), options)) {}
GpuProver::GpuProver(const groth16::ProvingKey& pk, const pce::Pce& pce, const GpuProverOptions& options)
    : GpuProver(groth16::MemoryKeySource(pk), pce, options) {}
GpuProver::GpuProver(const groth16::ProvingKey& pk, const groth16::CircuitShape& shape, const GpuProverOptions& options)
    : impl_(std::make_unique<Impl>(groth16::MemoryKeySource(pk), nullptr, shape, options)) {}
GpuProver::~GpuProver() = default;

groth16::ProofMsms GpuProver::stage1(std::span<const ec::Fr> inputs, std::span<const ec::Fr> aux,
                                     groth16::ProveTimings* timings) {
  return impl_->stage1(inputs, aux, timings);
}
groth16::ProofMsms GpuProver::stage1_abc(std::span<const ec::Fr> inputs, std::span<const ec::Fr> aux,
                                         std::span<const ec::Fr> a, std::span<const ec::Fr> b,
                                         std::span<const ec::Fr> c, groth16::ProveTimings* timings) {
  return impl_->stage1_abc(inputs, aux, a, b, c, timings);
}
int GpuProver::device() const {
  return impl_->opt.device;
}
unsigned GpuProver::witness_slots() const {
  return static_cast<unsigned>(impl_->slots.size());
}
const GpuProverMemory& GpuProver::memory() const {
  return impl_->mem;
}
const groth16::CircuitShape& GpuProver::shape() const {
  return impl_->shape;
}
void GpuProver::inject_failures(unsigned count) {
  impl_->fail_next = count;
}

struct GpuZkeyProver::Impl {
  const groth16::Zkey& zk;
  GpuProverOptions opt;
  GpuProverMemory mem;
  size_t n = 0, vars = 0, c_first = 0;
  G1DeviceBases a, b1, c, h;
  G2DeviceBases b2;
  DeviceBuffer<Fr> w, abc;
  std::shared_ptr<const GpuDomain> domain;
  std::optional<Stream> stream;
  std::optional<G1Msm> g1;
  std::optional<G2Msm> g2;
  unsigned fail_next = 0;

  Impl(const groth16::Zkey& key, const GpuProverOptions& o) : zk(key), opt(o) {
    n = zk.domain_size;
    vars = zk.n_vars;
    c_first = size_t{zk.n_public} + 1;
    if (zk.a.size() != vars || zk.b1.size() != vars || zk.b2.size() != vars || zk.h.size() != n ||
        zk.c.size() + c_first != vars || n < 2 || (size_t{1} << zk.log2_domain_size) != n)
      throw std::invalid_argument("GpuZkeyProver: the zkey's sections do not match its header");
    mem = GpuZkeyProver::memory_needed(zk, opt);
    CUZK_CUDA_CHECK(cudaSetDevice(opt.device));
    size_t free_b = 0, total_b = 0;
    CUZK_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    if (mem.total() > free_b) {
      throw DeviceMemoryShort("GpuZkeyProver: device " + std::to_string(opt.device) + " has " + gib(free_b) +
                              " free of " + gib(total_b) + ", but this zkey needs " + mem.describe() +
                              "; free device memory, use a larger device, or prove on the CPU (--backend cpu)");
    }
    a = G1DeviceBases(std::span<const ec::G1Affine>(zk.a));
    b1 = G1DeviceBases(std::span<const ec::G1Affine>(zk.b1));
    c = G1DeviceBases(std::span<const ec::G1Affine>(zk.c));
    h = G1DeviceBases(std::span<const ec::G1Affine>(zk.h));
    if (opt.b_g2_on_gpu) b2 = G2DeviceBases(std::span<const ec::G2Affine>(zk.b2));
    precompute_tables({&a, &b1, &c, &h}, b2, opt);
    w = DeviceBuffer<Fr>(vars);
    abc = DeviceBuffer<Fr>(3 * n);
    domain = GpuDomain::get(zk.log2_domain_size, poly::RootConvention::Snarkjs);
    stream.emplace();
    g1.emplace();
    if (opt.b_g2_on_gpu) g2.emplace();
    CUZK_CUDA_CHECK(cudaDeviceSynchronize());
  }

  groth16::ZkeyMsms stage1(std::span<const Fr> witness, ProveTimings* t) {
    ProveTimings local;
    ProveTimings& tt = t ? *t : local;
    Stopwatch sw;
    groth16::ZkeyAbc v = groth16::zkey_abc(zk, witness);  // validates the witness
    tt.matvec_s += sw.lap();
    CUZK_CUDA_CHECK(cudaSetDevice(opt.device));
    const cudaStream_t s = *stream;
    w.upload(witness, s);
    Fr* d_a = abc.data();
    Fr* d_b = d_a + n;
    Fr* d_c = d_b + n;
    CUZK_CUDA_CHECK(cudaMemcpyAsync(d_a, v.a.data(), n * sizeof(Fr), cudaMemcpyHostToDevice, s));
    CUZK_CUDA_CHECK(cudaMemcpyAsync(d_b, v.b.data(), n * sizeof(Fr), cudaMemcpyHostToDevice, s));
    CUZK_CUDA_CHECK(cudaMemcpyAsync(d_c, v.c.data(), n * sizeof(Fr), cudaMemcpyHostToDevice, s));
    if (fail_next > 0) {
      --fail_next;
      stream->sync();
      throw CudaError(cudaErrorLaunchFailure,
                      "GpuZkeyProver: injected failure (test hook) on device " + std::to_string(opt.device));
    }
    compute_h(d_a, d_b, d_c, zk.log2_domain_size, poly::RootConvention::Snarkjs, s);
    stream->sync();
    tt.h_poly_s += sw.lap();

    std::future<ec::G2> g2_done = std::async(std::launch::async, [&] {
      Stopwatch g2w;
      ec::G2 r;
      if (opt.b_g2_on_gpu) {
        CUZK_CUDA_CHECK(cudaSetDevice(opt.device));
        r = g2->run_device(b2.view(), w.data(), vars, {}, s);
      } else {
        r = ec::msm(std::span<const ec::G2Affine>(zk.b2), witness,
                    {.pool = opt.pool ? opt.pool : &ThreadPool::global()});
      }
      tt.msm_b_g2_s += g2w.lap();
      return r;
    });
    groth16::ZkeyMsms out;
    out.a = g1->run_device(a.view(), w.data(), vars, {}, s);
    tt.msm_a_s += sw.lap();
    out.b1 = g1->run_device(b1.view(), w.data(), vars, {}, s);
    tt.msm_b_g1_s += sw.lap();
    out.c = g1->run_device(c.view(), w.data() + c_first, vars - c_first, {}, s);
    tt.msm_l_s += sw.lap();
    out.h = g1->run_device(h.view(), d_a, n, {}, s);
    tt.msm_h_s += sw.lap();
    out.b2 = g2_done.get();
    return out;
  }
};

GpuProverMemory GpuZkeyProver::memory_needed(const groth16::Zkey& zk, const GpuProverOptions& options) {
  GpuProverMemory mem;
  const uint64_t g1 = G1DeviceBases::kBytesPerBase, g2 = G2DeviceBases::kBytesPerBase;
  mem.bases =
      (zk.a.size() + zk.b1.size() + zk.c.size() + zk.h.size()) * g1 + (options.b_g2_on_gpu ? zk.b2.size() * g2 : 0);
  mem.bases += table_bytes({zk.a.size(), zk.b1.size(), zk.c.size(), zk.h.size()}, zk.b2.size(), options);
  const uint64_t n = zk.domain_size, vars = zk.n_vars;
  mem.vectors = (vars + 3 * n) * sizeof(Fr);
  const int sms = 144;
  const unsigned tb = options.msm_table_bits;
  mem.scratch = msm_scratch_bytes(std::max(n, vars), 192, sms, tb) +
                (options.b_g2_on_gpu ? msm_scratch_bytes(vars, 384, sms, tb) : 0) + n * sizeof(Fr) +
                (uint64_t{64} << 20);
  return mem;
}

GpuZkeyProver::GpuZkeyProver(const groth16::Zkey& zkey, const GpuProverOptions& options)
    : impl_(std::make_unique<Impl>(zkey, options)) {}
GpuZkeyProver::~GpuZkeyProver() = default;
groth16::ZkeyMsms GpuZkeyProver::stage1(std::span<const ec::Fr> witness, groth16::ProveTimings* timings) {
  return impl_->stage1(witness, timings);
}
int GpuZkeyProver::device() const {
  return impl_->opt.device;
}
void GpuZkeyProver::inject_failures(unsigned count) {
  impl_->fail_next = count;
}

}  // namespace cuzk::gpu
