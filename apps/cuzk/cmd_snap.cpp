// `cuzk snap encode` and `cuzk snap vanilla`: a SnapDeals update of a sector sealed here
// (`cuzk seal --cache DIR`) and its vanilla proofs, written as a SnapDeals request file
// (filecoin/snap_request_file.hpp), so SnapDeals runs end to end with no outside data
// (`cuzk snap witness` is cmd_snap_witness.cpp):
//
//   cuzk seal --sector-size 2KiB --random --cache sealed --out c1.json
//   cuzk snap encode --cache sealed --random --out updated
//   cuzk snap vanilla --cache sealed --update updated --out snap-req.json
#include <CLI/CLI.hpp>
#include <iostream>
#include <nlohmann/json.hpp>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli_util.hpp"
#include "commands.hpp"
#include "filecoin/replica_id.hpp"
#include "filecoin/seal.hpp"
#include "filecoin/sector_cache.hpp"
#include "filecoin/snap_request_file.hpp"
#include "filecoin/snap_vanilla_gen.hpp"
#include "util/atomic_file.hpp"

namespace cuzk::cli {
namespace {

using filecoin::Bytes32;

// The sealed cache and its sector key, checked against each other: the key's tree R root must be
// the cache's comm_r_last.
struct Sealed {
  filecoin::SealedSectorCache meta;
  filecoin::SnapCircuitShape shape;
  std::vector<Bytes32> key;
};

Sealed read_sealed(const std::string& dir) {
  Sealed s;
  try {
    s.meta = filecoin::read_sealed_cache(dir);
    s.shape = filecoin::SnapCircuitShape::of(s.meta.proof->shape.sector_size);
    s.key = filecoin::read_sector_key(dir, s.meta);
  } catch (const std::invalid_argument& e) {
    throw UsageError("--cache " + dir + ": " + e.what());
  }
  return s;
}

std::vector<uint8_t> new_data(const SnapOptions& o, uint64_t nodes) {
  if (o.data.empty() == !o.random) throw UsageError("give exactly one of --data FILE and --random");
  if (o.random) return filecoin::random_sector_data(nodes, o.rng_seed);
  try {
    const std::vector<Bytes32> d = filecoin::read_node_file(o.data, nodes);
    const auto* p = reinterpret_cast<const uint8_t*>(d.data());
    std::vector<uint8_t> bytes(p, p + d.size() * 32);
    filecoin::check_sector_data(bytes, nodes);
    return bytes;
  } catch (const std::invalid_argument& e) {
    throw UsageError("--data: " + std::string(e.what()));
  }
}

int run_encode(const SnapOptions& o) {
  const auto t0 = Clock::now();
  Sealed s = read_sealed(o.cache);
  const std::vector<uint8_t> data = new_data(o, s.shape.nodes);
  const filecoin::SnapUpdate u = filecoin::snap_update_sector(s.shape, std::move(s.key), data, s.meta.comm_c);
  if (u.comm_r_old != s.meta.comm_r) {
    throw UsageError("--cache " + o.cache + ": the sector key and comm_c do not hash to the cache's comm_r " +
                     filecoin::to_hex(s.meta.comm_r) + " (a damaged cache?)");
  }
  filecoin::SnapUpdateCache m;
  m.proof = &filecoin::update_proof_of_size(s.meta.proof->shape.sector_size);
  m.sector_id = s.meta.sector_id;
  m.prover_id = s.meta.prover_id;
  m.comm_c = u.comm_c;
  m.comm_r_old = u.comm_r_old;
  m.comm_d_new = u.comm_d_new;
  m.comm_r_new = u.comm_r_new;
  std::vector<Bytes32> d(s.shape.nodes);
  for (uint64_t i = 0; i < d.size(); ++i) d[i] = u.tree_d_new->leaf(i);
  filecoin::write_snap_update(o.out, m, d, u.replica());
  if (o.json) {
    nlohmann::ordered_json j;
    j["registered_update_proof"] = std::string(m.proof->name);
    j["sector_id"] = m.sector_id;
    j["comm_r_old"] = filecoin::to_hex(m.comm_r_old);
    j["comm_d_new"] = filecoin::to_hex(m.comm_d_new);
    j["comm_r_new"] = filecoin::to_hex(m.comm_r_new);
    j["h"] = u.h;
    j["out"] = o.out;
    j["seconds"] = since(t0);
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << "updated " << m.proof->name << " sector " << m.sector_id << " -> " << o.out << "\n"
              << "comm_r_old  " << filecoin::to_hex(m.comm_r_old) << "\n"
              << "comm_d_new  " << filecoin::to_hex(m.comm_d_new) << "\n"
              << "comm_r_new  " << filecoin::to_hex(m.comm_r_new) << "\n";
  }
  return 0;
}

int run_vanilla(const SnapOptions& o) {
  const auto t0 = Clock::now();
  Sealed s = read_sealed(o.cache);
  filecoin::SnapUpdateCache m;
  std::vector<Bytes32> data, replica;
  try {
    m = filecoin::read_snap_update(o.update);
    data = filecoin::read_update_nodes(o.update, m, "data.dat");
    replica = filecoin::read_update_nodes(o.update, m, "replica.dat");
  } catch (const std::invalid_argument& e) {
    throw UsageError("--update " + o.update + ": " + e.what());
  }
  if (m.proof->sector_size != s.meta.proof->shape.sector_size || m.comm_r_old != s.meta.comm_r ||
      m.comm_c != s.meta.comm_c) {
    throw UsageError("--update " + o.update + " is not an update of the sector in --cache " + o.cache +
                     " (sector size, comm_r_old or comm_c differ)");
  }
  filecoin::SnapUpdate u;
  try {
    u = filecoin::snap_update_from_nodes(s.shape, std::move(s.key), std::move(data), std::move(replica), m.comm_c);
  } catch (const std::invalid_argument& e) {
    throw UsageError("--update " + o.update + ": " + e.what());
  }
  if (u.comm_d_new != m.comm_d_new || u.comm_r_new != m.comm_r_new) {
    throw UsageError("--update " + o.update + ": its data and replica do not hash to its comm_d_new / comm_r_new");
  }
  // Validated before they are returned (what the daemon checks at submit).
  const std::vector<filecoin::SnapPartitionProof> proofs = filecoin::snap_vanilla_proofs(u);
  filecoin::SnapRequestFile f;
  f.proof = m.proof;
  f.sector_id = m.sector_id;
  f.miner_id = filecoin::actor_id_from_prover_id(m.prover_id).value_or(0);
  f.comm_r_old = m.comm_r_old;
  f.comm_d_new = m.comm_d_new;
  f.comm_r_new = m.comm_r_new;
  for (const auto& p : proofs) f.vanilla_proofs.push_back(filecoin::to_bincode(p));
  const std::string text = filecoin::to_json(f);
  write_file_atomically(o.out, text);
  if (o.json) {
    nlohmann::ordered_json j;
    j["registered_update_proof"] = std::string(m.proof->name);
    j["registered_update_proof_id"] = m.proof->id;
    j["sector_id"] = f.sector_id;
    j["miner_id"] = f.miner_id;
    j["partitions"] = proofs.size();
    j["challenges_per_partition"] = u.shape.challenges;
    j["out"] = o.out;
    j["seconds"] = since(t0);
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << m.proof->name << ": " << proofs.size() << " partition proof(s) of sector " << f.sector_id << " -> "
              << o.out << " (" << since(t0) << " s)\n";
  }
  return 0;
}

}  // namespace

void add_snap_commands(CLI::App& app, SnapOptions& o) {
  auto* snap = app.add_subcommand("snap", "SnapDeals (EmptySectorUpdate) tools");
  snap->require_subcommand(1);
  auto* e = snap->add_subcommand(
      "encode", "Update a sector sealed with `cuzk seal --cache DIR` with new data (tree D, the new replica, tree R)");
  e->add_option("--cache", o.cache, "The sealed sector's directory (`cuzk seal --cache`)")->required();
  e->add_option("--data", o.data, "New data: sector-size bytes of 32-byte nodes, each < 2^254");
  e->add_flag("--random", o.random, "Random new data (every node's top two bits cleared)");
  e->add_option("--rng-seed", o.rng_seed, "Seed of the random data (default 1)");
  e->add_option("--out,-o", o.out, "The update's directory (created; its files written atomically)")->required();
  e->add_flag("--json", o.json, "Print a JSON summary (the three commitments)");
  e->callback([&o] { o.action = "encode"; });

  auto* v = snap->add_subcommand(
      "vanilla", "Write a SnapDeals request file with the valid vanilla proofs (one per partition) of an update");
  v->add_option("--cache", o.cache, "The sealed sector's directory (`cuzk seal --cache`)")->required();
  v->add_option("--update", o.update, "The update's directory (`cuzk snap encode --out`)")->required();
  v->add_option("--out,-o", o.out, "Where to write the request file (atomically)")->required();
  v->add_flag("--json", o.json, "Print a JSON summary");
  v->callback([&o] { o.action = "vanilla"; });
  add_snap_witness_command(*snap, o);
}

int run_snap(const SnapOptions& o) {
  try {
    if (o.action == "witness") return run_snap_witness(o);
    return o.action == "encode" ? run_encode(o) : run_vanilla(o);
  } catch (const UsageError& e) {
    std::cerr << "cuzk: error: " << e.what() << "\n";
    return 2;
  }
}

}  // namespace cuzk::cli
