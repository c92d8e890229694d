#include "engine/post_request.hpp"

#include <cstring>

#include "filecoin/post_error.hpp"
#include "filecoin/post_public_inputs.hpp"
#include "filecoin/post_synthesis.hpp"
#include "filecoin/post_validate.hpp"
#include "filecoin/replica_id.hpp"

namespace cuzk::engine {

namespace {

// One partition: the request's validated sector proofs and what their challenges came from.
class PostPartitions final : public VanillaPartitions {
 public:
  PostPartitions(const filecoin::RegisteredPostProof& proof, const filecoin::Bytes32& randomness,
                 uint32_t partition_index, std::vector<filecoin::FallbackPostSectorProof> proofs)
      : proof_(proof), randomness_(randomness), partition_index_(partition_index), proofs_(std::move(proofs)) {}
  uint32_t count() const override { return 1; }
  PartitionAssignment assignment(uint32_t, ThreadPool& pool) const override {
    filecoin::PostAssignment w = filecoin::post_assignment(proof_, proofs_, pool);
    return {std::move(w.inputs), std::move(w.aux)};
  }
  r1cs::ProvingCS synthesize(uint32_t) const override { return filecoin::synthesize_post(proof_, proofs_); }
  // From the sectors' ids and comm_r (what a verifier reads on chain) and the randomness; the leaf
  // challenges are recomputed, not taken from the proofs' paths.
  std::vector<ff::Fr> verifier_inputs(uint32_t) const override {
    return filecoin::post_public_inputs(proof_, randomness_, filecoin::post_public_sectors(proofs_), partition_index_);
  }
  std::string inputs_source() const override { return "the vanilla proofs' sectors and the randomness"; }

 private:
  const filecoin::RegisteredPostProof& proof_;
  filecoin::Bytes32 randomness_;
  uint32_t partition_index_;
  std::vector<filecoin::FallbackPostSectorProof> proofs_;
};

// The registered proof, checked against the request's kind and sector size; nullptr after
// setting `why`.
const filecoin::RegisteredPostProof* registered_proof_of(const ProofRequest& req, std::string& why) {
  const filecoin::RegisteredPostProof* rp = nullptr;
  try {
    rp = &filecoin::registered_post_proof(req.registered_proof);
  } catch (const std::exception& e) {
    why = std::string("registered_proof: ") + e.what();
    return nullptr;
  }
  const filecoin::PostType want =
      req.kind == ProofKind::WinningPost ? filecoin::PostType::kWinning : filecoin::PostType::kWindow;
  if (rp->type != want) {
    why = "registered_proof " + std::to_string(req.registered_proof) + " (" + std::string(rp->name) + ") is not a " +
          (want == filecoin::PostType::kWinning ? "WinningPoSt" : "WindowPoSt") + " proof, as proof_kind " +
          kind_name(req.kind) + " needs";
    return nullptr;
  }
  if (req.sector_size != 0 && req.sector_size != rp->shape.sector_size) {
    why = "sector_size " + std::to_string(req.sector_size) + " does not match registered_proof " +
          std::string(rp->name) + " (" + std::to_string(rp->shape.sector_size) + " bytes)";
    return nullptr;
  }
  return rp;
}

// The request's fields other than the proofs; "" when they are well formed.
std::string check_post_fields(const ProofRequest& req) {
  if (!req.vanilla_proof.empty()) return "PoSt takes vanilla_proofs (one per sector), not vanilla_proof";
  if (!req.witnesses.empty() || !req.partition_inputs.empty()) {
    return "PoSt computes its witness from vanilla_proofs: send no witnesses or partition_inputs";
  }
  if (req.randomness.size() != 32) {
    return "randomness has " + std::to_string(req.randomness.size()) + " bytes; 32 expected";
  }
  if (req.miner_id == 0) return "miner_id is required (the prover id the challenges are derived from)";
  if (req.vanilla_proofs.empty()) return "no vanilla_proofs: send one FallbackPoStSectorProof (bincode) per sector";
  return "";
}

}  // namespace

Outcome<DecodedRequest> decode_post(ProofRequest& req, const DecodeContext& ctx) {
  std::string why;
  const filecoin::RegisteredPostProof* rp = registered_proof_of(req, why);
  if (rp == nullptr) return invalid_request(why);
  if (why = check_post_fields(req); !why.empty()) return invalid_request(why);
  filecoin::PostRequestContext pc;
  pc.proof = rp;
  std::memcpy(pc.randomness.data(), req.randomness.data(), pc.randomness.size());
  pc.prover_id = filecoin::prover_id_from_actor_id(req.miner_id);
  pc.partition_index = req.partition_index;
  std::vector<filecoin::FallbackPostSectorProof> proofs;
  try {
    proofs.reserve(req.vanilla_proofs.size());
    for (size_t i = 0; i < req.vanilla_proofs.size(); ++i) {
      const std::string& b = req.vanilla_proofs[i];
      proofs.push_back(filecoin::parse_post_sector_proof(
          std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(b.data()), b.size()), i));
    }
    filecoin::validate_post_vanilla(pc, proofs);
  } catch (const std::exception& e) {  // PostVanillaError names the proof, its sector and the field
    return invalid_request(e.what());
  }
  req.vanilla_proofs = {};
  return filecoin_request(
      req, ctx, CircuitRegistry::post_id(*rp), "registered_proof " + std::string(rp->name), "PoSt",
      std::make_shared<const PostPartitions>(*rp, pc.randomness, pc.partition_index, std::move(proofs)));
}

}  // namespace cuzk::engine
