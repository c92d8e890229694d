#pragma once
// The --proof file of `cuzk prove | verify` (Groth16 proofs in bellperson's 192-byte encoding,
// concatenated, one per partition in partition order), and the verdict `cuzk verify --post | --snap`
// prints on it.
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cli_util.hpp"
#include "commands.hpp"
#include "groth16/proof_codec.hpp"
#include "groth16/verifier.hpp"
#include "util/atomic_file.hpp"

namespace cuzk::cli {

// Every proof in the file; a std::runtime_error when it cannot be read or decoded.
inline std::vector<groth16::Proof> read_proofs(const std::string& path) {
  const std::string bytes = read_text(path);
  return must(groth16::decode_proofs(std::span(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size())));
}

// Writes the proofs atomically (readers never see half a file); returns the bytes written.
inline size_t write_proofs(const std::string& path, std::span<const groth16::Proof> proofs) {
  const std::vector<uint8_t> bytes = groth16::encode_proofs(proofs);
  write_file_atomically(path, std::as_bytes(std::span(bytes)));
  return bytes.size();
}

// `cuzk verify` of a request file's proofs: one batch check of proofs[j] against inputs[j], then
// {"valid", "registered_proof"} with --json, else one line naming `kind` ("PoSt", "SnapDeals")
// unless --quiet. Returns the exit status: 0 when valid, 1 when not.
inline int verify_and_report(const Groth16Options& o, const groth16::VerifyingKey& vk,
                             std::span<const groth16::Proof> proofs, std::span<const std::vector<ff::Fr>> inputs,
                             std::string_view registered_proof, std::string_view kind) {
  const bool ok = must(groth16::verify_batch(groth16::prepare(vk), proofs, inputs));
  if (o.json) {
    std::cout << nlohmann::ordered_json{{"valid", ok}, {"registered_proof", std::string(registered_proof)}}.dump(2)
              << "\n";
  } else if (!o.quiet) {
    const std::string k(kind);
    if (ok) {
      std::printf("OK: the %s proof is valid\n", k.c_str());
    } else {
      std::printf("INVALID: the %s proof does not verify\n", k.c_str());
    }
  }
  return ok ? 0 : 1;
}

}  // namespace cuzk::cli
