#include "filecoin/post_witness.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <stdexcept>
#include <string>

#include "gadgets/por_witness.hpp"
#include "gadgets/poseidon_witness.hpp"
#include "gadgets/poseidon_x8.hpp"
#include "util/prefault.hpp"

namespace cuzk::filecoin {
namespace {

[[noreturn]] void fail(size_t sector, const std::string& what) {
  throw std::invalid_argument("PoSt witness: sector " + std::to_string(sector) + ": " + what);
}

// The name is built only for the error.
template <class NameFn>
const Fr& value(const std::optional<Fr>& v, size_t sector, NameFn&& name) {
  if (!v) fail(sector, name() + " has no value");
  return *v;
}

// The arity of every level of a path, base levels first.
std::vector<size_t> level_arities(const PostCircuitShape& shape) {
  std::vector<size_t> a(shape.tree.base_path_length(shape.nodes), shape.tree.base_arity);
  if (shape.tree.sub_arity != 0) a.push_back(shape.tree.sub_arity);
  if (shape.tree.top_arity != 0) a.push_back(shape.tree.top_arity);
  return a;
}

// Up to eight circuit sectors at once, laid out alike: aux_len values each in `aux`, in_len inputs
// each in `inputs`; `first` is the first sector's index, for errors.
struct SectorGroup {
  std::span<const PostSectorWitness> sectors;
  size_t first;
  std::span<Fr> aux;
  size_t aux_len;
  std::span<Fr> inputs;
  size_t in_len;
  std::span<Fr> aux_of(size_t b) const { return aux.subspan(b * aux_len, aux_len); }
};

// Each sector's comm_r_last, comm_c, comm_r and comm_r's Poseidon trace (eight at a time);
// returns where the challenges' values start and fills comm_r_last.
size_t group_commitments(const SectorGroup& g, std::array<Fr, 8>& comm_r_last) {
  const size_t n = g.sectors.size();
  const gadgets::PoseidonConstants& c2 = gadgets::poseidon_constants(2);
  const size_t h2 = gadgets::poseidon_witness_len(c2);
  std::array<Fr, 8> comm_r, hashes;
  std::array<Fr, 16> both;
  std::array<Fr*, 8> traces;
  for (size_t b = 0; b < n; ++b) {
    const PostSectorWitness& s = g.sectors[b];
    const size_t index = g.first + b;
    comm_r_last[b] = value(s.comm_r_last, index, [] { return std::string("comm_r_last"); });
    const Fr& comm_c = value(s.comm_c, index, [] { return std::string("comm_c"); });
    comm_r[b] = value(s.comm_r, index, [] { return std::string("comm_r"); });
    const std::span<Fr> a = g.aux_of(b);
    a[0] = comm_r_last[b];
    a[1] = comm_c;
    a[2] = comm_r[b];
    g.inputs[b * g.in_len] = comm_r[b];
    both[2 * b] = comm_c;
    both[2 * b + 1] = comm_r_last[b];
    traces[b] = a.data() + 3;
  }
  const std::span<const Fr> pre(both.data(), 2 * n);
  if (!gadgets::poseidon_witness_x8(c2, pre, std::span<Fr* const>(traces.data(), n), std::span<Fr>(hashes.data(), n))) {
    for (size_t b = 0; b < n; ++b) hashes[b] = gadgets::poseidon_witness(c2, pre.subspan(2 * b, 2), {traces[b], h2});
  }
  for (size_t b = 0; b < n; ++b) {
    if (hashes[b] != comm_r[b]) fail(g.first + b, "comm_r is not Poseidon2(comm_c, comm_r_last)");
  }
  return 3 + h2;
}

// Challenge by challenge and level by level, the sectors' paths together: one level of eight paths
// is one pass of eight Poseidon traces (gadgets::poseidon_por_level_witness_x8).
void group_values(const PostCircuitShape& shape, const std::vector<size_t>& arities, const SectorGroup& g) {
  const size_t n = g.sectors.size();
  std::array<Fr, 8> comm_r_last, cur, next;
  size_t at = group_commitments(g, comm_r_last);
  std::array<std::vector<const gadgets::PathElement*>, 8> levels;
  std::array<std::vector<Fr>, 8> siblings;
  std::array<uint64_t, 8> leaf_index;
  std::array<gadgets::PorLevelLane, 8> lanes;
  for (size_t j = 0; j < shape.challenges; ++j) {
    auto where = [j] { return "challenge " + std::to_string(j); };
    for (size_t b = 0; b < n; ++b) {
      cur[b] = value(g.sectors[b].leaves[j], g.first + b, [&] { return where() + " leaf"; });
      g.aux_of(b)[at] = cur[b];
      const gadgets::AuthPath& p = g.sectors[b].paths[j];
      levels[b].clear();
      for (const std::vector<gadgets::PathElement>* part : {&p.base, &p.sub, &p.top}) {
        for (const gadgets::PathElement& el : *part) levels[b].push_back(&el);
      }
      if (levels[b].size() != arities.size()) fail(g.first + b, where() + ": the path has the wrong number of levels");
      leaf_index[b] = 0;
    }
    ++at;
    unsigned shift = 0;
    for (size_t level = 0; level < arities.size(); ++level) {
      const size_t arity = arities[level], len = gadgets::poseidon_por_level_witness_len(arity);
      for (size_t b = 0; b < n; ++b) {
        const gadgets::PathElement& el = *levels[b][level];
        if (!el.index) fail(g.first + b, where() + ": a path level has no index");
        siblings[b].clear();
        for (const std::optional<Fr>& h : el.hashes)
          siblings[b].push_back(value(h, g.first + b, [&] { return where() + " sibling"; }));
        lanes[b] = {cur[b], siblings[b], *el.index, g.aux_of(b).subspan(at, len)};
        leaf_index[b] |= *el.index << shift;
      }
      gadgets::poseidon_por_level_witness_x8(arity, std::span(lanes.data(), n), std::span(next.data(), n));
      cur = next;
      at += len;
      shift += static_cast<unsigned>(std::countr_zero(arity));
    }
    for (size_t b = 0; b < n; ++b) {
      if (cur[b] != comm_r_last[b]) fail(g.first + b, where() + ": the path does not hash to comm_r_last");
      g.inputs[b * g.in_len + 1 + j] = Fr::from_u64(leaf_index[b]);
    }
  }
  if (at != g.aux_len) throw std::logic_error("PoSt witness: sector layout mismatch");
}

}  // namespace

size_t post_sector_aux_len(const PostCircuitShape& shape) {
  size_t per_challenge = 1;  // the leaf
  for (size_t arity : level_arities(shape)) per_challenge += gadgets::poseidon_por_level_witness_len(arity);
  return 3 + gadgets::poseidon_witness_len(gadgets::poseidon_constants(2)) + shape.challenges * per_challenge;
}

PostAssignment post_native_assignment(const PostCircuitShape& shape, const PostCircuitWitness& w, ThreadPool& pool) {
  post_detail::check_witness(shape, w);
  const std::vector<size_t> arities = level_arities(shape);
  const size_t aux_len = post_sector_aux_len(shape), in_len = 1 + size_t{shape.challenges};
  PostAssignment out;
  out.inputs.resize(1 + w.sectors.size() * in_len);
  out.inputs[0] = Fr::one();
  // 4.1 GB at 32 GiB, zeroed by one thread: its page faults taken by the pool first, in huge pages
  // (util/prefault.hpp; 2.6 s of a 10.5 s witness on the CI VM before).
  resize_prefaulted(out.aux, w.sectors.size() * aux_len, pool);
  // Groups of eight sectors: one level of eight paths is one pass of 8-lane Poseidon traces.
  constexpr size_t kGroup = 8;
  pool.parallel_for((w.sectors.size() + kGroup - 1) / kGroup, [&](size_t g) {
    const size_t begin = g * kGroup, n = std::min(kGroup, w.sectors.size() - begin);
    const SectorGroup group{std::span<const PostSectorWitness>(w.sectors).subspan(begin, n),   begin,
                            std::span<Fr>(out.aux).subspan(begin * aux_len, n * aux_len),      aux_len,
                            std::span<Fr>(out.inputs).subspan(1 + begin * in_len, n * in_len), in_len};
    group_values(shape, arities, group);
  });
  return out;
}

}  // namespace cuzk::filecoin
