// Proof files: bellperson's binary proofs (decode_proof, decode_proofs) and snarkjs's JSON (proof,
// public signals, verifying key). One input feeds every decoder.
#include "fuzz_common.hpp"
#include "groth16/proof_codec.hpp"
#include "groth16/snarkjs_json.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace cuzk::groth16;
  const auto b = cuzk::fuzz::bytes(data, size);
  (void)decode_proof(b);
  (void)decode_proofs(b);
  const auto t = cuzk::fuzz::text(data, size);
  (void)parse_snarkjs_proof(t);
  (void)parse_snarkjs_public(t);
  (void)parse_snarkjs_vk(t);
  return 0;
}
