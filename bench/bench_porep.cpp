// PoRep C2 per-partition CPU work for one sector size, from a valid synthetic C1 (synth_c1):
//   witness   WitnessCS over partition 0 (the target: <= 10 core-seconds at 32 GiB)
//   extract   the PCE: the blank circuit recorded with the challenges in parallel (record_parallel),
//             and with one challenge recorded and copied (record_replicated, what cuzk uses), then
//             build_pce (target: <= 15 s on the device's 16 cores at 32 GiB; ~18 GB of memory)
//   count     CountingCS (constant memory), with --count
//   sequential  the single-threaded recording, with --sequential
// --replicated-only skips record_parallel (its ~2x peak memory and its time): only the
// extraction cuzk uses, with its phases (head, challenge 0, merge_segments) in the JSON.
// One JSON object per line: step, wall seconds, CPU seconds (process user + sys), sizes.
//   bench_porep [SIZE=32GiB] [--threads N] [--count] [--sequential] [--no-extract] [--replicated-only]
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>

#include "filecoin/porep_circuit_info.hpp"
#include "filecoin/porep_synthesis.hpp"
#include "filecoin/registered_proof.hpp"
#include "filecoin/synth_c1.hpp"
#include "pce/build.hpp"
#include "util/thread_pool.hpp"

namespace {

using namespace cuzk;
using namespace cuzk::filecoin;

double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}

long peak_rss_mb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss / 1024;
}

struct Timer {
  std::chrono::steady_clock::time_point t0 = std::chrono::steady_clock::now();
  double c0 = cpu_seconds();
  double wall() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); }
  double cpu() const { return cpu_seconds() - c0; }
};

void row(const char* step, const std::string& size, const Timer& t, const std::string& extra) {
  std::printf("{\"step\": \"%s\", \"size\": \"%s\", \"wall_s\": %.3f, \"cpu_s\": %.3f, \"peak_rss_mb\": %ld%s}\n", step,
              size.c_str(), t.wall(), t.cpu(), peak_rss_mb(), extra.c_str());
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  std::string size = "32GiB";
  unsigned threads = 0;
  bool count = false, sequential = false, extract = true, parallel = true;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
      threads = static_cast<unsigned>(std::stoul(argv[++i]));
    } else if (std::strcmp(argv[i], "--count") == 0) {
      count = true;
    } else if (std::strcmp(argv[i], "--sequential") == 0) {
      sequential = true;
    } else if (std::strcmp(argv[i], "--no-extract") == 0) {
      extract = false;
    } else if (std::strcmp(argv[i], "--replicated-only") == 0) {
      parallel = false;
    } else if (argv[i][0] != '-') {
      size = argv[i];
    } else {
      std::fprintf(stderr,
                   "usage: bench_porep [SIZE] [--threads N] [--count] [--sequential] [--no-extract] "
                   "[--replicated-only]\n");
      return 2;
    }
  }
  if (threads != 0) ThreadPool::set_global_threads(threads);
  ThreadPool& pool = ThreadPool::global();
  const RegisteredSealProof& proof = default_seal_proof(parse_sector_size(size));
  const PorepCircuitShape shape = PorepCircuitShape::of(proof);
  std::printf("{\"size\": \"%s\", \"threads\": %u, \"shape\": \"%s\"}\n", size.c_str(), pool.size(),
              shape.describe().c_str());

  Timer ts;
  const SealCommitPhase1Output c1 = make_valid_synthetic_c1(proof, 1);
  row("synth_c1", size, ts, "");

  {
    Timer t;
    const PorepAssignment a = porep_assignment(c1, 0);
    row("witness", size, t,
        ", \"inputs\": " + std::to_string(a.inputs.size()) + ", \"aux\": " + std::to_string(a.aux.size()));
  }
  if (count) {
    Timer t;
    const PorepCircuitInfo i = porep_circuit_info(shape);
    row("count", size, t, ", \"constraints\": " + std::to_string(i.pce_rows));
  }
  if (sequential) {
    Timer t;
    const r1cs::CompactR1cs r = record_porep_circuit(shape);
    row("record_sequential", size, t, ", \"rows\": " + std::to_string(r.num_constraints));
  }
  if (extract) {
    if (parallel) {
      Timer t;
      const r1cs::CompactR1cs r = record_porep_circuit_parallel(shape, pool);
      row("record_parallel", size, t,
          ", \"rows\": " + std::to_string(r.num_constraints) +
              ", \"nnz\": " + std::to_string(r.a.nnz() + r.b.nnz() + r.c.nnz()));
    }
    Timer t;
    ReplicatedTimes phases;
    r1cs::CompactR1cs r = record_porep_circuit_replicated(shape, pool, &phases);
    char ph[160];
    std::snprintf(ph, sizeof(ph), ", \"head_s\": %.3f, \"challenge_s\": %.3f, \"merge_s\": %.3f", phases.head_s,
                  phases.challenge_s, phases.merge_s);
    row("record_replicated", size, t,
        ", \"rows\": " + std::to_string(r.num_constraints) + ", \"nnz\": \"" + std::to_string(r.a.nnz()) + "/" +
            std::to_string(r.b.nnz()) + "/" + std::to_string(r.c.nnz()) + "\"" + ph);
    Timer tb;
    const pce::Pce p = pce::build_pce(r, {"porep:" + size, {}, false});
    r = {};
    row("build_pce", size, tb, ", \"columns\": " + std::to_string(p.num_columns()));
    row("extract_total", size, t, "");
  }
  return 0;
}
