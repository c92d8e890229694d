// `cuzk seal` and `cuzk synth-c1`: produce PoRep C1 outputs (SealCommitPhase1Output) that are valid
// vanilla proofs, so C2 can be driven end to end without filecoin-ffi: `seal` seals a real sector
// (2 KiB, 8 MiB, 512 MiB) from a data file or random data; `synth-c1` builds a sparse but consistent
// one for any size, 32/64 GiB included, in seconds.
#include <CLI/CLI.hpp>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli_util.hpp"
#include "commands.hpp"
#include "filecoin/c1_output.hpp"
#include "filecoin/registered_proof.hpp"
#include "filecoin/replica_id.hpp"
#include "filecoin/seal.hpp"
#include "filecoin/sector_cache.hpp"
#include "filecoin/synth_c1.hpp"
#include "util/atomic_file.hpp"

namespace cuzk::cli {
namespace {

using json = nlohmann::ordered_json;
using filecoin::Bytes32;

Bytes32 parse_hex32(const std::string& what, const std::string& hex) {
  const std::string h = hex.starts_with("0x") ? hex.substr(2) : hex;
  if (h.size() != 64) throw UsageError(what + ": expected 64 hex digits (32 bytes), got " + std::to_string(h.size()));
  Bytes32 b{};
  for (size_t i = 0; i < 32; ++i) {
    unsigned v = 0;
    if (std::sscanf(h.c_str() + 2 * i, "%2x", &v) != 1 || !std::isxdigit(static_cast<unsigned char>(h[2 * i])) ||
        !std::isxdigit(static_cast<unsigned char>(h[2 * i + 1]))) {
      throw UsageError(what + ": '" + hex + "' is not hex");
    }
    b[i] = static_cast<uint8_t>(v);
  }
  return b;
}

const filecoin::RegisteredSealProof& pick_proof(const std::string& size, const std::string& name) {
  uint64_t bytes = 0;
  try {
    bytes = filecoin::parse_sector_size(size);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--sector-size: ") + e.what());
  }
  const std::string n = name.empty() ? std::string(filecoin::default_seal_proof(bytes).name) : name;
  const filecoin::RegisteredSealProof* p = nullptr;
  try {
    p = &filecoin::registered_seal_proof(n);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--proof: ") + e.what());
  }
  if (p->shape.sector_size != bytes) {
    throw UsageError("--proof " + n + " is not a " + size + " proof");
  }
  return *p;
}

void write_output(const SealOutputOptions& o, const filecoin::SealCommitPhase1Output& c1, uint64_t sector_id) {
  const std::string text = o.wrapper ? filecoin::to_wrapper_json(c1, sector_id) : filecoin::to_json(c1);
  write_file_atomically(o.out, text);
}

json summary(const filecoin::SealCommitPhase1Output& c1, const Bytes32& prover_id, uint64_t sector_id) {
  json j;
  j["registered_proof"] = std::string(c1.registered_proof->name);
  j["prover_id"] = filecoin::to_hex(prover_id);
  j["sector_id"] = sector_id;
  j["comm_d"] = filecoin::to_hex(c1.comm_d);
  j["comm_r"] = filecoin::to_hex(c1.comm_r);
  j["replica_id"] = filecoin::to_hex(c1.replica_id);
  j["partitions"] = c1.vanilla_proofs.size();
  j["challenges_per_partition"] = c1.vanilla_proofs.empty() ? 0 : c1.vanilla_proofs.front().size();
  return j;
}

Bytes32 prover_id_of(const SealOptions& o) {
  return o.prover_id.empty() ? filecoin::prover_id_from_actor_id(o.actor_id) : parse_hex32("--prover-id", o.prover_id);
}

// -v: one line per step and about every 10% of the labels.
filecoin::SealProgress verbose_progress(bool verbose) {
  if (!verbose) return {};
  auto last = std::make_shared<std::pair<std::string, uint64_t>>();
  auto t0 = std::make_shared<Clock::time_point>(Clock::now());
  return [last, t0](std::string_view step, uint64_t done, uint64_t total) {
    const uint64_t decile = total ? done * 10 / total : 10;
    if (last->first == step && last->second == decile) return;
    *last = {std::string(step), decile};
    std::fprintf(stderr, "[%7.2f s] %s %llu/%llu\n", since(*t0), std::string(step).c_str(),
                 static_cast<unsigned long long>(done), static_cast<unsigned long long>(total));
  };
}

int run_seal_cmd(const SealOptions& o) {
  const auto& proof = pick_proof(o.sector_size, o.proof);
  if (proof.shape.nodes > (uint64_t{1} << 24)) {
    throw UsageError("cuzk seal supports 2KiB, 8MiB and 512MiB sectors (" + o.sector_size +
                     " needs the whole sector in memory); use `cuzk synth-c1` for 32GiB/64GiB");
  }
  if (o.data.empty() == !o.random) throw UsageError("give exactly one of --data FILE and --random");
  filecoin::SealParams p;
  p.sector_id = o.sector_id;
  p.prover_id = prover_id_of(o);
  p.ticket = parse_hex32("--ticket", o.ticket);
  p.seed = parse_hex32("--seed", o.seed);
  if (filecoin::is_zero(p.seed)) throw UsageError("--seed: must not be zero (C2 rejects a zero seed)");
  std::vector<uint8_t> data;
  if (o.random) {
    data = filecoin::random_sector_data(proof.shape.nodes, o.rng_seed);
  } else {
    std::error_code ec;
    const uintmax_t size = std::filesystem::file_size(o.data, ec);
    std::ifstream in(o.data, std::ios::binary);
    if (ec || !in) throw UsageError("--data " + o.data + ": cannot open" + (ec ? ": " + ec.message() : ""));
    if (size != proof.shape.sector_size) {
      throw UsageError("--data " + o.data + ": " + std::to_string(size) + " bytes, a " + o.sector_size + " sector is " +
                       std::to_string(proof.shape.sector_size));
    }
    data.resize(size);
    if (!in.read(reinterpret_cast<char*>(data.data()), static_cast<std::streamsize>(size))) {
      throw std::runtime_error("--data " + o.data + ": read failed");
    }
    try {
      filecoin::check_sector_data(data, proof.shape.nodes);
    } catch (const std::invalid_argument& e) {
      throw UsageError("--data " + o.data + ": " + e.what());
    }
  }
  p.keep_tree_r = !o.cache.empty();
  const filecoin::SealResult r = filecoin::seal_sector(proof, data, p, verbose_progress(o.verbose));
  const auto t0 = Clock::now();
  write_output(o.output, r.c1, o.sector_id);
  if (!o.cache.empty()) {
    // The replica (tree R's leaves) is the sector key a SnapDeals update encodes into.
    std::vector<filecoin::Bytes32> key(proof.shape.nodes);
    for (uint64_t i = 0; i < key.size(); ++i) key[i] = r.tree_r->leaf(i);
    filecoin::write_sealed_cache(
        o.cache, {&proof, p.sector_id, p.prover_id, r.c1.comm_d, r.c1.comm_r, r.comm_c, r.comm_r_last}, key);
  }
  const double write_s = since(t0);
  if (o.json) {
    json j = summary(r.c1, p.prover_id, p.sector_id);
    j["comm_c"] = filecoin::to_hex(r.comm_c);
    j["comm_r_last"] = filecoin::to_hex(r.comm_r_last);
    j["out"] = o.output.out;
    if (!o.cache.empty()) j["cache"] = o.cache;
    j["timings_s"] = {{"tree_d", r.timings.tree_d}, {"labels", r.timings.labels},
                      {"tree_c", r.timings.tree_c}, {"tree_r", r.timings.tree_r},
                      {"proofs", r.timings.proofs}, {"validate", r.timings.validate},
                      {"write", write_s},           {"total", r.timings.total + write_s}};
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << "sealed " << proof.name << " -> " << o.output.out << "\n"
              << "comm_d      " << filecoin::to_hex(r.c1.comm_d) << "\n"
              << "comm_r      " << filecoin::to_hex(r.c1.comm_r) << "\n"
              << "replica_id  " << filecoin::to_hex(r.c1.replica_id) << "\n"
              << "time        " << r.timings.total + write_s << " s\n";
  }
  return 0;
}

int run_synth_cmd(const SealOptions& o) {
  const auto& proof = pick_proof(o.sector_size, o.proof);
  const auto t0 = Clock::now();
  if (o.verbose) std::fprintf(stderr, "building a synthetic C1 for %s\n", std::string(proof.name).c_str());
  filecoin::SealCommitPhase1Output c1;
  try {
    c1 = filecoin::make_valid_synthetic_c1(proof, o.rng_seed, prover_id_of(o), o.sector_id);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  const double build_s = since(t0);
  if (o.verbose) std::fprintf(stderr, "[%7.2f s] built; validating with Merkle paths\n", build_s);
  const auto t1 = Clock::now();
  filecoin::validate_c1_output(c1, filecoin::C1ValidateOptions{.verify_merkle_paths = true});
  const double validate_s = since(t1);
  const auto t2 = Clock::now();
  write_output(o.output, c1, o.sector_id);
  const double write_s = since(t2);
  if (o.json) {
    json j = summary(c1, prover_id_of(o), o.sector_id);
    j["out"] = o.output.out;
    j["timings_s"] = {{"build", build_s}, {"validate", validate_s}, {"write", write_s}, {"total", since(t0)}};
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << "synthetic " << proof.name << " -> " << o.output.out << " (" << since(t0) << " s)\n";
  }
  return 0;
}

}  // namespace

void add_seal_commands(CLI::App& app, SealOptions& o) {
  auto output = [&o](CLI::App* c) {
    c->add_option("--out,-o", o.output.out, "Where to write the C1 JSON (atomically)")->required();
    c->add_flag("--wrapper", o.output.wrapper,
                "Write the Curio/cuzk wrapper {SectorNum, Phase1Out (base64), SectorSize} instead of raw C1 JSON");
    c->add_flag("--json", o.json, "Print a JSON summary (comm_d, comm_r, replica_id, timings)");
    c->add_flag("-v,--verbose", o.verbose, "Progress on stderr");
    c->add_option("--proof", o.proof, "Registered seal proof (default StackedDrg<size>V1_1)");
    c->add_option("--rng-seed", o.rng_seed, "Seed of the random data / synthetic content (default 1)");
    // Not in the C1 output, but C2's final check recomputes replica_id from them.
    c->add_option("--sector-id", o.sector_id, "Sector number (default 1; also the wrapper's SectorNum)");
    auto* prover = c->add_option("--prover-id", o.prover_id, "Prover id, 64 hex digits (default: that of --actor-id)");
    c->add_option("--actor-id", o.actor_id, "Miner actor id f0N whose address payload is the prover id (default 1000)")
        ->excludes(prover);
  };
  auto* seal = app.add_subcommand(
      "seal", "Seal a sector natively (tree D, SDR labels, trees C and R) and write its valid C1 output");
  seal->add_option("--sector-size", o.sector_size, "2KiB, 8MiB or 512MiB")->required();
  output(seal);
  seal->add_option("--data", o.data, "Sector data file: sector-size bytes of 32-byte nodes, each < 2^254");
  seal->add_flag("--random", o.random, "Random data (every node's top two bits cleared)");
  seal->add_option("--ticket", o.ticket, "Ticket, 64 hex digits (default 01 x 32)");
  seal->add_option("--seed", o.seed, "Interactive seed, 64 hex digits, not zero (default 02 x 32)");
  seal->add_option("--cache", o.cache,
                   "Also keep the sealed sector in this directory (its replica and commitments), for `cuzk snap "
                   "encode`");
  seal->callback([&o] { o.action = "seal"; });

  auto* synth = app.add_subcommand(
      "synth-c1", "Write a synthetic but valid C1 output (sparse trees, computed labels) for any sector size");
  synth->add_option("--sector-size", o.sector_size, "2KiB, 8MiB, 512MiB, 32GiB or 64GiB")->required();
  output(synth);
  synth->callback([&o] { o.action = "synth-c1"; });
}

int run_seal(const SealOptions& o) {
  try {
    return o.action == "seal" ? run_seal_cmd(o) : run_synth_cmd(o);
  } catch (const UsageError& e) {
    std::cerr << "cuzk: error: " << e.what() << "\n";
    return 2;
  }
}

}  // namespace cuzk::cli
