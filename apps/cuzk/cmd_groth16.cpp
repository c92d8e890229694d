// `cuzk setup | prove | verify | export-vk`: Groth16 over BLS12-381 with bellperson/Filecoin files
// (.params, .vk, 192-byte proofs) and snarkjs files (.zkey, .wtns, proof.json, public.json,
// verification_key.json).
#include <signal.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "backend/batch_prover.hpp"
#include "backend/setup_backend.hpp"
#include "circuits/builtin.hpp"
#include "cli_util.hpp"
#include "commands.hpp"
#include "engine/config.hpp"
#include "filecoin/registered_proof.hpp"
#include "groth16/params_file.hpp"
#include "groth16/proof_codec.hpp"
#include "groth16/prover.hpp"
#include "groth16/prover_zkey.hpp"
#include "groth16/setup.hpp"
#include "groth16/setup_file.hpp"
#include "groth16/snarkjs_json.hpp"
#include "groth16/verifier.hpp"
#include "groth16/zkey.hpp"
#include "params_cli.hpp"
#include "pce/build.hpp"
#include "pce/from_circom.hpp"
#include "pce/matvec.hpp"
#include "pce/pce_file.hpp"
#include "porep_cli.hpp"
#include "post_cli.hpp"
#include "proofs_cli.hpp"
#include "prover_cli.hpp"
#include "r1cs/circom_wtns.hpp"
#include "snap_cli.hpp"
#include "util/atomic_file.hpp"
#include "util/log.hpp"
#include "util/progress.hpp"
#include "util/rng.hpp"

namespace cuzk::cli {

namespace {

using groth16::Fr;

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// A prover hands out no proof it has not verified. Thrown as a failure (exit 1), before any file is
// written.
void require_valid(const groth16::VerifyingKey& vk, const groth16::Proof& proof, std::span<const Fr> public_inputs,
                   const std::string& why_if_not) {
  const bool ok = must(groth16::verify(groth16::prepare(vk), proof, public_inputs));
  if (!ok) throw std::runtime_error("the proof does not verify, so none was written: " + why_if_not);
}

// The first constraint that z = inputs ‖ aux does not satisfy (a·b != c), if any.
std::optional<uint64_t> first_unsatisfied(const pce::Pce& pce, std::span<const Fr> inputs, std::span<const Fr> aux) {
  const pce::MatVecResult m = pce::matvec(pce, inputs, aux);
  for (uint64_t i = 0; i < m.a.size(); ++i) {
    if (m.a[i] * m.b[i] != m.c[i]) return i;
  }
  return std::nullopt;
}

// The circuit to prove or to set up: a PCE from a .pce file, a circom .r1cs or a built-in
// circuit; plus, for built-in circuits, their own witness.
struct Circuit {
  pce::Pce pce;
  std::optional<circuits::BuiltinWitness> builtin_witness;
};

Circuit load_circuit(const Groth16Options& o) {
  const int sources = !o.pce.empty() + !o.r1cs.empty() + !o.circuit.empty();
  if (sources != 1) throw UsageError("give exactly one of --pce, --r1cs, --circuit");
  Circuit c;
  if (!o.sector_size.empty() && o.circuit != "porep") throw UsageError("--sector-size goes with --circuit porep");
  if (o.circuit == "porep" && o.sector_size.empty()) throw UsageError("--circuit porep needs --sector-size");
  if (const auto shape = porep_shape_of(o.circuit, o.sector_size)) {
    c.pce = porep_pce(*shape, "porep:" + filecoin::sector_size_name(shape->nodes * 32), o.quiet);
  } else if (const filecoin::RegisteredPostProof* post = post_proof_of(o.circuit)) {
    c.pce = post_pce(*post, o.circuit, o.quiet);
  } else if (const filecoin::RegisteredUpdateProof* update = update_proof_of(o.circuit)) {
    c.pce = snap_pce(*update, o.quiet);
  } else if (!o.pce.empty()) {
    c.pce = must(pce::load_pce(o.pce));
  } else if (!o.r1cs.empty()) {
    c.pce = must(pce::pce_from_circom_file(o.r1cs));
  } else {
    auto spec = circuits::parse_builtin(o.circuit);
    if (!spec) throw UsageError(spec.error());
    c.pce = pce::build_pce(circuits::record_builtin(*spec), {"builtin:" + spec->name(), {}, false});
    c.builtin_witness = circuits::witness_builtin(*spec);
  }
  return c;
}

std::atomic<bool> g_interrupted{false};
void on_interrupt(int) {
  g_interrupted.store(true);
}

int run_setup(const Groth16Options& o) {
  const auto t0 = Clock::now();
  Circuit c = load_circuit(o);
  const double load_s = since(t0);
  const std::unique_ptr<groth16::FixedBaseMultiplier> mul =
      backend::make_setup_multiplier(backend::parse_backend_kind(o.backend), o.devices);
  groth16::SetupFileStats st;
  {
    // Ctrl-C (or SIGTERM) stops at the next chunk and removes the partial file; a second one kills.
    struct sigaction sa {
    }, old_int{}, old_term{};
    sa.sa_handler = on_interrupt;
    sa.sa_flags = SA_RESETHAND;
    ::sigaction(SIGINT, &sa, &old_int);
    ::sigaction(SIGTERM, &sa, &old_term);
    Progress bar("setup", 1, !o.quiet);
    groth16::SetupFileOptions so;
    so.vk_path = o.vk;
    so.progress = bar.callback();
    so.cancelled = [] { return g_interrupted.load(); };
    auto made = groth16::setup_to_file(c.pce, groth16::ToxicWaste::from_seed(o.seed), o.params, *mul, so);
    bar.finish();
    ::sigaction(SIGINT, &old_int, nullptr);
    ::sigaction(SIGTERM, &old_term, nullptr);
    if (!made.ok() && g_interrupted.load()) {
      std::fprintf(stderr, "setup: interrupted; no file was written\n");
      return 130;
    }
    st = must(std::move(made));
  }
  std::fprintf(stderr,
               "setup: %llu constraints, %zu inputs, %zu aux: circuit %.2f s, setup %.2f s on %s (QAP %.2f, points "
               "%.2f, waiting for the disk %.2f); %.2f GB written (%llu G1 + %llu G2 points)\n",
               static_cast<unsigned long long>(c.pce.num_constraints()), static_cast<size_t>(c.pce.num_inputs()),
               static_cast<size_t>(c.pce.num_aux()), load_s, st.total_s, mul->describe().c_str(), st.qap_s,
               st.multiply_s, st.write_wait_s, static_cast<double>(st.file_bytes) / 1e9,
               static_cast<unsigned long long>(st.g1_points), static_cast<unsigned long long>(st.g2_points));
  std::fprintf(stderr,
               "setup: TEST-ONLY parameters (toxic waste derived from seed %llu); never use them in production\n",
               static_cast<unsigned long long>(o.seed));
  return 0;
}

int prove_zkey_cmd(const Groth16Options& o) {
  if (o.wtns.size() != 1 || o.proof.empty()) throw UsageError("--zkey needs one --wtns and --proof");
  logging::init_logging(o.verbose ? "debug" : "warn", "text");
  const auto t0 = Clock::now();
  const groth16::Zkey zkey = must(groth16::load_zkey(o.zkey));
  const std::vector<Fr> w = must(circom::load_wtns(o.wtns[0]));
  const double load_s = since(t0);
  groth16::ProveTimings t;
  SystemRng rng;
  const Fr r = Fr::random(rng), s = Fr::random(rng);
  const auto tp = Clock::now();
  backend::BatchProver prover(zkey, cli_placement(o));
  const backend::WitnessRef wr = backend::FullWitness{w};
  std::vector<backend::StageReport> where;
  const groth16::Proof proof = prover.prove_many({&wr, 1}, {&r, 1}, {&s, 1}, &t, &where).at(0);
  const double prove_s = since(tp);
  const std::string& used = where.at(0).backend;
  // snarkjs's key holds no C matrix to check the witness against: the proof itself is checked.
  require_valid(groth16::vk_from_zkey(zkey), proof, std::span(w).subspan(1, zkey.n_public),
                "the witness does not satisfy the circuit (or the key is corrupt)");
  write_file_atomically(o.proof, groth16::write_snarkjs_proof(proof));
  if (!o.public_json.empty()) {
    write_file_atomically(o.public_json, groth16::write_snarkjs_public(std::span(w).subspan(1, zkey.n_public)));
  }
  if (o.verbose) {
    std::fprintf(stderr,
                 "prove: load %.3f s | backend %s | abc %.3f  h %.3f  msm a %.3f b1 %.3f b2 %.3f c+h %.3f  "
                 "finish %.3f | prove %.3f s\n",
                 load_s, used.c_str(), t.matvec_s, t.h_poly_s, t.msm_a_s, t.msm_b_g1_s, t.msm_b_g2_s,
                 t.msm_l_s + t.msm_h_s, t.finalize_s, prove_s);
  }
  return 0;
}

int prove_params_cmd(const Groth16Options& o) {
  if (o.proof.empty()) throw UsageError("--params needs --proof");
  logging::init_logging(o.verbose ? "debug" : "warn", "text");  // backend choice and GPU fallbacks, on stderr
  const auto t0 = Clock::now();
  Circuit c = load_circuit(o);
  // One witness per proof: every --wtns in order (partitions), or the built-in circuit's own.
  std::vector<std::vector<Fr>> inputs, aux;
  for (const std::string& path : o.wtns) {
    const std::vector<Fr> w = must(circom::load_wtns(path));
    if (w.size() != c.pce.num_columns()) {
      throw std::runtime_error(path + ": the witness has " + std::to_string(w.size()) + " values, the circuit needs " +
                               std::to_string(c.pce.num_columns()));
    }
    const auto split = w.begin() + static_cast<std::ptrdiff_t>(c.pce.num_inputs());
    inputs.emplace_back(w.begin(), split);
    aux.emplace_back(split, w.end());
  }
  if (o.wtns.empty()) {
    if (!c.builtin_witness) throw UsageError("give --wtns (only built-in circuits bring their own witness)");
    inputs.push_back(std::move(c.builtin_witness->inputs));
    aux.push_back(std::move(c.builtin_witness->aux));
  }
  const bool json_out = ends_with(o.proof, ".json");
  if (json_out && inputs.size() != 1)
    throw UsageError("a proof.json holds one proof: use a binary --proof for several");
  const groth16::ProvingKey pk = read_params_with_progress(o.params, o.quiet);
  const double load_s = since(t0);
  const auto t1 = Clock::now();
  const auto be = std::make_unique<backend::BatchProver>(pk, c.pce, cli_placement(o));
  const double backend_s = since(t1);
  groth16::ProveTimings t;
  std::vector<groth16::Witness> ws;
  for (size_t i = 0; i < inputs.size(); ++i) ws.push_back({inputs[i], aux[i]});
  std::vector<Fr> r(ws.size()), s(ws.size());
  {
    SystemRng rng;
    for (size_t i = 0; i < ws.size(); ++i) r[i] = Fr::random(rng), s[i] = Fr::random(rng);
  }
  const auto t2 = Clock::now();
  const std::vector<groth16::Proof> proofs = be->prove_many(ws, r, s, &t);
  const double prove_s = since(t2);
  const groth16::PreparedVerifyingKey pvk = groth16::prepare(pk.vk);  // once, not per proof
  for (size_t i = 0; i < proofs.size(); ++i) {
    const auto first = std::span<const Fr>(inputs[i]).subspan(1);
    if (must(groth16::verify(pvk, proofs[i], first))) continue;
    // Only on failure: one MatVec names the constraint (the common case pays one pairing check).
    const std::string which = (ws.size() > 1 ? "witness " + std::to_string(i) + " " : std::string("the witness "));
    const auto row = first_unsatisfied(c.pce, inputs[i], aux[i]);
    throw std::runtime_error(
        "the proof does not verify, so none was written: " +
        (row ? which + "does not satisfy constraint " + std::to_string(*row)
             : which + "satisfies every constraint, so the key does not belong to this circuit or is corrupt"));
  }
  if (json_out) {
    write_file_atomically(o.proof, groth16::write_snarkjs_proof(proofs[0]));
  } else {
    write_proofs(o.proof, proofs);
  }
  if (!o.public_json.empty()) {
    // One proof: snarkjs's public.json. Several: a JSON array of such arrays, in proof order.
    std::string text;
    for (size_t i = 0; i < inputs.size(); ++i) {
      const std::string one = groth16::write_snarkjs_public(std::span(inputs[i]).subspan(1));
      text += inputs.size() == 1 ? one : (i == 0 ? "[\n" : ",\n") + one;
    }
    if (inputs.size() > 1) text += "\n]";
    write_file_atomically(o.public_json, text);
  }
  if (o.verbose) {
    std::fprintf(
        stderr,
        "prove: load %.3f s | backend %s (ready in %.3f s) | matvec %.3f  h %.3f  msm h %.3f l %.3f a %.3f b_g1 %.3f "
        "b_g2 %.3f  finalize %.3f | prove %.3f s (wall)\n",
        load_s, be->name().c_str(), backend_s, t.matvec_s, t.h_poly_s, t.msm_h_s, t.msm_l_s, t.msm_a_s, t.msm_b_g1_s,
        t.msm_b_g2_s, t.finalize_s, prove_s);
  }
  return 0;
}

int run_verify(const Groth16Options& o) {
  if (o.vk.empty() || o.proof.empty() || o.public_json.empty())
    throw UsageError("verify needs --vk, --proof, --public");
  const groth16::VerifyingKey vk =
      ends_with(o.vk, ".json") ? must(groth16::load_snarkjs_vk(o.vk)) : must(groth16::read_vk(o.vk));
  groth16::Proof proof;
  if (ends_with(o.proof, ".json")) {
    proof = must(groth16::load_snarkjs_proof(o.proof));
  } else {
    const std::vector<groth16::Proof> proofs = read_proofs(o.proof);
    if (proofs.size() > 1) {
      // Several proofs (partitions): public.json is an array of per-proof arrays; one batch check.
      const auto outer = nlohmann::json::parse(read_text(o.public_json), nullptr, false);
      if (!outer.is_array() || outer.size() != proofs.size() || !outer[0].is_array()) {
        throw std::runtime_error(o.public_json + ": expected an array of " + std::to_string(proofs.size()) +
                                 " arrays of public inputs, one per proof");
      }
      std::vector<std::vector<Fr>> inputs;
      for (size_t i = 0; i < outer.size(); ++i) {
        inputs.push_back(
            must(groth16::parse_snarkjs_public(outer[i].dump(), o.public_json + "[" + std::to_string(i) + "]")));
      }
      const bool ok = must(groth16::verify_batch(groth16::prepare(vk), proofs, inputs));
      if (!o.quiet) {
        std::printf("%s\n", ok ? ("OK: all " + std::to_string(proofs.size()) + " proofs are valid").c_str()
                               : "INVALID: at least one proof does not verify");
      }
      return ok ? 0 : 1;
    }
    proof = proofs[0];
  }
  const std::vector<Fr> inputs = must(groth16::load_snarkjs_public(o.public_json));
  const bool ok = must(groth16::verify(groth16::prepare(vk), proof, inputs));
  if (!o.quiet) std::printf("%s\n", ok ? "OK: the proof is valid" : "INVALID: the proof does not verify");
  return ok ? 0 : 1;
}

int run_export_vk(const Groth16Options& o) {
  if (o.json_out.empty()) throw UsageError("export-vk needs --json");
  groth16::VerifyingKey vk;
  if (!o.zkey.empty()) {
    vk = groth16::vk_from_zkey(must(groth16::load_zkey(o.zkey)));
  } else if (!o.vk.empty()) {
    vk = must(groth16::read_vk(o.vk));
  } else {
    throw UsageError("export-vk needs --vk or --zkey");
  }
  write_file_atomically(o.json_out, groth16::write_snarkjs_vk(vk));
  return 0;
}

void add_circuit_options(CLI::App* app, Groth16Options& o) {
  app->add_option("--pce", o.pce, "Pre-compiled circuit (.pce)")->check(CLI::ExistingFile);
  app->add_option("--r1cs", o.r1cs, "circom .r1cs (compiled with --prime bls12381)")->check(CLI::ExistingFile);
  app->add_option("--circuit", o.circuit,
                  "Built-in circuit:\n" + circuits::builtin_help() +
                      "  porep (with --sector-size 2KiB|8MiB|512MiB|32GiB|64GiB) or porep:SIZE: the PoRep C2 partition "
                      "circuit; window-post:SIZE or winning-post:SIZE: the PoSt partition circuit; snap:SIZE: the "
                      "SnapDeals partition circuit");
  app->add_option("--sector-size", o.sector_size, "With --circuit porep: the sector size");
}

}  // namespace

void add_groth16_commands(CLI::App& app, Groth16Options& o) {
  auto* setup = app.add_subcommand(
      "setup", "TEST-ONLY single-party Groth16 setup (toxic waste from --seed): writes .params and .vk");
  add_circuit_options(setup, o);
  setup->add_option("--params", o.params, "Output .params (bellperson layout)")->required();
  setup->add_option("--vk", o.vk, "Output .vk");
  setup->add_option("--seed", o.seed, "Seed of the toxic waste (TEST-ONLY: anyone with it can forge proofs)");
  setup->add_flag("-q,--quiet", o.quiet, "No progress bar");
  setup->add_option("--threads", o.threads, "Worker threads (default: all)")->check(CLI::Range(1, 4096));
  setup
      ->add_option("--backend", o.backend,
                   "Where the fixed-base multiplications run: cpu, gpu, or auto (the GPU when one is found; default); "
                   "the same seed gives the same bytes on either")
      ->check(CLI::IsMember({"cpu", "gpu", "auto"}));
  setup->add_option("--device", o.devices, "GPU ordinal to use (default: the first)");
  setup->callback([&o] { o.action = "setup"; });

  auto* prove = app.add_subcommand("prove", "Prove: --zkey Z --wtns W (snarkjs) or --params P with a circuit");
  prove->add_option("--zkey", o.zkey, "snarkjs Groth16 proving key")->check(CLI::ExistingFile);
  prove->add_option("--params", o.params, "bellperson .params")->check(CLI::ExistingFile);
  add_circuit_options(prove, o);
  prove->add_option("--wtns", o.wtns, "Witness (.wtns); with --params, repeat it for several proofs (partitions)")
      ->check(CLI::ExistingFile);
  prove->add_option("--proof", o.proof, "Output: *.json = snarkjs proof.json, else 192-byte bellperson proof")
      ->required();
  prove->add_option("--public", o.public_json, "Output public.json (public inputs without ONE)");
  prove
      ->add_option("--backend", o.backend,
                   "Where MatVec, H and the MSMs run: cpu, gpu, or auto (the GPU when one is found; default)")
      ->check(CLI::IsMember({"cpu", "gpu", "auto"}));
  prove->add_option("--device", o.devices, "GPU ordinal to use (repeat for several; default: all)");
  prove->add_flag("--g2-cpu", o.g2_on_cpu, "With a GPU backend, run the G2 MSM on the CPU (overlapping the GPU)");
  prove
      ->add_option("--gpu-memory-limit", o.gpu_memory_limit,
                   "Device memory the prover may take on each GPU (e.g. 16GiB; as gpus.memory_limit): a key that "
                   "does not fit resident under it streams its bases from host memory")
      ->check([](const std::string& v) -> std::string {
        auto bytes = engine::parse_size(v);
        if (!bytes) return bytes.error();
        return *bytes == 0 ? "a cap of 0 bytes leaves no room for any prover" : "";
      });
  prove->add_flag("-v,--verbose", o.verbose, "Per-stage timings on stderr");
  prove->add_option("--threads", o.threads, "Worker threads (default: all)")->check(CLI::Range(1, 4096));
  prove->add_flag("--porep", o.porep,
                  "PoRep C2: prove every partition of --c1 with --params (optionally --pce), write 192 bytes per "
                  "partition to --proof after verifying them");
  prove->add_option("--c1", o.c1, "--porep: the C1 output (raw JSON or the {SectorNum, Phase1Out, SectorSize} wrapper)")
      ->check(CLI::ExistingFile);
  prove->add_option("--partition", o.partitions, "--porep: prove only these partitions (repeatable), in this order");
  prove
      ->add_option("--post", o.post,
                   "PoSt: prove the partition of this PoSt request file (`cuzk post vanilla`) with --params, "
                   "write the proof to --proof after verifying it")
      ->check(CLI::ExistingFile);
  prove
      ->add_option("--snap", o.snap,
                   "SnapDeals: prove every partition of this request file (`cuzk snap vanilla`) with --params, write "
                   "192 bytes per partition to --proof after verifying them")
      ->check(CLI::ExistingFile);
  prove->add_flag("--json", o.json, "--porep/--post/--snap: a JSON summary on stdout");
  prove->add_flag("-q,--quiet", o.quiet, "No progress bar or summary");
  prove->callback([&o] { o.action = "prove"; });

  auto* verify = app.add_subcommand("verify", "Verify a proof: exit 0 valid, 1 invalid, 2 error");
  verify->add_option("--vk", o.vk, "Verifying key: .vk (bellperson) or verification_key.json (snarkjs)")
      ->required()
      ->check(CLI::ExistingFile);
  verify->add_option("--proof", o.proof, "proof.json or a 192-byte proof")->required()->check(CLI::ExistingFile);
  verify->add_option("--public", o.public_json, "public.json (not with --porep)")->check(CLI::ExistingFile);
  verify->add_flag("-q,--quiet", o.quiet, "Exit code only");
  verify->add_flag("--porep", o.porep,
                   "PoRep C2: --proof holds one proof per partition; public inputs are derived from --c1");
  verify->add_option("--c1", o.c1, "--porep: the C1 output the proof was made from")->check(CLI::ExistingFile);
  verify->add_option("--partition", o.partitions, "--porep: the partitions the proof holds (default: all)");
  verify->add_option("--post", o.post, "PoSt: the request file the proof was made from (inputs derived from it)")
      ->check(CLI::ExistingFile);
  verify
      ->add_option("--snap", o.snap,
                   "SnapDeals: the request file the proof was made from (--proof: one proof per partition; inputs "
                   "derived from the file)")
      ->check(CLI::ExistingFile);
  verify->add_flag("--json", o.json, "--porep/--post/--snap: {\"valid\": ...} on stdout");
  verify->callback([&o] { o.action = "verify"; });

  auto* ex = app.add_subcommand("export-vk", "Write a verifying key as snarkjs verification_key.json");
  ex->add_option("--vk", o.vk, ".vk file")->check(CLI::ExistingFile);
  ex->add_option("--zkey", o.zkey, "or a .zkey")->check(CLI::ExistingFile);
  ex->add_option("--json", o.json_out, "Output verification_key.json")->required();
  ex->callback([&o] { o.action = "export-vk"; });
}

int run_groth16(const Groth16Options& o) {
  try {
    if (o.action == "setup") return run_setup(o);
    if (o.action == "prove" && !o.post.empty()) {
      if (o.params.empty() || o.porep || !o.snap.empty() || !o.zkey.empty() || !o.wtns.empty() || !o.r1cs.empty() ||
          !o.circuit.empty())
        throw UsageError("prove --post takes --params, --pce and --proof only");
      return post_prove(o);
    }
    if (o.action == "verify" && !o.post.empty()) {
      if (o.porep || !o.snap.empty() || !o.public_json.empty())
        throw UsageError("verify --post takes --vk and --proof (the inputs come from the request file)");
      try {
        return post_verify(o);
      } catch (const std::exception& e) {  // unreadable or malformed inputs: exit 2, not "invalid"
        std::cerr << "cuzk: error: " << e.what() << "\n";
        return 2;
      }
    }
    if (o.action == "prove" && !o.snap.empty()) {
      if (o.params.empty() || o.porep || !o.post.empty() || !o.zkey.empty() || !o.wtns.empty() || !o.r1cs.empty() ||
          !o.circuit.empty())
        throw UsageError("prove --snap takes --params, --pce and --proof only");
      return snap_prove(o);
    }
    if (o.action == "verify" && !o.snap.empty()) {
      if (o.porep || !o.post.empty() || !o.public_json.empty())
        throw UsageError("verify --snap takes --vk and --proof (the inputs come from the request file)");
      try {
        return snap_verify(o);
      } catch (const std::exception& e) {  // unreadable or malformed inputs: exit 2, not "invalid"
        std::cerr << "cuzk: error: " << e.what() << "\n";
        return 2;
      }
    }
    if (o.action == "prove" && o.porep) {
      if (o.c1.empty() || o.params.empty()) throw UsageError("prove --porep needs --c1 and --params");
      if (!o.zkey.empty() || !o.wtns.empty() || !o.r1cs.empty() || !o.circuit.empty())
        throw UsageError("prove --porep takes --c1, --params, --pce and --proof only");
      return porep_prove(o);
    }
    if (o.action == "prove") {
      if (!o.zkey.empty() && !o.params.empty()) throw UsageError("give --zkey or --params, not both");
      if (!o.zkey.empty()) return prove_zkey_cmd(o);
      if (!o.params.empty()) return prove_params_cmd(o);
      throw UsageError("prove needs --zkey or --params");
    }
    if (o.action == "verify") {
      if (o.porep && (o.c1.empty() || !o.public_json.empty()))
        throw UsageError("verify --porep needs --c1 (and no --public: the inputs come from C1)");
      if (!o.porep && o.public_json.empty()) throw UsageError("verify needs --public (or --porep --c1)");
      try {
        return o.porep ? porep_verify(o) : run_verify(o);
      } catch (const UsageError&) {
        throw;
      } catch (const std::exception& e) {  // unreadable or malformed inputs: exit 2, not "invalid"
        std::cerr << "cuzk: error: " << e.what() << "\n";
        return 2;
      }
    }
    if (o.action == "export-vk") return run_export_vk(o);
  } catch (const UsageError& e) {
    std::cerr << "cuzk: usage: " << e.what() << "\n";
    return 2;
  }
  return 2;
}

}  // namespace cuzk::cli
