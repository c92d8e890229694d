// `cuzk prove --post` and `cuzk verify --post`: one WindowPoSt / WinningPoSt partition without a
// daemon, from a PoSt request file (`cuzk post vanilla`). The proof is checked against the inputs a
// verifier derives (the sectors' ids and comm_r, the challenges from the randomness) before it is
// written.
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "backend/batch_prover.hpp"
#include "cli_util.hpp"
#include "filecoin/post_public_inputs.hpp"
#include "filecoin/post_request_file.hpp"
#include "filecoin/post_synthesis.hpp"
#include "filecoin/post_validate.hpp"
#include "filecoin/replica_id.hpp"
#include "groth16/params_file.hpp"
#include "groth16/prover.hpp"
#include "groth16/verifier.hpp"
#include "params_cli.hpp"
#include "pce/build.hpp"
#include "pce/pce_file.hpp"
#include "post_cli.hpp"
#include "proofs_cli.hpp"
#include "prover_cli.hpp"
#include "util/progress.hpp"
#include "util/rng.hpp"

namespace cuzk::cli {
using ff::Fr;

LoadedPost load_post(const std::string& path) {
  LoadedPost l;
  try {
    l.file = filecoin::parse_post_request_file(read_text(path));
    filecoin::PostRequestContext ctx;
    ctx.proof = l.file.proof;
    ctx.randomness = l.file.randomness;
    ctx.prover_id = filecoin::prover_id_from_actor_id(l.file.miner_id);
    ctx.partition_index = l.file.partition_index;
    l.proofs = filecoin::parse_post_vanilla(ctx, l.file.vanilla_proofs);
    l.inputs = filecoin::post_public_inputs(*l.file.proof, l.file.randomness, filecoin::post_public_sectors(l.proofs),
                                            l.file.partition_index);
  } catch (const std::exception& e) {
    throw std::runtime_error(path + ": " + e.what());
  }
  return l;
}

const filecoin::RegisteredPostProof* post_proof_of(const std::string& circuit) {
  const size_t colon = circuit.find(':');
  if (colon == std::string::npos) return nullptr;
  const std::string kind = circuit.substr(0, colon);
  if (kind != "window-post" && kind != "winning-post") return nullptr;
  const auto type = kind == "window-post" ? filecoin::PostType::kWindow : filecoin::PostType::kWinning;
  return &filecoin::default_post_proof(type, filecoin::parse_sector_size(circuit.substr(colon + 1)));
}

pce::Pce post_pce(const filecoin::RegisteredPostProof& proof, const std::string& id, bool quiet) {
  // No progress hook in recording or building (WindowPoSt at 32 GiB: 125 M constraints).
  Progress bar("extracting the PCE of " + id, 0, !quiet);
  ProgressTicker ticker(bar);
  return pce::build_pce(filecoin::record_post_circuit_replicated(proof, ThreadPool::global()), {id, {}, false});
}

int post_prove(const Groth16Options& o) {
  const auto t0 = Clock::now();
  const LoadedPost l = load_post(o.post);
  const filecoin::RegisteredPostProof& proof = *l.file.proof;
  const std::string id = filecoin::post_circuit_id(proof);
  const pce::Pce pce = o.pce.empty() ? post_pce(proof, id, o.quiet || o.json) : must(pce::load_pce(o.pce));
  if (pce.num_inputs() != l.inputs.size() + 1) {
    throw std::runtime_error((o.pce.empty() ? id : o.pce) + ": the circuit has " + std::to_string(pce.num_inputs()) +
                             " inputs; a " + id + " partition has " + std::to_string(l.inputs.size() + 1));
  }
  const groth16::ProvingKey pk = read_params_with_progress(o.params, o.quiet || o.json);
  filecoin::PostAssignment a = filecoin::post_assignment(proof, l.proofs, ThreadPool::global());
  const std::vector<groth16::Witness> ws{{a.inputs, a.aux}};
  const auto be = std::make_unique<backend::BatchProver>(pk, pce, cli_placement(o));
  SystemRng rng;
  const std::vector<Fr> r{Fr::random(rng)}, s{Fr::random(rng)};
  const std::vector<groth16::Proof> proofs = be->prove_many(ws, r, s, nullptr);
  const bool ok = must(groth16::verify_batch(groth16::prepare(pk.vk), proofs, std::vector<std::vector<Fr>>{l.inputs}));
  if (!ok) {
    std::cerr << "cuzk: error: the proof does not verify against the public inputs derived from " << o.post
              << "; nothing written\n";
    return 1;
  }
  write_proofs(o.proof, proofs);
  if (o.json) {
    nlohmann::ordered_json j;
    j["registered_proof"] = std::string(proof.name);
    j["backend"] = be->name();
    j["proof"] = o.proof;
    j["verified"] = true;
    j["seconds"] = since(t0);
    std::cout << j.dump(2) << "\n";
  } else if (!o.quiet) {
    std::printf("OK: %s proof of %zu sector(s), verified, written to %s (%.2f s)\n", std::string(proof.name).c_str(),
                l.proofs.size(), o.proof.c_str(), since(t0));
  }
  return 0;
}

int post_verify(const Groth16Options& o) {
  const LoadedPost l = load_post(o.post);
  const groth16::VerifyingKey vk = must(groth16::read_vk(o.vk));
  const std::vector<groth16::Proof> proofs = read_proofs(o.proof);
  if (proofs.size() != 1) {
    throw std::runtime_error(o.proof + ": " + std::to_string(proofs.size()) + " proofs; a PoSt partition has one");
  }
  return verify_and_report(o, vk, proofs, std::vector<std::vector<Fr>>{l.inputs}, l.file.proof->name, "PoSt");
}

}  // namespace cuzk::cli
