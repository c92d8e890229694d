#include "filecoin/post_witness.hpp"

#include <bit>
#include <stdexcept>
#include <string>

#include "gadgets/por_witness.hpp"
#include "gadgets/poseidon_witness.hpp"
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

// One circuit sector's aux (aux.size() == post_sector_aux_len) and inputs (1 + challenges).
void sector_values(const PostCircuitShape& shape, const std::vector<size_t>& arities, const PostSectorWitness& s,
                   size_t index, std::span<Fr> aux, std::span<Fr> inputs) {
  const Fr& comm_r_last = value(s.comm_r_last, index, [] { return std::string("comm_r_last"); });
  const Fr& comm_c = value(s.comm_c, index, [] { return std::string("comm_c"); });
  const Fr& comm_r = value(s.comm_r, index, [] { return std::string("comm_r"); });
  aux[0] = comm_r_last;
  aux[1] = comm_c;
  aux[2] = comm_r;
  inputs[0] = comm_r;
  const gadgets::PoseidonConstants& c2 = gadgets::poseidon_constants(2);
  const size_t h2 = gadgets::poseidon_witness_len(c2);
  const Fr both[2] = {comm_c, comm_r_last};
  if (gadgets::poseidon_witness(c2, both, aux.subspan(3, h2)) != comm_r) {
    fail(index, "comm_r is not Poseidon2(comm_c, comm_r_last)");
  }
  size_t at = 3 + h2;
  std::vector<Fr> siblings;
  for (size_t j = 0; j < shape.challenges; ++j) {
    auto where = [j] { return "challenge " + std::to_string(j); };
    Fr cur = value(s.leaves[j], index, [&] { return where() + " leaf"; });
    aux[at++] = cur;
    const gadgets::AuthPath& p = s.paths[j];
    uint64_t leaf_index = 0;
    unsigned shift = 0;
    size_t level = 0;
    for (const std::vector<gadgets::PathElement>* part : {&p.base, &p.sub, &p.top}) {
      for (const gadgets::PathElement& el : *part) {
        const size_t arity = arities.at(level++);
        if (!el.index) fail(index, where() + ": a path level has no index");
        siblings.clear();
        for (const std::optional<Fr>& h : el.hashes)
          siblings.push_back(value(h, index, [&] { return where() + " sibling"; }));
        const size_t n = gadgets::poseidon_por_level_witness_len(arity);
        cur = gadgets::poseidon_por_level_witness(arity, cur, siblings, *el.index, aux.subspan(at, n));
        at += n;
        leaf_index |= *el.index << shift;
        shift += static_cast<unsigned>(std::countr_zero(arity));
      }
    }
    if (level != arities.size()) fail(index, where() + ": the path has the wrong number of levels");
    if (cur != comm_r_last) fail(index, where() + ": the path does not hash to comm_r_last");
    inputs[1 + j] = Fr::from_u64(leaf_index);
  }
  if (at != aux.size()) throw std::logic_error("PoSt witness: sector layout mismatch");
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
  pool.parallel_for(w.sectors.size(), [&](size_t i) {
    sector_values(shape, arities, w.sectors[i], i, std::span<Fr>(out.aux).subspan(i * aux_len, aux_len),
                  std::span<Fr>(out.inputs).subspan(1 + i * in_len, in_len));
  });
  return out;
}

}  // namespace cuzk::filecoin
