// `cuzk prove --snap` and `cuzk verify --snap`: every partition of a SnapDeals update without a
// daemon, from a SnapDeals request file (`cuzk snap vanilla`, `cuzk synth-snap`). The proofs are
// checked against the inputs a verifier derives (the three commitments and each partition's index)
// before they are written, 192 bytes per partition in partition order.
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "backend/batch_prover.hpp"
#include "cli_util.hpp"
#include "filecoin/registered_proof.hpp"
#include "filecoin/snap_synthesis.hpp"
#include "groth16/params_file.hpp"
#include "groth16/prover.hpp"
#include "groth16/verifier.hpp"
#include "params_cli.hpp"
#include "pce/build.hpp"
#include "pce/pce_file.hpp"
#include "proofs_cli.hpp"
#include "prover_cli.hpp"
#include "snap_cli.hpp"
#include "util/progress.hpp"
#include "util/rng.hpp"
#include "util/thread_pool.hpp"

namespace cuzk::cli {
using ff::Fr;

const filecoin::RegisteredUpdateProof* update_proof_of(const std::string& circuit) {
  constexpr std::string_view kPrefix = "snap:";
  if (!circuit.starts_with(kPrefix)) return nullptr;
  return &filecoin::update_proof_of_size(filecoin::parse_sector_size(circuit.substr(kPrefix.size())));
}

pce::Pce snap_pce(const filecoin::RegisteredUpdateProof& proof, bool quiet) {
  const std::string id = filecoin::snap_circuit_id(proof);
  // No progress hook in recording or building (32 GiB: 81 M constraints).
  Progress bar("extracting the PCE of " + id, 0, !quiet);
  ProgressTicker ticker(bar);
  return pce::build_pce(
      filecoin::record_snap_circuit_parallel(filecoin::SnapCircuitShape::of(proof.sector_size), ThreadPool::global()),
      {id, {}, false});
}

LoadedSnap load_snap(const std::string& path) {
  LoadedSnap l;
  try {
    l.file = filecoin::parse_snap_request_file(read_text(path));
    l.ctx = l.file.context();
    l.proofs = filecoin::parse_snap_vanilla(l.ctx, l.file.vanilla_proofs);
    for (uint32_t k = 0; k < l.proofs.size(); ++k) {
      l.inputs.push_back(filecoin::snap_public_inputs(l.ctx.shape, filecoin::snap_request_public_inputs(l.ctx, k)));
    }
  } catch (const std::exception& e) {
    throw std::runtime_error(path + ": " + e.what());
  }
  return l;
}

int snap_prove(const Groth16Options& o) {
  const auto t0 = Clock::now();
  const LoadedSnap l = load_snap(o.snap);
  const filecoin::RegisteredUpdateProof& proof = *l.file.proof;
  const std::string id = filecoin::snap_circuit_id(proof);
  const pce::Pce pce = o.pce.empty() ? snap_pce(proof, o.quiet || o.json) : must(pce::load_pce(o.pce));
  if (pce.num_inputs() != filecoin::SnapCircuitShape::num_inputs()) {
    throw std::runtime_error((o.pce.empty() ? id : o.pce) + ": the circuit has " + std::to_string(pce.num_inputs()) +
                             " inputs; a " + id + " partition has " +
                             std::to_string(filecoin::SnapCircuitShape::num_inputs()));
  }
  const groth16::ProvingKey pk = read_params_with_progress(o.params, o.quiet || o.json);
  // The witnesses are views: the assignments must outlive the proving.
  std::vector<filecoin::SnapAssignment> assignments;
  std::vector<groth16::Witness> ws;
  for (uint32_t k = 0; k < l.proofs.size(); ++k)
    assignments.push_back(filecoin::snap_assignment(l.ctx, l.proofs[k], k, ThreadPool::global()));
  for (const filecoin::SnapAssignment& a : assignments) ws.push_back({a.inputs, a.aux});
  const auto be = std::make_unique<backend::BatchProver>(pk, pce, cli_placement(o));
  SystemRng rng;
  std::vector<Fr> r, s;
  for (size_t i = 0; i < ws.size(); ++i) {
    r.push_back(Fr::random(rng));
    s.push_back(Fr::random(rng));
  }
  const std::vector<groth16::Proof> proofs = be->prove_many(ws, r, s, nullptr);
  const bool ok = must(groth16::verify_batch(groth16::prepare(pk.vk), proofs, l.inputs));
  if (!ok) {
    std::cerr << "cuzk: error: the proofs do not verify against the public inputs derived from " << o.snap
              << "; nothing written\n";
    return 1;
  }
  write_proofs(o.proof, proofs);
  if (o.json) {
    nlohmann::ordered_json j;
    j["registered_proof"] = std::string(proof.name);
    j["partitions"] = proofs.size();
    j["backend"] = be->name();
    j["proof"] = o.proof;
    j["verified"] = true;
    j["seconds"] = since(t0);
    std::cout << j.dump(2) << "\n";
  } else if (!o.quiet) {
    std::printf("OK: %s proof of %zu partition(s), verified, written to %s (%.2f s)\n", std::string(proof.name).c_str(),
                proofs.size(), o.proof.c_str(), since(t0));
  }
  return 0;
}

int snap_verify(const Groth16Options& o) {
  const LoadedSnap l = load_snap(o.snap);
  const groth16::VerifyingKey vk = must(groth16::read_vk(o.vk));
  const std::vector<groth16::Proof> proofs = read_proofs(o.proof);
  if (proofs.size() != l.inputs.size()) {
    throw std::runtime_error(o.proof + ": " + std::to_string(proofs.size()) + " proofs; " +
                             std::string(l.file.proof->name) + " has " + std::to_string(l.inputs.size()) +
                             " partitions (192 bytes each, in partition order)");
  }
  return verify_and_report(o, vk, proofs, l.inputs, l.file.proof->name, "SnapDeals");
}

}  // namespace cuzk::cli
