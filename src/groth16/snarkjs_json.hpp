#pragma once
// snarkjs's JSON files for Groth16 over BLS12-381 (what `snarkjs groth16 prove/verify` and
// `snarkjs zkey export verificationkey` read and write, snarkjs 0.7.6):
//
//   proof.json   {"pi_a": G1, "pi_b": G2, "pi_c": G1, "protocol": "groth16", "curve": "bls12381"}
//   public.json  ["<x_1>", ..., "<x_n>"]   (public signals: circuit outputs, then public inputs)
//   verification_key.json
//                {"protocol": "groth16", "curve": "bls12381", "nPublic": n,
//                 "vk_alpha_1": G1, "vk_beta_2": G2, "vk_gamma_2": G2, "vk_delta_2": G2,
//                 "vk_alphabeta_12": GT, "IC": [G1 x (n + 1)]}
//
// Every number is a base-10 string of the canonical (standard-form, non-Montgomery) integer.
// Points are projective with z = 1:  G1 = [x, y, "1"];  G2 = [[x.c0, x.c1], [y.c0, y.c1], ["1", "0"]]
// (x = x.c0 + x.c1 u: real part first, unlike the zcash byte encoding which puts c1 first); the point
// at infinity is ["0", "1", "0"] / [["0","0"], ["1","0"], ["0","0"]]. GT (vk_alphabeta_12) is an
// Fq12 element as nested [2][3][2] strings: [c0, c1] over Fq6, each [c0, c1, c2] over Fq2, each
// [c0, c1] — the tower Fq12 = Fq6[w]/(w^2 - v), Fq6 = Fq2[v]/(v^3 - (1 + u)) of ff/fp12.hpp. Its
// value is e(alpha, beta) in the convention of ffjavascript/wasmcurves, which equals ours
// (ec/pairing.hpp; checked against snarkjs's files by tests/test_verifier.cpp). snarkjs's verifier
// does not read vk_alphabeta_12; we write it so that our files match snarkjs's byte for byte.
//
// Readers validate everything and name the file and the JSON path of what is wrong: the JSON
// syntax, protocol ("groth16") and curve ("bls12381"; "bn128" is refused: wrong curve), every
// member's type, every number (a string of digits, no sign, no leading zeros, below the modulus),
// z coordinates, points on the curve and in the prime-order subgroup, nPublic against IC, and
// vk_alphabeta_12 (optional; when present it must equal e(vk_alpha_1, vk_beta_2)). Proof points
// and vk_alpha_1/beta/gamma/delta must not be the point at infinity; IC points may be. Members
// that snarkjs does not define are ignored.
//
// Writers produce what snarkjs writes (same members, order and one-space indentation).
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "groth16/keys.hpp"
#include "util/result.hpp"

namespace cuzk::groth16 {

// `name` (usually the file path) prefixes every error message.
Result<Proof> parse_snarkjs_proof(std::string_view text, std::string_view name = "proof.json");
Result<std::vector<Fr>> parse_snarkjs_public(std::string_view text, std::string_view name = "public.json");
// The parsed key has beta_g1 and delta_g1 set to the point at infinity: snarkjs's verification key
// does not carry them (only the prover needs them).
Result<VerifyingKey> parse_snarkjs_vk(std::string_view text, std::string_view name = "verification_key.json");

std::string write_snarkjs_proof(const Proof& proof);
std::string write_snarkjs_public(std::span<const Fr> inputs);
// Computes vk_alphabeta_12 = e(alpha, beta). vk.ic must not be empty (nPublic = ic.size() - 1).
std::string write_snarkjs_vk(const VerifyingKey& vk);

// File versions (read the whole file, then parse with the path as name).
Result<Proof> load_snarkjs_proof(const std::string& path);
Result<std::vector<Fr>> load_snarkjs_public(const std::string& path);
Result<VerifyingKey> load_snarkjs_vk(const std::string& path);

}  // namespace cuzk::groth16
