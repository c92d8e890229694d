#include "snap_request.hpp"

#include <span>

#include "filecoin/snap_request_file.hpp"
#include "filecoin/snap_validate.hpp"
#include "request.hpp"

namespace cuzk::bench {

Result<PostRequest> load_snap_request(const std::string& path, bool derive_inputs) {
  auto text = read_file(path);
  if (!text) return make_error(text.error());
  PostRequest out;
  try {
    const filecoin::SnapRequestFile f = filecoin::parse_snap_request_file(*text);
    out.circuit_id = filecoin::snap_circuit_id(*f.proof);
    v1::SubmitProofRequest& s = out.fields;
    s.set_proof_kind(v1::SNAP_DEALS_UPDATE);
    s.set_registered_proof(f.proof->id);
    s.set_sector_size(f.proof->sector_size);
    s.set_sector_number(f.sector_id);
    s.set_miner_id(f.miner_id);
    s.set_comm_r_old(std::string(f.comm_r_old.begin(), f.comm_r_old.end()));
    s.set_comm_d_new(std::string(f.comm_d_new.begin(), f.comm_d_new.end()));
    s.set_comm_r_new(std::string(f.comm_r_new.begin(), f.comm_r_new.end()));
    for (const auto& p : f.vanilla_proofs) s.add_vanilla_proofs(std::string(p.begin(), p.end()));
    out.partitions = static_cast<uint32_t>(f.vanilla_proofs.size());
    if (derive_inputs) {
      const filecoin::SnapRequestContext ctx = f.context();
      filecoin::parse_snap_vanilla(ctx, f.vanilla_proofs);  // the inputs are only worth what the proofs are
      for (uint32_t k = 0; k < out.partitions; ++k) {
        out.public_inputs.push_back(
            packed_inputs(filecoin::snap_public_inputs(ctx.shape, filecoin::snap_request_public_inputs(ctx, k))));
      }
    }
  } catch (const std::exception& e) {
    return make_error(path + ": " + e.what());
  }
  return out;
}

}  // namespace cuzk::bench
