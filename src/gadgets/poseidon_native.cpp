#include "gadgets/poseidon_native.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "gadgets/poseidon_ifma.hpp"

namespace cuzk::gadgets {
namespace {

Fr quintic(const Fr& x) {
  const Fr x2 = x.square();
  return x2.square() * x;
}

void check_width(const PoseidonConstants& c, std::span<Fr> state) {
  if (state.size() != c.width) {
    throw std::invalid_argument("Poseidon permutation: state has " + std::to_string(state.size()) +
                                " elements, width is " + std::to_string(c.width));
  }
}

// state := state·m (neptune product_mds_with_matrix; m is symmetric for the MDS itself).
void mix(const FrMatrix& m, std::span<Fr> state, std::vector<Fr>& tmp) {
  const size_t t = state.size();
  tmp.assign(t, Fr::zero());
  for (size_t i = 0; i < t; ++i) {
    for (size_t j = 0; j < t; ++j) tmp[j] += m.at(i, j) * state[i];
  }
  std::copy(tmp.begin(), tmp.end(), state.begin());
}

void mix_sparse(const PoseidonSparseMatrix& s, std::span<Fr> state) {
  Fr first = Fr::zero();
  for (size_t i = 0; i < state.size(); ++i) first += s.w_hat[i] * state[i];
  for (size_t j = 1; j < state.size(); ++j) state[j] += s.v_rest[j - 1] * state[0];
  state[0] = first;
}

}  // namespace

void poseidon_permute_correct(const PoseidonConstants& c, std::span<Fr> state) {
  check_width(c, state);
  const size_t t = c.width;
  const size_t rounds = c.full_rounds + c.partial_rounds;
  std::vector<Fr> tmp;
  for (size_t r = 0; r < rounds; ++r) {
    const bool full = r < c.half_full_rounds || r >= c.half_full_rounds + c.partial_rounds;
    for (size_t i = 0; i < t; ++i) state[i] += c.round_constants[r * t + i];
    if (full) {
      for (size_t i = 0; i < t; ++i) state[i] = quintic(state[i]);
    } else {
      state[0] = quintic(state[0]);
    }
    mix(c.mds, state, tmp);
  }
}

void poseidon_permute_optimized(const PoseidonConstants& c, std::span<Fr> state) {
  check_width(c, state);
  const size_t t = c.width;
  const std::vector<Fr>& k = c.compressed_round_constants;
  std::vector<Fr> tmp;
  size_t off = 0;
  for (size_t i = 0; i < t; ++i) state[i] += k[off++];
  size_t round = 0;
  // Round r mixes with the pre-sparse matrix when it is the last first-half full round, with the
  // sparse matrix of the partial round, and with M otherwise (neptune round_product_mds).
  auto mix_round = [&] {
    if (round + 1 == c.half_full_rounds) {
      if (!detail::poseidon_dense_mix_ifma(c, true, state.data())) mix(c.pre_sparse_matrix, state, tmp);
    } else if (round >= c.half_full_rounds && round < c.half_full_rounds + c.partial_rounds) {
      mix_sparse(c.sparse_matrices[round - c.half_full_rounds], state);
    } else {
      if (!detail::poseidon_dense_mix_ifma(c, false, state.data())) mix(c.mds, state, tmp);
    }
    ++round;
  };
  auto full_round = [&](bool last) {
    for (size_t i = 0; i < t; ++i) {
      state[i] = quintic(state[i]);
      if (!last) state[i] += k[off++];  // no key after the last S-box layer
    }
    mix_round();
  };
  for (size_t r = 0; r < c.half_full_rounds; ++r) full_round(false);
  Fr* unrecorded = nullptr;
  if (detail::poseidon_partial_rounds_ifma(c, state.data(), &k[off], unrecorded)) {
    off += c.partial_rounds;
    round += c.partial_rounds;
  } else {
    for (size_t r = 0; r < c.partial_rounds; ++r) {
      state[0] = quintic(state[0]) + k[off++];
      mix_round();
    }
  }
  for (size_t r = 1; r < c.half_full_rounds; ++r) full_round(false);
  full_round(true);
  if (off != k.size()) throw std::logic_error("Poseidon: not every compressed round constant was used");
}

std::vector<Fr> poseidon_initial_state(std::span<const Fr> preimage, const PoseidonConstants& c,
                                       const PoseidonHashType& type) {
  size_t expected = c.arity;
  if (type.kind() == PoseidonHashType::Kind::ConstantLength) {
    if (type.parameter() > c.arity) {
      throw std::invalid_argument("Poseidon ConstantLength(" + std::to_string(type.parameter()) + ") exceeds arity " +
                                  std::to_string(c.arity) + " (needs the sponge)");
    }
    expected = static_cast<size_t>(type.parameter());
  }
  if (preimage.size() != expected) {
    throw std::invalid_argument("Poseidon hash: preimage has " + std::to_string(preimage.size()) +
                                " elements, expected " + std::to_string(expected));
  }
  std::vector<Fr> state(c.width, Fr::zero());
  state[0] = type.domain_tag(c.arity);
  std::copy(preimage.begin(), preimage.end(), state.begin() + 1);
  return state;
}

Fr poseidon_hash(std::span<const Fr> preimage, const PoseidonConstants& c, const PoseidonHashType& type) {
  std::vector<Fr> state = poseidon_initial_state(preimage, c, type);
  poseidon_permute_optimized(c, state);
  return state[1];
}

Fr poseidon_hash(size_t arity, std::span<const Fr> preimage) {
  return poseidon_hash(preimage, poseidon_constants(arity), PoseidonHashType::merkle_tree());
}

}  // namespace cuzk::gadgets
