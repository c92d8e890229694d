#include "filecoin/snap_synthetic.hpp"

#include <algorithm>
#include <stdexcept>

#include "filecoin/merkle_tree_hash.hpp"
#include "filecoin/periodic_tree.hpp"
#include "filecoin/snap_native.hpp"
#include "filecoin/snap_vanilla_gen.hpp"
#include "util/rng.hpp"
#include "util/thread_pool.hpp"

namespace cuzk::filecoin {
namespace {

// The pattern's length: 8^3 nodes, three levels of tree R (nine of tree D) of distinct nodes.
constexpr uint64_t kPeriod = 512;

}  // namespace

SnapSyntheticSet synthetic_snap_vanilla(const SnapCircuitShape& shape, uint64_t rng_seed) {
  shape.validate();
  if (shape.tree_d != SnapTreeD::kSha256) throw std::invalid_argument("synth-snap: the SHA-256 tree D only");
  const uint32_t h = shape.h_default();
  const uint64_t block = shape.nodes >> h;  // nodes sharing a rho
  const uint64_t period = std::min(kPeriod, block);
  Xoshiro256 rng(rng_seed ^ 0x5a9d5a9d5a9d5a9dULL);
  const Bytes32 comm_c = random_fr_bytes(rng);
  std::vector<Bytes32> key(period), data(period);
  for (Bytes32& b : key) b = random_fr_bytes(rng);
  for (Bytes32& b : data) b = random_fr_bytes(rng);  // below 2^254: valid Fr32 data

  const TreeLayout r_layout = snap_tree_r_layout(shape);
  const PeriodicTree r_old(r_layout, shape.nodes, period, [&](uint64_t, uint64_t i) { return key[i]; });
  const PeriodicTree d_new(snap_tree_d_layout(shape), shape.nodes, period,
                           [&](uint64_t, uint64_t i) { return data[i]; });
  SnapSyntheticSet out;
  SnapRequestContext& ctx = out.context;
  ctx.shape = shape;
  ctx.h = h;
  ctx.comm_r_old = comm_r_from(comm_c, r_old.root());
  ctx.comm_d_new = d_new.root();
  const Fr phi = snap_phi(to_fr(ctx.comm_d_new), to_fr(ctx.comm_r_old));
  std::vector<Fr> rhos(uint64_t{1} << h);
  ThreadPool::global().parallel_for(rhos.size(), [&](size_t b) { rhos[b] = snap_rho(phi, b); });
  std::vector<Fr> key_fr(period), data_fr(period);
  for (uint64_t i = 0; i < period; ++i) {
    key_fr[i] = to_fr(key[i]);
    data_fr[i] = to_fr(data[i]);
  }
  // A block of the new replica is the encoding of the patterns with its rho (snap_encode_nodes).
  const PeriodicTree r_new(r_layout, block, period,
                           [&](uint64_t b, uint64_t i) { return to_bytes(key_fr[i] + data_fr[i] * rhos[b]); });
  ctx.comm_r_new = comm_r_from(comm_c, r_new.root());
  out.proofs.resize(shape.partitions);
  ThreadPool::global().parallel_for(out.proofs.size(), [&](size_t k) {
    out.proofs[k] =
        build_snap_partition_proof(shape, r_old, d_new, r_new, comm_c, ctx.comm_r_new, static_cast<uint32_t>(k));
  });
  return out;
}

}  // namespace cuzk::filecoin
