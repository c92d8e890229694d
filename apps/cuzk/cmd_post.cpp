// `cuzk post vanilla`: a WindowPoSt or WinningPoSt request with valid vanilla proofs from sectors
// sealed here (filecoin/post_sealed.hpp), written as a PoSt request file
// (filecoin/post_request_file.hpp) that `cuzk-bench single --post` sends to the daemon. So PoSt
// runs end to end with no outside data.
#include <CLI/CLI.hpp>
#include <iostream>
#include <nlohmann/json.hpp>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli_util.hpp"
#include "commands.hpp"
#include "filecoin/post_request_file.hpp"
#include "filecoin/post_sealed.hpp"
#include "filecoin/replica_id.hpp"
#include "post_cli.hpp"
#include "util/atomic_file.hpp"

namespace cuzk::cli {

const filecoin::RegisteredPostProof& pick_post_proof(const std::string& kind, const std::string& sector_size,
                                                     const std::string& proof) {
  if (!proof.empty()) {
    const filecoin::RegisteredPostProof& p = filecoin::registered_post_proof(proof);
    if (!sector_size.empty() && filecoin::parse_sector_size(sector_size) != p.shape.sector_size) {
      throw std::invalid_argument("--proof " + proof + " is not a " + sector_size + " proof");
    }
    return p;
  }
  if (kind != "window" && kind != "winning")
    throw std::invalid_argument("--kind: window or winning, not '" + kind + "'");
  if (sector_size.empty()) throw std::invalid_argument("give --sector-size (or --proof NAME)");
  const auto type = kind == "window" ? filecoin::PostType::kWindow : filecoin::PostType::kWinning;
  return filecoin::default_post_proof(type, filecoin::parse_sector_size(sector_size));
}

filecoin::Bytes32 parse_hex32_option(const std::string& option, const std::string& hex) {
  const std::string h = hex.starts_with("0x") ? hex.substr(2) : hex;
  if (h.size() != 64) {
    throw std::invalid_argument(option + ": expected 64 hex digits (32 bytes), got " + std::to_string(h.size()));
  }
  filecoin::Bytes32 b{};
  for (size_t i = 0; i < 64; ++i) {
    const char c = h[i];
    const int v = c >= '0' && c <= '9'   ? c - '0'
                  : c >= 'a' && c <= 'f' ? c - 'a' + 10
                  : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                         : -1;
    if (v < 0) throw std::invalid_argument(option + ": '" + hex + "' is not hex");
    b[i / 2] = static_cast<uint8_t>(i % 2 ? b[i / 2] | v : v << 4);
  }
  return b;
}

namespace {

int run_post_vanilla(const PostOptions& o) {
  const auto t0 = Clock::now();
  filecoin::PostVanillaRequest req;
  try {
    req.proof = &pick_post_proof(o.kind, o.sector_size, o.proof);
    req.randomness = parse_hex32_option("--randomness", o.randomness);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  req.prover_id = filecoin::prover_id_from_actor_id(o.actor_id);
  req.partition_index = o.partition_index;
  req.rng_seed = o.rng_seed;
  for (uint32_t i = 0; i < o.sectors; ++i) req.sector_ids.push_back(o.first_sector + i);
  std::vector<filecoin::FallbackPostSectorProof> proofs;
  try {
    proofs = filecoin::sealed_post_vanilla(req);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  filecoin::PostRequestFile f;
  f.proof = req.proof;
  f.miner_id = o.actor_id;
  f.randomness = req.randomness;
  f.partition_index = req.partition_index;
  for (const auto& p : proofs) f.vanilla_proofs.push_back(filecoin::to_bincode(p));
  const std::string text = filecoin::to_json(f);
  write_file_atomically(o.out, text);
  if (o.json) {
    nlohmann::ordered_json j;
    j["registered_proof"] = std::string(req.proof->name);
    j["registered_proof_id"] = req.proof->id;
    j["miner_id"] = o.actor_id;
    j["partition_index"] = req.partition_index;
    auto& sectors = j["sectors"] = nlohmann::ordered_json::array();
    for (const auto& p : proofs)
      sectors.push_back({{"sector_id", p.sector_id}, {"comm_r", filecoin::to_hex(p.comm_r)}});
    j["out"] = o.out;
    j["seconds"] = since(t0);
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << req.proof->name << ": " << proofs.size() << " vanilla proof(s) of sector(s)";
    for (const auto& p : proofs) std::cout << " " << p.sector_id;
    std::cout << " -> " << o.out << " (" << since(t0) << " s)\n";
  }
  return 0;
}

}  // namespace

void add_post_commands(CLI::App& app, PostOptions& o) {
  auto* post = app.add_subcommand("post", "WindowPoSt / WinningPoSt tools");
  post->require_subcommand(1);
  auto* v = post->add_subcommand("vanilla",
                                 "Seal sectors natively and write a PoSt request file with their valid vanilla proofs");
  v->add_option("--kind", o.kind, "window or winning (default window)");
  v->add_option("--sector-size", o.sector_size, "2KiB, 8MiB or 512MiB");
  v->add_option("--proof", o.proof, "A registered PoSt proof name instead of --kind/--sector-size (e.g. V1 ones)");
  v->add_option("--sectors", o.sectors,
                "WindowPoSt: sectors in the partition; WinningPoSt: the sector set the challenged one is drawn from "
                "(default 1)")
      ->check(CLI::Range(1u, 4096u));
  v->add_option("--first-sector", o.first_sector, "The first sector's number (default 1; the others follow)");
  v->add_option("--actor-id", o.actor_id, "Miner actor id f0N (the prover id; default 1000)");
  v->add_option("--randomness", o.randomness, "64 hex digits, a canonical field element (default 03 x 32)");
  v->add_option("--partition-index", o.partition_index, "WindowPoSt: the partition (default 0)");
  v->add_option("--rng-seed", o.rng_seed, "Seed of the sectors' random data (default 1)");
  v->add_option("--out,-o", o.out, "Where to write the request file (atomically)")->required();
  v->add_flag("--json", o.json, "Print a JSON summary");
  v->callback([&o] { o.action = "vanilla"; });
  add_post_witness_command(*post, o);
}

int run_post(const PostOptions& o) {
  try {
    if (o.action == "witness") return run_post_witness(o);
    return run_post_vanilla(o);
  } catch (const UsageError& e) {
    std::cerr << "cuzk: error: " << e.what() << "\n";
    return 2;
  }
}

}  // namespace cuzk::cli
