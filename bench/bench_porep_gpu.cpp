// One 32 GiB (or any size) PoRep partition's device stage on the GPU, for timing: a valid
// synthetic C1 (synth_c1), the PCE (record_porep_circuit_replicated + build_pce), partition 0's
// witness, and a proving key of the circuit's exact shape whose points are test bases tiled from
// a pool (tiled_key.hpp) instead of a setup's: a real test-only setup of the 2^27-row circuit takes
// ~130 M fixed-base multiplications per query, hours on 16 cores. The MSMs do the same work for any
// bases (sizes, scalars and densities are the real ones), so the device stage's time is
// representative; the proof itself is not checked (it cannot verify against a key with no setup
// behind it). Correctness of the same code is covered at 2 KiB-512 MiB by the GPU tests and the
// verified daemon runs.
//   bench_porep_gpu [SIZE=32GiB] [--reps N] [--g2-cpu] [--device D] [--overlap-h 0|1|ab]
//                   [--streamed CAPS] [--no-resident] [--batch W] [--mode pce3|pce2|stream2|host2]
// (--overlap-h: GpuProverOptions::overlap_h; ab: a prover without it, then one with it, in one run)
// --streamed: the streamed prover (GpuStreamedProver) under each device-memory cap of the comma
// list, in GiB ("min": the smallest workable cap; "80x2": two witnesses a pass at 80 GiB; "16:host2": that
// arrangement forced; "40b2":
// a ring of two chunk buffers instead of three), from one
// pinned copy of the key; its sums are compared with the resident prover's when that fits the
// device (--no-resident skips it), else with the first streamed run's ("same_as_reference"). --batch: witnesses per
// pass over the key for every cap (the same witness W times). --mode forces the arrangement. One JSON object per line:
// step, wall seconds, sizes; the stages of each rep (streamed: bytes host -> device, chunk copies, device memory
// taken).
#include <cuda_runtime_api.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "ec/bls12_381.hpp"
#include "filecoin/porep_synthesis.hpp"
#include "filecoin/registered_proof.hpp"
#include "filecoin/synth_c1.hpp"
#include "gpu/cuda_error.hpp"
#include "groth16/gpu/gpu_prover.hpp"
#include "groth16/gpu/streamed_prover.hpp"
#include "groth16/prover.hpp"
#include "pce/build.hpp"
#include "tiled_key.hpp"
#include "util/device_error.hpp"
#include "util/thread_pool.hpp"

namespace {

using namespace cuzk;

struct Timer {
  std::chrono::steady_clock::time_point t0 = std::chrono::steady_clock::now();
  double wall() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); }
};

void row(const char* step, const Timer& t, const std::string& extra = "") {
  std::printf("{\"step\": \"%s\", \"wall_s\": %.3f%s}\n", step, t.wall(), extra.c_str());
  std::fflush(stdout);
}

std::string stage_fields(const groth16::ProveTimings& t) {
  char buf[320];
  std::snprintf(buf, sizeof buf,
                ", \"upload_s\": %.3f, \"matvec_s\": %.3f, \"h_s\": %.3f, \"msm_h_s\": %.3f, \"msm_l_s\": %.3f, "
                "\"msm_a_s\": %.3f, \"msm_b_g1_s\": %.3f, \"msm_b_g2_s\": %.3f",
                t.upload_s, t.matvec_s, t.h_poly_s, t.msm_h_s, t.msm_l_s, t.msm_a_s, t.msm_b_g1_s, t.msm_b_g2_s);
  return buf;
}

uint64_t device_free(int device) {
  size_t free_b = 0, total_b = 0;
  if (cudaSetDevice(device) != cudaSuccess || cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) return 0;
  return free_b;
}

bool same_msms(const groth16::ProofMsms& x, const groth16::ProofMsms& y) {
  return x.h.to_affine() == y.h.to_affine() && x.l.to_affine() == y.l.to_affine() &&
         x.a.to_affine() == y.a.to_affine() && x.b_g1.to_affine() == y.b_g1.to_affine() &&
         x.b_g2.to_affine() == y.b_g2.to_affine();
}

std::optional<gpu::StreamedMode> mode_named(const std::string& m) {
  for (gpu::StreamedMode mode :
       {gpu::StreamedMode::pce3, gpu::StreamedMode::pce2, gpu::StreamedMode::stream2, gpu::StreamedMode::host2})
    if (m == gpu::to_string(mode)) return mode;
  return std::nullopt;
}

struct Args {
  std::string size = "32GiB";
  int reps = 3, device = 0;
  bool g2_cpu = false, resident = true;
  std::vector<bool> overlaps{true};
  std::vector<std::string> caps;  // --streamed
  unsigned batch = 1;
  std::optional<gpu::StreamedMode> mode;
};

bool parse(int argc, char** argv, Args& a) {
  for (int i = 1; i < argc; ++i) {
    const bool more = i + 1 < argc;
    if (std::strcmp(argv[i], "--reps") == 0 && more) {
      a.reps = std::stoi(argv[++i]);
    } else if (std::strcmp(argv[i], "--device") == 0 && more) {
      a.device = std::stoi(argv[++i]);
    } else if (std::strcmp(argv[i], "--g2-cpu") == 0) {
      a.g2_cpu = true;
    } else if (std::strcmp(argv[i], "--no-resident") == 0) {
      a.resident = false;
    } else if (std::strcmp(argv[i], "--overlap-h") == 0 && more) {
      const std::string v = argv[++i];
      a.overlaps = v == "ab" ? std::vector<bool>{false, true} : std::vector<bool>{v != "0"};
    } else if (std::strcmp(argv[i], "--streamed") == 0 && more) {
      for (std::string list = argv[++i]; !list.empty();) {
        const size_t comma = list.find(',');
        a.caps.push_back(list.substr(0, comma));
        list = comma == std::string::npos ? "" : list.substr(comma + 1);
      }
    } else if (std::strcmp(argv[i], "--batch") == 0 && more) {
      a.batch = static_cast<unsigned>(std::stoul(argv[++i]));
    } else if (std::strcmp(argv[i], "--mode") == 0 && more) {
      const std::string m = argv[++i];
      const std::optional<gpu::StreamedMode> mode = mode_named(m);
      if (!mode) return false;
      a.mode = mode;
    } else if (argv[i][0] != '-') {
      a.size = argv[i];
    } else {
      return false;
    }
  }
  return true;
}

// The resident prover (if it fits the device): its sums of the last rep, for the streamed ones.
std::optional<groth16::ProofMsms> run_resident(const Args& a, const groth16::KeySource& key, const pce::Pce& p,
                                               const filecoin::PorepAssignment& w, ThreadPool& pool) {
  std::optional<groth16::ProofMsms> last;
  for (const bool overlap : a.overlaps) {
    Timer tu;
    try {
      gpu::GpuProver prover(key, p,
                            {.device = a.device, .b_g2_on_gpu = !a.g2_cpu, .pool = &pool, .overlap_h = overlap});
      row("gpu_prover_upload", tu,
          ", \"device_memory\": \"" + prover.memory().describe() +
              "\", \"overlap_h\": " + (overlap ? "true" : "false"));
      for (int r = 0; r < a.reps; ++r) {
        groth16::ProveTimings t;
        Timer tr;
        last = prover.stage1(w.inputs, w.aux, &t);
        row("device_stage", tr,
            std::string(", \"overlap_h\": ") + (overlap ? "true" : "false") + ", \"rep\": " + std::to_string(r) +
                stage_fields(t));
      }
    } catch (const DeviceMemoryShort& e) {
      row("gpu_prover_does_not_fit", tu, ", \"why\": \"" + std::string(e.what()) + "\"");
      return std::nullopt;
    }
  }
  return last;
}

// The streamed prover under one cap (GiB, or "min"), from the shared pinned key.
// CAP[xW][bR][:MODE]: W witnesses a pass (else --batch), R chunk buffers (else the default, 3),
// the arrangement forced (else --mode, else the plan's).
void run_streamed(const Args& a, const std::string& cap_text, std::shared_ptr<const gpu::PinnedHostKey> host_key,
                  const groth16::KeySource& key, const pce::Pce& p, const filecoin::PorepAssignment& w,
                  std::optional<groth16::ProofMsms>& reference, ThreadPool& pool) {
  const size_t colon = cap_text.find(':');
  const std::optional<gpu::StreamedMode> forced =
      colon == std::string::npos ? a.mode : mode_named(cap_text.substr(colon + 1));
  if (colon != std::string::npos && !forced) throw std::invalid_argument("unknown arrangement in '" + cap_text + "'");
  const std::string head = cap_text.substr(0, colon);
  const size_t x = head.find('x'), b = head.find('b');
  const std::string cap = head.substr(0, std::min(x, b));
  const unsigned batch = x == std::string::npos ? a.batch : static_cast<unsigned>(std::stoul(head.substr(x + 1)));
  const unsigned buffers = b == std::string::npos ? gpu::GpuStreamedProverOptions{}.buffers
                                                  : static_cast<unsigned>(std::stoul(head.substr(b + 1)));
  gpu::GpuStreamedProverOptions o{.device = a.device,
                                  .b_g2_on_gpu = !a.g2_cpu,
                                  .pool = &pool,
                                  .witnesses_per_pass = batch,
                                  .mode = forced,
                                  .buffers = buffers};
  o.memory_limit = cap == "min" ? gpu::GpuStreamedProver::plan_for(key.sizes(), p, 0, o).smallest_cap
                                : static_cast<uint64_t>(std::stod(cap) * double(uint64_t{1} << 30));
  const int64_t free0 = static_cast<int64_t>(device_free(a.device));
  // Device memory this prover took so far, and whether it is within the cap (JSON fields).
  auto taken = [&] {
    const int64_t t = free0 - static_cast<int64_t>(device_free(a.device));
    char buf[96];
    std::snprintf(buf, sizeof buf, ", \"device_taken_gib\": %.2f, \"within_cap\": %s",
                  double(t) / double(uint64_t{1} << 30), t <= static_cast<int64_t>(o.memory_limit) ? "true" : "false");
    return std::string(buf);
  };
  Timer tu;
  try {
    gpu::GpuStreamedProver prover(std::move(host_key), key, p, o);
    row("streamed_prover", tu,
        ", \"cap_gib\": " + std::to_string(double(o.memory_limit) / double(uint64_t{1} << 30)) + ", \"mode\": \"" +
            gpu::to_string(prover.plan().mode) + "\", \"chunk\": " + std::to_string(prover.plan().chunk_points) +
            ", \"buffers\": " + std::to_string(buffers) + taken() + ", \"plan\": \"" + prover.plan().describe() + "\"");
    const std::vector<groth16::Witness> ws(batch, groth16::Witness{w.inputs, w.aux});
    for (int r = 0; r < a.reps; ++r) {
      groth16::ProveTimings t;
      gpu::GpuStreamedStats st;
      Timer tr;
      const std::vector<groth16::ProofMsms> got = prover.stage1_batch(ws, &t, &st);
      const double wall = tr.wall();
      char buf[320];
      std::snprintf(buf, sizeof buf,
                    ", \"rep\": %d, \"witnesses\": %u, \"h2d_gb\": %.2f, \"bases_gb\": %.2f, \"h2d_gb_per_s\": %.1f, "
                    "\"chunk_copies\": %llu, \"device_used_gib\": %.2f",
                    r, batch, st.h2d_bytes / 1e9, st.base_bytes / 1e9, st.h2d_bytes / 1e9 / wall,
                    static_cast<unsigned long long>(st.chunk_copies), st.device_used / double(uint64_t{1} << 30));
      std::string extra = buf + taken() + stage_fields(t);
      if (!reference) reference = got[0];
      extra += std::string(", \"same_as_reference\": ") + (same_msms(got[0], *reference) ? "true" : "false");
      row("streamed_stage", tr, extra);
    }
  } catch (const DeviceMemoryShort& e) {
    row("streamed_does_not_fit", tu, ", \"why\": \"" + std::string(e.what()) + "\"");
  }
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  if (!parse(argc, argv, a)) {
    std::fprintf(stderr,
                 "usage: bench_porep_gpu [SIZE] [--reps N] [--g2-cpu] [--device D] [--overlap-h 0|1|ab]\n"
                 "                       [--streamed CAP,CAP,...|min] [--no-resident] [--batch W] "
                 "[--mode pce3|pce2|stream2|host2]\n");
    return 2;
  }
  try {
    ThreadPool& pool = ThreadPool::global();
    const filecoin::RegisteredSealProof& proof = filecoin::default_seal_proof(filecoin::parse_sector_size(a.size));
    const filecoin::PorepCircuitShape shape = filecoin::PorepCircuitShape::of(proof);
    Timer ts;
    const filecoin::SealCommitPhase1Output c1 = filecoin::make_valid_synthetic_c1(proof, 1);
    row("synth_c1", ts);
    Timer te;
    pce::Pce p = pce::build_pce(filecoin::record_porep_circuit_replicated(shape, pool), {"porep:" + a.size, {}, false});
    row("extract_pce", te,
        ", \"rows\": " + std::to_string(p.num_constraints()) + ", \"inputs\": " + std::to_string(p.num_inputs()) +
            ", \"aux\": " + std::to_string(p.num_aux()));
    Timer tw;
    const filecoin::PorepAssignment w = filecoin::porep_assignment(c1, 0);
    row("witness", tw);
    Timer tt;
    const bench::TiledKeySource key(groth16::CircuitShape::of(p));
    const groth16::KeySizes n = key.sizes();
    row("tiled_key", tt,
        ", \"h\": " + std::to_string(n.h) + ", \"l\": " + std::to_string(n.l) + ", \"a\": " + std::to_string(n.a) +
            ", \"b\": " + std::to_string(n.b_g1));

    // The sums every streamed run is compared with: the resident prover's, else the first streamed run's.
    std::optional<groth16::ProofMsms> reference = a.resident ? run_resident(a, key, p, w, pool) : std::nullopt;
    if (a.caps.empty()) return 0;
    CUZK_CUDA_CHECK(cudaSetDevice(a.device));  // the pinned key is allocated from this device's context
    Timer tk;
    const auto host_key = gpu::PinnedHostKey::load(key, !a.g2_cpu, &pool);
    row("pinned_key", tk, ", \"pinned_gib\": " + std::to_string(double(host_key->bytes()) / double(uint64_t{1} << 30)));
    for (const std::string& cap : a.caps) run_streamed(a, cap, host_key, key, p, w, reference, pool);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_porep_gpu: %s\n", e.what());
    return 1;
  }
  return 0;
}
