#include "engine/porep_request.hpp"

#include "filecoin/c1_output.hpp"
#include "filecoin/porep_synthesis.hpp"
#include "filecoin/registered_proof.hpp"
#include "filecoin/replica_id.hpp"

namespace cuzk::engine {

namespace {

class PorepPartitions final : public VanillaPartitions {
 public:
  explicit PorepPartitions(filecoin::SealCommitPhase1Output c1) : c1_(std::move(c1)) {}
  uint32_t count() const override { return c1_.registered_proof->partitions; }
  PartitionAssignment assignment(uint32_t k, ThreadPool&) const override {
    filecoin::PorepAssignment w = filecoin::porep_assignment(c1_, k);
    return {std::move(w.inputs), std::move(w.aux)};
  }
  r1cs::ProvingCS synthesize(uint32_t k) const override { return filecoin::synthesize_porep(c1_, k); }
  std::vector<ff::Fr> verifier_inputs(uint32_t k) const override { return filecoin::porep_verifier_inputs(c1_, k); }
  std::string inputs_source() const override { return "C1"; }

 private:
  filecoin::SealCommitPhase1Output c1_;
};

// The request's sector_number and miner_id (when given) against the wrapper's SectorNum and the C1
// output they claim to be: the replica id binds prover id, sector number, ticket, comm_d and the
// PoRep id, so a C1 of another sector (or a wrapper with another SectorNum) is refused here.
std::string check_sector_identity(const ProofRequest& req, const filecoin::C1Wrapper& w) {
  if (w.wrapped && req.sector_number != 0 && req.sector_number != w.sector_num) {
    return "sector_number " + std::to_string(req.sector_number) + " does not match the wrapper's SectorNum " +
           std::to_string(w.sector_num);
  }
  const uint64_t sector = req.sector_number != 0 ? req.sector_number : w.wrapped ? w.sector_num : 0;
  if (req.miner_id == 0 || (sector == 0 && !w.wrapped)) return "";
  const filecoin::Bytes32 id =
      filecoin::replica_id(filecoin::prover_id_from_actor_id(req.miner_id), sector, w.c1.ticket, w.c1.comm_d,
                           filecoin::porep_id(*w.c1.registered_proof));
  if (id != w.c1.replica_id) {
    return "the C1 output's replica_id is not that of miner f0" + std::to_string(req.miner_id) + "'s sector " +
           std::to_string(sector) + " (with its ticket and comm_d): the C1 output is another sector's";
  }
  return "";
}

}  // namespace

Outcome<DecodedRequest> decode_porep(ProofRequest& req, const DecodeContext& ctx) {
  if (req.vanilla_proof.empty()) {
    return invalid_request(
        "vanilla_proof is empty: send the C1 output (SealCommitPhase1Output JSON) or the {SectorNum, "
        "Phase1Out, SectorSize} wrapper");
  }
  filecoin::C1Wrapper w;
  try {
    filecoin::C1ValidateOptions vo;
    vo.verify_merkle_paths = true;
    w = filecoin::parse_c1_any(req.vanilla_proof, vo);
  } catch (const std::exception& e) {
    return invalid_request(std::string("vanilla_proof: ") + e.what());
  }
  req.vanilla_proof = {};
  const filecoin::RegisteredSealProof& rp = *w.c1.registered_proof;
  if (req.sector_size != 0 && req.sector_size != rp.shape.sector_size) {
    return invalid_request("sector_size " + std::to_string(req.sector_size) +
                           " does not match the C1 output's registered proof " + std::string(rp.name) + " (" +
                           std::to_string(rp.shape.sector_size) + " bytes)");
  }
  if (std::string why = check_sector_identity(req, w); !why.empty()) return invalid_request(why);
  return filecoin_request(req, ctx, CircuitRegistry::porep_id(rp.shape.sector_size), "the C1 output", "PoRep",
                          std::make_shared<const PorepPartitions>(std::move(w.c1)));
}

}  // namespace cuzk::engine
