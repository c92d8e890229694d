#include "filecoin/seal.hpp"

#include <chrono>
#include <stdexcept>
#include <string>

#include "filecoin/label.hpp"
#include "filecoin/merkle_tree_hash.hpp"
#include "filecoin/replica_id.hpp"
#include "filecoin/sector_tree.hpp"
#include "filecoin/stacked_graph.hpp"
#include "filecoin/vanilla_proof.hpp"
#include "gadgets/poseidon_native.hpp"
#include "util/rng.hpp"
#include "util/thread_pool.hpp"

namespace cuzk::filecoin {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

Bytes32 node_at(std::span<const uint8_t> bytes, uint64_t i) {
  Bytes32 b;
  std::copy_n(bytes.begin() + static_cast<std::ptrdiff_t>(i * 32), 32, b.begin());
  return b;
}

// A sealed sector held whole in memory.
class SealedSector final : public VanillaProofSource {
 public:
  SealedSector(const DenseTree& d, const DenseTree& c, const DenseTree& r,
               const std::vector<std::vector<uint8_t>>& labels)
      : d_(d), c_(c), r_(r), labels_(labels) {}
  MerkleProof tree_d_proof(uint64_t node) const override { return d_.prove(node); }
  MerkleProof tree_c_proof(uint64_t node) const override { return c_.prove(node); }
  MerkleProof tree_r_proof(uint64_t node) const override { return r_.prove(node); }
  Bytes32 label(uint32_t layer, uint64_t node) const override { return node_at(labels_.at(layer - 1), node); }

 private:
  const DenseTree &d_, &c_, &r_;
  const std::vector<std::vector<uint8_t>>& labels_;
};

}  // namespace

void check_sector_data(std::span<const uint8_t> data, uint64_t nodes) {
  if (data.size() != nodes * 32) {
    throw std::invalid_argument("sector data is " + std::to_string(data.size()) + " bytes, the sector holds " +
                                std::to_string(nodes) + " nodes of 32 bytes (" + std::to_string(nodes * 32) +
                                " bytes)");
  }
  for (uint64_t i = 0; i < nodes; ++i) {
    if (data[i * 32 + 31] & 0xc0) {
      throw std::invalid_argument("sector data node " + std::to_string(i) + " (byte offset " + std::to_string(i * 32) +
                                  ") is >= 2^254: every 32-byte node must be a valid Fr32 node (top two bits of "
                                  "its last byte clear); pad raw data with fr32 padding first");
    }
  }
}

std::vector<uint8_t> random_sector_data(uint64_t nodes, uint64_t rng_seed) {
  std::vector<uint8_t> data(nodes * 32);
  Xoshiro256 rng(rng_seed);
  for (size_t i = 0; i < data.size(); i += 8) {
    const uint64_t w = rng();
    for (size_t j = 0; j < 8; ++j) data[i + j] = static_cast<uint8_t>(w >> (8 * j));
  }
  for (uint64_t i = 0; i < nodes; ++i) data[i * 32 + 31] &= 0x3f;
  return data;
}

SealResult seal_sector(const RegisteredSealProof& proof, std::span<const uint8_t> data, const SealParams& params,
                       const SealProgress& progress) {
  const PorepShape& s = proof.shape;
  const uint64_t n = s.nodes;
  check_sector_data(data, n);
  auto report = [&](std::string_view step, uint64_t done, uint64_t total) {
    if (progress) progress(step, done, total);
  };
  SealResult res;
  const auto t_start = Clock::now();

  auto t0 = Clock::now();
  report("tree D", 0, 1);
  std::vector<Bytes32> data_nodes(n);
  for (uint64_t i = 0; i < n; ++i) data_nodes[i] = node_at(data, i);
  const DenseTree tree_d(tree_d_layout(s), std::move(data_nodes));
  report("tree D", 1, 1);
  res.timings.tree_d = seconds_since(t0);

  SealCommitPhase1Output& c1 = res.c1;
  c1.registered_proof = &proof;
  c1.comm_d = tree_d.root();
  c1.ticket = params.ticket;
  c1.seed = params.seed;
  const PorepId pid = porep_id(proof);
  c1.replica_id = replica_id(params.prover_id, params.sector_id, params.ticket, c1.comm_d, pid);

  t0 = Clock::now();
  const StackedGraph g(n, pid, proof.api_version);
  const auto labels = generate_labels(g, c1.replica_id, s.layers,
                                      [&](uint64_t done, uint64_t total) { report("labels", done, total); });
  res.timings.labels = seconds_since(t0);

  // Tree C over the column hashes (Poseidon of arity L per node, in parallel).
  t0 = Clock::now();
  std::vector<Bytes32> leaves(n);
  ThreadPool::global().parallel_chunks(n, 1024, [&](size_t b, size_t e) {
    std::vector<Fr> column(s.layers);
    for (size_t i = b; i < e; ++i) {
      for (uint32_t l = 0; l < s.layers; ++l) column[l] = to_fr(node_at(labels[l], i));
      leaves[i] = to_bytes(gadgets::poseidon_hash(s.layers, column));
    }
  });
  report("tree C", 1, 2);
  const DenseTree tree_c(tree_rc_layout(s), std::move(leaves));
  report("tree C", 2, 2);
  res.timings.tree_c = seconds_since(t0);

  // Tree R over the replica: last layer's label + data node, in Fr.
  t0 = Clock::now();
  leaves.assign(n, Bytes32{});
  ThreadPool::global().parallel_chunks(n, 4096, [&](size_t b, size_t e) {
    for (size_t i = b; i < e; ++i) leaves[i] = to_bytes(to_fr(node_at(labels.back(), i)) + to_fr(node_at(data, i)));
  });
  auto tree_r_ptr = std::make_shared<const DenseTree>(tree_rc_layout(s), std::move(leaves));
  const DenseTree& tree_r = *tree_r_ptr;
  report("tree R", 1, 1);
  res.timings.tree_r = seconds_since(t0);

  res.comm_c = tree_c.root();
  res.comm_r_last = tree_r.root();
  c1.comm_r = comm_r_from(res.comm_c, res.comm_r_last);

  t0 = Clock::now();
  const SealedSector sector(tree_d, tree_c, tree_r, labels);
  c1.vanilla_proofs = build_vanilla_proofs(proof, g, sector, c1.replica_id, c1.comm_r, c1.seed);
  report("proofs", 1, 1);
  res.timings.proofs = seconds_since(t0);

  t0 = Clock::now();
  validate_c1_output(c1, C1ValidateOptions{.verify_merkle_paths = true});
  report("validate", 1, 1);
  res.timings.validate = seconds_since(t0);
  if (params.keep_tree_r) res.tree_r = std::move(tree_r_ptr);
  res.timings.total = seconds_since(t_start);
  return res;
}

}  // namespace cuzk::filecoin
