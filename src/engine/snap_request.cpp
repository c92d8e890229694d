#include "engine/snap_request.hpp"

#include <cstring>

#include "filecoin/registered_update_proof.hpp"
#include "filecoin/snap_synthesis.hpp"
#include "filecoin/snap_validate.hpp"

namespace cuzk::engine {

namespace {

// The request's validated partition proofs and the commitments their inputs come from.
class SnapPartitions final : public VanillaPartitions {
 public:
  SnapPartitions(filecoin::SnapRequestContext ctx, std::vector<filecoin::SnapPartitionProof> proofs)
      : ctx_(std::move(ctx)), proofs_(std::move(proofs)) {}
  uint32_t count() const override { return static_cast<uint32_t>(proofs_.size()); }
  PartitionAssignment assignment(uint32_t k, ThreadPool& pool) const override {
    filecoin::SnapAssignment a = filecoin::snap_assignment(ctx_, proofs_.at(k), k, pool);
    return {std::move(a.inputs), std::move(a.aux)};
  }
  r1cs::ProvingCS synthesize(uint32_t k) const override { return filecoin::synthesize_snap(ctx_, proofs_.at(k), k); }
  // From the three commitments (what a verifier reads on chain) and the partition's index.
  std::vector<ff::Fr> verifier_inputs(uint32_t k) const override {
    return filecoin::snap_public_inputs(ctx_.shape, filecoin::snap_request_public_inputs(ctx_, k));
  }
  std::string inputs_source() const override { return "comm_r_old, comm_d_new, comm_r_new and the partition index"; }

 private:
  filecoin::SnapRequestContext ctx_;
  std::vector<filecoin::SnapPartitionProof> proofs_;
};

// The request's fields other than the proofs; "" when they are well formed.
std::string check_snap_fields(const ProofRequest& req) {
  if (!req.vanilla_proof.empty()) return "SnapDeals takes vanilla_proofs (one per partition), not vanilla_proof";
  if (!req.witnesses.empty() || !req.partition_inputs.empty()) {
    return "SnapDeals computes its witness from vanilla_proofs: send no witnesses or partition_inputs";
  }
  if (!req.randomness.empty()) return "SnapDeals takes no randomness (its challenges come from comm_r_new)";
  if (req.partition_index != 0) {
    return "partition_index " + std::to_string(req.partition_index) +
           ": a SnapDeals request proves every partition; send 0";
  }
  for (const auto& [name, bytes] : {std::pair{"comm_r_old", &req.comm_r_old}, std::pair{"comm_d_new", &req.comm_d_new},
                                    std::pair{"comm_r_new", &req.comm_r_new}}) {
    if (bytes->size() != 32) {
      return std::string(name) + " has " + std::to_string(bytes->size()) + " bytes; 32 expected (the raw digest)";
    }
  }
  if (req.vanilla_proofs.empty()) return "no vanilla_proofs: send one PartitionProof (bincode) per partition, in order";
  return "";
}

}  // namespace

Outcome<DecodedRequest> decode_snap(ProofRequest& req, const DecodeContext& ctx) {
  const filecoin::RegisteredUpdateProof* rp = nullptr;
  try {
    rp = &filecoin::registered_update_proof(req.registered_proof);
  } catch (const std::exception& e) {
    return invalid_request(std::string("registered_proof: ") + e.what());
  }
  if (req.sector_size != 0 && req.sector_size != rp->sector_size) {
    return invalid_request("sector_size " + std::to_string(req.sector_size) + " does not match registered_proof " +
                           std::string(rp->name) + " (" + std::to_string(rp->sector_size) + " bytes)");
  }
  if (std::string why = check_snap_fields(req); !why.empty()) return invalid_request(why);
  filecoin::SnapRequestContext sc;
  sc.shape = filecoin::SnapCircuitShape::of(rp->sector_size);
  std::memcpy(sc.comm_r_old.data(), req.comm_r_old.data(), 32);
  std::memcpy(sc.comm_d_new.data(), req.comm_d_new.data(), 32);
  std::memcpy(sc.comm_r_new.data(), req.comm_r_new.data(), 32);
  std::vector<filecoin::SnapPartitionProof> proofs;
  try {
    std::vector<std::vector<uint8_t>> blobs;
    blobs.reserve(req.vanilla_proofs.size());
    for (std::string& b : req.vanilla_proofs) {
      blobs.emplace_back(b.begin(), b.end());
      b = {};
    }
    proofs = filecoin::parse_snap_vanilla(sc, blobs);
  } catch (const std::exception& e) {  // SnapVanillaError names the partition and the field
    return invalid_request(e.what());
  }
  req.vanilla_proofs = {};
  return filecoin_request(req, ctx, CircuitRegistry::snap_id(*rp), "registered_proof " + std::string(rp->name),
                          "SnapDeals", std::make_shared<const SnapPartitions>(std::move(sc), std::move(proofs)));
}

}  // namespace cuzk::engine
