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

}  // namespace

int run_pce_bench(const GlobalOptions& g, const PceBenchOptions& o, nlohmann::json& json) {
  auto spec = circuits::parse_builtin(o.circuit);
  if (!spec) {
    std::cerr << "cuzk-bench: " << spec.error();
    return 2;
  }
  if (o.threads > 0) ThreadPool::set_global_threads(o.threads);
  const unsigned threads = ThreadPool::global().size();

  // (b) extraction, once.
  if (g.verbose) std::cerr << "recording " << spec->name() << " ...\n";
  auto t0 = Clock::now();
  const r1cs::CompactR1cs recorded = circuits::record_builtin(*spec);
  const double record_s = seconds_since(t0);
  t0 = Clock::now();
  pce::BuildOptions build_options;
  build_options.circuit_id = spec->name();
  const pce::Pce pce = pce::build_pce(recorded, build_options);
  const double build_s = seconds_since(t0);

  std::vector<RepTimes> reps;
  uint64_t mismatches = 0;
  std::string mismatch_detail;
  {
    Progress progress("pce-bench " + spec->name(), o.reps, !g.json);
    for (unsigned rep = 0; rep < o.reps; ++rep) {
      const uint64_t witness_seed = spec->seed + 1 + rep;  // a fresh statement per repetition
      RepTimes t;
      // (a) full synthesis
      t0 = Clock::now();
      const r1cs::ProvingCS full = circuits::synthesize_builtin(*spec, witness_seed);
      t.synthesis_s = seconds_since(t0);
      // (c) PCE path
      t0 = Clock::now();
      const circuits::BuiltinWitness wc = circuits::witness_builtin(*spec, witness_seed);
      t.pce_witness_s = seconds_since(t0);
      t0 = Clock::now();
      const pce::MatVecResult m = pce::matvec(pce, wc.inputs, wc.aux);
      t.matvec_s = seconds_since(t0);

      const char* names[] = {"a", "b", "c"};
      const std::vector<r1cs::Fr>* base[] = {&full.a(), &full.b(), &full.c()};
      const std::vector<r1cs::Fr>* got[] = {&m.a, &m.b, &m.c};
      for (int k = 0; k < 3; ++k) {
        const int64_t row = first_mismatch(*base[k], *got[k], mismatches);
        if (row >= 0 && mismatch_detail.empty()) {
          mismatch_detail = std::string(names[k]) + " differs at row " + std::to_string(row) + " (repetition " +
                            std::to_string(rep) + ")";
        }
      }
      reps.push_back(t);
      progress.update(rep + 1);
      if (g.verbose) {
        progress.finish();
        std::cerr << "rep " << rep << ": full synthesis " << fmt_fixed(t.synthesis_s * 1e3, 1) << " ms, pce "
                  << fmt_fixed(t.pce_s() * 1e3, 1) << " ms\n";
      }
    }
  }

  auto med = [&](auto field) {
    std::vector<double> v;
    for (const auto& r : reps) v.push_back(field(r));
    return median_of(std::move(v));
  };
  const double base = med([](const RepTimes& r) { return r.synthesis_s; });
  const double pce_w = med([](const RepTimes& r) { return r.pce_witness_s; });
  const double mv = med([](const RepTimes& r) { return r.matvec_s; });
  const double pce_total = med([](const RepTimes& r) { return r.pce_s(); });
  const bool equal = mismatches == 0;
  const auto& info = pce.info();

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
          {"record_s", rounded(record_s, 4)},
          {"build_pce_s", rounded(build_s, 4)},
          {"extract_s", rounded(record_s + build_s, 4)},
          {"synthesis_s", rounded(base, 4)},
          {"pce_s", rounded(pce_total, 4)},
          {"pce_witness_s", rounded(pce_w, 4)},
          {"matvec_s", rounded(mv, 4)},
          {"speedup", json_number(pce_total > 0 ? std::optional(base / pce_total) : std::nullopt, 2)},
          {"abc_equal", equal},
          {"mismatches", mismatches}};

  if (!g.json) {
    KeyValues kv;
    kv.add("circuit", spec->name() + ": " + std::to_string(info.num_constraints) + " constraints, " +
                          std::to_string(info.num_inputs) + " inputs, " + std::to_string(info.num_aux) + " aux");
    kv.add("non-zeros", "A " + std::to_string(info.nnz[0]) + ", B " + std::to_string(info.nnz[1]) + ", C " +
                            std::to_string(info.nnz[2]) + " (" + pce::to_string(info.encoding) + ")");
    kv.add("runs", std::to_string(o.reps) + " repetitions (medians), " + std::to_string(threads) + " threads");
    std::cout << kv.render() << "\n";
    Table t({"step", "ms"});
    t.add({"(a) full synthesis (ProvingCS)", fmt_fixed(base * 1e3, 1)});
    t.add({"(b) PCE extraction (once per circuit)", fmt_fixed((record_s + build_s) * 1e3, 1)});
    t.add({"      record", fmt_fixed(record_s * 1e3, 1)});
    t.add({"      build_pce", fmt_fixed(build_s * 1e3, 1)});
    t.add({"(c) PCE path: witness + MatVec", fmt_fixed(pce_total * 1e3, 1)});
    t.add({"      witness (WitnessCS)", fmt_fixed(pce_w * 1e3, 1)});
    t.add({"      MatVec", fmt_fixed(mv * 1e3, 1)});
    std::cout << t.render();
    std::cout << "\nspeedup (a)/(c): " << (pce_total > 0 ? fmt_fixed(base / pce_total, 2) + "x" : std::string("-"))
              << "\n";
    std::cout << "a, b, c equal: " << (equal ? "yes" : "NO (" + std::to_string(mismatches) + " rows differ)") << "\n";
  }
  if (!equal) {
    std::cerr << "cuzk-bench: the PCE path disagrees with full synthesis: " << mismatch_detail << "\n";
    return 1;
  }
  return 0;
}

}  // namespace cuzk::bench
