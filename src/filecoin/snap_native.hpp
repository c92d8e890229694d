#pragma once
// Native SnapDeals values (storage-proofs-update src/vanilla.rs phi / rho / encode_into,
// src/challenges.rs): what a prover encodes with and a verifier derives, outside the circuit.
#include <cstdint>
#include <span>
#include <vector>

#include "filecoin/snap_circuit.hpp"

namespace cuzk::filecoin {

// phi = Poseidon2_Custom(1)(comm_d_new, comm_r_old).
Fr snap_phi(const Fr& comm_d_new, const Fr& comm_r_old);
// rho = Poseidon2_Custom(1)(phi, high), high = the h high bits of a node index.
Fr snap_rho(const Fr& phi, uint64_t high);
// The h high bits of node index c: c >> (challenge_bits − h).
uint64_t snap_high_bits(const SnapCircuitShape& shape, uint64_t c, uint32_t h);

// Partition k's challenges (challenges.rs Challenges::new; the Poseidon tree D's one partition:
// new_poseidon): per digest j, H(comm_r_new, k·digests + j)'s bits, random_bits per challenge,
// least significant first, with k above them. Throws std::invalid_argument when k is out of range.
std::vector<uint64_t> snap_challenges(const SnapCircuitShape& shape, const Fr& comm_r_new, uint32_t k);

// The new replica: sector_key[i] + data[i]·rho(high(i)) for every node (encode_into). Both spans
// must hold shape.nodes elements.
std::vector<Fr> snap_encode_nodes(const SnapCircuitShape& shape, const Fr& phi, uint32_t h,
                                  std::span<const Fr> sector_key, std::span<const Fr> data);

}  // namespace cuzk::filecoin
