#include "filecoin/snap_circuit.hpp"

#include <algorithm>
#include <bit>
#include <stdexcept>

#include "filecoin/registered_proof.hpp"
#include "gadgets/field_bits.hpp"
#include "util/quote.hpp"

namespace cuzk::filecoin {
namespace {

// constants.rs ALLOWED_SECTOR_SIZES (there in nodes), in bytes.
constexpr uint64_t kSnapSectorSizes[] = {1 * kKiB, 2 * kKiB,  4 * kKiB,   8 * kKiB,  16 * kKiB, 32 * kKiB,
                                         8 * kMiB, 16 * kMiB, 512 * kMiB, 32 * kGiB, 64 * kGiB};

// constants.rs validate_tree_r_shape: tree R (and C) of the sector size's PoRep.
gadgets::MerkleShape tree_r_shape(uint64_t nodes) {
  switch (nodes) {
    case 1 << 5:
      return {8, 4, 0};
    case 1 << 6:
      return {8, 0, 0};
    case 1 << 7:
      return {8, 2, 0};
    case 1 << 8:
      return {8, 4, 0};
    case 1 << 9:
      return {8, 8, 0};
    case 1 << 10:
      return {8, 8, 2};
    case 1 << 18:
      return {8, 0, 0};
    case 1 << 19:
      return {8, 2, 0};
    case 1 << 24:
      return {8, 0, 0};
    case uint64_t{1} << 30:
      return {8, 8, 0};
    case uint64_t{1} << 31:
      return {8, 8, 2};
    default:
      throw std::invalid_argument("SnapDeals: no tree R shape for " + std::to_string(nodes) + " nodes");
  }
}

[[noreturn]] void fail_snap_witness(const std::string& what) {
  throw std::invalid_argument("SnapDeals witness: " + what);
}

std::string sizes_list() {
  std::string s;
  for (uint64_t b : kSnapSectorSizes) s += (s.empty() ? "" : ", ") + sector_size_name(b);
  return s;
}

void check_path(const SnapPath& path, const std::vector<size_t>& arities, size_t c, const char* what) {
  const std::string where = "challenge " + std::to_string(c) + ": " + what;
  if (path.size() != arities.size()) {
    fail_snap_witness(where + " has " + std::to_string(path.size()) + " levels, the circuit needs " +
                      std::to_string(arities.size()));
  }
  for (size_t r = 0; r < path.size(); ++r) {
    if (path[r].size() + 1 != arities[r]) {
      fail_snap_witness(where + " level " + std::to_string(r) + " has " + std::to_string(path[r].size()) +
                        " siblings, arity " + std::to_string(arities[r]) + " needs " + std::to_string(arities[r] - 1));
    }
  }
}

// The selector's bits must be a partition index below the count, then one h_select bit, then
// zeros (circuit.rs synthesize's assertions).
void check_selector(const SnapCircuitShape& s, const Fr& selector) {
  const std::vector<bool> bits = gadgets::fr_to_bits_le(selector);
  const size_t pb = s.partition_bits();
  uint64_t k = 0;
  for (size_t i = 0; i < pb; ++i) k |= uint64_t{bits[i]} << i;
  const auto first = bits.begin() + static_cast<std::ptrdiff_t>(pb);
  const auto h_end = first + static_cast<std::ptrdiff_t>(s.hs.size());
  if (k >= s.partitions || std::count(first, h_end, true) != 1 || std::find(h_end, bits.end(), true) != bits.end()) {
    fail_snap_witness("the selector (k_and_h_select / h_select) is not a partition index below " +
                      std::to_string(s.partitions) + " followed by exactly one of " + std::to_string(s.hs.size()) +
                      " h_select bits");
  }
}

}  // namespace

std::span<const uint64_t> snap_sector_sizes() {
  return kSnapSectorSizes;
}

uint64_t parse_snap_sector_size(std::string_view text) {
  const std::optional<uint64_t> n = parse_byte_size(text);
  if (n && std::find(std::begin(kSnapSectorSizes), std::end(kSnapSectorSizes), *n) != std::end(kSnapSectorSizes))
    return *n;
  throw std::invalid_argument("SnapDeals sector size " + short_quote(text) + ": expected one of " + sizes_list() +
                              " (or the size in bytes)");
}

SnapCircuitShape SnapCircuitShape::of(uint64_t sector_size, SnapTreeD tree_d) {
  if (std::find(std::begin(kSnapSectorSizes), std::end(kSnapSectorSizes), sector_size) == std::end(kSnapSectorSizes)) {
    throw std::invalid_argument("SnapDeals: sector size " + std::to_string(sector_size) + " is not one of " +
                                sizes_list());
  }
  // constants.rs: partition_count, challenge_count, apex_leaf_count, hs (thresholds in nodes).
  SnapCircuitShape s;
  s.nodes = sector_size / 32;
  s.tree_d = tree_d;
  s.tree_r = tree_r_shape(s.nodes);
  const uint32_t partitions = s.nodes <= 256 ? 1 : s.nodes <= 1024 ? 2 : s.nodes <= (1u << 19) ? 4 : 16;
  const uint32_t challenges = s.nodes <= (1u << 19) ? 10 : 86;
  if (s.nodes <= 1024) {
    s.hs = {1, 1, 1, 1, 1, 1};
  } else {
    s.hs = {7, 8, 9, 10, 11, 12};
  }
  if (tree_d == SnapTreeD::kSha256) {
    s.partitions = partitions;
    s.challenges = challenges;
    s.apex_leaves = s.nodes <= 256 ? 8 : 128;
  } else {
    // vanilla.rs from_sector_size_poseidon: one partition with all partitions' challenges.
    s.partitions = 1;
    s.challenges = challenges * partitions;
    s.apex_leaves = 0;
  }
  s.validate();
  return s;
}

void SnapCircuitShape::validate() const {
  auto pow2 = [](uint64_t x) { return x != 0 && std::has_single_bit(x); };
  if (nodes < 2 || !pow2(nodes) || nodes > (uint64_t{1} << 40)) {
    throw std::invalid_argument("SnapDeals circuit: nodes = " + std::to_string(nodes) +
                                " must be a power of two in 2..2^40");
  }
  if (!pow2(partitions) || challenges == 0 || challenges > 10'000) {
    throw std::invalid_argument("SnapDeals circuit: " + std::to_string(partitions) + " partitions (a power of two), " +
                                std::to_string(challenges) + " challenges (1..10000)");
  }
  if ((tree_d == SnapTreeD::kSha256) != (apex_leaves != 0) || (apex_leaves != 0 && !pow2(apex_leaves))) {
    throw std::invalid_argument("SnapDeals circuit: apex_leaves = " + std::to_string(apex_leaves) +
                                " (a power of two with a SHA-256 tree D, 0 with a Poseidon one)");
  }
  if (partition_bits() + apex_bits() > challenge_bits() || random_bits() > gadgets::kFrCapacity) {
    throw std::invalid_argument("SnapDeals circuit: " + std::to_string(partitions) + " partitions of " +
                                std::to_string(apex_leaves) + " apex leaves do not fit " + std::to_string(nodes) +
                                " nodes");
  }
  for (uint32_t h : hs) {
    if (h == 0 || h > challenge_bits()) {
      throw std::invalid_argument("SnapDeals circuit: h = " + std::to_string(h) + " must be in 1.." +
                                  std::to_string(challenge_bits()));
    }
  }
  tree_r.base_path_length(nodes);  // throws unless the nodes fill tree R's shape
}

uint32_t SnapCircuitShape::challenge_bits() const {
  return static_cast<uint32_t>(std::countr_zero(nodes));
}
uint32_t SnapCircuitShape::partition_bits() const {
  return static_cast<uint32_t>(std::countr_zero(partitions));
}
uint32_t SnapCircuitShape::apex_bits() const {
  return apex_leaves == 0 ? 0 : static_cast<uint32_t>(std::countr_zero(apex_leaves));
}
uint32_t SnapCircuitShape::random_bits() const {
  return challenge_bits() - partition_bits();
}
uint32_t SnapCircuitShape::digests() const {
  const uint32_t per_digest = static_cast<uint32_t>(gadgets::kFrCapacity) / random_bits();
  return (challenges + per_digest - 1) / per_digest;
}
uint32_t SnapCircuitShape::tree_d_levels() const {
  if (tree_d == SnapTreeD::kPoseidon) return static_cast<uint32_t>(tree_r_levels());
  return challenge_bits() - partition_bits() - apex_bits();
}
size_t SnapCircuitShape::tree_r_levels() const {
  return tree_r.base_path_length(nodes) + (tree_r.sub_arity != 0 ? 1 : 0) + (tree_r.top_arity != 0 ? 1 : 0);
}

std::string SnapCircuitShape::describe() const {
  return sector_size_name(nodes * 32) + (tree_d == SnapTreeD::kPoseidon ? ", Poseidon tree D" : "") + ", " +
         std::to_string(partitions) + " partition(s) x " + std::to_string(challenges) + " challenges, " +
         std::to_string(apex_leaves) + " apex leaves, tree R " + std::to_string(tree_r.base_arity) + "-" +
         std::to_string(tree_r.sub_arity) + "-" + std::to_string(tree_r.top_arity);
}

SnapPartitionWitness SnapPartitionWitness::blank(const SnapCircuitShape& shape) {
  shape.validate();
  auto blank_path = [](const std::vector<size_t>& arities) {
    SnapPath p;
    for (size_t a : arities) p.emplace_back(a - 1);
    return p;
  };
  SnapChallengeWitness c;
  c.path_r_old = blank_path(snap_detail::tree_r_arities(shape));
  c.path_r_new = c.path_r_old;
  c.path_d_new = blank_path(snap_detail::tree_d_arities(shape));
  SnapPartitionWitness w;
  w.apex_leaves.resize(shape.apex_leaves);
  w.partition_path.resize(shape.partition_bits());
  w.challenges.assign(shape.challenges, c);
  return w;
}

Fr snap_selector(const SnapCircuitShape& shape, uint32_t k, uint32_t h) {
  const auto it = std::find(shape.hs.begin(), shape.hs.end(), h);
  if (k >= shape.partitions || it == shape.hs.end()) {
    throw std::invalid_argument("SnapDeals: partition " + std::to_string(k) + " and h = " + std::to_string(h) +
                                ": the circuit (" + shape.describe() + ") has partitions 0.." +
                                std::to_string(shape.partitions - 1) + " and h in {" + std::to_string(shape.hs[0]) +
                                ".." + std::to_string(shape.hs[5]) + "}");
  }
  const uint64_t h_select = uint64_t{1} << (it - shape.hs.begin());
  return Fr::from_u64(k | (h_select << shape.partition_bits()));
}

std::vector<Fr> snap_public_inputs(const SnapCircuitShape& shape, const SnapPublicInputs& in) {
  const uint32_t h = in.h == 0 ? shape.h_default() : in.h;
  return {snap_selector(shape, in.k, h), in.comm_r_old, in.comm_d_new, in.comm_r_new};
}

namespace snap_detail {

std::vector<size_t> tree_r_arities(const SnapCircuitShape& s) {
  std::vector<size_t> a(s.tree_r.base_path_length(s.nodes), s.tree_r.base_arity);
  if (s.tree_r.sub_arity != 0) a.push_back(s.tree_r.sub_arity);
  if (s.tree_r.top_arity != 0) a.push_back(s.tree_r.top_arity);
  return a;
}

std::vector<size_t> tree_d_arities(const SnapCircuitShape& s) {
  if (s.tree_d == SnapTreeD::kPoseidon) return tree_r_arities(s);
  return std::vector<size_t>(s.tree_d_levels(), 2);
}

void check_witness(const SnapCircuitShape& shape, const SnapPartitionWitness& w) {
  shape.validate();
  if (w.selector) check_selector(shape, *w.selector);
  if (w.apex_leaves.size() != shape.apex_leaves) {
    fail_snap_witness(std::to_string(w.apex_leaves.size()) + " apex leaves, the circuit (" + shape.describe() +
                      ") needs " + std::to_string(shape.apex_leaves));
  }
  if (w.partition_path.size() != shape.partition_bits()) {
    fail_snap_witness("a partition path of " + std::to_string(w.partition_path.size()) + " levels, the circuit needs " +
                      std::to_string(shape.partition_bits()));
  }
  if (w.challenges.size() != shape.challenges) {
    fail_snap_witness(std::to_string(w.challenges.size()) + " challenges, the circuit (" + shape.describe() +
                      ") needs " + std::to_string(shape.challenges));
  }
  const std::vector<size_t> r = tree_r_arities(shape), d = tree_d_arities(shape);
  for (size_t c = 0; c < w.challenges.size(); ++c) {
    check_path(w.challenges[c].path_r_old, r, c, "path_r_old");
    check_path(w.challenges[c].path_r_new, r, c, "path_r_new");
    check_path(w.challenges[c].path_d_new, d, c, "path_d_new");
  }
}

}  // namespace snap_detail
}  // namespace cuzk::filecoin
