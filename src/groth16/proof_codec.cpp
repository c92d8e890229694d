#include "groth16/proof_codec.hpp"

#include <algorithm>
#include <string>

#include "ec/encoding.hpp"

namespace cuzk::groth16 {

namespace {

constexpr size_t A_OFF = 0, B_OFF = ec::G1_COMPRESSED, C_OFF = ec::G1_COMPRESSED + ec::G2_COMPRESSED;
static_assert(C_OFF + ec::G1_COMPRESSED == PROOF_BYTES);

// prefix: "proof 3: " or "" for a single proof.
Result<Proof> decode_one(std::span<const uint8_t> b, const std::string& prefix) {
  auto bad = [&](const char* point, const std::string& why) {
    return make_error(prefix + "point " + point + ": " + why);
  };
  Proof p;
  auto a = ec::g1_from_compressed(b.subspan(A_OFF, ec::G1_COMPRESSED));
  if (!a) return bad("A", a.error());
  if (a->is_identity()) return bad("A", "is the point at infinity");
  auto bb = ec::g2_from_compressed(b.subspan(B_OFF, ec::G2_COMPRESSED));
  if (!bb) return bad("B", bb.error());
  if (bb->is_identity()) return bad("B", "is the point at infinity");
  auto c = ec::g1_from_compressed(b.subspan(C_OFF, ec::G1_COMPRESSED));
  if (!c) return bad("C", c.error());
  if (c->is_identity()) return bad("C", "is the point at infinity");
  p.a = *a;
  p.b = *bb;
  p.c = *c;
  return p;
}

}  // namespace

std::array<uint8_t, PROOF_BYTES> encode_proof(const Proof& proof) {
  std::array<uint8_t, PROOF_BYTES> out{};
  const auto a = ec::g1_to_compressed(proof.a);
  const auto b = ec::g2_to_compressed(proof.b);
  const auto c = ec::g1_to_compressed(proof.c);
  std::copy(a.begin(), a.end(), out.begin() + A_OFF);
  std::copy(b.begin(), b.end(), out.begin() + B_OFF);
  std::copy(c.begin(), c.end(), out.begin() + C_OFF);
  return out;
}

std::vector<uint8_t> encode_proofs(std::span<const Proof> proofs) {
  std::vector<uint8_t> out;
  out.reserve(proofs.size() * PROOF_BYTES);
  for (const Proof& p : proofs) {
    const auto b = encode_proof(p);
    out.insert(out.end(), b.begin(), b.end());
  }
  return out;
}

Result<Proof> decode_proof(std::span<const uint8_t> bytes) {
  if (bytes.size() != PROOF_BYTES)
    return make_error("Groth16 proof: expected " + std::to_string(PROOF_BYTES) + " bytes, got " +
                      std::to_string(bytes.size()));
  auto p = decode_one(bytes, "Groth16 proof: ");
  if (!p) return make_error(p.error());
  return p;
}

Result<std::vector<Proof>> decode_proofs(std::span<const uint8_t> bytes) {
  if (bytes.empty()) return make_error("Groth16 proofs: no bytes (expected a multiple of 192)");
  if (bytes.size() % PROOF_BYTES != 0)
    return make_error("Groth16 proofs: length " + std::to_string(bytes.size()) + " is not a multiple of " +
                      std::to_string(PROOF_BYTES) + " (" + std::to_string(bytes.size() / PROOF_BYTES) +
                      " whole proofs and " + std::to_string(bytes.size() % PROOF_BYTES) + " extra bytes)");
  const size_t n = bytes.size() / PROOF_BYTES;
  std::vector<Proof> out;
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    auto p = decode_one(bytes.subspan(i * PROOF_BYTES, PROOF_BYTES),
                        "Groth16 proof " + std::to_string(i) + " of " + std::to_string(n) + ": ");
    if (!p) return make_error(p.error());
    out.push_back(*p);
  }
  return out;
}

}  // namespace cuzk::groth16
