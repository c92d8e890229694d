// One 32 GiB (or any size) PoRep partition's device stage on the GPU, for timing: a valid
// synthetic C1 (synth_c1), the PCE (record_porep_circuit_replicated + build_pce), partition 0's
// witness, and a proving key of the circuit's exact shape whose points are test bases tiled from
// a pool (ec::g1_test_bases / g2_test_bases) instead of a setup's: a real test-only setup of the
// 2^27-row circuit takes ~130 M fixed-base multiplications per query, hours on 16 cores. The MSMs
// do the same work for any bases (sizes, scalars and densities are the real ones), so the device
// stage's time is representative; the proof itself is not checked (it cannot verify against a key
// with no setup behind it). Correctness of the same code is covered at 2 KiB-512 MiB by the GPU
// tests and the verified daemon runs.
//   bench_porep_gpu [SIZE=32GiB] [--reps N] [--g2-cpu] [--device D] [--overlap-h 0|1|ab]
// (--overlap-h: GpuProverOptions::overlap_h; ab: a prover without it, then one with it, in one run)
// One JSON object per line: step, wall seconds, sizes; the stages of each rep.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "ec/bls12_381.hpp"
#include "ec/msm.hpp"
#include "filecoin/porep_synthesis.hpp"
#include "filecoin/registered_proof.hpp"
#include "filecoin/synth_c1.hpp"
#include "groth16/gpu/gpu_prover.hpp"
#include "groth16/prover.hpp"
#include "pce/build.hpp"
#include "poly/domain.hpp"
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

// `count` points tiled from `pool` (parallel copy: tens of GB).
template <class P>
std::vector<P> tile(const std::vector<P>& pool, size_t count, ThreadPool& tp) {
  std::vector<P> out(count);
  const size_t chunks = (count + pool.size() - 1) / pool.size();
  tp.parallel_for(chunks, [&](size_t c) {
    const size_t begin = c * pool.size(), n = std::min(pool.size(), count - begin);
    std::copy(pool.begin(), pool.begin() + static_cast<ptrdiff_t>(n), out.begin() + static_cast<ptrdiff_t>(begin));
  });
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::string size = "32GiB";
  int reps = 3, device = 0;
  bool g2_cpu = false;
  std::vector<bool> overlaps{true};
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
      reps = std::stoi(argv[++i]);
    } else if (std::strcmp(argv[i], "--device") == 0 && i + 1 < argc) {
      device = std::stoi(argv[++i]);
    } else if (std::strcmp(argv[i], "--g2-cpu") == 0) {
      g2_cpu = true;
    } else if (std::strcmp(argv[i], "--overlap-h") == 0 && i + 1 < argc) {
      const std::string v = argv[++i];
      overlaps = v == "ab" ? std::vector<bool>{false, true} : std::vector<bool>{v != "0"};
    } else if (argv[i][0] != '-') {
      size = argv[i];
    } else {
      std::fprintf(stderr, "usage: bench_porep_gpu [SIZE] [--reps N] [--g2-cpu] [--device D] [--overlap-h 0|1|ab]\n");
      return 2;
    }
  }
  try {
    ThreadPool& pool = ThreadPool::global();
    const filecoin::RegisteredSealProof& proof = filecoin::default_seal_proof(filecoin::parse_sector_size(size));
    const filecoin::PorepCircuitShape shape = filecoin::PorepCircuitShape::of(proof);
    Timer ts;
    const filecoin::SealCommitPhase1Output c1 = filecoin::make_valid_synthetic_c1(proof, 1);
    row("synth_c1", ts);
    Timer te;
    pce::Pce p = pce::build_pce(filecoin::record_porep_circuit_replicated(shape, pool), {"porep:" + size, {}, false});
    const groth16::CircuitShape cs = groth16::CircuitShape::of(p);
    row("extract_pce", te,
        ", \"rows\": " + std::to_string(p.num_constraints()) + ", \"inputs\": " + std::to_string(p.num_inputs()) +
            ", \"aux\": " + std::to_string(p.num_aux()));
    Timer tw;
    const filecoin::PorepAssignment w = filecoin::porep_assignment(c1, 0);
    row("witness", tw);

    Timer tk;
    groth16::ProvingKey pk;
    const std::vector<ec::G1Affine> g1 = ec::g1_test_bases(size_t{1} << 16, 7);
    const std::vector<ec::G2Affine> g2 = ec::g2_test_bases(size_t{1} << 14, 7);
    pk.vk.alpha_g1 = g1[0];
    pk.vk.beta_g1 = g1[1];
    pk.vk.delta_g1 = g1[2];
    pk.vk.beta_g2 = g2[0];
    pk.vk.gamma_g2 = g2[1];
    pk.vk.delta_g2 = g2[2];
    pk.vk.ic = tile(g1, cs.num_inputs, pool);
    const uint64_t m = poly::Domain::size_for(cs.num_constraints);
    pk.h = tile(g1, m - 1, pool);
    pk.l = tile(g1, cs.num_aux, pool);
    pk.a = tile(g1, cs.num_inputs + cs.a_aux_count(), pool);
    const uint64_t b = cs.b_input_count() + cs.b_aux_count();
    pk.b_g1 = tile(g1, b, pool);
    pk.b_g2 = tile(g2, b, pool);
    row("tiled_key", tk,
        ", \"m\": " + std::to_string(m) + ", \"h\": " + std::to_string(pk.h.size()) + ", \"l\": " +
            std::to_string(pk.l.size()) + ", \"a\": " + std::to_string(pk.a.size()) + ", \"b\": " + std::to_string(b));

    for (const bool overlap : overlaps) {
      Timer tu;
      gpu::GpuProver prover(pk, p, {.device = device, .b_g2_on_gpu = !g2_cpu, .pool = &pool, .overlap_h = overlap});
      row("gpu_prover_upload", tu,
          ", \"device_memory\": \"" + prover.memory().describe() +
              "\", \"overlap_h\": " + (overlap ? "true" : "false"));
      for (int r = 0; r < reps; ++r) {
        groth16::ProveTimings t;
        Timer tr;
        const groth16::ProofMsms msms = prover.stage1(w.inputs, w.aux, &t);
        (void)msms;
        char buf[512];
        std::snprintf(
            buf, sizeof buf,
            ", \"overlap_h\": %s, \"rep\": %d, \"upload_s\": %.3f, \"matvec_s\": %.3f, \"h_s\": %.3f, "
            "\"msm_h_s\": %.3f, \"msm_l_s\": %.3f, \"msm_a_s\": %.3f, \"msm_b_g1_s\": %.3f, \"msm_b_g2_s\": %.3f",
            overlap ? "true" : "false", r, t.upload_s, t.matvec_s, t.h_poly_s, t.msm_h_s, t.msm_l_s, t.msm_a_s,
            t.msm_b_g1_s, t.msm_b_g2_s);
        row("device_stage", tr, buf);
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_porep_gpu: %s\n", e.what());
    return 1;
  }
  return 0;
}
