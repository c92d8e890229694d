// supraseal's C2 prover (supranational/supra_seal c2/, built from its sources by
// bench/device-vs-supraseal.sh) and ours on the same GPU, the same TEST-ONLY key and the same PoRep
// partitions: the side-by-side anchor for PoRep speed claims, and an independent prover whose
// proofs our verifier must accept (docs/supraseal-anchor.md).
//
//   bench_vs_supraseal setup --size S --params P [--vk V] [--seed N] [--cpu]
//       the TEST-ONLY key of the PoRep partition circuit of sector size S, written to P (what
//       `cuzk setup --circuit porep --sector-size S` does: the same library call, the fixed-base
//       multiplications on GPU 0, or the CPU with --cpu).
//   bench_vs_supraseal run --size S --params P [--out DIR] [--counts 1,2,max] [--max-circuits auto|N]
//       [--budget-gib G] [--reps R] [--warmup W] [--ours resident|streamed|none] [--ours-slots 1|2]
//       [--ours-cap-gib G] [--no-supraseal] [--seed N]
//       In one process: the PCE of the circuit, valid synthetic C1 outputs and the witnesses of
//       max-circuits partitions (several C1s when the size has fewer partitions), randomizers r, s
//       per partition (Xoshiro256 from --seed); then
//        1. ours: the resident GPU prover (gpu::GpuProver, key streamed from P), or with --ours
//           streamed the streamed one (gpu::GpuStreamedProver: the key pinned on the host, under
//           --ours-cap-gib of device memory), on every partition one at a time (its stages), then
//           two in flight when it has two slots (the daemon's steady state); every proof checked
//           by our verifier;
//        2. supraseal: a, b, c = A·z, B·z, C·z of every partition (our PCE MatVec on the CPU; the
//           PCE is then freed), their SRS loader on P, then generate_groth16_proofs_c with 1, 2
//           and max-circuits partitions per call (--counts), the same r, s; every proof checked by
//           our verifier and compared byte for byte with ours; their H stage alone per partition.
//       Peak GPU memory (cudaMemGetInfo, device-wide) and host RSS are sampled every 10 ms per
//       phase. Results: DIR/vs_supraseal-S.jsonl (one object per measurement), DIR/vs_supraseal-S.md
//       (the table for BENCHMARKS.md), DIR/proofs-S-{ours,supraseal}.bin (192 bytes per proof).
//       max-circuits auto: the most partitions whose host memory in the supraseal phase (their
//       witnesses and a, b, c; the pinned key; their per-call buffers, bounded from partition 0's
//       scalars) fits --budget-gib (default 112), at most 10 (a 32 GiB PoRep proof's partitions).
//   bench_vs_supraseal cpu-check --size S --params P
//       No GPU needed: the data supraseal would be given for partition 0 (a, b, c, witness,
//       densities) against full synthesis (an independent path), the key layout against
//       supraseal's asserts, and their host code (fr_t arithmetic, blst point decoding and
//       compression, their CPU Pippenger) on the five MSMs of our CPU prover: every sum and the
//       proof's points must be the same bytes.
#include <cuda_runtime_api.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "ec/bls12_381.hpp"
#include "ec/encoding.hpp"
#include "ec/msm.hpp"
#include "filecoin/c1_output.hpp"
#include "filecoin/porep_synthesis.hpp"
#include "filecoin/registered_proof.hpp"
#include "filecoin/synth_c1.hpp"
#include "groth16/gpu/fixed_base.hpp"
#include "groth16/gpu/gpu_prover.hpp"
#include "groth16/gpu/streamed_prover.hpp"
#include "groth16/params_file.hpp"
#include "groth16/proof_codec.hpp"
#include "groth16/prover.hpp"
#include "groth16/setup.hpp"
#include "groth16/setup_file.hpp"
#include "groth16/verifier.hpp"
#include "pce/build.hpp"
#include "poly/domain.hpp"
#include "supraseal_shim.h"
#include "util/device_error.hpp"
#include "util/mapped_file.hpp"
#include "util/rng.hpp"
#include "util/thread_pool.hpp"

namespace {

using namespace cuzk;
using ff::Fr;
using Clock = std::chrono::steady_clock;

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

double since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// ---- options ----

struct Options {
  std::string cmd;
  std::string size = "512MiB";
  std::string params, vk;
  std::string out = ".";
  std::string counts = "1,2,max";
  std::string max_circuits = "auto";
  std::string ours = "resident";
  double budget_gib = 112;
  int reps = 2;
  int warmup = 1;
  unsigned ours_slots = 2;
  double ours_cap_gib = 0;  // --ours streamed: its device memory cap (0: what the device has free)
  uint64_t seed = 1;
  bool supraseal = true;
  bool cpu = false;
};

[[noreturn]] void usage(const std::string& why) {
  std::fprintf(stderr,
               "bench_vs_supraseal: %s\n"
               "usage: bench_vs_supraseal setup --size S --params P [--vk V] [--seed N] [--cpu]\n"
               "       bench_vs_supraseal run --size S --params P [--out DIR] [--counts 1,2,max]\n"
               "           [--max-circuits auto|N] [--budget-gib G] [--reps R] [--warmup W]\n"
               "           [--ours resident|streamed|none] [--ours-slots 1|2] [--ours-cap-gib G] [--no-supraseal]\n"
               "           [--seed N]\n"
               "       bench_vs_supraseal cpu-check --size S --params P\n",
               why.c_str());
  std::exit(2);
}

Options parse(int argc, char** argv) {
  if (argc < 2) usage("no command");
  Options o;
  o.cmd = argv[1];
  if (o.cmd != "setup" && o.cmd != "run" && o.cmd != "cpu-check") usage("unknown command '" + o.cmd + "'");
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) usage(a + " needs a value");
      return argv[++i];
    };
    if (a == "--size") {
      o.size = next();
    } else if (a == "--params") {
      o.params = next();
    } else if (a == "--vk") {
      o.vk = next();
    } else if (a == "--out") {
      o.out = next();
    } else if (a == "--counts") {
      o.counts = next();
    } else if (a == "--max-circuits") {
      o.max_circuits = next();
    } else if (a == "--budget-gib") {
      o.budget_gib = std::stod(next());
    } else if (a == "--reps") {
      o.reps = std::max(1, std::stoi(next()));
    } else if (a == "--warmup") {
      o.warmup = std::max(0, std::stoi(next()));
    } else if (a == "--ours") {
      o.ours = next();
      if (o.ours != "resident" && o.ours != "streamed" && o.ours != "none") usage("--ours resident|streamed|none");
    } else if (a == "--ours-slots") {
      o.ours_slots = static_cast<unsigned>(std::stoul(next()));
      if (o.ours_slots != 1 && o.ours_slots != 2) usage("--ours-slots 1|2");
    } else if (a == "--ours-cap-gib") {
      o.ours_cap_gib = std::stod(next());
      if (!(o.ours_cap_gib >= 0)) usage("--ours-cap-gib G: G >= 0 (0: the device's free memory)");
    } else if (a == "--no-supraseal") {
      o.supraseal = false;
    } else if (a == "--seed") {
      o.seed = std::stoull(next());
    } else if (a == "--cpu") {
      o.cpu = true;
    } else {
      usage("unknown option '" + a + "'");
    }
  }
  if (o.params.empty()) usage("--params is required");
  return o;
}

// ---- output ----

std::string json_escape(const std::string& s) {
  std::string r;
  for (char c : s) {
    if (c == '"' || c == '\\') {
      r += '\\';
      r += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      r += buf;
    } else {
      r += c;
    }
  }
  return r;
}

// One JSON object, fields in insertion order.
class Obj {
 public:
  Obj& num(const char* k, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return raw(k, buf);
  }
  Obj& integer(const char* k, uint64_t v) { return raw(k, std::to_string(v)); }
  Obj& str(const char* k, const std::string& v) {
    std::string q(1, '"');  // appended piece by piece: GCC 12's -Wrestrict misfires on "..." + std::string&&
    q += json_escape(v);
    q += '"';
    return raw(k, q);
  }
  Obj& boolean(const char* k, bool v) { return raw(k, v ? "true" : "false"); }
  Obj& raw(const char* k, const std::string& v) {
    s_ += s_.empty() ? "{\"" : ", \"";
    s_ += k;
    s_ += "\": ";
    s_ += v;
    return *this;
  }
  std::string done() const { return s_.empty() ? "{}" : s_ + "}"; }

 private:
  std::string s_;
};

class Report {
 public:
  Report(const std::string& dir, const std::string& size) {
    if (!dir.empty()) {
      jsonl_.open(dir + "/vs_supraseal-" + size + ".jsonl", std::ios::app);
      md_path_ = dir + "/vs_supraseal-" + size + ".md";
    }
  }
  void line(const Obj& o) {
    const std::string s = o.done();
    std::printf("%s\n", s.c_str());
    std::fflush(stdout);
    if (jsonl_.is_open()) {
      jsonl_ << s << "\n";
      jsonl_.flush();
    }
  }
  void note(const std::string& s) {
    std::printf("# %s\n", s.c_str());
    std::fflush(stdout);
    notes_.push_back(s);
    write_md();
  }
  // Each row rewrites the table file, so a run cut short by its time limit leaves what it measured.
  void row(const std::string& r) {
    rows_.push_back(r);
    write_md();
  }
  void write_table() const { std::printf("\n%s", table().c_str()); }

 private:
  void write_md() const {
    if (!md_path_.empty()) std::ofstream(md_path_) << table();
  }
  std::string table() const {
    std::string t;
    t += "| size | prover | partitions per call | s per partition | H: NTTs + h MSM | the other MSMs and the rest | "
         "peak GPU memory | peak host RSS | verified | same bytes as the other prover |\n";
    t += "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |\n";
    for (const auto& r : rows_) t += r + "\n";
    t += "\n";
    for (const auto& n : notes_) t += "- " + n + "\n";
    return t;
  }

  std::ofstream jsonl_;
  std::string md_path_;
  std::vector<std::string> notes_;
  std::vector<std::string> rows_;
};

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

template <size_t N>
std::string hex(const std::array<uint8_t, N>& b) {
  static const char* d = "0123456789abcdef";
  std::string s;
  for (uint8_t x : b) s += d[x >> 4], s += d[x & 15];
  return s;
}

// ---- memory sampling ----

uint64_t rss_bytes() {
  std::ifstream f("/proc/self/statm");
  uint64_t size = 0, resident = 0;
  f >> size >> resident;
  return resident * static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
}

uint64_t vm_hwm_bytes() {
  std::ifstream f("/proc/self/status");
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stoull(line.substr(6)) * 1024;
  }
  return 0;
}

// Polls device 0's used memory (total - free: every allocation on the device, the CUDA context
// included) and this process's RSS every 10 ms; peaks since the last reset().
class Sampler {
 public:
  explicit Sampler(bool gpu) : gpu_(gpu) {
    thread_ = std::thread([this] { loop(); });
  }
  ~Sampler() {
    stop_ = true;
    thread_.join();
  }
  void reset() {
    gpu_peak_ = gpu_now_.load();
    rss_peak_ = rss_bytes();
  }
  double gpu_peak_gib() const { return static_cast<double>(gpu_peak_.load()) / kGiB; }
  double gpu_now_gib() const { return static_cast<double>(gpu_now_.load()) / kGiB; }
  double rss_peak_gib() const { return static_cast<double>(rss_peak_.load()) / kGiB; }

 private:
  static void raise(std::atomic<uint64_t>& peak, uint64_t v) {
    uint64_t p = peak.load();
    while (v > p && !peak.compare_exchange_weak(p, v)) {
    }
  }
  void loop() {
    bool gpu = gpu_ && cudaSetDevice(0) == cudaSuccess;
    while (!stop_) {
      if (gpu) {
        size_t free_b = 0, total_b = 0;
        if (cudaMemGetInfo(&free_b, &total_b) == cudaSuccess) {
          gpu_now_ = total_b - free_b;
          raise(gpu_peak_, total_b - free_b);
        }
      }
      raise(rss_peak_, rss_bytes());
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  bool gpu_;
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> gpu_now_{0}, gpu_peak_{0}, rss_peak_{0};
  std::thread thread_;
};

// ---- the circuit and its partitions ----

struct Circuit {
  uint32_t c1_index = 0, partition = 0;
  filecoin::PorepAssignment w;      // inputs (ONE first), aux
  std::vector<Fr> public_inputs;    // as a verifier derives them from C1
  std::vector<Fr> a, b, c;          // A·z, B·z, C·z (supraseal's input), filled in the supraseal phase
  Fr r, s;                          // the randomizers both provers use
  std::array<uint8_t, 192> ours{};  // our proof
  bool have_ours = false;
  std::array<uint8_t, 48> ours_h{};  // our h MSM's sum, compressed
};

const filecoin::RegisteredSealProof& seal_proof(const std::string& size) {
  return filecoin::default_seal_proof(filecoin::parse_sector_size(size));
}

pce::Pce porep_pce(const std::string& size, ThreadPool& pool) {
  const filecoin::PorepCircuitShape shape = filecoin::PorepCircuitShape::of(seal_proof(size));
  return pce::build_pce(filecoin::record_porep_circuit_replicated(shape, pool), {"porep:" + size, {}, false});
}

supra_assignment assignment_of(const groth16::CircuitShape& cs, const Circuit& c) {
  supra_assignment a{};
  a.a_aux_density = cs.a_aux_density.data();
  a.a_aux_bit_len = cs.num_aux;
  a.a_aux_popcount = cs.a_aux_count();
  a.b_inp_density = cs.b_input_density.data();
  a.b_inp_bit_len = cs.num_inputs;
  a.b_inp_popcount = cs.b_input_count();
  a.b_aux_density = cs.b_aux_density.data();
  a.b_aux_bit_len = cs.num_aux;
  a.b_aux_popcount = cs.b_aux_count();
  a.a = c.a.data();
  a.b = c.b.data();
  a.c = c.c.data();
  a.abc_size = c.a.size();
  a.inp_assignment_data = c.w.inputs.data();
  a.inp_assignment_size = c.w.inputs.size();
  a.aux_assignment_data = c.w.aux.data();
  a.aux_assignment_size = c.w.aux.size();
  return a;
}

// supraseal's own checks of a circuit against its key (the asserts of generate_groth16_proofs_c),
// made before the call so that a mismatch is an error message, not an abort.
std::string check_against_key(const supra_assignment& p, const uint64_t sizes[5]) {
  std::ostringstream e;
  if (sizes[1] != p.aux_assignment_size) e << "l " << sizes[1] << " != aux " << p.aux_assignment_size << "; ";
  if (sizes[2] != p.inp_assignment_size + p.a_aux_popcount)
    e << "a " << sizes[2] << " != inputs + A aux density " << p.inp_assignment_size + p.a_aux_popcount << "; ";
  if (sizes[3] != p.b_inp_popcount + p.b_aux_popcount)
    e << "b_g1 " << sizes[3] << " != B densities " << p.b_inp_popcount + p.b_aux_popcount << "; ";
  if (sizes[4] != sizes[3]) e << "b_g2 " << sizes[4] << " != b_g1 " << sizes[3] << "; ";
  if (p.a_aux_bit_len != p.aux_assignment_size || p.b_aux_bit_len != p.aux_assignment_size ||
      p.b_inp_bit_len != p.inp_assignment_size)
    e << "density lengths; ";
  if (p.abc_size > sizes[0] + 1) e << "abc " << p.abc_size << " > domain " << sizes[0] + 1 << "; ";
  return e.str();
}

// Scalars of one partition that are neither 0 nor 1, by query: what supraseal's preprocessing puts
// into its tail MSMs (the rest it adds up by batch addition).
struct TailCounts {
  uint64_t l = 0, a = 0, b = 0;
};
TailCounts tail_counts(const groth16::CircuitShape& cs, const Circuit& c) {
  TailCounts t;
  auto bit = [](const std::vector<uint64_t>& d, uint64_t i) { return (d[i >> 6] >> (i & 63)) & 1; };
  for (uint64_t i = 0; i < c.w.inputs.size(); ++i) {
    ++t.a;  // every input is in A's tail (their code marks them all)
    if (bit(cs.b_input_density, i)) ++t.b;
  }
  for (uint64_t j = 0; j < c.w.aux.size(); ++j) {
    const Fr& v = c.w.aux[j];
    if (v.is_zero() || v.is_one()) continue;
    ++t.l;
    if (bit(cs.a_aux_density, j)) ++t.a;
    if (bit(cs.b_aux_density, j)) ++t.b;
  }
  return t;
}

// Host bytes of the supraseal phase with n partitions: their witnesses and a, b, c, the pinned key,
// and the PCE or (later) generate_groth16_proofs_c's own buffers (tail scalars per circuit, tail bases, bit vectors),
// whose tails are bounded by n times partition 0's (the union over the call's circuits).
uint64_t supraseal_phase_bytes(uint64_t n, const groth16::CircuitShape& cs, const groth16::KeySizes& k,
                               const TailCounts& t0, uint64_t pinned, uint64_t pce_bytes) {
  const uint64_t per_circuit = 32 * (3 * cs.num_constraints + cs.num_inputs + cs.num_aux);
  auto tail = [&](uint64_t one, uint64_t points, bool& split) {
    const uint64_t u = std::min(points, n * one);
    split = u <= points / 2;
    return u;
  };
  bool ls = false, as = false, bs = false;
  const uint64_t l = tail(t0.l, k.l, ls), a = tail(t0.a, k.a, as), b = tail(t0.b, k.b_g1, bs);
  const uint64_t scalars = n * 32 * ((ls ? l : 0) + (as ? a : k.a) + (bs ? b : k.b_g1));
  const uint64_t bases = (ls ? l * 96 : 0) + (as ? a * 96 : 0) + (bs ? b * (96 + 192) : 0);
  const uint64_t bits = n * (k.l + k.a + k.b_g1) / 8 + 3 * n * 8;
  const uint64_t g2_tail = (bs ? b : k.b_g1) * 32;  // mult_pippenger's copy of the scalars
  // The PCE lives until the last a, b, c are made, before the call's own buffers exist.
  return n * per_circuit + pinned + std::max(pce_bytes, scalars + bases + bits + g2_tail);
}

uint64_t pinned_bytes_of(const groth16::KeySizes& k) {
  auto r = [](uint64_t b) { return (b + 4095) & ~uint64_t{4095}; };
  return r(k.h * 96) + r(k.l * 96) + r(k.a * 96) + r(k.b_g1 * 96) + r(k.b_g2 * 192);
}

std::vector<uint64_t> parse_counts(const std::string& s, uint64_t max) {
  std::vector<uint64_t> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) {
    const uint64_t n = item == "max" ? max : std::stoull(item);
    if (n >= 1 && n <= max && std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
  }
  return out;
}

std::string gpu_name() {
  cudaDeviceProp p{};
  if (cudaGetDeviceProperties(&p, 0) != cudaSuccess) return "no GPU";
  return std::string(p.name) + ", " + fmt("%.0f", static_cast<double>(p.totalGlobalMem) / kGiB) + " GiB";
}

// ---- our prover ----

// What the comparison needs of our prover: one partition's device stage (the MSM sums), from its
// witness: the resident GpuProver or the streamed one (make_ours), with the same report around it.
class OursProver {
 public:
  virtual ~OursProver() = default;
  virtual std::string describe() const = 0;
  virtual unsigned slots() const = 0;  // partitions that may be in flight at once (threads)
  virtual groth16::ProofMsms stage1(std::span<const Fr> inputs, std::span<const Fr> aux, groth16::ProveTimings* t) = 0;
};

class ResidentProver final : public OursProver {
 public:
  ResidentProver(const groth16::ParamsKeySource& key, const pce::Pce& pce, unsigned slots, bool g2_on_gpu)
      : slots_(slots), g2_on_gpu_(g2_on_gpu) {
    gpu::GpuProverOptions o;
    o.device = 0;
    o.b_g2_on_gpu = g2_on_gpu;
    o.witness_slots = slots;
    prover_ = std::make_unique<gpu::GpuProver>(key, pce, o);
  }
  std::string describe() const override {
    return std::string("resident GpuProver (") + std::to_string(slots_) + " witness slot(s), G2 MSM on the " +
           (g2_on_gpu_ ? "GPU" : "CPU") + "; device memory " + prover_->memory().describe() + ")";
  }
  unsigned slots() const override { return slots_; }
  groth16::ProofMsms stage1(std::span<const Fr> inputs, std::span<const Fr> aux, groth16::ProveTimings* t) override {
    return prover_->stage1(inputs, aux, t);
  }

 private:
  unsigned slots_;
  bool g2_on_gpu_;
  std::unique_ptr<gpu::GpuProver> prover_;
};

// The streamed prover (the key in pinned host memory, its bases streamed to the device chunk by
// chunk) under a cap: what the daemon places on a card too small for the resident prover. One
// partition at a time (its device stage is serialized).
class StreamedProver final : public OursProver {
 public:
  StreamedProver(const groth16::ParamsKeySource& key, const pce::Pce& pce, uint64_t cap) {
    gpu::GpuStreamedProverOptions o;
    o.device = 0;
    o.memory_limit = cap;
    prover_ = std::make_unique<gpu::GpuStreamedProver>(key, pce, o);
  }
  std::string describe() const override { return "streamed GpuStreamedProver (" + prover_->plan().describe() + ")"; }
  unsigned slots() const override { return 1; }
  groth16::ProofMsms stage1(std::span<const Fr> inputs, std::span<const Fr> aux, groth16::ProveTimings* t) override {
    return prover_->stage1(inputs, aux, t);
  }

 private:
  std::unique_ptr<gpu::GpuStreamedProver> prover_;
};

// resident: the fit ladder of the daemon's placement, for one device (two witness slots with G2 on
// the GPU, then one slot, then G2 on the CPU); streamed: the streamed prover under --ours-cap-gib.
std::unique_ptr<OursProver> make_ours(const Options& o, const groth16::ParamsKeySource& key, const pce::Pce& pce,
                                      Report& rep) {
  if (o.ours == "streamed") {
    return std::make_unique<StreamedProver>(key, pce, static_cast<uint64_t>(o.ours_cap_gib * kGiB));
  }
  std::vector<std::pair<unsigned, bool>> ladder;
  for (unsigned sl = o.ours_slots; sl >= 1; --sl) ladder.push_back({sl, true});
  ladder.push_back({1, false});
  std::string why;
  for (const auto& [sl, g2] : ladder) {
    try {
      return std::make_unique<ResidentProver>(key, pce, sl, g2);
    } catch (const DeviceMemoryShort& e) {
      why = e.what();
      rep.note("our prover with " + std::to_string(sl) + " slot(s), G2 on the " + (g2 ? "GPU" : "CPU") +
               " does not fit: " + why);
    }
  }
  throw std::runtime_error("our resident prover does not fit the device (try --ours streamed): " + why);
}

// ---- setup ----

int cmd_setup(const Options& o) {
  ThreadPool& pool = ThreadPool::global();
  auto t0 = Clock::now();
  const pce::Pce pce = porep_pce(o.size, pool);
  const double pce_s = since(t0);
  std::unique_ptr<groth16::FixedBaseMultiplier> mul;
  if (o.cpu) {
    mul = groth16::cpu_fixed_base_multiplier(&pool);
  } else {
    mul = std::make_unique<gpu::GpuFixedBaseMultiplier>(0);
  }
  groth16::SetupFileOptions so;
  so.vk_path = o.vk;
  so.pool = &pool;
  const groth16::SetupFileStats st =
      groth16::setup_to_file(pce, groth16::ToxicWaste::from_seed(o.seed), o.params, *mul, so).value();
  std::printf(
      "{\"step\": \"setup\", \"size\": \"%s\", \"constraints\": %llu, \"inputs\": %llu, \"aux\": %llu, "
      "\"pce_s\": %.2f, \"setup_s\": %.2f, \"multiplier\": \"%s\", \"file_bytes\": %llu, \"seed\": %llu}\n",
      o.size.c_str(), static_cast<unsigned long long>(pce.num_constraints()),
      static_cast<unsigned long long>(pce.num_inputs()), static_cast<unsigned long long>(pce.num_aux()), pce_s,
      st.total_s, json_escape(mul->describe()).c_str(), static_cast<unsigned long long>(st.file_bytes),
      static_cast<unsigned long long>(o.seed));
  std::fprintf(stderr, "TEST-ONLY parameters (toxic waste from seed %llu): never use them in production\n",
               static_cast<unsigned long long>(o.seed));
  return 0;
}

// ---- run ----

// Circuits [begin, end): circuit i is partition i % partitions of the synthetic C1 output seeded
// 1 + i / partitions (a 512 MiB sector has one partition, so its circuits come from different C1s);
// its r, s come from Xoshiro256(seed, i), whatever the batch it is made in.
std::vector<Circuit> make_circuits(const filecoin::RegisteredSealProof& proof, uint64_t begin, uint64_t end,
                                   uint64_t seed, ThreadPool& pool, Report& rep) {
  const uint32_t parts = proof.partitions;
  const uint64_t c1_first = begin / parts, c1_end = (end + parts - 1) / parts;
  std::vector<filecoin::SealCommitPhase1Output> c1s(c1_end - c1_first);
  auto t0 = Clock::now();
  for (uint64_t j = c1_first; j < c1_end; ++j) {
    c1s[j - c1_first] = filecoin::make_valid_synthetic_c1(proof, j + 1);
    filecoin::validate_c1_output(c1s[j - c1_first]);
  }
  const double c1_s = since(t0);
  std::vector<Circuit> cs(end - begin);
  auto t1 = Clock::now();
  pool.parallel_for(cs.size(), [&](size_t k) {
    Circuit& c = cs[k];
    const uint64_t i = begin + k;
    c.c1_index = static_cast<uint32_t>(i / parts);
    c.partition = static_cast<uint32_t>(i % parts);
    const filecoin::SealCommitPhase1Output& c1 = c1s[c.c1_index - c1_first];
    c.w = filecoin::porep_assignment(c1, c.partition);
    c.public_inputs = filecoin::porep_verifier_inputs(c1, c.partition);
  });
  const double w_s = since(t1);
  for (size_t k = 0; k < cs.size(); ++k) {
    Circuit& c = cs[k];
    Xoshiro256 rng(seed * 0x100000001b3ULL + begin + k);
    c.r = Fr::random(rng);
    c.s = Fr::random(rng);
    if (c.w.inputs.empty() || !c.w.inputs[0].is_one() || c.public_inputs.size() + 1 != c.w.inputs.size() ||
        !std::equal(c.public_inputs.begin(), c.public_inputs.end(), c.w.inputs.begin() + 1)) {
      throw std::runtime_error("partition " + std::to_string(c.partition) + " of C1 " + std::to_string(c.c1_index) +
                               ": the witness's inputs differ from the verifier's");
    }
  }
  rep.line(Obj()
               .str("step", "witnesses")
               .integer("first", begin)
               .integer("circuits", end - begin)
               .integer("c1_outputs", c1_end - c1_first)
               .num("c1_s", c1_s)
               .num("witness_s", w_s));
  return cs;
}

struct Verified {
  bool ok = false;
  std::string error;
};

Verified verify_bytes(const groth16::PreparedVerifyingKey& pvk, std::span<const uint8_t> bytes,
                      const std::vector<Fr>& inputs) {
  Result<groth16::Proof> p = groth16::decode_proof(bytes);
  if (!p) return {false, "decode: " + p.error()};
  Result<bool> v = groth16::verify(pvk, p.value(), inputs);
  if (!v) return {false, "verify: " + v.error()};
  return {v.value(), v.value() ? "" : "the pairing check fails"};
}

void write_file(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream f(path, std::ios::binary);
  f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

void run_ours(const Options& o, const groth16::ParamsKeySource& key, const pce::Pce& pce,
              const groth16::PreparedVerifyingKey& pvk, std::vector<Circuit>& circuits, Sampler& sm, Report& rep) {
  sm.reset();
  auto t0 = Clock::now();
  std::unique_ptr<OursProver> prover = make_ours(o, key, pce, rep);
  const double build_s = since(t0);
  rep.line(Obj()
               .str("step", "ours_build")
               .str("prover", prover->describe())
               .num("seconds", build_s)
               .num("gpu_peak_gib", sm.gpu_peak_gib())
               .num("rss_peak_gib", sm.rss_peak_gib()));
  rep.note("ours: " + prover->describe() + ", built (key streamed from the .params file to the device) in " +
           fmt("%.1f", build_s) + " s");

  // One partition at a time: the stages of each.
  sm.reset();
  std::vector<double> wall, h, msm, upload, matvec, g2;
  bool all_ok = true;
  std::vector<uint8_t> all_proofs;
  for (size_t i = 0; i < circuits.size(); ++i) {
    Circuit& c = circuits[i];
    groth16::ProveTimings t;
    auto ts = Clock::now();
    const groth16::ProofMsms m = prover->stage1(c.w.inputs, c.w.aux, &t);
    const groth16::Proof p = groth16::prove_finalize(key.vk(), m, c.r, c.s, &t);
    const double w = since(ts);
    c.ours = groth16::encode_proof(p);
    c.have_ours = true;
    c.ours_h = ec::g1_to_compressed(m.h.to_affine());
    all_proofs.insert(all_proofs.end(), c.ours.begin(), c.ours.end());
    const Verified v = verify_bytes(pvk, c.ours, c.public_inputs);
    all_ok = all_ok && v.ok;
    const double other_g1 = t.msm_l_s + t.msm_a_s + t.msm_b_g1_s;
    if (i > 0 || circuits.size() == 1) {  // the first partition pays the lazy module loads
      wall.push_back(w);
      h.push_back(t.h_poly_s + t.msm_h_s);  // as supraseal's H stage: the NTTs and the h MSM
      msm.push_back(other_g1);
      upload.push_back(t.upload_s);
      matvec.push_back(t.matvec_s);
      g2.push_back(t.msm_b_g2_s);
    }
    rep.line(Obj()
                 .str("step", "ours_partition")
                 .integer("circuit", i)
                 .integer("partition", c.partition)
                 .num("seconds", w)
                 .num("upload_s", t.upload_s)
                 .num("matvec_s", t.matvec_s)
                 .num("h_s", t.h_poly_s)
                 .num("msm_h_s", t.msm_h_s)
                 .num("msm_l_s", t.msm_l_s)
                 .num("msm_a_s", t.msm_a_s)
                 .num("msm_b_g1_s", t.msm_b_g1_s)
                 .num("msm_b_g2_s", t.msm_b_g2_s)
                 .num("finalize_s", t.finalize_s)
                 .boolean("verified", v.ok)
                 .str("error", v.error)
                 .str("proof", hex(c.ours)));
  }
  const double gpu1 = sm.gpu_peak_gib(), rss1 = sm.rss_peak_gib();
  write_file(o.out + "/proofs-" + o.size + "-ours.bin", all_proofs);
  rep.row("| " + o.size + " | ours, " + o.ours +
          (o.ours == "streamed"
               ? " (cap " + (o.ours_cap_gib > 0 ? fmt("%.0f", o.ours_cap_gib) + " GiB" : std::string("none")) + ")"
               : std::string()) +
          ", 1 in flight | 1 | " + fmt("%.3f", median(wall)) + " | " + fmt("%.3f", median(h)) + " | " +
          fmt("%.3f", median(msm)) + " l, a, b_g1 MSMs (b_g2 " + fmt("%.3f", median(g2)) + " beside; upload " +
          fmt("%.3f", median(upload)) + ", MatVec " + fmt("%.3f", median(matvec)) + ") | " + fmt("%.1f", gpu1) +
          " GiB | " + fmt("%.1f", rss1) + " GiB | " + (all_ok ? "yes" : "**NO**") + " (" +
          std::to_string(circuits.size()) + ") | see the supraseal rows |");

  // Two in flight (the daemon's steady state: the next partition's upload beside this one's
  // kernels): wall over all partitions.
  if (prover->slots() == 2 && circuits.size() >= 2) {
    sm.reset();
    std::atomic<size_t> next{0};
    std::atomic<bool> ok2{true};
    std::mutex err_mu;
    std::string err;
    auto t2 = Clock::now();
    auto worker = [&] {
      for (;;) {
        const size_t i = next++;
        if (i >= circuits.size()) break;
        try {
          Circuit& c = circuits[i];
          const groth16::ProofMsms m = prover->stage1(c.w.inputs, c.w.aux, nullptr);
          const groth16::Proof p = groth16::prove_finalize(key.vk(), m, c.r, c.s, nullptr);
          if (groth16::encode_proof(p) != c.ours) ok2 = false;  // deterministic: the same r, s
        } catch (const std::exception& e) {
          std::lock_guard<std::mutex> g(err_mu);
          err = e.what();
          ok2 = false;
        }
      }
    };
    std::thread th(worker);
    worker();
    th.join();
    const double w2 = since(t2);
    rep.line(Obj()
                 .str("step", "ours_two_in_flight")
                 .integer("circuits", circuits.size())
                 .num("seconds", w2)
                 .num("per_partition_s", w2 / static_cast<double>(circuits.size()))
                 .boolean("same_proofs", ok2)
                 .str("error", err)
                 .num("gpu_peak_gib", sm.gpu_peak_gib())
                 .num("rss_peak_gib", sm.rss_peak_gib()));
    rep.row("| " + o.size + " | ours, resident, 2 in flight | 1 | " +
            fmt("%.3f", w2 / static_cast<double>(circuits.size())) + " | | | " + fmt("%.1f", sm.gpu_peak_gib()) +
            " GiB | " + fmt("%.1f", sm.rss_peak_gib()) + " GiB | " +
            (ok2 ? "yes (same bytes as 1 in flight)" : "**NO**") + " | |");
  }
}

// The supraseal phase. a, b, c are made (make_abc, CPU MatVec) just before the first call that
// needs them and the PCE dropped (drop_pce) once the last are made, so the calls with fewer
// partitions are measured (and reported) before the host memory peaks.
void run_supraseal(const Options& o, const groth16::CircuitShape& cs, const groth16::PreparedVerifyingKey& pvk,
                   std::vector<Circuit>& circuits, const std::vector<uint64_t>& counts,
                   const std::function<void(Circuit&)>& make_abc, const std::function<void()>& drop_pce, Sampler& sm,
                   Report& rep) {
  char err[1024] = {0};
  sm.reset();
  // What the device holds before supraseal runs: the CUDA context and what our libraries keep
  // (GpuDomain's twiddle tables of our prover's domain); in every row's peak.
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // a fresh sample after our prover's release
  const double gpu_base = sm.gpu_now_gib();
  auto t0 = Clock::now();
  void* srs = supra_srs_load(o.params.c_str(), err, sizeof err);
  const double load_s = since(t0);
  if (srs == nullptr) throw std::runtime_error(std::string("supraseal's SRS loader: ") + err);
  struct SrsGuard {
    void* p;
    ~SrsGuard() { supra_srs_free(p); }
  } guard{srs};
  uint64_t sizes[5];
  supra_srs_sizes(srs, sizes);
  rep.line(Obj()
               .str("step", "supraseal_srs_load")
               .num("seconds", load_s)
               .integer("pinned_bytes", supra_srs_pinned_bytes(srs))
               .num("gpu_before_gib", gpu_base)
               .num("gpu_peak_gib", sm.gpu_peak_gib())
               .num("rss_peak_gib", sm.rss_peak_gib()));
  rep.note("supraseal: their SRS loader read the key into " +
           fmt("%.1f", static_cast<double>(supra_srs_pinned_bytes(srs)) / kGiB) + " GiB of pinned host memory in " +
           fmt("%.1f", load_s) + " s; their assert()s are " + (supra_asserts_enabled() ? "on" : "off") +
           " (as in their Cargo build); the device held " + fmt("%.1f", gpu_base) +
           " GiB before their phase (CUDA context, our cached NTT tables), included in their rows' peak");

  const uint64_t max_n = counts.empty() ? 0 : *std::max_element(counts.begin(), counts.end());
  std::vector<supra_assignment> as;
  std::vector<Fr> rs, ss;
  std::vector<double> h_s;
  bool h_same = true;
  // Circuits [as.size(), n): a, b, c, the supraseal assignment, their H stage alone (its time, and
  // the h MSM's sum against ours).
  auto prepare = [&](uint64_t n) {
    if (as.size() >= n) return;
    sm.reset();
    auto tm = Clock::now();
    const size_t first_new = as.size();
    for (size_t i = first_new; i < n; ++i) make_abc(circuits[i]);
    rep.line(Obj()
                 .str("step", "abc_cpu_matvec")
                 .integer("circuits", n - first_new)
                 .num("seconds", since(tm))
                 .num("rss_peak_gib", sm.rss_peak_gib()));
    if (n == max_n) drop_pce();
    for (size_t i = first_new; i < n; ++i) {
      as.push_back(assignment_of(cs, circuits[i]));
      rs.push_back(circuits[i].r);
      ss.push_back(circuits[i].s);
      const std::string bad = check_against_key(as.back(), sizes);
      if (!bad.empty()) throw std::runtime_error("the partition does not fit the key as supraseal reads it: " + bad);
      std::array<uint8_t, 48> h{};
      double secs = 0;
      if (supra_h(srs, &as[i], h.data(), &secs, err, sizeof err) != 0) {
        rep.line(Obj().str("step", "supraseal_h").integer("circuit", i).str("error", err));
        h_same = false;
        continue;
      }
      if (i > 0) h_s.push_back(secs);  // the first pays the lazy loading of their kernels
      const bool same = circuits[i].have_ours && h == circuits[i].ours_h;
      h_same = h_same && same;
      rep.line(Obj()
                   .str("step", "supraseal_h")
                   .integer("circuit", i)
                   .num("seconds", secs)
                   .boolean("h_msm_equals_ours", same)
                   .str("h", hex(h)));
    }
  };

  std::vector<std::array<uint8_t, 192>> first(circuits.size());
  std::vector<bool> have_first(circuits.size(), false);
  std::vector<uint8_t> max_proofs;
  if (o.warmup > 0 && max_n > 0) prepare(1);
  for (int w = 0; w < o.warmup && max_n > 0; ++w) {
    std::vector<uint8_t> p(192);
    auto tw = Clock::now();
    const int rc = supra_prove(srs, as.data(), 1, rs.data(), ss.data(), p.data(), err, sizeof err);
    rep.line(
        Obj().str("step", "supraseal_warmup").num("seconds", since(tw)).integer("rc", rc).str("error", rc ? err : ""));
  }
  for (const uint64_t n : counts) {
    prepare(n);
    std::vector<double> walls;
    bool all_ok = true, all_same = true, deterministic = true;
    std::string first_error;
    sm.reset();
    for (int r = 0; r < o.reps; ++r) {
      std::vector<uint8_t> proofs(192 * n);
      auto tc = Clock::now();
      const int rc = supra_prove(srs, as.data(), n, rs.data(), ss.data(), proofs.data(), err, sizeof err);
      const double wall = since(tc);
      if (rc != 0) {
        rep.line(Obj().str("step", "supraseal_call").integer("circuits", n).integer("rc", rc).str("error", err));
        all_ok = false;
        if (first_error.empty()) first_error = err;
        break;
      }
      walls.push_back(wall);
      for (uint64_t i = 0; i < n; ++i) {
        std::array<uint8_t, 192> pb{};
        std::memcpy(pb.data(), proofs.data() + 192 * i, 192);
        const Verified v = verify_bytes(pvk, pb, circuits[i].public_inputs);
        const bool same = circuits[i].have_ours && pb == circuits[i].ours;
        if (!have_first[i]) {
          first[i] = pb;
          have_first[i] = true;
        } else if (first[i] != pb) {
          deterministic = false;
        }
        all_ok = all_ok && v.ok;
        all_same = all_same && same;
        if (!v.ok && first_error.empty()) first_error = v.error;
        std::string diff;
        if (circuits[i].have_ours && !same) {
          if (std::memcmp(pb.data(), circuits[i].ours.data(), 48) != 0) diff += "A ";
          if (std::memcmp(pb.data() + 48, circuits[i].ours.data() + 48, 96) != 0) diff += "B ";
          if (std::memcmp(pb.data() + 144, circuits[i].ours.data() + 144, 48) != 0) diff += "C ";
        }
        rep.line(Obj()
                     .str("step", "supraseal_proof")
                     .integer("circuits_per_call", n)
                     .integer("rep", static_cast<uint64_t>(r))
                     .integer("circuit", i)
                     .boolean("verified", v.ok)
                     .str("error", v.error)
                     .boolean("equals_ours", same)
                     .str("differs_in", diff)
                     .str("proof", hex(pb)));
      }
      if (n == max_n && r == 0) max_proofs = proofs;
      rep.line(Obj()
                   .str("step", "supraseal_call")
                   .integer("circuits", n)
                   .integer("rep", static_cast<uint64_t>(r))
                   .num("seconds", wall)
                   .num("per_partition_s", wall / static_cast<double>(n)));
    }
    const double gpu = sm.gpu_peak_gib(), rss = sm.rss_peak_gib();
    const double per = median(walls) / static_cast<double>(n);
    const double h_med = median(h_s);
    rep.line(Obj()
                 .str("step", "supraseal_count")
                 .integer("circuits", n)
                 .num("median_call_s", median(walls))
                 .num("per_partition_s", per)
                 .num("h_alone_s", h_med)
                 .num("gpu_peak_gib", gpu)
                 .num("rss_peak_gib", rss)
                 .boolean("verified", all_ok)
                 .boolean("equal_to_ours", all_same)
                 .boolean("deterministic", deterministic));
    rep.row("| " + o.size + " | supraseal-c2 | " + std::to_string(n) + " | " +
            (walls.empty() ? std::string("failed") : fmt("%.3f", per)) + " | " + fmt("%.3f", h_med) + " (alone) | " +
            (walls.empty() ? std::string("") : fmt("%.3f", per - h_med)) + " (call / n - H) | " + fmt("%.1f", gpu) +
            " GiB | " + fmt("%.1f", rss) + " GiB | " + (all_ok ? "yes" : "**NO**: " + first_error) + " (" +
            std::to_string(n * walls.size()) + ") | " +
            (circuits[0].have_ours ? (all_same ? "yes" : "**no**") : std::string("n/a")) + " |");
  }
  if (!max_proofs.empty()) write_file(o.out + "/proofs-" + o.size + "-supraseal.bin", max_proofs);
  rep.note(std::string("supraseal's h MSM (their H stage run alone) ") +
           (circuits[0].have_ours ? (h_same ? "equals ours for every partition" : "DIFFERS from ours")
                                  : "not compared (ours did not run)"));
}

int cmd_run(const Options& o) {
  ThreadPool& pool = ThreadPool::global();
  Report rep(o.out, o.size);
  const filecoin::RegisteredSealProof& proof = seal_proof(o.size);
  const bool gpu = supra_gpu_count() > 0;
  if (!gpu && (o.ours != "none" || o.supraseal)) {
    throw std::runtime_error("no usable GPU (sppark's ngpus() is 0): `run` needs one; `cpu-check` runs without");
  }
  Sampler sm(gpu);
  char host[256] = {0};
  ::gethostname(host, sizeof host - 1);
  rep.line(Obj()
               .str("step", "machine")
               .str("gpu", gpu_name())
               .integer("cpus", std::thread::hardware_concurrency())
               .str("host", host)
               .str("size", o.size)
               .str("registered_proof", std::string(proof.name)));

  auto t0 = Clock::now();
  pce::Pce pce = porep_pce(o.size, pool);
  const groth16::CircuitShape cs = groth16::CircuitShape::of(pce);
  const groth16::ParamsKeySource key = groth16::ParamsKeySource::open(o.params).value();
  const groth16::KeySizes ks = key.sizes();
  groth16::validate_key(ks, cs);
  const groth16::PreparedVerifyingKey pvk = groth16::prepare(key.vk());
  rep.line(Obj()
               .str("step", "circuit")
               .num("pce_s", since(t0))
               .integer("constraints", cs.num_constraints)
               .integer("domain", poly::Domain::size_for(cs.num_constraints))
               .integer("inputs", cs.num_inputs)
               .integer("aux", cs.num_aux)
               .integer("key_h", ks.h)
               .integer("key_l", ks.l)
               .integer("key_a", ks.a)
               .integer("key_b", ks.b_g1)
               .num("pce_gib", static_cast<double>(pce.section_bytes_total()) / kGiB));

  // How many partitions: partition 0 first, for the tail counts the memory bound needs.
  const uint64_t pinned = pinned_bytes_of(ks);
  uint64_t max_n = 0;
  std::vector<Circuit> circuits = make_circuits(proof, 0, 1, o.seed, pool, rep);
  const TailCounts t0c = tail_counts(cs, circuits[0]);
  if (o.max_circuits == "auto") {
    const auto budget = static_cast<uint64_t>(o.budget_gib * kGiB);
    for (uint64_t n = 1; n <= 10; ++n) {
      if (n > 1 &&
          supraseal_phase_bytes(n, cs, ks, t0c, pinned, pce.section_bytes_total()) + (uint64_t{4} << 30) > budget)
        break;
      max_n = n;
    }
  } else {
    max_n = std::max<uint64_t>(1, std::stoull(o.max_circuits));
  }
  rep.line(
      Obj()
          .str("step", "plan")
          .integer("max_circuits", max_n)
          .num("budget_gib", o.budget_gib)
          .num("supraseal_phase_gib",
               static_cast<double>(supraseal_phase_bytes(max_n, cs, ks, t0c, pinned, pce.section_bytes_total())) / kGiB)
          .num("pinned_key_gib", static_cast<double>(pinned) / kGiB)
          .integer("tail_l", t0c.l)
          .integer("tail_a", t0c.a)
          .integer("tail_b", t0c.b));
  if (max_n > 1) {
    std::vector<Circuit> more = make_circuits(proof, 1, max_n, o.seed, pool, rep);
    for (auto& c : more) circuits.push_back(std::move(c));
  }
  const std::vector<uint64_t> counts = parse_counts(o.counts, max_n);

  // A phase that fails is reported and the other still runs (the table says what is missing).
  int failed = 0;
  if (o.ours != "none") {
    try {
      run_ours(o, key, pce, pvk, circuits, sm, rep);
    } catch (const std::exception& e) {
      ++failed;
      rep.line(Obj().str("step", "ours_failed").str("error", e.what()));
      rep.note(std::string("ours FAILED: ") + e.what());
    }
  }
  if (o.supraseal) {
    auto make_abc = [&](Circuit& c) {
      groth16::ProverInput in = groth16::make_prover_input(pce, c.w.inputs, c.w.aux);
      c.a = std::move(in.a);
      c.b = std::move(in.b);
      c.c = std::move(in.c);
    };
    auto drop_pce = [&] { pce = pce::Pce(); };  // its memory goes to their key and buffers
    try {
      run_supraseal(o, cs, pvk, circuits, counts, make_abc, drop_pce, sm, rep);
    } catch (const std::exception& e) {
      ++failed;
      rep.line(Obj().str("step", "supraseal_failed").str("error", e.what()));
      rep.note(std::string("supraseal FAILED: ") + e.what());
    }
  }
  rep.note("process peak RSS (VmHWM) " + fmt("%.1f", static_cast<double>(vm_hwm_bytes()) / kGiB) + " GiB; GPU " +
           gpu_name() + "; " + std::to_string(circuits.size()) + " partitions of " + std::string(proof.name) +
           " (synthetic C1s), the same r, s for both provers. supraseal is given a, b, c (its caller computes them "
           "during synthesis: here our CPU MatVec, not timed); its H is its H stage run alone (the copies of a, "
           "b, c to the device included), the rest of its per-partition time is derived (call / n - H: CPU "
           "preprocessing, batch additions, tail MSMs, the b_g2 tail on the CPU, the assembly; overlapped). Ours "
           "uploads the witness and computes a, b, c on the GPU (MatVec) inside its time");
  rep.write_table();
  return failed == 0 ? 0 : 1;
}

// ---- cpu-check ----

struct Check {
  int failures = 0;
  void expect(bool ok, const std::string& what) {
    std::printf("%s %s\n", ok ? "ok  " : "FAIL", what.c_str());
    std::fflush(stdout);
    if (!ok) ++failures;
  }
};

int cmd_cpu_check(const Options& o) {
  ThreadPool& pool = ThreadPool::global();
  Check ck;
  const filecoin::RegisteredSealProof& proof = seal_proof(o.size);
  auto t0 = Clock::now();
  const pce::Pce pce = porep_pce(o.size, pool);
  const groth16::CircuitShape cs = groth16::CircuitShape::of(pce);
  std::printf("circuit %s: %llu constraints, %llu inputs, %llu aux (PCE %.1f s)\n", std::string(proof.name).c_str(),
              static_cast<unsigned long long>(cs.num_constraints), static_cast<unsigned long long>(cs.num_inputs),
              static_cast<unsigned long long>(cs.num_aux), since(t0));
  Report quiet("", o.size);
  std::vector<Circuit> circuits = make_circuits(proof, 0, 1, o.seed, pool, quiet);
  Circuit& c = circuits[0];

  // 1. The data supraseal is given, against full synthesis (no PCE: every constraint enforced).
  t0 = Clock::now();
  const filecoin::SealCommitPhase1Output c1 = filecoin::make_valid_synthetic_c1(proof, 1);
  r1cs::ProvingCS full = filecoin::synthesize_porep(c1, 0);
  groth16::ProverInput in = groth16::make_prover_input(pce, c.w.inputs, c.w.aux);
  std::printf("full synthesis and MatVec: %.1f s\n", since(t0));
  ck.expect(full.inputs() == c.w.inputs && full.aux() == c.w.aux, "witness (inputs, aux) == full synthesis's");
  ck.expect(full.a() == in.a && full.b() == in.b && full.c() == in.c,
            "a, b, c (PCE MatVec, what supraseal gets) == full synthesis's a, b, c (" + std::to_string(in.a.size()) +
                " each)");
  ck.expect(full.a_aux_density() == cs.a_aux_density && full.b_input_density() == cs.b_input_density &&
                full.b_aux_density() == cs.b_aux_density,
            "density bitmaps (CircuitShape, what supraseal gets) == full synthesis's");

  // 2. The key, as supraseal's asserts read it.
  const groth16::ProvingKey pk = groth16::read_params(o.params).value();
  const groth16::KeySizes ks = groth16::KeySizes::of(pk);
  c.a = in.a;
  c.b = in.b;
  c.c = in.c;
  const supra_assignment as = assignment_of(cs, c);
  const uint64_t sizes[5] = {ks.h, ks.l, ks.a, ks.b_g1, ks.b_g2};
  const std::string bad = check_against_key(as, sizes);
  ck.expect(bad.empty(), "the partition fits the key as generate_groth16_proofs_c asserts " + bad);
  const TailCounts tc = tail_counts(cs, c);
  std::printf("non-0/1 scalars (supraseal's tail MSMs): l %llu of %llu, a %llu of %llu, b %llu of %llu\n",
              static_cast<unsigned long long>(tc.l), static_cast<unsigned long long>(ks.l),
              static_cast<unsigned long long>(tc.a), static_cast<unsigned long long>(ks.a),
              static_cast<unsigned long long>(tc.b), static_cast<unsigned long long>(ks.b_g1));

  // 3. Scalars: their fr_t reads our Fr bytes as the same field elements.
  {
    const size_t n = std::min<size_t>(c.w.aux.size(), 1 << 16);
    std::vector<Fr> prod(n);
    supra_cpu_fr_mul(c.w.aux.data(), in.a.data(), prod.data(), n);
    bool same = true;
    for (size_t i = 0; i < n; ++i) same = same && prod[i] == c.w.aux[i] * in.a[i];
    ck.expect(same, "fr_t products == ours (" + std::to_string(n) + " pairs)");
    std::vector<uint8_t> kind(c.w.aux.size());
    supra_cpu_fr_classify(c.w.aux.data(), c.w.aux.size(), kind.data());
    bool cls = true;
    for (size_t i = 0; i < kind.size(); ++i) {
      const uint8_t k = c.w.aux[i].is_zero() ? 0 : c.w.aux[i].is_one() ? 1 : 2;
      cls = cls && k == kind[i];
    }
    ck.expect(cls, "fr_t is_zero / is_one == ours on every aux scalar");
  }

  // 4. The five MSMs: our CPU prover's sums against their host Pippenger over the same scalars, the
  // bases decoded from the .params bytes by blst as their loader does.
  const groth16::ParamsLayout layout = groth16::scan_params(o.params).value();
  const MappedFile file = MappedFile::open(o.params);
  auto section = [&](const groth16::ParamsSection& s) {
    return reinterpret_cast<const uint8_t*>(file.data()) + s.offset;
  };
  groth16::ProverInput in2 = in;
  const uint64_t m = poly::Domain::size_for(cs.num_constraints);
  const std::vector<Fr> hcoef = groth16::compute_h(m, in.a, in.b, in.c, &pool);
  t0 = Clock::now();
  const groth16::ProofMsms ours = groth16::prove_stage1(pk, pce, std::move(in2));
  std::printf("our CPU stage 1: %.1f s\n", since(t0));
  std::vector<Fr> a_sc, b_sc;
  auto bit = [](const std::vector<uint64_t>& d, uint64_t i) { return (d[i >> 6] >> (i & 63)) & 1; };
  for (uint64_t i = 0; i < cs.num_inputs; ++i) {
    a_sc.push_back(c.w.inputs[i]);
    if (bit(cs.b_input_density, i)) b_sc.push_back(c.w.inputs[i]);
  }
  for (uint64_t j = 0; j < cs.num_aux; ++j) {
    if (bit(cs.a_aux_density, j)) a_sc.push_back(c.w.aux[j]);
    if (bit(cs.b_aux_density, j)) b_sc.push_back(c.w.aux[j]);
  }
  char err[512] = {0};
  auto g1 = [&](const char* name, const groth16::ParamsSection& s, std::span<const Fr> sc, const ec::G1& want) {
    std::array<uint8_t, 48> got{};
    auto t = Clock::now();
    const int rc = supra_cpu_g1_msm(section(s), sc.size(), sc.data(), got.data(), err, sizeof err);
    ck.expect(rc == 0 && sc.size() == s.count && got == ec::g1_to_compressed(want.to_affine()),
              std::string("their CPU Pippenger on ") + name + " (" + std::to_string(sc.size()) + " points, " +
                  fmt("%.1f", since(t)) + " s) == our " + name + " MSM" + (rc ? std::string(": ") + err : ""));
  };
  g1("h", layout.h, hcoef, ours.h);
  g1("l", layout.l, c.w.aux, ours.l);
  g1("a", layout.a, a_sc, ours.a);
  g1("b_g1", layout.b_g1, b_sc, ours.b_g1);
  {
    std::array<uint8_t, 96> got{};
    auto t = Clock::now();
    const int rc = supra_cpu_g2_msm(section(layout.b_g2), b_sc.size(), b_sc.data(), got.data(), err, sizeof err);
    ck.expect(rc == 0 && got == ec::g2_to_compressed(ours.b_g2.to_affine()),
              "their CPU Pippenger on b_g2 (" + std::to_string(b_sc.size()) + " points, " + fmt("%.1f", since(t)) +
                  " s; their b_g2 tail runs on it) == our b_g2 MSM");
  }

  // 5. The proof: ours verifies; its points, decoded by blst and compressed by blst (their proof's
  // path out of supra_prove), are our encoding's bytes.
  const groth16::Proof p = groth16::prove_finalize(pk.vk, ours, c.r, c.s);
  const std::array<uint8_t, 192> enc = groth16::encode_proof(p);
  const Verified v = verify_bytes(groth16::prepare(pk.vk), enc, c.public_inputs);
  ck.expect(v.ok, "our CPU proof verifies " + v.error);
  const Fr one = Fr::one();
  std::array<uint8_t, 48> a48{}, c48{};
  std::array<uint8_t, 96> b96{};
  const auto au = ec::g1_to_uncompressed(p.a), cu = ec::g1_to_uncompressed(p.c);
  const auto bu = ec::g2_to_uncompressed(p.b);
  const bool enc_ok = supra_cpu_g1_msm(au.data(), 1, &one, a48.data(), err, sizeof err) == 0 &&
                      supra_cpu_g1_msm(cu.data(), 1, &one, c48.data(), err, sizeof err) == 0 &&
                      supra_cpu_g2_msm(bu.data(), 1, &one, b96.data(), err, sizeof err) == 0;
  ck.expect(enc_ok && std::equal(a48.begin(), a48.end(), enc.begin()) &&
                std::equal(b96.begin(), b96.end(), enc.begin() + 48) &&
                std::equal(c48.begin(), c48.end(), enc.begin() + 144),
            "blst's compression of the proof's points (supra_prove's encoding) == our proof bytes");
  std::printf("cpu-check %s: %d failure(s)\n", o.size.c_str(), ck.failures);
  return ck.failures == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  int rc = 1;
  try {
    rc = o.cmd == "setup" ? cmd_setup(o) : o.cmd == "run" ? cmd_run(o) : cmd_cpu_check(o);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_vs_supraseal: %s\n", e.what());
    rc = 1;
  }
  // Every result is written by now. Leave without the static destructors: sppark's device registry
  // and thread pools, our device caches and the CUDA runtime would be torn down in no defined order,
  // and a crash there would turn a good run's exit status into a failure.
  std::fflush(nullptr);
  std::_Exit(rc);
}
