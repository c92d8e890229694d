#pragma once
// bellperson's binary Groth16 proof format: A (G1, 48 bytes) || B (G2, 96 bytes) || C (G1, 48
// bytes), each in the zcash compressed encoding (ec/encoding.hpp), 192 bytes per proof; several
// proofs are simply concatenated (what filecoin-proofs writes for multi-partition proofs).
//
// Decoding validates everything: the length (a multiple of 192, at least one proof), the flag
// bits, canonical coordinates, the curve equation and subgroup membership; the point at infinity is
// refused (bellperson's Proof::read does the same, as an honest proof never has one). Errors name
// the proof index, the point (A, B or C) and what is wrong.
#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "groth16/keys.hpp"
#include "util/result.hpp"

namespace cuzk::groth16 {

inline constexpr size_t PROOF_BYTES = 192;

// Points at infinity are written with the zcash infinity flag (the decoder refuses them).
std::array<uint8_t, PROOF_BYTES> encode_proof(const Proof& proof);
std::vector<uint8_t> encode_proofs(std::span<const Proof> proofs);

// Exactly PROOF_BYTES bytes.
Result<Proof> decode_proof(std::span<const uint8_t> bytes);
// A positive multiple of PROOF_BYTES bytes.
Result<std::vector<Proof>> decode_proofs(std::span<const uint8_t> bytes);

}  // namespace cuzk::groth16
