// `cuzk post witness`: a PoSt request file's partition witness computed as the prover does (the
// native path, filecoin/post_witness.hpp), timed in wall and CPU seconds, and with --check
// compared value for value with the circuit's synthesis (WitnessCS). Measures the witness of a
// 32 GiB WindowPoSt partition (`cuzk synth-post`) without keys or a GPU.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <thread>

#include "cli_util.hpp"
#include "commands.hpp"
#include "filecoin/post_synthesis.hpp"
#include "post_cli.hpp"
#include "util/thread_pool.hpp"

namespace cuzk::cli {

void add_post_witness_command(CLI::App& post, PostOptions& o) {
  auto* w = post.add_subcommand(
      "witness", "Compute a PoSt request file's partition witness natively and time it (--check: against synthesis)");
  w->add_option("--post", o.request, "The PoSt request file (`cuzk post vanilla`, `cuzk synth-post`)")->required();
  w->add_flag("--check", o.check,
              "Also synthesize the circuit (WitnessCS, one thread; ~15x slower) and require identical values");
  w->add_option("--threads", o.threads, "Threads of the native witness (default: all)")->check(CLI::Range(1u, 1024u));
  w->add_flag("--json", o.json, "Print a JSON summary");
  w->callback([&o] { o.action = "witness"; });
}

int run_post_witness(const PostOptions& o) {
  const auto t0 = Clock::now();
  const LoadedPost l = load_post(o.request);
  const double load_s = since(t0);
  const filecoin::RegisteredPostProof& proof = *l.file.proof;
  const filecoin::PostCircuitShape shape = filecoin::PostCircuitShape::of(proof);
  ThreadPool& pool = ThreadPool::global();
  const double cpu0 = process_cpu_seconds();
  const auto t1 = Clock::now();
  const filecoin::PostAssignment a = filecoin::post_assignment(proof, l.proofs, pool);
  const double wall_s = since(t1), cpu_s = process_cpu_seconds() - cpu0;
  // The public inputs the witness carries are the verifier's (as the prover checks after proving).
  const bool inputs_ok =
      a.inputs.size() == l.inputs.size() + 1 && std::equal(l.inputs.begin(), l.inputs.end(), a.inputs.begin() + 1);
  std::optional<bool> same;
  double check_s = 0;
  if (o.check) {
    const auto t2 = Clock::now();
    const filecoin::PostAssignment s =
        filecoin::synthesize_post_assignment(shape, filecoin::post_circuit_witness(shape, l.proofs));
    same = s.inputs == a.inputs && s.aux == a.aux;
    check_s = since(t2);
  }
  if (o.json) {
    nlohmann::ordered_json j;
    j["registered_proof"] = std::string(proof.name);
    j["sectors"] = l.proofs.size();
    j["circuit_sectors"] = shape.sectors;
    j["inputs"] = a.inputs.size();
    j["aux"] = a.aux.size();
    j["threads"] = pool.size();
    j["load_seconds"] = load_s;
    j["witness_seconds"] = wall_s;
    j["witness_cpu_seconds"] = cpu_s;
    j["inputs_match_verifier"] = inputs_ok;
    if (same) {
      j["matches_synthesis"] = *same;
      j["synthesis_seconds"] = check_s;
    }
    std::cout << j.dump(2) << "\n";
  } else {
    std::printf(
        "%s: %zu sector(s), %zu inputs, %zu aux; witness in %.2f s (%.2f CPU s on %u threads), loaded in "
        "%.2f s\n",
        std::string(proof.name).c_str(), l.proofs.size(), a.inputs.size(), a.aux.size(), wall_s, cpu_s, pool.size(),
        load_s);
    if (!inputs_ok) std::printf("MISMATCH: the witness's inputs are not the verifier's\n");
    if (same) {
      std::printf("%s (synthesis %.2f s)\n",
                  *same ? "OK: identical to the circuit's synthesis" : "MISMATCH: differs from the circuit's synthesis",
                  check_s);
    }
  }
  return inputs_ok && same.value_or(true) ? 0 : 1;
}

}  // namespace cuzk::cli
