#include "post_request.hpp"

#include <iostream>
#include <span>

#include "filecoin/post_public_inputs.hpp"
#include "filecoin/post_request_file.hpp"
#include "filecoin/post_validate.hpp"
#include "filecoin/replica_id.hpp"
#include "request.hpp"

namespace cuzk::bench {

std::string packed_inputs(const std::vector<ff::Fr>& in) {
  std::string out(in.size() * 32, '\0');
  for (size_t i = 0; i < in.size(); ++i) {
    in[i].to_bytes_le(std::span<uint8_t>(reinterpret_cast<uint8_t*>(out.data()) + 32 * i, 32));
  }
  return out;
}

Result<PostRequest> load_post_request(const std::string& path, bool derive_inputs) {
  auto text = read_file(path);
  if (!text) return make_error(text.error());
  PostRequest out;
  try {
    const filecoin::PostRequestFile f = filecoin::parse_post_request_file(*text);
    const filecoin::RegisteredPostProof& rp = *f.proof;
    out.circuit_id = filecoin::post_circuit_id(rp);
    v1::SubmitProofRequest& s = out.fields;
    s.set_proof_kind(rp.type == filecoin::PostType::kWindow ? v1::WINDOW_POST_PARTITION : v1::WINNING_POST);
    s.set_registered_proof(rp.id);
    s.set_sector_size(rp.shape.sector_size);
    s.set_miner_id(f.miner_id);
    s.set_randomness(std::string(f.randomness.begin(), f.randomness.end()));
    s.set_partition_index(f.partition_index);
    for (const auto& p : f.vanilla_proofs) s.add_vanilla_proofs(std::string(p.begin(), p.end()));
    if (derive_inputs) {
      filecoin::PostRequestContext ctx;
      ctx.proof = &rp;
      ctx.randomness = f.randomness;
      ctx.prover_id = filecoin::prover_id_from_actor_id(f.miner_id);
      ctx.partition_index = f.partition_index;
      const auto proofs = filecoin::parse_post_vanilla(ctx, f.vanilla_proofs);
      out.public_inputs.push_back(packed_inputs(
          filecoin::post_public_inputs(rp, f.randomness, filecoin::post_public_sectors(proofs), f.partition_index)));
    }
  } catch (const std::exception& e) {
    return make_error(path + ": " + e.what());
  }
  return out;
}

bool load_request_option(Result<PostRequest> (*load)(const std::string&, bool), const std::string& path,
                         bool derive_inputs, std::optional<PostRequest>& out) {
  if (path.empty()) return true;
  auto loaded = load(path, derive_inputs);
  if (!loaded) {
    std::cerr << "cuzk-bench: " << loaded.error() << "\n";
    return false;
  }
  out = std::move(loaded).value();
  return true;
}

}  // namespace cuzk::bench
