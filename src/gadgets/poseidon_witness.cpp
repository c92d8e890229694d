#include "gadgets/poseidon_witness.hpp"

#include <array>
#include <stdexcept>
#include <string>

#include "gadgets/poseidon_ifma.hpp"

namespace cuzk::gadgets {
namespace {

// Widths up to kPoseidonMaxArity + 1 fit on the stack.
using State = std::array<Fr, kPoseidonMaxArity + 1>;

// state := state·m (result_j = sum_i m[i][j] state_i, as LegacyCircuit::mix_dense).
void mix_dense(const FrMatrix& m, State& s, size_t t) {
  State next;
  for (size_t j = 0; j < t; ++j) {
    Fr acc = m.at(0, j) * s[0];
    for (size_t i = 1; i < t; ++i) acc += m.at(i, j) * s[i];
    next[j] = acc;
  }
  for (size_t j = 0; j < t; ++j) s[j] = next[j];
}

void mix_sparse(const PoseidonSparseMatrix& m, State& s, size_t t) {
  Fr first = m.w_hat[0] * s[0];
  for (size_t i = 1; i < t; ++i) first += m.w_hat[i] * s[i];
  for (size_t j = 1; j < t; ++j) s[j] += m.v_rest[j - 1] * s[0];
  s[0] = first;
}

}  // namespace

size_t poseidon_witness_len(const PoseidonConstants& c) {
  return 3 * c.arity + 4 * c.width * (2 * c.half_full_rounds - 1) + 4 * c.partial_rounds + 1;
}

Fr poseidon_witness(const PoseidonConstants& c, std::span<const Fr> preimage, std::span<Fr> out,
                    const PoseidonHashType& type) {
  const size_t t = c.width;
  if (preimage.size() != c.arity || out.size() != poseidon_witness_len(c) || t > kPoseidonMaxArity + 1) {
    throw std::invalid_argument("Poseidon witness: " + std::to_string(preimage.size()) + " inputs and " +
                                std::to_string(out.size()) + " values for arity " + std::to_string(c.arity) +
                                " (needs " + std::to_string(poseidon_witness_len(c)) + ")");
  }
  const std::vector<Fr>& k = c.compressed_round_constants;
  Fr* o = out.data();
  size_t round = 0;
  auto mix = [&](State& s) {
    // LegacyCircuit::mix: pre-sparse after the last first-half full round, sparse during the
    // partial rounds, M otherwise.
    if (round + 1 == c.half_full_rounds) {
      if (!detail::poseidon_dense_mix_ifma(c, true, s.data())) mix_dense(c.pre_sparse_matrix, s, t);
    } else if (round >= c.half_full_rounds && round < c.half_full_rounds + c.partial_rounds) {
      mix_sparse(c.sparse_matrices[round - c.half_full_rounds], s, t);
    } else {
      if (!detail::poseidon_dense_mix_ifma(c, false, s.data())) mix_dense(c.mds, s, t);
    }
    ++round;
  };
  // S-box of an allocated value: l, l^2, l^4, l^4·l (+ post).
  auto sbox = [&](const Fr& l, const Fr* post) {
    const Fr l2 = l.square(), l4 = l2.square();
    Fr r = l4 * l;
    if (post != nullptr) r += *post;
    o[0] = l;
    o[1] = l2;
    o[2] = l4;
    o[3] = r;
    o += 4;
    return r;
  };

  State s;
  // First round: the tag's S-box is a constant; the inputs are already allocated.
  {
    const Fr x = type.domain_tag(c.arity) + k[0];
    s[0] = x.square().square() * x + k[t];
    for (size_t i = 1; i < t; ++i) {
      const Fr l = preimage[i - 1] + k[i];
      const Fr l2 = l.square(), l4 = l2.square();
      s[i] = l4 * l + k[t + i];
      o[0] = l2;
      o[1] = l4;
      o[2] = s[i];
      o += 3;
    }
    mix(s);
  }
  size_t off = 2 * t;
  auto full_round = [&](bool last) {
    for (size_t i = 0; i < t; ++i) s[i] = sbox(s[i], last ? nullptr : &k[off + i]);
    if (!last) off += t;
    mix(s);
  };
  for (size_t r = 1; r < c.half_full_rounds; ++r) full_round(false);
  if (detail::poseidon_partial_rounds_ifma(c, s.data(), &k[off], o)) {
    off += c.partial_rounds;
    round += c.partial_rounds;
  } else {
    for (size_t r = 0; r < c.partial_rounds; ++r) {
      s[0] = sbox(s[0], &k[off++]);
      mix(s);
    }
  }
  for (size_t r = 1; r < c.half_full_rounds; ++r) full_round(false);
  full_round(true);
  *o++ = s[1];  // "hash result": elements[1] allocated
  if (off != k.size() || o != out.data() + out.size()) {
    throw std::logic_error("Poseidon witness: the round structure does not match the constants");
  }
  return s[1];
}

}  // namespace cuzk::gadgets
