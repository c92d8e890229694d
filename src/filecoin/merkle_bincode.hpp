#pragma once
// A Merkle inclusion proof in bincode (storage-proofs-core src/merkle/proof.rs MerkleProof, one
// field `data: ProofData`), as PoSt's FallbackPoStSectorProof and SnapDeals' PartitionProof carry
// it:
//
//   ProofData, a u32 variant index:
//     0 Single { root, leaf, path }   1 Sub { base_proof, sub_proof, root, leaf }
//     2 Top { base_proof, sub_proof, top_proof, root, leaf }
//   InclusionPath: u64 n, then n PathElement { hashes: u64 m, m x [32]; index: u64 }
//
// Reading checks the encoding only (what the proof type needs is the validators' business).
#include <stdexcept>
#include <string>
#include <utility>

#include "filecoin/bincode.hpp"
#include "filecoin/c1_error.hpp"
#include "filecoin/c1_output.hpp"

namespace cuzk::filecoin {

// Smallest encodings, for BincodeReader::seq_len's bound on a length prefix.
inline constexpr size_t kBincodeDomainBytes = 32;
inline constexpr size_t kBincodeMerkleProofMin = 4 + 8 + 2 * kBincodeDomainBytes;  // Single, empty path

// A malformed field: its serde path below the caller's and what is wrong. Parsers turn it into
// their own error, which adds where the proof is.
class BincodeFieldError : public std::runtime_error {
 public:
  BincodeFieldError(std::string field, std::string problem)
      : std::runtime_error(field + ": " + problem), field_(std::move(field)), problem_(std::move(problem)) {}
  const std::string& field() const { return field_; }
  const std::string& problem() const { return problem_; }

 private:
  std::string field_;
  std::string problem_;
};

// Reads one MerkleProof at `at` (its serde path, e.g. `...inclusion_proofs[3]`); throws
// BincodeFieldError naming the field (`at.data.Sub.base_proof.path[2].hashes[5]`).
MerkleProof read_merkle_proof(BincodeReader& r, const JsonPath& at);
// Reads a 32-byte domain / a sequence length at `at`; throws BincodeFieldError.
Bytes32 read_domain(BincodeReader& r, const JsonPath& at);
size_t read_seq_len(BincodeReader& r, const JsonPath& at, size_t min_element_bytes);

void write_merkle_proof(BincodeWriter& w, const MerkleProof& mp);

}  // namespace cuzk::filecoin
