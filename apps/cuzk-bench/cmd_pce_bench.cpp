// cuzk-bench pce-bench: in-process (no daemon), for a built-in circuit,
//   (a) full synthesis, the path without a PCE: the circuit run under r1cs::ProvingCS
//       (circuits::synthesize_builtin), which keeps the witness and evaluates every constraint's
//       A, B, C linear combinations as it is stated (and tracks the densities, as bellperson does);
//   (b) PCE extraction, once per circuit: recording (RecordingCS) and building the Pce;
//   (c) the PCE path: the witness alone (WitnessCS) and MatVec over the Pce;
// prints the times (medians over --reps fresh witnesses) and the speedup of (c) over (a), and
// checks that (a) and (c) give the same a, b, c (exit 1 otherwise).
#include <algorithm>
#include <chrono>
#include <iostream>

#include "circuits/builtin.hpp"
#include "commands.hpp"
#include "pce/build.hpp"
#include "pce/matvec.hpp"
#include "report.hpp"
#include "util/progress.hpp"
#include "util/thread_pool.hpp"

namespace cuzk::bench {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

struct RepTimes {
  double synthesis_s = 0;  // (a)
  double pce_witness_s = 0, matvec_s = 0;
  double pce_s() const { return pce_witness_s + matvec_s; }
};

// Index of the first differing row, or -1.
int64_t first_mismatch(const std::vector<r1cs::Fr>& x, const std::vector<r1cs::Fr>& y, uint64_t& count) {
  int64_t first = -1;
  if (x.size() != y.size()) {
    count += std::max(x.size(), y.size());
    return 0;
  }
  for (size_t i = 0; i < x.size(); ++i) {
    if (x[i] != y[i]) {
      ++count;
      if (first < 0) first = static_cast<int64_t>(i);
    }
  }
  return first;
}

double median_of(std::vector<double> v) {
  return percentile(std::move(v), 50).value_or(0);
}

// (b): recording the circuit and building its Pce, once.
struct Extraction {
  double record_s = 0, build_s = 0;
  pce::Pce pce;
};

Extraction extract(const circuits::BuiltinSpec& spec, bool verbose) {
  if (verbose) std::cerr << "recording " << spec.name() << " ...\n";
  auto t0 = Clock::now();
  const r1cs::CompactR1cs recorded = circuits::record_builtin(spec);
  const double record_s = seconds_since(t0);
  t0 = Clock::now();
  pce::BuildOptions build_options;
  build_options.circuit_id = spec.name();
  pce::Pce pce = pce::build_pce(recorded, build_options);
  return {record_s, seconds_since(t0), std::move(pce)};
}

struct Repetitions {
  std::vector<RepTimes> times;
  uint64_t mismatches = 0;
  std::string mismatch_detail;  // the first difference
};

// Counts the rows where (a)'s a, b, c differ from the PCE path's; names the first.
void compare_abc(const r1cs::ProvingCS& full, const pce::MatVecResult& m, unsigned rep, Repetitions& out) {
  const char* names[] = {"a", "b", "c"};
  const std::vector<r1cs::Fr>* base[] = {&full.a(), &full.b(), &full.c()};
  const std::vector<r1cs::Fr>* got[] = {&m.a, &m.b, &m.c};
  for (int k = 0; k < 3; ++k) {
    const int64_t row = first_mismatch(*base[k], *got[k], out.mismatches);
    if (row >= 0 && out.mismatch_detail.empty()) {
      out.mismatch_detail = std::string(names[k]) + " differs at row " + std::to_string(row) + " (repetition " +
                            std::to_string(rep) + ")";
    }
  }
}

// (a) and (c) on a fresh statement per repetition.
Repetitions run_reps(const circuits::BuiltinSpec& spec, const pce::Pce& pce, unsigned count, const GlobalOptions& g) {
  Repetitions out;
  Progress progress("pce-bench " + spec.name(), count, !g.json);
  for (unsigned rep = 0; rep < count; ++rep) {
    const uint64_t witness_seed = spec.seed + 1 + rep;
    RepTimes t;
    auto t0 = Clock::now();
    const r1cs::ProvingCS full = circuits::synthesize_builtin(spec, witness_seed);
    t.synthesis_s = seconds_since(t0);
    t0 = Clock::now();
    const circuits::BuiltinWitness wc = circuits::witness_builtin(spec, witness_seed);
    t.pce_witness_s = seconds_since(t0);
    t0 = Clock::now();
    const pce::MatVecResult m = pce::matvec(pce, wc.inputs, wc.aux);
    t.matvec_s = seconds_since(t0);
    compare_abc(full, m, rep, out);
    out.times.push_back(t);
    progress.update(rep + 1);
    if (g.verbose) {
      progress.finish();
      std::cerr << "rep " << rep << ": full synthesis " << fmt_fixed(t.synthesis_s * 1e3, 1) << " ms, pce "
                << fmt_fixed(t.pce_s() * 1e3, 1) << " ms\n";
    }
  }
  return out;
}

// Medians over the repetitions.
struct Medians {
  double synthesis_s, pce_witness_s, matvec_s, pce_s;
};

Medians medians(const std::vector<RepTimes>& reps) {
  auto med = [&](auto field) {
    std::vector<double> v;
    for (const auto& r : reps) v.push_back(field(r));
    return median_of(std::move(v));
  };
  return {med([](const RepTimes& r) { return r.synthesis_s; }), med([](const RepTimes& r) { return r.pce_witness_s; }),
          med([](const RepTimes& r) { return r.matvec_s; }), med([](const RepTimes& r) { return r.pce_s(); })};
}

void print_report(const std::string& name, const pce::PceInfo& info, const Extraction& x, const Medians& m,
                  const Repetitions& reps, unsigned threads) {
  KeyValues kv;
  kv.add("circuit", name + ": " + std::to_string(info.num_constraints) + " constraints, " +
                        std::to_string(info.num_inputs) + " inputs, " + std::to_string(info.num_aux) + " aux");
  kv.add("non-zeros", "A " + std::to_string(info.nnz[0]) + ", B " + std::to_string(info.nnz[1]) + ", C " +
                          std::to_string(info.nnz[2]) + " (" + pce::to_string(info.encoding) + ")");
  kv.add("runs", std::to_string(reps.times.size()) + " repetitions (medians), " + std::to_string(threads) + " threads");
  std::cout << kv.render() << "\n";
  Table t({"step", "ms"});
  t.add({"(a) full synthesis (ProvingCS)", fmt_fixed(m.synthesis_s * 1e3, 1)});
  t.add({"(b) PCE extraction (once per circuit)", fmt_fixed((x.record_s + x.build_s) * 1e3, 1)});
  t.add({"      record", fmt_fixed(x.record_s * 1e3, 1)});
  t.add({"      build_pce", fmt_fixed(x.build_s * 1e3, 1)});
  t.add({"(c) PCE path: witness + MatVec", fmt_fixed(m.pce_s * 1e3, 1)});
  t.add({"      witness (WitnessCS)", fmt_fixed(m.pce_witness_s * 1e3, 1)});
  t.add({"      MatVec", fmt_fixed(m.matvec_s * 1e3, 1)});
  std::cout << t.render();
  std::cout << "\nspeedup (a)/(c): " << (m.pce_s > 0 ? fmt_fixed(m.synthesis_s / m.pce_s, 2) + "x" : std::string("-"))
            << "\n";
  std::cout << "a, b, c equal: "
            << (reps.mismatches == 0 ? "yes" : "NO (" + std::to_string(reps.mismatches) + " rows differ)") << "\n";
}

}  // namespace

int run_pce_bench(const GlobalOptions& g, const PceBenchOptions& o, nlohmann::json& json) {
  auto spec = circuits::parse_builtin(o.circuit);
  if (!spec) {
    std::cerr << "cuzk-bench: " << spec.error();
    return 2;
  }
  if (o.threads > 0) ThreadPool::set_global_threads(o.threads);
  const unsigned threads = ThreadPool::global().size();
  const Extraction x = extract(*spec, g.verbose);
  const Repetitions reps = run_reps(*spec, x.pce, o.reps, g);
  const Medians m = medians(reps.times);
  const auto& info = x.pce.info();
  json = {{"command", "pce-bench"},
          {"circuit", spec->name()},
          {"constraints", info.num_constraints},
          {"inputs", info.num_inputs},
          {"aux", info.num_aux},
          {"nnz_a", info.nnz[0]},
          {"nnz_b", info.nnz[1]},
          {"nnz_c", info.nnz[2]},
          {"encoding", pce::to_string(info.encoding)},
          {"reps", o.reps},
          {"threads", threads},
          {"record_s", rounded(x.record_s, 4)},
          {"build_pce_s", rounded(x.build_s, 4)},
          {"extract_s", rounded(x.record_s + x.build_s, 4)},
          {"synthesis_s", rounded(m.synthesis_s, 4)},
          {"pce_s", rounded(m.pce_s, 4)},
          {"pce_witness_s", rounded(m.pce_witness_s, 4)},
          {"matvec_s", rounded(m.matvec_s, 4)},
          {"speedup", json_number(m.pce_s > 0 ? std::optional(m.synthesis_s / m.pce_s) : std::nullopt, 2)},
          {"abc_equal", reps.mismatches == 0},
          {"mismatches", reps.mismatches}};
  if (!g.json) print_report(spec->name(), info, x, m, reps, threads);
  if (reps.mismatches != 0) {
    std::cerr << "cuzk-bench: the PCE path disagrees with full synthesis: " << reps.mismatch_detail << "\n";
    return 1;
  }
  return 0;
}

}  // namespace cuzk::bench
