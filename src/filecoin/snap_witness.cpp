#include "filecoin/snap_witness.hpp"

#include <array>
#include <bit>
#include <stdexcept>
#include <string>

#include "gadgets/por_witness.hpp"
#include "gadgets/poseidon_witness.hpp"
#include "gadgets/sha256_hash_witness.hpp"
#include "util/prefault.hpp"

namespace cuzk::filecoin {
namespace {

using gadgets::PoseidonHashType;
using snap_detail::tree_r_arities;

[[noreturn]] void fail(const std::string& what) {
  throw std::invalid_argument("SnapDeals witness: " + what);
}

// The name is built only for the error.
template <class NameFn>
const Fr& known(const std::optional<Fr>& v, NameFn&& name) {
  if (!v) fail(name() + " has no value");
  return *v;
}

const gadgets::PoseidonConstants& arity2() {
  return gadgets::poseidon_constants(2);
}
size_t poseidon2_len() {
  return gadgets::poseidon_witness_len(arity2());
}

// Appends to one slice of the aux vector, in order. Overrunning it is a layout bug (the lengths
// below and the writes must agree), caught before it writes past the slice.
class Cursor {
 public:
  explicit Cursor(std::span<Fr> s) : s_(s) {}
  void put(const Fr& v) { take(1)[0] = v; }
  void put_u64(uint64_t v) { put(Fr::from_u64(v)); }
  // n <= 64 bits of v, least significant first, as 0 / 1.
  void bits(uint64_t v, size_t n) {
    std::span<Fr> o = take(n);
    for (size_t i = 0; i < n; ++i) o[i] = ((v >> i) & 1) != 0 ? Fr::one() : Fr::zero();
  }
  std::span<Fr> take(size_t n) {
    if (n > s_.size() - at_) throw std::logic_error("SnapDeals witness: the layout overruns its slice");
    const std::span<Fr> r = s_.subspan(at_, n);
    at_ += n;
    return r;
  }
  void expect_end() const {
    if (at_ != s_.size()) throw std::logic_error("SnapDeals witness: the layout does not fill its slice");
  }

 private:
  std::span<Fr> s_;
  size_t at_ = 0;
};

// gen_randomness_hash: Poseidon2 with the Custom(1) tag (phi, rho, the challenge digests).
Fr gen_randomness(Cursor& o, const Fr& a, const Fr& b) {
  const Fr in[2] = {a, b};
  return gadgets::poseidon_witness(arity2(), in, o.take(poseidon2_len()), PoseidonHashType::custom(1));
}

// Bits [from, from + n) of a canonical value (n <= 64), least significant first.
uint64_t bit_range(const Fr& v, size_t from, size_t n) {
  const auto limbs = v.to_canonical();
  uint64_t out = 0;
  for (size_t i = 0; i < n; ++i) out |= ((limbs[(from + i) / 64] >> ((from + i) % 64)) & 1) << i;
  return out;
}

// A path level's siblings (checked present), appended to the aux and returned.
std::vector<Fr> put_siblings(Cursor& o, const std::vector<std::optional<Fr>>& level, size_t c, const char* what,
                             size_t row) {
  std::vector<Fr> out;
  out.reserve(level.size());
  for (size_t s = 0; s < level.size(); ++s) {
    out.push_back(known(level[s], [&] {
      return "challenge " + std::to_string(c) + ": " + what + " level " + std::to_string(row) + " sibling " +
             std::to_string(s);
    }));
    o.put(out.back());
  }
  return out;
}

// What the head computes that the rest reads.
struct HeadWitness {
  uint64_t k = 0;  // the selector's partition bits
  std::array<bool, 6> h_select{};
  Fr comm_r_old, comm_d_new, comm_r_new, phi, comm_c, root_r_old, root_r_new;
  std::vector<Fr> apex_leaves, partition_path;
};

size_t head_len(const SnapCircuitShape& s) {
  const bool sha = s.tree_d == SnapTreeD::kSha256;
  return 1 + (s.partition_bits() + s.hs.size()) + (sha ? 1 : 0) + 3 + poseidon2_len() + 3 + s.apex_leaves +
         s.partition_bits() + 2 * poseidon2_len();
}

// top_circuit and comm_r_checks.
HeadWitness head_values(const SnapCircuitShape& shape, const SnapPartitionWitness& w, Cursor& o) {
  HeadWitness h;
  const Fr& selector = known(w.selector, [] { return std::string("the selector (k_and_h_select)"); });
  const size_t pb = shape.partition_bits();
  const uint64_t bits = bit_range(selector, 0, pb + h.h_select.size());
  o.put(selector);
  o.bits(bits, pb + h.h_select.size());
  h.k = bits & ((uint64_t{1} << pb) - 1);
  for (size_t i = 0; i < h.h_select.size(); ++i) h.h_select[i] = ((bits >> (pb + i)) & 1) != 0;
  if (shape.tree_d == SnapTreeD::kSha256) o.put_u64(h.k);  // the packed partition bits
  h.comm_r_old = known(w.comm_r_old, [] { return std::string("comm_r_old"); });
  h.comm_d_new = known(w.comm_d_new, [] { return std::string("comm_d_new"); });
  h.comm_r_new = known(w.comm_r_new, [] { return std::string("comm_r_new"); });
  for (const Fr* v : {&h.comm_r_old, &h.comm_d_new, &h.comm_r_new}) o.put(*v);
  h.phi = gen_randomness(o, h.comm_d_new, h.comm_r_old);
  h.comm_c = known(w.comm_c, [] { return std::string("comm_c"); });
  h.root_r_old = known(w.root_r_old, [] { return std::string("root_r_old"); });
  h.root_r_new = known(w.root_r_new, [] { return std::string("root_r_new"); });
  for (const Fr* v : {&h.comm_c, &h.root_r_old, &h.root_r_new}) o.put(*v);
  for (size_t i = 0; i < w.apex_leaves.size(); ++i) {
    h.apex_leaves.push_back(known(w.apex_leaves[i], [i] { return "apex leaf " + std::to_string(i); }));
    o.put(h.apex_leaves.back());
  }
  for (size_t i = 0; i < w.partition_path.size(); ++i) {
    h.partition_path.push_back(
        known(w.partition_path[i], [i] { return "partition path sibling " + std::to_string(i); }));
    o.put(h.partition_path.back());
  }
  // comm_r_old / comm_r_new == Poseidon2(comm_c, root): the traces only (the equalities are
  // constraints, not values).
  for (const Fr* root : {&h.root_r_old, &h.root_r_new}) {
    const Fr in[2] = {h.comm_c, *root};
    gadgets::poseidon_witness(arity2(), in, o.take(poseidon2_len()));
  }
  return h;
}

size_t apex_len(const SnapCircuitShape& s) {
  if (s.tree_d == SnapTreeD::kPoseidon) return 1;  // the constant-zero partition
  return (s.apex_leaves - 1) * gadgets::sha256_hash2_witness_len() +
         s.partition_bits() * gadgets::sha256_insert_hash_witness_len();
}

// apex_por: the apex tree row by row (each row's nodes in parallel), then the partition path from
// its root, one level per partition bit.
void apex_values(const HeadWitness& h, Cursor& o, ThreadPool& pool) {
  const size_t node_len = gadgets::sha256_hash2_witness_len();
  std::vector<Fr> row = h.apex_leaves;
  while (row.size() > 1) {
    std::vector<Fr> next(row.size() / 2);
    const std::span<Fr> out = o.take(next.size() * node_len);
    pool.parallel_for(next.size(), [&](size_t i) {
      next[i] = gadgets::sha256_hash2_witness(row[2 * i], row[2 * i + 1], out.subspan(i * node_len, node_len));
    });
    row = std::move(next);
  }
  Fr cur = row.front();
  for (size_t i = 0; i < h.partition_path.size(); ++i) {
    cur = gadgets::sha256_insert_hash_witness(cur, h.partition_path[i], ((h.k >> i) & 1) != 0,
                                              o.take(gadgets::sha256_insert_hash_witness_len()));
  }
}

size_t gen_len(const SnapCircuitShape& s) {
  return s.digests() * (1 + poseidon2_len() + gadgets::kFrNumBits);
}

// gen_challenge_bits: each challenge's bits as a number, its generated bits then the partition's.
std::vector<uint64_t> gen_challenge_values(const SnapCircuitShape& shape, const HeadWitness& h, Cursor& o) {
  const bool sha = shape.tree_d == SnapTreeD::kSha256;
  const uint64_t partition = sha ? h.k : 0;
  const size_t rb = shape.random_bits(), per_digest = gadgets::kFrCapacity / rb;
  const uint32_t digests = shape.digests();
  std::vector<uint64_t> out;
  out.reserve(shape.challenges);
  for (uint32_t j = 0; j < digests; ++j) {
    const uint64_t index = partition * digests + j;
    o.put_u64(index);
    const Fr digest = gen_randomness(o, h.comm_r_new, Fr::from_u64(index));
    const std::span<Fr> bits = o.take(gadgets::kFrNumBits);
    const auto limbs = digest.to_canonical();
    for (size_t i = 0; i < bits.size(); ++i) bits[i] = ((limbs[i / 64] >> (i % 64)) & 1) != 0 ? Fr::one() : Fr::zero();
    for (size_t c = 0; c < per_digest && out.size() < shape.challenges; ++c) {
      out.push_back(bit_range(digest, c * rb, rb) | (sha ? h.k << rb : 0));
    }
  }
  return out;
}

// The PoR of a tree-R-shaped path (por_no_challenge_input over Poseidon): the siblings, then per
// level insert and hash, the level's index taken from the challenge's bits.
size_t poseidon_por_len(const std::vector<size_t>& arities) {
  size_t n = 0;
  for (size_t a : arities) n += (a - 1) + gadgets::poseidon_insert_hash_witness_len(a);
  return n;
}
void poseidon_por(Cursor& o, const std::vector<size_t>& arities, const SnapPath& path, Fr cur, uint64_t challenge,
                  size_t c, const char* what) {
  std::vector<std::vector<Fr>> siblings;
  for (size_t r = 0; r < path.size(); ++r) siblings.push_back(put_siblings(o, path[r], c, what, r));
  for (size_t r = 0; r < arities.size(); ++r) {
    const size_t a = arities[r];
    cur = gadgets::poseidon_insert_hash_witness(a, cur, siblings[r], challenge & (a - 1),
                                                o.take(gadgets::poseidon_insert_hash_witness_len(a)));
    challenge >>= std::countr_zero(a);
  }
}

// One challenge (challenge_circuit) into its own slice; `challenge` holds its bits.
void challenge_values(const SnapCircuitShape& shape, const HeadWitness& h, const std::vector<size_t>& r_arities,
                      size_t c, uint64_t challenge, const SnapChallengeWitness& w, Cursor& o) {
  // get_challenge_high_bits: per h its h high bits packed, and that or zero by its h_select bit.
  const uint32_t cb = shape.challenge_bits();
  Fr selected = Fr::zero();
  for (size_t i = 0; i < shape.hs.size(); ++i) {
    const uint64_t high = challenge >> (cb - shape.hs[i]);
    o.put_u64(high);
    const Fr or_zero = h.h_select[i] ? Fr::from_u64(high) : Fr::zero();
    o.put(or_zero);
    selected += or_zero;
  }
  o.put(selected);
  const Fr rho = gen_randomness(o, h.phi, selected);
  const std::string where = "challenge " + std::to_string(c);
  const Fr& r_old = known(w.leaf_r_old, [&] { return where + ": leaf_r_old"; });
  const Fr& d_new = known(w.leaf_d_new, [&] { return where + ": leaf_d_new"; });
  o.put(r_old);
  o.put(d_new);
  const Fr product = d_new * rho, r_new = r_old + product;
  o.put(product);
  o.put(r_new);
  if (w.leaf_r_new && *w.leaf_r_new != r_new) fail(where + ": leaf_r_new is not leaf_r_old + leaf_d_new * rho");
  poseidon_por(o, r_arities, w.path_r_old, r_old, challenge, c, "path_r_old");
  poseidon_por(o, r_arities, w.path_r_new, r_new, challenge, c, "path_r_new");
  if (shape.tree_d == SnapTreeD::kPoseidon) {
    poseidon_por(o, r_arities, w.path_d_new, d_new, challenge, c, "path_d_new");
    return;
  }
  // The apex leaf the challenge's bits above tree D's levels select (its equality with the path's
  // end is a constraint, not a value), tree D's siblings, then its levels.
  const size_t to_apex = shape.tree_d_levels();
  gadgets::select_witness(h.apex_leaves, (challenge >> to_apex) & (shape.apex_leaves - 1),
                          o.take(shape.apex_leaves - 1));
  std::vector<Fr> siblings;
  for (size_t r = 0; r < to_apex; ++r) siblings.push_back(put_siblings(o, w.path_d_new[r], c, "path_d_new", r)[0]);
  Fr cur = d_new;
  for (size_t r = 0; r < to_apex; ++r) {
    cur = gadgets::sha256_insert_hash_witness(cur, siblings[r], ((challenge >> r) & 1) != 0,
                                              o.take(gadgets::sha256_insert_hash_witness_len()));
  }
}

}  // namespace

size_t snap_challenge_aux_len(const SnapCircuitShape& shape) {
  shape.validate();
  // c_high: per h its packed bits and the selected-or-zero, then their sum; rho; the leaves;
  // product and leaf_r_new; trees R; tree D (SHA-256: select, siblings, levels).
  const size_t por_r = poseidon_por_len(tree_r_arities(shape));
  const size_t n = 2 * shape.hs.size() + 1 + poseidon2_len() + 2 + 2 + 2 * por_r;
  if (shape.tree_d == SnapTreeD::kPoseidon) return n + por_r;
  return n + (shape.apex_leaves - 1) + shape.tree_d_levels() * (1 + gadgets::sha256_insert_hash_witness_len());
}

size_t snap_aux_len(const SnapCircuitShape& shape) {
  return head_len(shape) + apex_len(shape) + gen_len(shape) + shape.challenges * snap_challenge_aux_len(shape);
}

SnapAssignment snap_native_assignment(const SnapCircuitShape& shape, const SnapPartitionWitness& w, ThreadPool& pool) {
  snap_detail::check_witness(shape, w);
  const size_t per_challenge = snap_challenge_aux_len(shape);
  SnapAssignment out;
  // 2.6 GB at 32 GiB: in transparent huge pages the first touch takes 512x fewer page faults,
  // which were most of the witness time; the pool takes them (util/prefault.hpp).
  const size_t aux_len = snap_aux_len(shape);
  resize_prefaulted(out.aux, aux_len, pool);
  const std::span<Fr> aux(out.aux);
  size_t at = 0;
  auto slice = [&](size_t n) {
    const std::span<Fr> s = aux.subspan(at, n);
    at += n;
    return s;
  };
  Cursor head(slice(head_len(shape)));
  const HeadWitness h = head_values(shape, w, head);
  head.expect_end();
  Cursor apex(slice(apex_len(shape)));
  if (shape.tree_d == SnapTreeD::kSha256) {
    apex_values(h, apex, pool);
  } else {
    apex.put(Fr::zero());  // poseidon/circuit.rs: the partition, an unconstrained zero
  }
  apex.expect_end();
  Cursor gen(slice(gen_len(shape)));
  const std::vector<uint64_t> challenges = gen_challenge_values(shape, h, gen);
  gen.expect_end();
  const std::vector<size_t> r_arities = tree_r_arities(shape);
  const std::span<Fr> rest = aux.subspan(at);
  pool.parallel_for(shape.challenges, [&](size_t c) {
    Cursor o(rest.subspan(c * per_challenge, per_challenge));
    challenge_values(shape, h, r_arities, c, challenges[c], w.challenges[c], o);
    o.expect_end();
  });
  out.inputs = {Fr::one(), *w.selector, h.comm_r_old, h.comm_d_new, h.comm_r_new};
  return out;
}

}  // namespace cuzk::filecoin
