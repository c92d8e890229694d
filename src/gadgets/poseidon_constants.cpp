#include "gadgets/poseidon_constants.hpp"

#include <array>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>

#include "gadgets/field_bits.hpp"

namespace cuzk::gadgets {
namespace {

// Cauchy matrix with x_i = i, y_j = t + j (mds.rs generate_mds).
FrMatrix generate_mds(size_t t) {
  FrMatrix m(t);
  for (size_t i = 0; i < t; ++i) {
    for (size_t j = 0; j < t; ++j) m.at(i, j) = Fr::from_u64(i + t + j).inverse();
  }
  return m;
}

// derive_mds_matrices(m) reduced to the two factors the sparse factorisation needs:
// M' (identity in row/column 0, m's minor elsewhere) and M'' (row 0 of m; column 0 below it is
// w_hat = apply_matrix(m_hat^-1, w) with w = m's column 0 under the diagonal; identity minor).
struct Factors {
  FrMatrix m_prime;
  FrMatrix m_double_prime;
};

Factors derive_factors(const FrMatrix& m) {
  const size_t t = m.size();
  const FrMatrix m_hat_inv = invert(minor(m, 0, 0));
  std::vector<Fr> w(t - 1);
  for (size_t i = 1; i < t; ++i) w[i - 1] = m.at(i, 0);
  const std::vector<Fr> w_hat = apply_matrix(m_hat_inv, w);

  Factors f{FrMatrix(t), FrMatrix(t)};
  f.m_prime.at(0, 0) = Fr::one();
  for (size_t i = 1; i < t; ++i) {
    for (size_t j = 1; j < t; ++j) f.m_prime.at(i, j) = m.at(i, j);
  }
  for (size_t j = 0; j < t; ++j) f.m_double_prime.at(0, j) = m.at(0, j);
  for (size_t i = 1; i < t; ++i) {
    f.m_double_prime.at(i, 0) = w_hat[i - 1];
    f.m_double_prime.at(i, i) = Fr::one();
  }
  return f;
}

// factor_to_sparse_matrixes(M, R_P): repeat R_P times {curr = M'·M''; keep M''; curr = M·M'};
// the last curr is the pre-sparse matrix and the kept M'' are used in reverse order.
void factor_to_sparse(const FrMatrix& base, size_t n, FrMatrix& pre_sparse, std::vector<PoseidonSparseMatrix>& out) {
  FrMatrix curr = base;
  std::vector<FrMatrix> doubles;
  doubles.reserve(n);
  for (size_t r = 0; r < n; ++r) {
    Factors f = derive_factors(curr);
    doubles.push_back(std::move(f.m_double_prime));
    curr = mat_mul(base, f.m_prime);
  }
  pre_sparse = std::move(curr);
  out.clear();
  out.reserve(n);
  const size_t t = base.size();
  for (auto it = doubles.rbegin(); it != doubles.rend(); ++it) {
    PoseidonSparseMatrix s;
    for (size_t i = 0; i < t; ++i) s.w_hat.push_back(it->at(i, 0));
    for (size_t j = 1; j < t; ++j) s.v_rest.push_back(it->at(0, j));
    out.push_back(std::move(s));
  }
}

// compress_round_constants(..., partial_preprocessed = R_P): every round key is pushed back
// through the linear layers so that it is added right after an S-box; the partial rounds keep a
// single key each (for element 0), the rest folds into the last first-half full round.
std::vector<Fr> compress_round_constants(const PoseidonConstants& c) {
  const size_t t = c.width;
  const size_t half = c.half_full_rounds;
  auto round_keys = [&](size_t r) { return std::span<const Fr>(c.round_constants).subspan(r * t, t); };
  std::vector<Fr> res(round_keys(0).begin(), round_keys(0).end());
  // Post-S-box keys of the first half: M^-1 of the next round's keys; the last of these comes
  // from the partial-round fold below.
  for (size_t i = 0; i + 1 < half; ++i) {
    const std::vector<Fr> inv = apply_matrix(c.mds_inv, round_keys(i + 1));
    res.insert(res.end(), inv.begin(), inv.end());
  }
  // Backward fold over the partial rounds, starting from the first second-half full round.
  const size_t final_round = half + c.partial_rounds;
  std::vector<Fr> acc(round_keys(final_round).begin(), round_keys(final_round).end());
  std::vector<Fr> partial_keys;  // in reverse round order
  for (size_t i = 0; i < c.partial_rounds; ++i) {
    std::vector<Fr> inv = apply_matrix(c.mds_inv, acc);
    partial_keys.push_back(inv[0]);
    inv[0] = Fr::zero();
    const std::span<const Fr> prev = round_keys(final_round - i - 1);
    for (size_t j = 0; j < t; ++j) acc[j] = prev[j] + inv[j];
  }
  const std::vector<Fr> acc_inv = apply_matrix(c.mds_inv, acc);
  res.insert(res.end(), acc_inv.begin(), acc_inv.end());
  res.insert(res.end(), partial_keys.rbegin(), partial_keys.rend());
  for (size_t i = 1; i < half; ++i) {
    const std::vector<Fr> inv = apply_matrix(c.mds_inv, round_keys(i + final_round));
    res.insert(res.end(), inv.begin(), inv.end());
  }
  return res;
}

}  // namespace

FrMatrix PoseidonSparseMatrix::to_matrix() const {
  FrMatrix m = FrMatrix::identity(w_hat.size());
  for (size_t i = 0; i < w_hat.size(); ++i) m.at(i, 0) = w_hat[i];
  for (size_t j = 0; j < v_rest.size(); ++j) m.at(0, j + 1) = v_rest[j];
  return m;
}

PoseidonConstants make_poseidon_constants(size_t arity, PoseidonStrength strength) {
  if (arity == 0 || arity > kPoseidonMaxArity) {
    throw std::invalid_argument("Poseidon arity " + std::to_string(arity) + " is out of range 1.." +
                                std::to_string(kPoseidonMaxArity));
  }
  PoseidonConstants c;
  c.arity = arity;
  c.width = arity + 1;
  c.strength = strength;
  const PoseidonRoundNumbers rn = poseidon_round_numbers(arity, strength);
  c.full_rounds = rn.full_rounds;
  c.half_full_rounds = rn.full_rounds / 2;
  c.partial_rounds = rn.partial_rounds;
  c.mds = generate_mds(c.width);
  c.mds_inv = invert(c.mds);
  c.round_constants = poseidon_grain_round_constants(c.width, c.full_rounds, c.partial_rounds);
  c.compressed_round_constants = compress_round_constants(c);
  factor_to_sparse(c.mds, c.partial_rounds, c.pre_sparse_matrix, c.sparse_matrices);
  if (c.compressed_round_constants.size() != c.full_rounds * c.width + c.partial_rounds) {
    throw std::logic_error("Poseidon: compressed round constant count mismatch");
  }
  return c;
}

const PoseidonConstants& poseidon_constants(size_t arity, PoseidonStrength strength) {
  if (arity == 0 || arity > kPoseidonMaxArity) {
    throw std::invalid_argument("Poseidon arity " + std::to_string(arity) + " is out of range 1.." +
                                std::to_string(kPoseidonMaxArity));
  }
  // One slot per (strength, arity), each filled under its own once_flag, so building arity 36
  // never blocks a thread that wants arity 2. The slots live for the whole program.
  struct Slot {
    std::once_flag once;
    std::unique_ptr<const PoseidonConstants> value;
  };
  static std::array<std::array<Slot, kPoseidonMaxArity + 1>, 2> slots;
  Slot& s = slots[strength == PoseidonStrength::Standard ? 0 : 1][arity];
  std::call_once(
      s.once, [&] { s.value = std::make_unique<const PoseidonConstants>(make_poseidon_constants(arity, strength)); });
  return *s.value;
}

PoseidonHashType PoseidonHashType::constant_length(uint64_t length) {
  if (length == 0) throw std::invalid_argument("Poseidon ConstantLength: length must be at least 1");
  return PoseidonHashType(Kind::ConstantLength, length);
}

PoseidonHashType PoseidonHashType::custom(uint64_t id) {
  if (id == 0 || id > 256)
    throw std::invalid_argument("Poseidon Custom domain tag id " + std::to_string(id) + " is out of range 1..256");
  return PoseidonHashType(Kind::Custom, id);
}

Fr PoseidonHashType::domain_tag(size_t arity) const {
  switch (kind_) {
    case Kind::MerkleTree:
      return pow2(arity) - Fr::one();
    case Kind::ConstantLength:
      return Fr::from_u64(param_) * pow2(64);
    case Kind::Custom:
      return Fr::from_u64(param_) * pow2(40);
    case Kind::Encryption:
      return pow2(32);
  }
  throw std::logic_error("PoseidonHashType: unknown kind");
}

}  // namespace cuzk::gadgets
