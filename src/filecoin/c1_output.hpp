#pragma once
// The PoRep C1 output (filecoin-proofs-api src/seal.rs SealCommitPhase1Output, serialized by
// serde_json) and the Curio/cuzk wrapper around it; parsing, validation and serialization.
// The schema is described in docs/c1-input.md.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "filecoin/domain.hpp"
#include "filecoin/registered_proof.hpp"

namespace cuzk::filecoin {

// A Merkle inclusion proof (storage-proofs-core src/merkle/proof.rs MerkleProof). A tree with a
// sub-tree level serializes as "Sub", with a top level too as "Top", otherwise as "Single".
struct PathElement {
  std::vector<Bytes32> hashes;  // the arity - 1 siblings, in order
  uint64_t index = 0;           // the node's position among its siblings, < arity
};
enum class MerkleShape { kSingle, kSub, kTop };
// The variant's serde name, "Single", "Sub" or "Top" (in JSON paths and messages).
inline const char* merkle_variant_name(MerkleShape s) {
  switch (s) {
    case MerkleShape::kSingle:
      return "Single";
    case MerkleShape::kSub:
      return "Sub";
    case MerkleShape::kTop:
      return "Top";
  }
  return "?";
}
struct MerkleProof {
  MerkleShape shape = MerkleShape::kSingle;
  Bytes32 root{};
  Bytes32 leaf{};
  std::vector<PathElement> base;  // "path" of a Single proof, "base_proof" otherwise
  std::vector<PathElement> sub;   // "sub_proof" (one element) for Sub and Top
  std::vector<PathElement> top;   // "top_proof" (one element) for Top

  // The leaf index the path proves: the index digits, base levels first (least significant).
  uint64_t path_index(uint32_t base_arity, uint32_t sub_arity, uint32_t top_arity) const;
};

struct Column {
  uint32_t index = 0;         // the node the column is read at
  std::vector<Bytes32> rows;  // the node's label in each layer 1..L
};
struct ColumnProof {
  Column column;
  MerkleProof inclusion_proof;  // of the column's hash in tree C
};
struct ReplicaColumnProof {
  ColumnProof c_x;                       // the challenged node
  std::vector<ColumnProof> drg_parents;  // 6
  std::vector<ColumnProof> exp_parents;  // 8
};
// LabelingProof and EncodingProof have the same fields.
struct LabelingProof {
  std::vector<Bytes32> parents;  // 37 parent labels
  uint32_t layer_index = 0;
  uint64_t node = 0;
};

// The vanilla proof of one challenge (storage-proofs-porep .../vanilla/params.rs Proof).
struct VanillaProof {
  MerkleProof comm_d_proofs;      // tree D (binary SHA-256)
  MerkleProof comm_r_last_proof;  // tree R
  ReplicaColumnProof replica_column_proofs;
  std::vector<LabelingProof> labeling_proofs;  // one per layer
  LabelingProof encoding_proof;

  uint64_t challenge() const { return labeling_proofs.empty() ? 0 : labeling_proofs.front().node; }
};

struct SealCommitPhase1Output {
  const RegisteredSealProof* registered_proof = nullptr;
  std::vector<std::vector<VanillaProof>> vanilla_proofs;  // [partition][challenge]
  Bytes32 comm_r{};
  Bytes32 comm_d{};
  Bytes32 replica_id{};
  Bytes32 seed{};
  Bytes32 ticket{};
};

// {"SectorNum": u64, "Phase1Out": "<base64 of the C1 JSON>", "SectorSize": u64} (curio
// lib/ffi/cuzk_funcs.go), what the seed's client sends as a PoRep C2 request's vanilla_proof.
// SectorNum is an abi.SectorNumber (unsigned; Go writes it from an int64, so at most 2^63 - 1).
struct C1Wrapper {
  bool wrapped = false;  // false: a raw C1 document (no SectorNum)
  uint64_t sector_num = 0;
  uint64_t sector_size = 0;
  SealCommitPhase1Output c1;
};

struct C1ValidateOptions {
  // Also hash every Merkle proof up to its root (trees D, R and C): for 32 GiB, 28,800 arity-8
  // Poseidon hashes (~1.2 s of CPU at the 41 us of BENCHMARKS.md) and 5,400 SHA-256. C2 itself
  // does not need it; it turns a proof that would fail verification after proving into an error
  // before any proving work.
  bool verify_merkle_paths = false;
};

// Parses and validates (validate_c1_output) a raw C1 JSON document; throws C1Error.
SealCommitPhase1Output parse_c1_output(std::string_view json, const C1ValidateOptions& options = {});
// Parses the wrapper, decodes Phase1Out, parses and validates it and checks SectorSize against the
// registered proof; errors inside Phase1Out have paths starting with "Phase1Out/".
C1Wrapper parse_c1_wrapper(std::string_view json, const C1ValidateOptions& options = {});
// Either form: a document whose first key is "SectorNum"/"Phase1Out"/"SectorSize" is a wrapper.
C1Wrapper parse_c1_any(std::string_view json, const C1ValidateOptions& options = {});
// Reads a file (either form) without copying it twice.
C1Wrapper parse_c1_file(const std::string& path, const C1ValidateOptions& options = {});

// Everything the schema cannot say: counts and shapes per the registered proof, path lengths,
// arities and indices, canonical field elements, non-zero comm_d/comm_r/seed, one tree-R and one
// tree-C root over the sector with comm_r = Poseidon(comm_c, comm_r_last), tree-D roots equal to
// comm_d, challenges equal to the ones derived from replica_id, seed and comm_r (per challenge mode),
// column and labeling indices consistent with the challenge. Throws C1Error.
void validate_c1_output(const SealCommitPhase1Output& c1, const C1ValidateOptions& options = {});

// serde_json's compact form of the C1 output, and the wrapper around it (round trips with the
// parsers; used by tests and tools that produce inputs).
std::string to_json(const SealCommitPhase1Output& c1);
std::string to_wrapper_json(const SealCommitPhase1Output& c1, uint64_t sector_num);

}  // namespace cuzk::filecoin
