#pragma once
// Poseidon constants for one (arity, strength), as neptune v11's PoseidonConstants::new_with_*:
// the MDS matrix, the raw round constants, and the preprocessed form the optimized permutation and
// the legacy circuit use (compressed round constants, pre-sparse matrix, sparse matrices).
//
// Sources: neptune src/poseidon.rs (new_with_strength_and_type), src/mds.rs (generate_mds,
// derive_mds_matrices, factor_to_sparse_matrices), src/preprocessing.rs
// (compress_round_constants), src/hash_type.rs (domain tags).
#include <cstddef>
#include <cstdint>
#include <vector>

#include "gadgets/poseidon_matrix.hpp"
#include "gadgets/poseidon_round_constants.hpp"

namespace cuzk::gadgets {

// M'' of the sparse factorisation: identity except a dense first row and first column.
// out[0] = sum_i w_hat[i] s_i; out[j] = s_j + v_rest[j-1] s_0 (j >= 1).
struct PoseidonSparseMatrix {
  std::vector<Fr> w_hat;   // first column, all `width` entries
  std::vector<Fr> v_rest;  // first row without its first entry (width - 1)
  FrMatrix to_matrix() const;
};

struct PoseidonConstants {
  size_t arity = 0;
  size_t width = 0;  // arity + 1
  PoseidonStrength strength = PoseidonStrength::Standard;
  size_t full_rounds = 0;
  size_t half_full_rounds = 0;
  size_t partial_rounds = 0;
  FrMatrix mds;                                       // M[i][j] = 1 / (i + (t + j)), symmetric
  FrMatrix mds_inv;                                   // M^-1
  std::vector<Fr> round_constants;                    // (R_F + R_P)·t, row-major by round
  std::vector<Fr> compressed_round_constants;         // R_F·t + R_P
  FrMatrix pre_sparse_matrix;                         // mixes the last first-half full round
  std::vector<PoseidonSparseMatrix> sparse_matrices;  // one per partial round, in round order
};

// Builds the constants (no caching; a few ms for arity 8, ~1 s for 36 in a debug build).
PoseidonConstants make_poseidon_constants(size_t arity, PoseidonStrength strength = PoseidonStrength::Standard);

// The constants for (arity, strength), built once on first use and then shared; safe to call from
// any thread. arity must be in 1..kPoseidonMaxArity.
inline constexpr size_t kPoseidonMaxArity = 36;  // neptune implements Arity for U1..U36
const PoseidonConstants& poseidon_constants(size_t arity, PoseidonStrength strength = PoseidonStrength::Standard);

// Domain separation (neptune hash_type.rs). The tag is state[0] before the permutation.
class PoseidonHashType {
 public:
  enum class Kind : uint8_t { MerkleTree, ConstantLength, Custom, Encryption };

  static PoseidonHashType merkle_tree() { return PoseidonHashType(Kind::MerkleTree, 0); }
  // A preimage of exactly `length` elements (1..arity), zero-padded to the arity.
  static PoseidonHashType constant_length(uint64_t length);
  // Custom(Arbitrary(id)), id in 1..256 (SnapDeals uses 1).
  static PoseidonHashType custom(uint64_t id);
  static PoseidonHashType encryption() { return PoseidonHashType(Kind::Encryption, 0); }

  Kind kind() const { return kind_; }
  uint64_t parameter() const { return param_; }  // length or custom id

  // MerkleTree: 2^arity - 1; ConstantLength(l): l·2^64; Custom(id): id·2^40; Encryption: 2^32.
  Fr domain_tag(size_t arity) const;

 private:
  PoseidonHashType(Kind k, uint64_t p) : kind_(k), param_(p) {}
  Kind kind_;
  uint64_t param_;
};

}  // namespace cuzk::gadgets
