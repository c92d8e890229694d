#include "proof_checker.hpp"

#include <chrono>
#include <exception>

#include "groth16/params_file.hpp"
#include "groth16/proof_codec.hpp"

namespace cuzk::bench {

namespace {

std::span<const uint8_t> as_bytes(std::string_view s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

// The verdict without timing.
CheckOutcome check_untimed(const groth16::PreparedVerifyingKey& pvk, std::string_view proof,
                           const std::vector<std::string>& public_inputs, uint32_t expected_partitions) {
  using groth16::PROOF_BYTES;
  if (proof.empty()) return {false, "the daemon returned no proof bytes", 0};
  if (proof.size() % PROOF_BYTES != 0) {
    return {false, "proof is " + std::to_string(proof.size()) + " bytes, not a multiple of 192", 0};
  }
  const size_t k = proof.size() / PROOF_BYTES;
  if (expected_partitions != 0 && k != expected_partitions) {
    return {false, "expected " + std::to_string(expected_partitions) + " partition proofs, got " + std::to_string(k),
            0};
  }
  const size_t n = pvk.num_public_inputs();
  std::vector<std::vector<groth16::Fr>> inputs(k);
  if (public_inputs.empty() && n != 0) {
    return {false, "the daemon returned no public inputs (a seed daemon cannot be verified here; use --no-verify)", 0};
  }
  if (!public_inputs.empty() && public_inputs.size() != k) {
    return {
        false,
        "public inputs for " + std::to_string(public_inputs.size()) + " partitions, proofs for " + std::to_string(k),
        0};
  }
  for (size_t j = 0; j < k && !public_inputs.empty(); ++j) {
    const std::string& blob = public_inputs[j];
    if (blob.size() != n * 32) {
      return {false,
              "partition " + std::to_string(j) + ": " + std::to_string(blob.size()) +
                  " bytes of public inputs, the verifying key wants " + std::to_string(n) + " x 32",
              0};
    }
    for (size_t i = 0; i < n; ++i) {
      auto x = groth16::Fr::from_bytes_le(as_bytes(std::string_view(blob).substr(i * 32, 32)));
      if (!x)
        return {false, "partition " + std::to_string(j) + " public input " + std::to_string(i) + ": " + x.error(), 0};
      inputs[j].push_back(*x);
    }
  }
  auto proofs = groth16::decode_proofs(as_bytes(proof));
  if (!proofs) return {false, "malformed proof: " + proofs.error(), 0};
  auto all = groth16::verify_batch(pvk, *proofs, inputs);
  if (!all) return {false, all.error(), 0};
  if (*all) return {true, "", 0};
  // Name the bad partitions.
  std::string bad;
  for (size_t j = 0; j < k; ++j) {
    auto one = groth16::verify(pvk, (*proofs)[j], inputs[j]);
    if (!one || !*one) bad += (bad.empty() ? "" : ", ") + std::to_string(j);
  }
  return {false, "the proof does not verify (partition " + (bad.empty() ? std::string("?") : bad) + ")", 0};
}

}  // namespace

Result<ProofChecker> ProofChecker::fetch(Client& client, const std::string& circuit_id) {
  auto resp = client.verifying_key(circuit_id);
  if (!resp) return make_error("cannot fetch the verifying key of '" + circuit_id + "': " + resp.error());
  const std::string& bytes = resp->vk();
  auto vk = groth16::parse_vk(as_bytes(bytes), "verifying key of '" + circuit_id + "' (from the daemon)");
  if (!vk) return make_error(vk.error());
  if (vk->ic.empty()) return make_error("the verifying key of '" + circuit_id + "' has no ic points");
  if (resp->num_public_inputs() != vk->ic.size() - 1) {
    return make_error("the daemon says '" + circuit_id + "' has " + std::to_string(resp->num_public_inputs()) +
                      " public inputs but its verifying key has " + std::to_string(vk->ic.size() - 1));
  }
  return ProofChecker(groth16::prepare(*vk));
}

CheckOutcome ProofChecker::check(std::string_view proof, const std::vector<std::string>& public_inputs,
                                 uint32_t expected_partitions) const {
  const auto t0 = std::chrono::steady_clock::now();
  CheckOutcome out;
  try {
    out = check_untimed(pvk_, proof, public_inputs, expected_partitions);
  } catch (const std::exception& e) {
    out = {false, std::string("verification error: ") + e.what(), 0};
  }
  out.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

}  // namespace cuzk::bench
