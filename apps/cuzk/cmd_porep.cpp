// `cuzk prove --porep` and `cuzk verify --porep`: PoRep C2 without a daemon. The proof of a
// sector is one 192-byte Groth16 proof per partition, in partition order (what C2 returns); each is
// checked against public inputs derived from C1 the way a verifier derives them (challenges from
// the seed, parents from the SDR graph) before anything is written.
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "backend/batch_prover.hpp"
#include "cli_util.hpp"
#include "filecoin/c1_output.hpp"
#include "filecoin/porep_synthesis.hpp"
#include "filecoin/registered_proof.hpp"
#include "groth16/params_file.hpp"
#include "groth16/prover.hpp"
#include "groth16/verifier.hpp"
#include "params_cli.hpp"
#include "pce/build.hpp"
#include "pce/pce_file.hpp"
#include "porep_cli.hpp"
#include "proofs_cli.hpp"
#include "prover_cli.hpp"
#include "util/progress.hpp"
#include "util/rng.hpp"

namespace cuzk::cli {
namespace {

using ff::Fr;

std::vector<uint32_t> selected_partitions(const Groth16Options& o, const filecoin::RegisteredSealProof& proof) {
  std::vector<uint32_t> out = o.partitions;
  if (out.empty()) {
    for (uint32_t k = 0; k < proof.partitions; ++k) out.push_back(k);
  }
  for (uint32_t k : out) {
    if (k >= proof.partitions) {
      throw std::invalid_argument("--partition " + std::to_string(k) + ": " + std::string(proof.name) + " has " +
                                  std::to_string(proof.partitions) + " partition(s)");
    }
  }
  return out;
}

// One strictness everywhere (prove, verify, the daemon): every Merkle path is hashed to its root.
filecoin::C1Wrapper load_c1(const std::string& path) {
  filecoin::C1ValidateOptions vo;
  vo.verify_merkle_paths = true;
  try {
    return filecoin::parse_c1_file(path, vo);
  } catch (const std::exception& e) {
    throw std::runtime_error(path + ": " + e.what());
  }
}

}  // namespace

std::optional<filecoin::PorepCircuitShape> porep_shape_of(const std::string& circuit, const std::string& sector_size) {
  std::string size;
  if (circuit == "porep") {
    if (sector_size.empty()) throw std::invalid_argument("--circuit porep needs --sector-size (2KiB ... 64GiB)");
    size = sector_size;
  } else if (circuit.rfind("porep:", 0) == 0) {
    size = circuit.substr(6);
  } else {
    return std::nullopt;
  }
  return filecoin::PorepCircuitShape::of(filecoin::default_seal_proof(filecoin::parse_sector_size(size)));
}

pce::Pce porep_pce(const filecoin::PorepCircuitShape& shape, const std::string& circuit_id, bool quiet) {
  // No progress hook in recording or building: the bar shows the time they take.
  Progress bar("extracting the PCE of " + circuit_id, 0, !quiet);
  ProgressTicker ticker(bar);
  const r1cs::CompactR1cs r = filecoin::record_porep_circuit_replicated(shape, ThreadPool::global());
  return pce::build_pce(r, {circuit_id, {}, false});
}

int porep_prove(const Groth16Options& o) {
  if (o.c1.empty() || o.params.empty() || o.proof.empty()) {
    throw std::invalid_argument("prove --porep needs --c1, --params and --proof");
  }
  const auto t0 = Clock::now();
  const filecoin::C1Wrapper w = load_c1(o.c1);
  const filecoin::SealCommitPhase1Output& c1 = w.c1;
  const filecoin::RegisteredSealProof& proof = *c1.registered_proof;
  const filecoin::PorepCircuitShape shape = filecoin::PorepCircuitShape::of(proof);
  const std::vector<uint32_t> parts = selected_partitions(o, proof);
  const double c1_s = since(t0);

  const auto t1 = Clock::now();
  const std::string id = "porep:" + filecoin::sector_size_name(proof.shape.sector_size);
  const pce::Pce pce = o.pce.empty() ? porep_pce(shape, id, o.quiet) : must(pce::load_pce(o.pce));
  if (pce.num_inputs() != shape.num_inputs()) {
    throw std::runtime_error((o.pce.empty() ? id : o.pce) + ": the circuit has " + std::to_string(pce.num_inputs()) +
                             " inputs; a " + id + " partition has " + std::to_string(shape.num_inputs()));
  }
  const double pce_s = since(t1);

  const auto t2 = Clock::now();
  const groth16::ProvingKey pk = read_params_with_progress(o.params, o.quiet || o.json);
  const double params_s = since(t2);

  const auto t3 = Clock::now();
  std::vector<filecoin::PorepAssignment> assignments;
  for (uint32_t k : parts) assignments.push_back(filecoin::porep_assignment(c1, k));
  const double witness_s = since(t3);

  std::vector<groth16::Witness> ws;
  for (const auto& a : assignments) ws.push_back({a.inputs, a.aux});
  const auto tb = Clock::now();
  const auto be = std::make_unique<backend::BatchProver>(pk, pce, cli_placement(o));
  const double backend_s = since(tb);
  std::vector<Fr> r(ws.size()), s(ws.size());
  {
    SystemRng rng;
    for (size_t i = 0; i < ws.size(); ++i) r[i] = Fr::random(rng), s[i] = Fr::random(rng);
  }
  groth16::ProveTimings t;
  const auto tp = Clock::now();
  const std::vector<groth16::Proof> proofs = be->prove_many(ws, r, s, &t);
  const double prove_s = since(tp);

  const auto t4 = Clock::now();
  std::vector<std::vector<Fr>> inputs;
  for (uint32_t k : parts) inputs.push_back(filecoin::porep_verifier_inputs(c1, k));
  const bool ok = must(groth16::verify_batch(groth16::prepare(pk.vk), proofs, inputs));
  const double verify_s = since(t4);
  if (!ok) {
    std::cerr << "cuzk: error: the proof does not verify against the public inputs derived from " << o.c1
              << " (challenges from its seed, parents from the SDR graph); nothing written\n";
    return 1;
  }
  const size_t proof_bytes = write_proofs(o.proof, proofs);
  const double total_s = since(t0);
  if (o.json) {
    nlohmann::ordered_json j;
    j["registered_proof"] = std::string(proof.name);
    j["backend"] = be->name();
    j["partitions"] = parts.size();
    j["proof_bytes"] = proof_bytes;
    j["proof"] = o.proof;
    j["verified"] = true;
    j["seconds"] = {{"c1", c1_s},           {"pce", pce_s},       {"params", params_s}, {"witness", witness_s},
                    {"prove", t.total_s()}, {"verify", verify_s}, {"total", total_s}};
    std::cout << j.dump(2) << "\n";
  } else if (!o.quiet) {
    std::printf("OK: %zu partition proof(s) of %s, %zu bytes, verified, written to %s (%.2f s)\n", parts.size(),
                std::string(proof.name).c_str(), proof_bytes, o.proof.c_str(), total_s);
  }
  if (o.verbose) {
    std::fprintf(stderr,
                 "prove --porep: c1 %.3f s | pce %.3f | params %.3f | witness %.3f | backend %s (ready in %.3f s) | "
                 "prove %.3f (matvec %.3f  h %.3f  msm h %.3f l %.3f a %.3f b_g1 %.3f b_g2 %.3f  finalize %.3f) | "
                 "verify %.3f | total %.3f s\n",
                 c1_s, pce_s, params_s, witness_s, be->name().c_str(), backend_s, prove_s, t.matvec_s, t.h_poly_s,
                 t.msm_h_s, t.msm_l_s, t.msm_a_s, t.msm_b_g1_s, t.msm_b_g2_s, t.finalize_s, verify_s, total_s);
  }
  return 0;
}

int porep_verify(const Groth16Options& o) {
  if (o.c1.empty() || o.vk.empty() || o.proof.empty()) {
    throw std::invalid_argument("verify --porep needs --c1, --vk and --proof");
  }
  const filecoin::C1Wrapper w = load_c1(o.c1);
  const filecoin::SealCommitPhase1Output& c1 = w.c1;
  const std::vector<uint32_t> parts = selected_partitions(o, *c1.registered_proof);
  const groth16::VerifyingKey vk = must(groth16::read_vk(o.vk));
  const std::vector<groth16::Proof> proofs = read_proofs(o.proof);
  if (proofs.size() != parts.size()) {
    throw std::runtime_error(o.proof + ": " + std::to_string(proofs.size()) + " proof(s), expected " +
                             std::to_string(parts.size()) + " (one per partition)");
  }
  std::vector<std::vector<Fr>> inputs;
  for (uint32_t k : parts) inputs.push_back(filecoin::porep_verifier_inputs(c1, k));
  const bool ok = must(groth16::verify_batch(groth16::prepare(vk), proofs, inputs));
  if (o.json) {
    nlohmann::ordered_json j;
    j["valid"] = ok;
    j["registered_proof"] = std::string(c1.registered_proof->name);
    j["partitions"] = parts.size();
    std::cout << j.dump(2) << "\n";
  } else if (!o.quiet) {
    std::printf("%s\n", ok ? ("OK: all " + std::to_string(proofs.size()) + " partition proof(s) are valid").c_str()
                           : "INVALID: the PoRep proof does not verify");
  }
  return ok ? 0 : 1;
}

}  // namespace cuzk::cli
