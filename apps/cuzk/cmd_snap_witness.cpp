// `cuzk snap witness`: a SnapDeals request file's partition witnesses computed as the prover does
// (the native path, filecoin/snap_witness.hpp), each timed in wall and CPU seconds, and with --check
// compared value for value with the circuit's synthesis (WitnessCS, also timed). Measures the
// witness of a 32 GiB partition (`cuzk synth-snap`) without keys or a GPU.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>

#include "cli_util.hpp"
#include "commands.hpp"
#include "filecoin/snap_synthesis.hpp"
#include "snap_cli.hpp"
#include "util/thread_pool.hpp"

namespace cuzk::cli {
namespace {

struct SnapWitnessRun {
  uint32_t partition = 0;
  size_t inputs = 0, aux = 0;
  double wall_s = 0, cpu_s = 0;
  bool inputs_ok = false;
  std::optional<bool> same;  // --check
  double synth_wall_s = 0, synth_cpu_s = 0;
};

// Partition k's witness, natively and (with check) through the circuit; one partition's values at a
// time (2.6 GB at 32 GiB).
SnapWitnessRun snap_witness_of(const LoadedSnap& l, uint32_t k, bool check) {
  SnapWitnessRun r;
  r.partition = k;
  const double cpu0 = process_cpu_seconds();
  const auto t0 = Clock::now();
  const filecoin::SnapAssignment a = filecoin::snap_assignment(l.ctx, l.proofs[k], k, ThreadPool::global());
  r.wall_s = since(t0);
  r.cpu_s = process_cpu_seconds() - cpu0;
  r.inputs = a.inputs.size();
  r.aux = a.aux.size();
  // The public inputs the witness carries are the verifier's (as the prover checks after proving).
  const std::vector<ff::Fr>& want = l.inputs[k];
  r.inputs_ok = a.inputs.size() == want.size() + 1 && std::equal(want.begin(), want.end(), a.inputs.begin() + 1);
  if (check) {
    const double cpu1 = process_cpu_seconds();
    const auto t1 = Clock::now();
    const filecoin::SnapAssignment s =
        filecoin::synthesize_snap_assignment(l.ctx.shape, filecoin::snap_partition_witness(l.ctx, l.proofs[k], k));
    r.synth_wall_s = since(t1);
    r.synth_cpu_s = process_cpu_seconds() - cpu1;
    r.same = s.inputs == a.inputs && s.aux == a.aux;
  }
  return r;
}

void print_snap_witness(const LoadedSnap& l, const std::vector<SnapWitnessRun>& runs, double load_s, bool json) {
  const std::string name(l.file.proof->name);
  if (json) {
    nlohmann::ordered_json j;
    j["registered_proof"] = name;
    j["threads"] = ThreadPool::global().size();
    j["load_seconds"] = load_s;
    j["partitions"] = nlohmann::ordered_json::array();
    for (const SnapWitnessRun& r : runs) {
      nlohmann::ordered_json p;
      p["partition"] = r.partition;
      p["inputs"] = r.inputs;
      p["aux"] = r.aux;
      p["witness_seconds"] = r.wall_s;
      p["witness_cpu_seconds"] = r.cpu_s;
      p["inputs_match_verifier"] = r.inputs_ok;
      if (r.same) {
        p["matches_synthesis"] = *r.same;
        p["synthesis_seconds"] = r.synth_wall_s;
        p["synthesis_cpu_seconds"] = r.synth_cpu_s;
      }
      j["partitions"].push_back(p);
    }
    std::cout << j.dump(2) << "\n";
    return;
  }
  std::printf("%s: %zu partition(s) loaded and validated in %.2f s\n", name.c_str(), l.proofs.size(), load_s);
  for (const SnapWitnessRun& r : runs) {
    std::printf("partition %u: %zu inputs, %zu aux; witness in %.2f s (%.2f CPU s on %u threads)\n", r.partition,
                r.inputs, r.aux, r.wall_s, r.cpu_s, ThreadPool::global().size());
    if (!r.inputs_ok) std::printf("MISMATCH: partition %u's inputs are not the verifier's\n", r.partition);
    if (r.same) {
      std::printf(
          "%s (synthesis %.2f s, %.2f CPU s)\n",
          *r.same ? "OK: identical to the circuit's synthesis" : "MISMATCH: differs from the circuit's synthesis",
          r.synth_wall_s, r.synth_cpu_s);
    }
  }
}

}  // namespace

void add_snap_witness_command(CLI::App& snap, SnapOptions& o) {
  auto* w = snap.add_subcommand(
      "witness",
      "Compute a SnapDeals request file's partition witnesses natively and time them (--check: against synthesis)");
  w->add_option("--snap", o.request, "The SnapDeals request file (`cuzk snap vanilla`, `cuzk synth-snap`)")->required();
  w->add_option("--partition", o.partitions, "Only this partition (repeatable; default: every partition)");
  w->add_flag("--check", o.check, "Also synthesize the circuit (WitnessCS, one thread) and require identical values");
  w->add_option("--threads", o.threads, "Threads of the native witness (default: all)")->check(CLI::Range(1u, 1024u));
  w->add_flag("--json", o.json, "Print a JSON summary");
  w->callback([&o] { o.action = "witness"; });
}

int run_snap_witness(const SnapOptions& o) {
  const auto t0 = Clock::now();
  const LoadedSnap l = load_snap(o.request);
  const double load_s = since(t0);
  std::vector<uint32_t> ks = o.partitions;
  if (ks.empty()) {
    for (uint32_t k = 0; k < l.proofs.size(); ++k) ks.push_back(k);
  }
  for (uint32_t k : ks) {
    if (k >= l.proofs.size()) {
      throw UsageError("--partition " + std::to_string(k) + ": " + o.request + " has partitions 0.." +
                       std::to_string(l.proofs.size() - 1));
    }
  }
  std::vector<SnapWitnessRun> runs;
  for (uint32_t k : ks) runs.push_back(snap_witness_of(l, k, o.check));
  print_snap_witness(l, runs, load_s, o.json);
  for (const SnapWitnessRun& r : runs) {
    if (!r.inputs_ok || !r.same.value_or(true)) return 1;
  }
  return 0;
}

}  // namespace cuzk::cli
