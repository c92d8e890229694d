// `cuzk speed`: one row per primitive, each timed on random inputs. Single operations are timed
// as a dependent chain (latency, as peers report them); MSM and NTT rows are whole calls on the
// global pool, median of a few runs.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "backend/batch_prover.hpp"
#include "cli_util.hpp"
#ifdef CUZK_HAVE_CUDA
#include "speed_gpu.hpp"
#endif
#include "circuits/builtin.hpp"
#include "commands.hpp"
#include "ec/bls12_381.hpp"
#include "ec/msm.hpp"
#include "ec/pairing.hpp"
#include "groth16/setup.hpp"
#include "groth16/verifier.hpp"
#include "pce/build.hpp"
#include "poly/domain.hpp"
#include "util/rng.hpp"
#include "util/thread_pool.hpp"

namespace cuzk::cli {

namespace {

using ec::G1;
using ec::G2;
using ff::Fq;
using ff::Fr;

// Runs fn until at least min_s has passed (at least min_reps, at most max_reps times) and returns
// the median seconds per call.
double median_seconds(const std::function<void()>& fn, double min_s, int min_reps, int max_reps) {
  std::vector<double> t;
  double total = 0;
  while (static_cast<int>(t.size()) < max_reps && (static_cast<int>(t.size()) < min_reps || total < min_s)) {
    auto t0 = Clock::now();
    fn();
    t.push_back(since(t0));
    total += t.back();
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

// Keeps results observable so the optimizer cannot drop the timed work.
volatile bool g_sink;
template <class T>
void sink(const T& v) {
  g_sink = v.is_zero();
}

struct Row {
  std::string key, label, unit;
  double value;
};

class Speed {
 public:
  explicit Speed(const SpeedOptions& o) : o_(o) {
    std::stringstream ss(o.only);
    for (std::string k; std::getline(ss, k, ',');)
      if (!k.empty()) only_.push_back(k);
  }

  bool wanted(const std::string& key) const {
    return only_.empty() || std::find(only_.begin(), only_.end(), key) != only_.end();
  }

  // Registers a row; measure() runs later, in run(), and only for the selected rows.
  void add(const std::string& key, const std::string& label, const std::string& unit,
           const std::function<double()>& measure) {
    tasks_.push_back({key, label, unit, measure});
  }

  // Keys named by --only that no registered row has; empty when the selection is valid.
  std::vector<std::string> unknown_keys() const {
    std::vector<std::string> bad;
    for (auto& k : only_)
      if (std::none_of(tasks_.begin(), tasks_.end(), [&](const Task& t) { return t.key == k; })) bad.push_back(k);
    return bad;
  }
  std::string all_keys() const {
    std::string s;
    for (auto& t : tasks_) s += (s.empty() ? "" : ", ") + t.key;
    return s;
  }

  void run() {
    // Progress on a terminal only, so that redirected output stays clean.
    const bool progress = isatty(2);
    for (auto& t : tasks_) {
      if (!wanted(t.key)) continue;
      if (progress) std::fprintf(stderr, "  measuring %-28s\r", t.label.c_str());
      rows_.push_back({t.key, t.label, t.unit, t.measure()});
      if (progress) std::fprintf(stderr, "%-50s\r", "");
    }
  }

  void print(unsigned threads) const {
    if (o_.json) {
      std::printf("{\"threads\": %u, \"cpu\": \"%s\"", threads, cpu_model().c_str());
      for (auto& r : rows_) std::printf(", \"%s\": %.6g", r.key.c_str(), r.value);
      std::printf("}\n");
      return;
    }
    std::printf("cuzk speed — %u thread%s — %s\n", threads, threads == 1 ? "" : "s", cpu_model().c_str());
    std::printf("%-34s %14s  %-4s  %s\n", "operation", "time", "unit", "key");
    for (auto& r : rows_)
      std::printf("%-34s %14.3f  %-4s  %s\n", r.label.c_str(), r.value, r.unit.c_str(), r.key.c_str());
  }

 private:
  struct Task {
    std::string key, label, unit;
    std::function<double()> measure;
  };
  const SpeedOptions& o_;
  std::vector<std::string> only_;
  std::vector<Task> tasks_;
  std::vector<Row> rows_;
};

template <class F>
double field_mul_ns() {
  Xoshiro256 rng(1);
  F a = F::random(rng), b = F::random(rng);
  constexpr int n = 1 << 20;
  double s = median_seconds(
      [&] {
        for (int i = 0; i < n; ++i) a = a * b;
      },
      0.2, 3, 15);
  sink(a);
  return s / n * 1e9;
}

template <class J>
double point_add_ns(const J& g) {
  Xoshiro256 rng(2);
  J p = g.mul(Fr::random(rng)), q = g.mul(Fr::random(rng));
  constexpr int n = 1 << 14;
  double s = median_seconds(
      [&] {
        for (int i = 0; i < n; ++i) p = p + q;
      },
      0.2, 3, 15);
  sink(p.z);
  return s / n * 1e9;
}

double ntt_ms(unsigned log_n) {
  auto d = poly::Domain::create(size_t{1} << log_n, poly::RootConvention::Zcash).value();
  Xoshiro256 rng(3);
  std::vector<Fr> v(d.size());
  for (auto& x : v) x = Fr::random(rng);
  d.fft(v);  // warm-up: twiddle tables
  return median_seconds([&] { d.fft(v); }, 1.0, 3, 9) * 1e3;
}

template <class Group>
double msm_ms(unsigned log_n) {
  const size_t n = size_t{1} << log_n;
  Xoshiro256 rng(4);
  std::vector<Fr> scalars(n);
  for (auto& s : scalars) s = Fr::random(rng);
  if constexpr (std::is_same_v<Group, G1>) {
    auto bases = ec::g1_test_bases(n, 5);
    return median_seconds([&] { sink(ec::msm(bases, scalars).z); }, 1.0, 1, 5) * 1e3;
  } else {
    auto bases = ec::g2_test_bases(n, 5);
    return median_seconds([&] { sink(ec::msm(bases, scalars).z); }, 1.0, 1, 5) * 1e3;
  }
}

// End-to-end proofs on the GPU backend (`--gpu`): a built-in circuit, its PCE, TEST-ONLY keys from
// groth16::setup (seed 1) and its witness, built once per circuit and shared by that circuit's
// rows. A proof is stage 1 on the GPU (upload, MatVec, H, MSMs) + finalize on the CPU; the first
// proof is a warm-up and is verified; the row is the median of the timed proofs, and the stage
// rows are that proof's stages.
class GpuProveRows {
 public:
  struct Times {
    double total_ms = 0;
    groth16::ProveTimings stages;
  };

  // g2_on_cpu: the G2 MSM on the CPU, overlapping the GPU's G1 MSMs; table_bits: precomputed MSM
  // window tables of that width (0: none).
  const Times& measure(const std::string& circuit, bool g2_on_cpu, unsigned table_bits = 0) {
    Case& c = get(circuit);
    std::optional<Times>& slot = c.runs[{g2_on_cpu, table_bits}];
    if (slot) return *slot;
    backend::PlacementOptions placement;  // field by field: see engine.cpp's make_placement
    placement.kind = backend::BackendKind::Gpu;
    placement.devices = {0};
    placement.fit.b_g2_on_gpu = !g2_on_cpu;
    placement.fit.msm_table_bits = table_bits;
    placement.retry = false;
    const auto be = std::make_unique<backend::BatchProver>(c.pk, *c.pce, placement);
    const groth16::Witness w{c.witness.inputs, c.witness.aux};
    Xoshiro256 rng(7);
    const Fr r = Fr::random(rng), s = Fr::random(rng);
    const groth16::Proof warm = be->prove_many({&w, 1}, {&r, 1}, {&s, 1}).at(0);
    const std::span<const Fr> pub = std::span<const Fr>(c.witness.inputs).subspan(1);
    const Result<bool> ok = groth16::verify(groth16::prepare(c.pk.vk), warm, pub);
    if (!ok || !ok.value())
      throw std::runtime_error("cuzk speed --gpu: the GPU proof of " + circuit + " does not verify");
    std::vector<Times> runs;
    double spent = 0;
    while (runs.size() < 9 && (runs.size() < 3 || spent < 2.0)) {
      Times t;
      const auto t0 = Clock::now();
      sink(be->prove_many({&w, 1}, {&r, 1}, {&s, 1}, &t.stages).at(0).a.x);
      const double sec = since(t0);
      spent += sec;
      t.total_ms = sec * 1e3;
      runs.push_back(t);
    }
    std::sort(runs.begin(), runs.end(), [](const Times& a, const Times& b) { return a.total_ms < b.total_ms; });
    slot = runs[runs.size() / 2];
    return *slot;
  }

 private:
  struct Case {
    std::optional<pce::Pce> pce;
    groth16::ProvingKey pk;
    circuits::BuiltinWitness witness;
    std::map<std::pair<bool, unsigned>, std::optional<Times>> runs;  // by (G2 on CPU, table bits)
  };
  Case& get(const std::string& circuit) {
    auto it = cases_.find(circuit);
    if (it != cases_.end()) return it->second;
    auto spec = circuits::parse_builtin(circuit);
    if (!spec) throw std::invalid_argument(spec.error());
    Case c;
    c.pce.emplace(pce::build_pce(circuits::record_builtin(*spec)));
    c.pk = groth16::setup(*c.pce, groth16::ToxicWaste::from_seed(1));
    c.witness = circuits::witness_builtin(*spec);
    return cases_.emplace(circuit, std::move(c)).first->second;
  }
  std::map<std::string, Case> cases_;
};

// The CPU rows: field and curve operations, then NTT and MSM sizes by mode.
void add_cpu_rows(Speed& sp, const SpeedOptions& o) {
  sp.add("fr_mul_ns", "Fr mul (255-bit)", "ns", [] { return field_mul_ns<Fr>(); });
  sp.add("fq_mul_ns", "Fq mul (381-bit)", "ns", [] { return field_mul_ns<Fq>(); });
  sp.add("g1_add_ns", "G1 add (Jacobian)", "ns", [] { return point_add_ns(G1(ec::g1_generator())); });
  sp.add("g2_add_ns", "G2 add (Jacobian)", "ns", [] { return point_add_ns(G2(ec::g2_generator())); });
  sp.add("pairing_us", "pairing", "us", [] {
    Xoshiro256 rng(6);
    auto p = G1(ec::g1_generator()).mul(Fr::random(rng)).to_affine();
    auto q = G2(ec::g2_generator()).mul(Fr::random(rng)).to_affine();
    return median_seconds([&] { sink(ec::pairing(p, q)); }, 0.3, 3, 50) * 1e6;
  });

  std::vector<unsigned> ntt_sizes = {16, 20}, g1_sizes = {16, 20}, g2_sizes = {16, 20};
  if (o.quick) ntt_sizes = {16}, g1_sizes = {12, 16}, g2_sizes = {12};
  if (o.full) {
    ntt_sizes.push_back(24);
    g1_sizes.push_back(22);
    g2_sizes = {16, 18, 20};
  }
  if (!o.only.empty()) {  // --only may name any row of any mode
    ntt_sizes = {16, 20, 24};
    g1_sizes = {12, 16, 20, 22};
    g2_sizes = {12, 16, 18, 20};
  }
  for (unsigned k : ntt_sizes)
    sp.add("ntt_2_" + std::to_string(k) + "_ms", "NTT 2^" + std::to_string(k), "ms", [k] { return ntt_ms(k); });
  for (unsigned k : g1_sizes)
    sp.add("g1_msm_2_" + std::to_string(k) + "_ms", "G1 MSM 2^" + std::to_string(k), "ms",
           [k] { return msm_ms<G1>(k); });
  for (unsigned k : g2_sizes)
    sp.add("g2_msm_2_" + std::to_string(k) + "_ms", "G2 MSM 2^" + std::to_string(k), "ms",
           [k] { return msm_ms<G2>(k); });
}

// GPU kernel rows (device-resident data; peers in BENCHMARKS.md W1.5).
void add_gpu_kernel_rows([[maybe_unused]] Speed& sp, [[maybe_unused]] const SpeedOptions& o) {
#ifdef CUZK_HAVE_CUDA
  std::vector<unsigned> gpu_g1 = {20, 24, 26}, gpu_g2 = {20, 24};
  if (o.full || !o.only.empty()) gpu_g1 = {20, 22, 24, 26, 27}, gpu_g2 = {20, 22, 24};
  for (unsigned k : gpu_g1)
    sp.add("gpu_msm_g1_2_" + std::to_string(k) + "_ms", "GPU G1 MSM 2^" + std::to_string(k), "ms",
           [k] { return gpu_msm_ms(false, k); });
  for (unsigned k : gpu_g2)
    sp.add("gpu_msm_g2_2_" + std::to_string(k) + "_ms", "GPU G2 MSM 2^" + std::to_string(k), "ms",
           [k] { return gpu_msm_ms(true, k); });
  for (unsigned k : {20u, 24u, 27u})
    sp.add("gpu_ntt_2_" + std::to_string(k) + "_ms", "GPU NTT 2^" + std::to_string(k), "ms",
           [k] { return gpu_ntt_ms(k); });
  sp.add("gpu_h_2_27_ms", "GPU H 2^27 (bellperson)", "ms", [] { return gpu_h_ms(27); });
  sp.add("gpu_matvec_fil_2_20_ms", "GPU upload + MatVec filecoin-like:2^20", "ms",
         [] { return gpu_matvec_ms("filecoin-like:2^20"); });
#endif
}

// GPU proofs of built-in circuits, total and per stage; gpu_rows caches each case's key and runs
// and must outlive sp.run().
void add_gpu_prove_rows(Speed& sp, const SpeedOptions& o, GpuProveRows& gpu_rows) {
  std::vector<std::pair<std::string, std::string>> circuits = {{"chain_2_16", "chain:2^16"},
                                                               {"chain_2_18", "chain:2^18"},
                                                               {"chain_2_20", "chain:2^20"},
                                                               {"fil_2_20", "filecoin-like:2^20"}};
  if (o.full || !o.only.empty()) circuits.push_back({"chain_2_22", "chain:2^22"});
  using T = groth16::ProveTimings;
  const std::vector<std::pair<std::string, double T::*>> stages = {
      {"upload_matvec", &T::matvec_s}, {"h", &T::h_poly_s},         {"msm_h", &T::msm_h_s},
      {"msm_l", &T::msm_l_s},          {"msm_a", &T::msm_a_s},      {"msm_b_g1", &T::msm_b_g1_s},
      {"msm_b_g2", &T::msm_b_g2_s},    {"finalize", &T::finalize_s}};
  for (const auto& [key, circuit] : circuits) {
    const std::string k = "gpu_prove_" + key, label = "GPU prove " + circuit;
    sp.add(k + "_ms", label, "ms", [&gpu_rows, c = circuit] { return gpu_rows.measure(c, false).total_ms; });
    for (const auto& [stage, field] : stages) {
      sp.add(k + "_" + stage + "_ms", "  " + stage, "ms",
             [&gpu_rows, c = circuit, f = field] { return gpu_rows.measure(c, false).stages.*f * 1e3; });
    }
    sp.add(k + "_g2cpu_ms", label + " (G2 on CPU)", "ms",
           [&gpu_rows, c = circuit] { return gpu_rows.measure(c, true).total_ms; });
    if (key.find("2_20") != std::string::npos)  // where window tables pay (docs/gpu-msm.md)
      sp.add(k + "_tables_ms", label + " (MSM window tables, c = 20)", "ms",
             [&gpu_rows, c = circuit] { return gpu_rows.measure(c, false, 20).total_ms; });
  }
}

}  // namespace

int run_speed(const SpeedOptions& o) {
  const unsigned threads = ThreadPool::global().size();
  Speed sp(o);
  add_cpu_rows(sp, o);
  // GPU rows: with --gpu, or when --only names one.
  GpuProveRows gpu_rows;
  if (o.gpu || o.only.find("gpu_") != std::string::npos) {
    if (!backend::built_with_cuda()) {
      std::fprintf(stderr, "cuzk speed: the GPU rows need a build with CUDA (this one has none)\n");
      return 2;
    }
    if (const backend::DeviceList d = backend::available_devices(); d.ordinals.empty()) {
      std::fprintf(stderr, "cuzk speed: the GPU rows need a GPU: %s\n", d.unavailable_reason.c_str());
      return 1;
    }
    add_gpu_kernel_rows(sp, o);
    add_gpu_prove_rows(sp, o, gpu_rows);
  }
  if (auto bad = sp.unknown_keys(); !bad.empty()) {
    std::fprintf(stderr, "cuzk speed: unknown key '%s' in --only; known keys: %s\n", bad.front().c_str(),
                 sp.all_keys().c_str());
    return 2;
  }
  sp.run();
  sp.print(threads);
  return 0;
}

}  // namespace cuzk::cli
