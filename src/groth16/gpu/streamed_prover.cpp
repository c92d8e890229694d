// GpuStreamedProver (streamed_prover.hpp): no kernels of its own; it drives GpuPce, the H steps,
// HostUploader and ChunkedMsm by the plan.
#include "groth16/gpu/streamed_prover.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <atomic>
#include <future>
#include <mutex>
#include <stdexcept>
#include <string>

#include "ec/msm.hpp"
#include "gpu/cuda_error.hpp"
#include "gpu/device_buffer.hpp"
#include "gpu/ntt.hpp"
#include "groth16/gpu/chunked_msm.hpp"
#include "groth16/gpu/h_poly.hpp"
#include "groth16/gpu/host_upload.hpp"
#include "groth16/gpu/pce_matvec.hpp"
#include "groth16/gpu/pce_stream.hpp"
#include "pce/matvec.hpp"
#include "poly/domain.hpp"
#include "util/device_error.hpp"
#include "util/stopwatch.hpp"

namespace cuzk::gpu {

namespace {

using ec::Fr;
using groth16::ProveTimings;

// The MSMs in the order they stream; ProofMsms sums them by these indices.
enum StreamedMsmIndex : size_t { kH, kL, kAIn, kAAux, kB1In, kB1Aux, kB2In, kB2Aux, kMsmCount };

unsigned streamed_log2(uint64_t m) {
  unsigned k = 0;
  while ((uint64_t{1} << k) < m) ++k;
  return k;
}

void add_seconds(ProveTimings* t, double ProveTimings::*field, double s) {
  if (t) t->*field += s;
}

// Sets the device before the members that allocate on it are built.
struct DeviceScope {
  explicit DeviceScope(int device) { CUZK_CUDA_CHECK(cudaSetDevice(device)); }
};

}  // namespace

struct GpuStreamedProver::Impl {
  GpuStreamedProverOptions opt;
  DeviceScope scope;
  const pce::Pce& pce_host;
  groth16::CircuitShape shape;
  groth16::KeySizes key;
  StreamedPlan plan;
  uint64_t m = 0, cols = 0;
  unsigned log_m = 0;
  std::shared_ptr<const PinnedHostKey> host_key;
  std::span<const ec::G2Affine> b_g2_host;  // the CPU G2 MSM's bases
  std::vector<ec::G2Affine> b_g2_copy;

  // Witness j of a pass: H (the h MSM's scalars) and z. Their vectors and the work vectors follow
  // the mode (streamed_plan.hpp); in pce3 slot 0's H and the work vectors are one 3m block, so that
  // compute_h transforms a and b as one batch.
  struct Slot {
    Fr* h = nullptr;
    Fr* z = nullptr;
    uint64_t h_len = 0, z_len = 0;
  };
  std::vector<DeviceBuffer<Fr>> owned;
  Fr* work = nullptr;
  std::vector<Slot> slots;
  std::optional<GpuPce> gpu_pce;            // pce3, pce2
  std::optional<GpuPceStream> pce_stream;   // stream2
  TwiddleLayout tw = TwiddleLayout::table;  // the plan's (compact_twiddles)
  std::shared_ptr<const GpuDomain> domain;
  Stream main, up;       // kernels; uploads
  Event to_main, to_up;  // upload done -> main; main done with a vector -> up
  Event marks[7];        // phase boundaries on `main` (MatVec / H device times)
  std::optional<HostUploader> uploader;
  PinnedBuffer<Fr> host_abc;  // host2: a, b, c from the CPU's MatVec (num_constraints each)
  uint64_t pinned_bytes = 0;  // sent from host_abc
  std::optional<ChunkedMsm> msm;
  std::vector<StreamedMsm> msms;
  std::mutex mu;
  std::atomic<unsigned> fail_next{0};

  Impl(std::shared_ptr<const PinnedHostKey> hk, const groth16::KeySource& src, const pce::Pce& p,
       const GpuStreamedProverOptions& o)
      : opt(o), scope(o.device), pce_host(p), shape(groth16::CircuitShape::of(p)), key(src.sizes()) {
    groth16::validate_key(key, shape);
    m = poly::Domain::size_for(shape.num_constraints);
    log_m = streamed_log2(m);
    cols = shape.num_inputs + shape.num_aux;
    make_plan();
    host_key = hk ? std::move(hk)
                  : PinnedHostKey::shared(o.key_id.empty() ? PinnedHostKey::identity_of(src) : o.key_id, src,
                                          o.b_g2_on_gpu, o.pool);
    if (host_key->sizes() != key || (o.b_g2_on_gpu && !host_key->has_b_g2()))
      throw std::invalid_argument("GpuStreamedProver: the pinned key does not match the key source");
    if (!o.b_g2_on_gpu) take_b_g2_host(src);
    cut_msms();
    allocate();
  }

  // The plan at min(cap, free); DeviceMemoryShort naming the smallest workable cap when none fits.
  void make_plan() {
    size_t free_b = 0, total_b = 0;
    CUZK_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    const uint64_t limit = opt.memory_limit ? std::min<uint64_t>(opt.memory_limit, free_b) : free_b;
    const StreamedShape streamed = StreamedShape::of(pce_host);
    plan = plan_streamed(key, streamed, limit, opt.plan_options());
    if (plan.fits) return;
    const std::string smallest = format_gib(plan.smallest_cap);
    const std::string why = opt.memory_limit && opt.memory_limit < plan.smallest_cap
                                ? "a device-memory cap of " + format_gib(opt.memory_limit)
                                : "device " + std::to_string(opt.device) + " with " + format_gib(free_b) + " free of " +
                                      format_gib(total_b);
    std::string g2_hint;
    if (opt.b_g2_on_gpu) {
      StreamedPlanOptions cpu_g2 = opt.plan_options();
      cpu_g2.b_g2_on_gpu = false;
      g2_hint = ", the G2 MSM on the CPU (smallest workable cap " +
                format_gib(plan_streamed(key, streamed, limit, cpu_g2).smallest_cap) + ")";
    }
    throw DeviceMemoryShort(
        "GpuStreamedProver: " + why + " is below the smallest workable cap for this key and circuit, " + smallest +
        " (the smallest arrangement, " + plan.arrangement() + ", needs " + plan.memory.describe() +
        "); raise the cap to at least " + smallest + g2_hint + ", use a larger device, or prove on the CPU");
  }

  void take_b_g2_host(const groth16::KeySource& src) {
    if (const groth16::ProvingKey* pk = src.in_memory()) {
      b_g2_host = pk->b_g2;
      return;
    }
    b_g2_copy.resize(key.b_g2);
    src.read_b_g2([&](uint64_t first, std::span<const ec::G2Affine> pts) {
      std::copy(pts.begin(), pts.end(), b_g2_copy.begin() + static_cast<std::ptrdiff_t>(first));
    });
    b_g2_host = b_g2_copy;
  }

  // The MSMs (as GpuProver's: a = inputs dense + aux through the A aux density, b through the B
  // densities) cut into chunks of the plan's size.
  void cut_msms() {
    const uint64_t ni = shape.num_inputs, na = shape.num_aux;
    const uint64_t b_in = shape.b_input_count();
    const uint64_t k1 = plan.chunk_points, k2 = plan.g2_chunk_points;
    const PinnedHostKey& hk = *host_key;
    using S = groth16::G1Section;
    constexpr uint64_t g1 = PinnedHostKey::kG1Bytes, g2 = PinnedHostKey::kG2Bytes;
    msms.resize(opt.b_g2_on_gpu ? kMsmCount : kB2In);
    // h sums the dense H and G2 costs ~6x G1's per base: compute-bound; l, a, b_g1 take the witness,
    // mostly 0 and 1 in Filecoin's circuits: copy-bound (their chunks run between the others').
    msms[kH] = {false, false, hk.g1(S::h), ScalarSource::h, 0, cut_msm(m - 1, nullptr, k1)};
    msms[kL] = {false, true, hk.g1(S::l), ScalarSource::z, ni, cut_msm(na, nullptr, k1)};
    msms[kAIn] = {false, true, hk.g1(S::a), ScalarSource::z, 0, cut_msm(ni, nullptr, k1)};
    msms[kAAux] = {false, true, hk.g1(S::a) + ni * g1, ScalarSource::z, ni, cut_msm(na, &shape.a_aux_density, k1)};
    msms[kB1In] = {false, true, hk.g1(S::b_g1), ScalarSource::z, 0, cut_msm(ni, &shape.b_input_density, k1)};
    msms[kB1Aux] = {false,           true, hk.g1(S::b_g1) + b_in * g1,
                    ScalarSource::z, ni,   cut_msm(na, &shape.b_aux_density, k1)};
    if (!opt.b_g2_on_gpu) return;
    msms[kB2In] = {true, false, hk.b_g2(), ScalarSource::z, 0, cut_msm(ni, &shape.b_input_density, k2)};
    msms[kB2Aux] = {true, false, hk.b_g2() + b_in * g2, ScalarSource::z, ni, cut_msm(na, &shape.b_aux_density, k2)};
  }

  // Everything the plan counts, then the MSM engines grown to the largest chunk.
  void allocate() {
    const uint64_t w = plan.witnesses_per_pass;
    auto own = [&](uint64_t n) { return owned.emplace_back(n).data(); };
    switch (plan.mode) {
      case StreamedMode::pce3: {
        Fr* block = own(3 * m);
        work = block + m;
        slots.push_back({block, own(cols), m, cols});
        break;
      }
      case StreamedMode::pce2:
      case StreamedMode::stream2:
        work = own(m);
        slots.push_back({own(m), own(cols), m, cols});
        break;
      case StreamedMode::host2: {
        const uint64_t len = std::max(m, cols);
        slots.push_back({own(len), own(len), len, len});
        break;
      }
    }
    while (slots.size() < w) {
      const Slot& s0 = slots.front();
      slots.push_back({own(s0.h_len), own(s0.z_len), s0.h_len, s0.z_len});
    }
    if (plan.mode == StreamedMode::pce3 || plan.mode == StreamedMode::pce2) gpu_pce.emplace(pce_host);
    if (plan.mode == StreamedMode::stream2) pce_stream.emplace(pce_host, pce_block_bytes(StreamedShape::of(pce_host)));
    if (plan.mode == StreamedMode::host2) host_abc = PinnedBuffer<Fr>(3 * shape.num_constraints);
    tw = plan.compact_twiddles ? TwiddleLayout::compact : TwiddleLayout::table;
    domain = GpuDomain::get(log_m, poly::RootConvention::Zcash, tw);  // twiddles now, not in the first proof
    uploader.emplace(opt.pool);
    msm.emplace(chunk_buffer_bytes(plan.chunk_points, opt.b_g2_on_gpu), plan.buffers, opt.b_g2_on_gpu,
                plan.g1_max_pairs(), plan.g2_max_pairs());
    uint64_t most[2] = {0, 0};  // bases of the largest G1 and G2 chunk
    for (const StreamedMsm& s : msms)
      for (const MsmChunk& c : s.chunks) most[s.g2] = std::max(most[s.g2], c.base_count);
    const Slot& s0 = slots.front();
    msm->reserve(most[0], most[1], s0.h_len >= s0.z_len ? s0.h : s0.z);
    CUZK_CUDA_CHECK(cudaDeviceSynchronize());
  }

  void check_witness(std::span<const Fr> inputs, std::span<const Fr> aux) const {
    if (inputs.size() != shape.num_inputs || aux.size() != shape.num_aux) {
      throw std::invalid_argument("GpuStreamedProver: expected " + std::to_string(shape.num_inputs) + " inputs and " +
                                  std::to_string(shape.num_aux) + " aux values, got " + std::to_string(inputs.size()) +
                                  " and " + std::to_string(aux.size()));
    }
    if (inputs.empty() || !inputs[0].is_one())
      throw std::invalid_argument("GpuStreamedProver: inputs[0] (ONE) must be 1");
  }

  // `up` waits for what `main` has queued (a vector main read is free to overwrite), or the reverse.
  void up_after_main() {
    to_up.record(main);
    CUZK_CUDA_CHECK(cudaStreamWaitEvent(up, to_up.get(), 0));
  }
  void main_after_up() {
    to_main.record(up);
    CUZK_CUDA_CHECK(cudaStreamWaitEvent(main, to_main.get(), 0));
  }

  // z = inputs ‖ aux into dst on `up`; upload_s is the host's share (the copies into staging).
  void upload_z(const groth16::Witness& w, Fr* dst, ProveTimings* t) {
    Stopwatch sw;
    uploader->upload(w.inputs, dst, up);
    uploader->upload(w.aux, dst + shape.num_inputs, up);
    add_seconds(t, &ProveTimings::upload_s, sw.lap());
  }
  // A pinned host vector of num_constraints values into dst, zero-padded to m, on `up` (counted).
  void upload_pinned(std::span<const Fr> v, Fr* dst) {
    CUZK_CUDA_CHECK(cudaMemcpyAsync(dst, v.data(), v.size() * sizeof(Fr), cudaMemcpyHostToDevice, up));
    pinned_bytes += v.size() * sizeof(Fr);
    if (m > v.size()) CUZK_CUDA_CHECK(cudaMemsetAsync(dst + v.size(), 0, (m - v.size()) * sizeof(Fr), up));
  }

  // Seconds between marks[from] and marks[to] (recorded on `main`, complete).
  float mark_seconds(unsigned from, unsigned to) const { return marks[to].elapsed_ms_since(marks[from]) * 1e-3f; }

  // H of witness w in slot s (and z there), per mode; returns with both complete on the device.
  // The pass's first witness also starts the first chunks' copies, behind what H waits for from
  // the host (z; in host2 the CPU's MatVec runs first), so that they cross while H is computed.
  void prepare(const groth16::Witness& w, Slot& s, ProveTimings* t, bool first) {
    switch (plan.mode) {
      case StreamedMode::pce3:
        return prepare_pce3(w, s, t, first);
      case StreamedMode::pce2:
      case StreamedMode::stream2:
        return prepare_pce2(w, s, t, first);
      case StreamedMode::host2:
        return prepare_host2(w, s, t, first);
    }
  }

  void prepare_pce3(const groth16::Witness& w, Slot& s, ProveTimings* t, bool first) {
    upload_z(w, s.z, t);
    if (first) msm->prefetch(msms);
    main_after_up();
    marks[0].record(main);
    gpu_pce->matvec(s.z, s.h, work, work + m, m, main);
    marks[1].record(main);
    compute_h(s.h, work, work + m, log_m, poly::RootConvention::Zcash, main, tw);
    marks[2].record(main);
    main.sync();
    add_seconds(t, &ProveTimings::matvec_s, mark_seconds(0, 1));
    add_seconds(t, &ProveTimings::h_poly_s, mark_seconds(1, 2));
  }

  // One matrix's MatVec on `main`: the resident PCE, or (stream2) the one streamed by row blocks.
  void matvec_one(pce::MatrixId id, const Fr* z, Fr* out) {
    if (pce_stream) return pce_stream->matvec_one(id, z, out, m, main);
    gpu_pce->matvec_one(id, z, out, m, main);
  }

  // a -> H's vector, b and c in turn -> the work vector; matvec_s / h_poly_s from the marks (in
  // stream2 MatVec's time includes waiting for its blocks to cross PCIe).
  void prepare_pce2(const groth16::Witness& w, Slot& s, ProveTimings* t, bool first) {
    upload_z(w, s.z, t);
    if (first) msm->prefetch(msms);
    main_after_up();
    marks[0].record(main);
    matvec_one(pce::MatrixId::A, s.z, s.h);
    marks[1].record(main);
    h_steps::coset(s.h, log_m, main, tw);
    marks[2].record(main);
    matvec_one(pce::MatrixId::B, s.z, work);
    marks[3].record(main);
    h_steps::coset(work, log_m, main, tw);
    h_steps::quotient(s.h, work, log_m, main, tw);
    marks[4].record(main);
    matvec_one(pce::MatrixId::C, s.z, work);
    marks[5].record(main);
    h_steps::c_coefficients(work, log_m, main, tw);
    h_steps::finish(s.h, work, log_m, main, tw);
    marks[6].record(main);
    main.sync();
    add_seconds(t, &ProveTimings::matvec_s, mark_seconds(0, 1) + mark_seconds(2, 3) + mark_seconds(4, 5));
    add_seconds(t, &ProveTimings::h_poly_s, mark_seconds(1, 2) + mark_seconds(3, 4) + mark_seconds(5, 6));
  }

  // a, b, c from the CPU's MatVec, each uploaded (on `up`) while the previous one's transforms run;
  // z last, into the vector c leaves free. h_poly_s: main's time from a's transforms to H.
  void prepare_host2(const groth16::Witness& w, Slot& s, ProveTimings* t, bool first) {
    if (first) msm->prefetch(msms);
    Stopwatch sw;
    // Into the prover's pinned a, b, c: no fresh 12.5 GB to fault in per partition (32 GiB), and
    // each crosses in one DMA at pinned speed instead of through the staging buffers.
    const uint64_t n = shape.num_constraints;
    const std::span<Fr> a = host_abc.span().subspan(0, n), b = host_abc.span().subspan(n, n),
                        c = host_abc.span().subspan(2 * n, n);
    pce::matvec(pce_host, w.inputs, w.aux, a, b, c, {.pool = opt.pool});
    upload_pinned(a, s.h);
    main_after_up();
    marks[0].record(main);
    h_steps::coset(s.h, log_m, main, tw);
    upload_pinned(b, s.z);
    main_after_up();
    h_steps::coset(s.z, log_m, main, tw);
    h_steps::quotient(s.h, s.z, log_m, main, tw);
    up_after_main();
    upload_pinned(c, s.z);
    main_after_up();
    h_steps::c_coefficients(s.z, log_m, main, tw);
    h_steps::finish(s.h, s.z, log_m, main, tw);
    marks[1].record(main);
    add_seconds(t, &ProveTimings::matvec_s, sw.lap());
    up_after_main();
    upload_z(w, s.z, t);
    main.sync();
    up.sync();
    add_seconds(t, &ProveTimings::h_poly_s, mark_seconds(0, 1));
  }

  // The G2 MSM of every witness on the CPU, with its seconds (one task beside the device work).
  struct CpuG2 {
    std::vector<ec::G2> sums;
    double seconds = 0;
  };
  CpuG2 cpu_g2(std::span<const groth16::Witness> ws) const {
    Stopwatch sw;
    ThreadPool& pool = opt.pool ? *opt.pool : ThreadPool::global();
    const uint64_t b_in = shape.b_input_count();
    CpuG2 r;
    for (const groth16::Witness& w : ws) {
      r.sums.push_back(ec::msm(b_g2_host.first(b_in), w.inputs, {.density = &shape.b_input_density, .pool = &pool}) +
                       ec::msm(b_g2_host.subspan(b_in), w.aux, {.density = &shape.b_aux_density, .pool = &pool}));
    }
    r.seconds = sw.lap();
    return r;
  }

  void maybe_fail() {
    unsigned pending = fail_next.load();
    while (pending > 0 && !fail_next.compare_exchange_weak(pending, pending - 1)) {
    }
    if (pending > 0)
      throw CudaError(cudaErrorLaunchFailure,
                      "GpuStreamedProver: injected failure (test hook) on device " + std::to_string(opt.device));
  }

  // Bytes sent host -> device so far: bases and bitmaps, z, a/b/c (host2), the PCE (stream2).
  uint64_t h2d_now() const {
    return msm->bytes() + uploader->bytes() + pinned_bytes + (pce_stream ? pce_stream->copied() : 0);
  }

  // One pass over the key for up to witnesses_per_pass witnesses.
  std::vector<groth16::ProofMsms> pass(std::span<const groth16::Witness> ws, ProveTimings* t, GpuStreamedStats* st) {
    const uint64_t bytes0 = h2d_now(), bases0 = msm->base_bytes(), copies0 = msm->copies();
    std::future<CpuG2> g2_cpu;
    if (!opt.b_g2_on_gpu) g2_cpu = std::async(std::launch::async, [&] { return cpu_g2(ws); });
    for (size_t j = 0; j < ws.size(); ++j) prepare(ws[j], slots[j], t, j == 0);
    main.sync();
    up.sync();
    maybe_fail();
    std::vector<WitnessScalars> scalars;
    for (size_t j = 0; j < ws.size(); ++j) scalars.push_back({slots[j].h, slots[j].z});
    double seconds[kMsmCount] = {};
    const std::vector<MsmSums> sums = msm->run(msms, scalars, std::span(seconds, msms.size()));
    add_seconds(t, &ProveTimings::msm_h_s, seconds[kH]);
    add_seconds(t, &ProveTimings::msm_l_s, seconds[kL]);
    add_seconds(t, &ProveTimings::msm_a_s, seconds[kAIn] + seconds[kAAux]);
    add_seconds(t, &ProveTimings::msm_b_g1_s, seconds[kB1In] + seconds[kB1Aux]);
    std::vector<groth16::ProofMsms> out(ws.size());
    for (size_t j = 0; j < ws.size(); ++j) {
      const std::vector<ec::G1>& g1 = sums[j].g1;
      out[j].h = g1[kH];
      out[j].l = g1[kL];
      out[j].a = g1[kAIn] + g1[kAAux];
      out[j].b_g1 = g1[kB1In] + g1[kB1Aux];
      if (opt.b_g2_on_gpu) out[j].b_g2 = sums[j].g2[kB2In] + sums[j].g2[kB2Aux];
    }
    if (opt.b_g2_on_gpu) {
      add_seconds(t, &ProveTimings::msm_b_g2_s, seconds[kB2In] + seconds[kB2Aux]);
    } else {
      const CpuG2 g2 = g2_cpu.get();
      add_seconds(t, &ProveTimings::msm_b_g2_s, g2.seconds);
      for (size_t j = 0; j < ws.size(); ++j) out[j].b_g2 = g2.sums[j];
    }
    if (st) {
      size_t free_b = 0, total_b = 0;
      CUZK_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
      st->h2d_bytes += h2d_now() - bytes0;
      st->base_bytes += msm->base_bytes() - bases0;
      st->chunk_copies += msm->copies() - copies0;
      st->device_used = std::max<uint64_t>(st->device_used, total_b - free_b);
    }
    return out;
  }

  std::vector<groth16::ProofMsms> batch(std::span<const groth16::Witness> ws, ProveTimings* t, GpuStreamedStats* st) {
    for (const groth16::Witness& w : ws) check_witness(w.inputs, w.aux);
    std::lock_guard lock(mu);
    CUZK_CUDA_CHECK(cudaSetDevice(opt.device));
    std::vector<groth16::ProofMsms> out;
    const size_t per = plan.witnesses_per_pass;
    for (size_t i = 0; i < ws.size(); i += per) {
      std::vector<groth16::ProofMsms> got = pass(ws.subspan(i, std::min(per, ws.size() - i)), t, st);
      out.insert(out.end(), got.begin(), got.end());
    }
    return out;
  }
};

GpuStreamedProver::GpuStreamedProver(const groth16::KeySource& key, const pce::Pce& pce,
                                     const GpuStreamedProverOptions& options)
    : impl_(std::make_unique<Impl>(nullptr, key, pce, options)) {}
GpuStreamedProver::GpuStreamedProver(std::shared_ptr<const PinnedHostKey> host_key, const groth16::KeySource& key,
                                     const pce::Pce& pce, const GpuStreamedProverOptions& options)
    : impl_(std::make_unique<Impl>(std::move(host_key), key, pce, options)) {}
GpuStreamedProver::~GpuStreamedProver() = default;

StreamedPlan GpuStreamedProver::plan_for(const groth16::KeySizes& key, const pce::Pce& pce, uint64_t cap,
                                         const GpuStreamedProverOptions& options) {
  return plan_streamed(key, StreamedShape::of(pce), cap, options.plan_options());
}

groth16::ProofMsms GpuStreamedProver::stage1(std::span<const ec::Fr> inputs, std::span<const ec::Fr> aux,
                                             groth16::ProveTimings* timings, GpuStreamedStats* stats) {
  const groth16::Witness w{inputs, aux};
  return impl_->batch({&w, 1}, timings, stats).at(0);
}
std::vector<groth16::ProofMsms> GpuStreamedProver::stage1_batch(std::span<const groth16::Witness> witnesses,
                                                                groth16::ProveTimings* timings,
                                                                GpuStreamedStats* stats) {
  return impl_->batch(witnesses, timings, stats);
}
int GpuStreamedProver::device() const {
  return impl_->opt.device;
}
const StreamedPlan& GpuStreamedProver::plan() const {
  return impl_->plan;
}
const groth16::CircuitShape& GpuStreamedProver::shape() const {
  return impl_->shape;
}
const PinnedHostKey& GpuStreamedProver::host_key() const {
  return *impl_->host_key;
}
void GpuStreamedProver::inject_failures(unsigned count) {
  impl_->fail_next = count;
}

}  // namespace cuzk::gpu
