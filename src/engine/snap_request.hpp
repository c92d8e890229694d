#pragma once
// SNAP_DEALS_UPDATE requests: the registered update proof (its Go abi id), comm_r_old, comm_d_new
// and comm_r_new (raw 32 bytes each) and one bincode PartitionProof per partition in
// vanilla_proofs, in order. Every proof is parsed and validated at submit (snap_validate.hpp:
// shapes, paths, the challenges recomputed, the encoding), so a bad one is refused naming its
// partition and the field, before any proving work. The answer is one proof per partition.
#include "engine/engine_api.hpp"
#include "engine/request_decoder.hpp"

namespace cuzk::engine {

// Proves snap:<size>: every partition of the sector's update.
Outcome<DecodedRequest> decode_snap(ProofRequest& req, const DecodeContext& ctx);

}  // namespace cuzk::engine
