#pragma once
// The SnapDeals proof types (go-state-types abi.RegisteredUpdateProof, the numbers Curio sends in
// a SNAP_DEALS_UPDATE request's registered_proof; filecoin-proofs-api RegisteredUpdateProof):
// 0..4 = StackedDrg{2KiB,8MiB,512MiB,32GiB,64GiB}V1. Each is the EmptySectorUpdate circuit of its
// sector size (snap_circuit.hpp).
#include <cstdint>
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

}  // namespace cuzk::filecoin
