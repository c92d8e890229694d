// `cuzk synth-post`: a WindowPoSt or WinningPoSt request file (filecoin/post_request_file.hpp)
// with synthetic but valid vanilla proofs (filecoin/post_synthetic.hpp) for any sector size, so
// 32/64 GiB PoSt can be benchmarked (`cuzk-bench single --post`, `cuzk prove --post`) where no
// such sector can be sealed. The proofs are checked by the daemon's own validator before the file
// is written.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli_util.hpp"
#include "commands.hpp"
#include "filecoin/post_request_file.hpp"
#include "filecoin/post_synthetic.hpp"
#include "filecoin/post_validate.hpp"
#include "filecoin/replica_id.hpp"
#include "post_cli.hpp"
#include "util/atomic_file.hpp"

namespace cuzk::cli {
namespace {

// The request the options describe; the file's miner_id goes to `miner_id`.
filecoin::PostVanillaRequest request_of(const SynthPostOptions& o, uint64_t& miner_id) {
  filecoin::PostVanillaRequest req;
  try {
    req.proof = &pick_post_proof(o.kind, o.sector_size, o.proof);
    req.randomness = o.randomness.empty() ? filecoin::synthetic_post_randomness(o.seed)
                                          : parse_hex32_option("--randomness", o.randomness);
    if (!filecoin::is_canonical_fr(req.randomness)) {
      throw std::invalid_argument(
          "--randomness: not a canonical field element (below the BLS12-381 scalar modulus, "
          "little-endian), as PoSt requires");
    }
    miner_id = o.miner_id;
    if (!o.prover_id.empty()) {
      // The file carries miner_id and the daemon derives the prover id from it (post_request.cpp),
      // so only a prover id that is an ID address's payload can be written.
      const auto id = filecoin::actor_id_from_prover_id(parse_hex32_option("--prover-id", o.prover_id));
      if (!id) {
        throw std::invalid_argument(
            "--prover-id: not the payload of an ID address f0N (a request file carries "
            "miner_id and the prover id is derived from it); use --miner-id N");
      }
      miner_id = *id;
    }
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  if (miner_id == 0) throw UsageError("--miner-id: must not be 0 (the daemon requires a miner_id)");
  req.prover_id = filecoin::prover_id_from_actor_id(miner_id);
  req.partition_index = o.partition_index;
  req.rng_seed = o.seed;
  // Default: a full partition (Window: the proof's sectors per partition, 2349 at 32 GiB, 2300 at
  // 64 GiB, filecoin-proofs constants.rs) or a WinningPoSt set of one sector.
  const uint64_t n = o.sectors                                        ? o.sectors
                     : req.proof->type == filecoin::PostType::kWindow ? req.proof->sector_count
                                                                      : 1;
  for (uint64_t i = 0; i < n; ++i) req.sector_ids.push_back(o.first_sector + i);
  return req;
}

nlohmann::ordered_json summary(const filecoin::PostVanillaRequest& req, uint64_t miner_id,
                               const std::vector<filecoin::FallbackPostSectorProof>& proofs, size_t vanilla_bytes) {
  nlohmann::ordered_json j;
  j["registered_proof"] = std::string(req.proof->name);
  j["registered_proof_id"] = req.proof->id;
  j["miner_id"] = miner_id;
  j["prover_id"] = filecoin::to_hex(req.prover_id);
  j["randomness"] = filecoin::to_hex(req.randomness);
  j["partition_index"] = req.partition_index;
  j["sectors"] = proofs.size();
  j["first_sector"] = proofs.front().sector_id;
  j["last_sector"] = proofs.back().sector_id;
  j["challenges_per_sector"] = req.proof->challenge_count;
  j["vanilla_bytes"] = vanilla_bytes;
  return j;
}

int run(const SynthPostOptions& o) {
  const auto t0 = Clock::now();
  uint64_t miner_id = 0;
  const filecoin::PostVanillaRequest req = request_of(o, miner_id);
  std::vector<filecoin::FallbackPostSectorProof> proofs;
  filecoin::PostRequestContext ctx;
  try {
    proofs = filecoin::synthetic_post_vanilla(req);
    ctx = filecoin::post_request_context(req);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  const double build_s = since(t0);
  const auto t1 = Clock::now();
  // What the daemon checks at submit; a failure here is a bug of the generator (exit 1).
  filecoin::validate_post_vanilla(ctx, proofs);
  const double validate_s = since(t1);

  const auto t2 = Clock::now();
  filecoin::PostRequestFile f;
  f.proof = req.proof;
  f.miner_id = miner_id;
  f.randomness = req.randomness;
  f.partition_index = req.partition_index;
  size_t vanilla_bytes = 0;
  for (const auto& p : proofs) {
    f.vanilla_proofs.push_back(filecoin::to_bincode(p));
    vanilla_bytes += f.vanilla_proofs.back().size();
  }
  const std::string text = filecoin::to_json(f);
  write_file_atomically(o.out, text);
  const double write_s = since(t2);
  if (o.json) {
    nlohmann::ordered_json j = summary(req, miner_id, proofs, vanilla_bytes);
    j["out"] = o.out;
    j["file_bytes"] = text.size();
    j["timings_s"] = {{"build", build_s}, {"validate", validate_s}, {"write", write_s}, {"total", since(t0)}};
    std::cout << j.dump(2) << "\n";
  } else {
    std::printf("synthetic %s: %zu vanilla proof(s) of sector(s) %llu..%llu -> %s (%.1f MB, %.2f s)\n",
                std::string(req.proof->name).c_str(), proofs.size(),
                static_cast<unsigned long long>(proofs.front().sector_id),
                static_cast<unsigned long long>(proofs.back().sector_id), o.out.c_str(), text.size() / 1e6, since(t0));
  }
  return 0;
}

}  // namespace

CLI::App* add_synth_post_command(CLI::App& app, SynthPostOptions& o) {
  auto* c = app.add_subcommand("synth-post",
                               "Write a PoSt request file with synthetic but valid vanilla proofs (sparse trees R) "
                               "for any sector size, 32GiB and 64GiB included");
  c->add_option("--kind", o.kind, "window or winning (default window)");
  c->add_option("--sector-size", o.sector_size, "2KiB, 8MiB, 512MiB, 32GiB or 64GiB");
  c->add_option("--proof", o.proof,
                "A registered PoSt proof name instead of --kind/--sector-size (e.g. StackedDrgWindow32GiBV1 for V1 "
                "challenge indexing)");
  c->add_option("--sectors", o.sectors,
                "WindowPoSt: sectors in the partition (default: a full partition, 2349 at 32GiB, 2300 at 64GiB); "
                "WinningPoSt: the sector set the challenged one is drawn from (default 1)")
      ->check(CLI::Range(1u, 1u << 20));
  c->add_option("--first-sector", o.first_sector, "The first sector's number (default 1; the others follow)");
  c->add_option("--partition-index", o.partition_index, "WindowPoSt: the partition (default 0; V1 challenges use it)");
  c->add_option("--randomness", o.randomness, "64 hex digits, a canonical field element (default: drawn from --seed)");
  auto* miner = c->add_option("--miner-id", o.miner_id,
                              "Miner actor id f0N: the file's miner_id and the prover id "
                              "(default 1000)");
  c->add_option("--prover-id", o.prover_id, "Prover id, 64 hex digits: the payload of an ID address (sets miner_id)")
      ->excludes(miner);
  c->add_option("--seed", o.seed, "Seed of the synthetic content (default 1; the same seed gives the same file)");
  c->add_option("--out,-o", o.out, "Where to write the request file (atomically)")->required();
  c->add_flag("--json", o.json, "Print a JSON summary (proof, sectors, sizes, timings)");
  return c;
}

int run_synth_post(const SynthPostOptions& o) {
  try {
    return run(o);
  } catch (const UsageError& e) {
    std::cerr << "cuzk: error: " << e.what() << "\n";
    return 2;
  }
}

}  // namespace cuzk::cli
