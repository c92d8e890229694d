// `cuzk synth-snap`: a SnapDeals request file (filecoin/snap_request_file.hpp) with a synthetic
// but valid vanilla set (filecoin/snap_synthetic.hpp) for any sector size, so 32/64 GiB SnapDeals
// can be benchmarked where no such sector can be updated. The set is checked by the daemon's own
// validator before the file is written.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <span>
#include <stdexcept>
#include <string>

#include "cli_util.hpp"
#include "commands.hpp"
#include "filecoin/snap_request_file.hpp"
#include "filecoin/snap_synthetic.hpp"
#include "util/atomic_file.hpp"

namespace cuzk::cli {
namespace {

int run(const SynthSnapOptions& o) {
  const auto t0 = Clock::now();
  const filecoin::RegisteredUpdateProof* proof = nullptr;
  try {
    proof = &filecoin::update_proof_of_size(filecoin::parse_snap_sector_size(o.sector_size));
  } catch (const std::invalid_argument& e) {
    std::cerr << "cuzk: error: --sector-size: " << e.what() << "\n";
    return 2;
  }
  const filecoin::SnapSyntheticSet set =
      filecoin::synthetic_snap_vanilla(filecoin::SnapCircuitShape::of(proof->sector_size), o.seed);
  const double build_s = since(t0);
  const auto t1 = Clock::now();
  // What the daemon checks at submit; a failure here is a bug of the generator (exit 1).
  filecoin::validate_snap_vanilla(set.context, set.proofs);
  const double validate_s = since(t1);

  const auto t2 = Clock::now();
  filecoin::SnapRequestFile f;
  f.proof = proof;
  f.sector_id = o.sector_id;
  f.miner_id = o.miner_id;
  f.comm_r_old = set.context.comm_r_old;
  f.comm_d_new = set.context.comm_d_new;
  f.comm_r_new = set.context.comm_r_new;
  size_t vanilla_bytes = 0;
  for (const auto& p : set.proofs) {
    f.vanilla_proofs.push_back(filecoin::to_bincode(p));
    vanilla_bytes += f.vanilla_proofs.back().size();
  }
  const std::string text = filecoin::to_json(f);
  write_file_atomically(o.out, text);
  const double write_s = since(t2);
  if (o.json) {
    nlohmann::ordered_json j;
    j["registered_update_proof"] = std::string(proof->name);
    j["registered_update_proof_id"] = proof->id;
    j["sector_id"] = o.sector_id;
    j["miner_id"] = o.miner_id;
    j["comm_r_old"] = filecoin::to_hex(f.comm_r_old);
    j["comm_d_new"] = filecoin::to_hex(f.comm_d_new);
    j["comm_r_new"] = filecoin::to_hex(f.comm_r_new);
    j["partitions"] = set.proofs.size();
    j["challenges_per_partition"] = set.context.shape.challenges;
    j["vanilla_bytes"] = vanilla_bytes;
    j["out"] = o.out;
    j["file_bytes"] = text.size();
    j["timings_s"] = {{"build", build_s}, {"validate", validate_s}, {"write", write_s}, {"total", since(t0)}};
    std::cout << j.dump(2) << "\n";
  } else {
    std::printf("synthetic %s: %zu partition proof(s) -> %s (%.1f MB, %.2f s)\n", std::string(proof->name).c_str(),
                set.proofs.size(), o.out.c_str(), text.size() / 1e6, since(t0));
  }
  return 0;
}

}  // namespace

CLI::App* add_synth_snap_command(CLI::App& app, SynthSnapOptions& o) {
  auto* c = app.add_subcommand("synth-snap",
                               "Write a SnapDeals request file with a synthetic but valid vanilla set (a periodic "
                               "sector) for any sector size, 32GiB and 64GiB included");
  c->add_option("--sector-size", o.sector_size, "2KiB, 8MiB, 512MiB, 32GiB or 64GiB")->required();
  c->add_option("--seed", o.seed, "Seed of the synthetic content (default 1; the same seed gives the same file)");
  c->add_option("--sector-id", o.sector_id, "The file's sector_id (default 1)");
  c->add_option("--miner-id", o.miner_id, "The file's miner_id (default 1000)");
  c->add_option("--out,-o", o.out, "Where to write the request file (atomically)")->required();
  c->add_flag("--json", o.json, "Print a JSON summary (commitments, sizes, timings)");
  return c;
}

int run_synth_snap(const SynthSnapOptions& o) {
  return run(o);
}

}  // namespace cuzk::cli
