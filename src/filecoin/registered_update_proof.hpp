#pragma once
// The SnapDeals proof types (go-state-types abi.RegisteredUpdateProof, the numbers Curio sends in
// a SNAP_DEALS_UPDATE request's registered_proof; filecoin-proofs-api RegisteredUpdateProof):
// 0..4 = StackedDrg{2KiB,8MiB,512MiB,32GiB,64GiB}V1. Each is the EmptySectorUpdate circuit of its
// sector size (snap_circuit.hpp).
#include <cstdint>
#include <string>
#include <string_view>

namespace cuzk::filecoin {

struct RegisteredUpdateProof {
  uint64_t id = 0;
  std::string_view name;
  uint64_t sector_size = 0;  // bytes
};

// Throws std::invalid_argument naming the known ids / names / sizes.
const RegisteredUpdateProof& registered_update_proof(uint64_t id);
const RegisteredUpdateProof& registered_update_proof(std::string_view name);
const RegisteredUpdateProof& update_proof_of_size(uint64_t sector_size);

// The identifier whose SHA-256 names the parameter files (storage-proofs-update
// src/vanilla.rs PublicParams::identifier: "empty_sector_update::PublicParams{ sector_nodes: N }")
// and the files' stem "v28-empty-sector-update-merkletree-poseidon_hasher-8-8-0-<sha256 hex>"
// (filecoin-circuits.md 5.4).
std::string update_parameter_identifier(const RegisteredUpdateProof& proof);
std::string update_parameter_file_stem(const RegisteredUpdateProof& proof);
// The daemon's circuit id of a proof's partition circuit: "snap:2KiB" ... "snap:64GiB".
std::string snap_circuit_id(const RegisteredUpdateProof& proof);

}  // namespace cuzk::filecoin
