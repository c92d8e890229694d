// cuzk: command-line entry point. Exit codes: 0 success, 1 a check or operation failed,
// 2 bad usage.
#include <CLI/CLI.hpp>
#include <exception>
#include <iostream>

#include "commands.hpp"
#include "util/cpu_features.hpp"
#include "util/thread_pool.hpp"

int main(int argc, char** argv) {
  CLI::App app{"cuzk — a persistent Groth16 proving engine for BLS12-381 (Filecoin, circom)"};
  app.set_version_flag("--version", std::string("cuzk ") + CUZK_VERSION);
  app.require_subcommand(1);

  cuzk::cli::SpeedOptions speed;
  auto* s = app.add_subcommand("speed", "Measure field, curve, pairing, NTT and MSM speed (like `openssl speed`)");
  s->add_option("--threads", speed.threads, "Worker threads (default: all hardware threads)")
      ->check(CLI::Range(1, 4096));
  s->add_flag("--json", speed.json, "Print one JSON object instead of a table");
  s->add_flag("--full", speed.full, "Also run the large sizes (G1 MSM 2^22, G2 MSM 2^18 and 2^20, NTT 2^24)");
  s->add_flag("--quick", speed.quick, "Small sizes only (seconds; for smoke tests)");
  s->add_flag("--gpu", speed.gpu,
              "Add GPU rows: G1/G2 MSM, NTT, H and MatVec kernels on device-resident data (G1 2^20..2^26, "
              "G2 2^20..2^24; G1 2^22/2^27 and G2 2^22 with --full), and end-to-end proofs of the built-in "
              "circuits (chain 2^16..2^20, filecoin-like 2^20, with and without MSM window tables; 2^22 with "
              "--full) with per-stage times");
  s->add_option("--only", speed.only, "Comma-separated row keys to run (e.g. fr_mul_ns,g1_msm_2_20_ms)");

  cuzk::cli::SelfcheckOptions check;
  auto* c = app.add_subcommand("selfcheck", "Check the arithmetic against built-in known answers (@noble/curves)");
  c->add_flag("--json", check.json, "Print one JSON object instead of a table");

  cuzk::cli::PceOptions pce;
  auto* p = cuzk::cli::add_pce_command(app, pce);
  cuzk::cli::Groth16Options g16;
  cuzk::cli::add_groth16_commands(app, g16);
  cuzk::cli::CircuitOptions circ;
  auto* ci = cuzk::cli::add_circuit_command(app, circ);
  cuzk::cli::SealOptions seal;
  cuzk::cli::add_seal_commands(app, seal);
  cuzk::cli::PostOptions post;
  cuzk::cli::add_post_commands(app, post);
  cuzk::cli::SynthPostOptions synth_post;
  auto* sp = cuzk::cli::add_synth_post_command(app, synth_post);
  cuzk::cli::SnapOptions snap;
  cuzk::cli::add_snap_commands(app, snap);
  cuzk::cli::SynthSnapOptions synth_snap;
  auto* ss = cuzk::cli::add_synth_snap_command(app, synth_snap);
  cuzk::cli::DoctorOptions doctor;
  auto* dr = cuzk::cli::add_doctor_command(app, doctor);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  try {
    cuzk::require_cpu_features();
    if (*s) {
      if (speed.threads) cuzk::ThreadPool::set_global_threads(speed.threads);
      return cuzk::cli::run_speed(speed);
    }
    if (*c) return cuzk::cli::run_selfcheck(check);
    if (!g16.action.empty()) {
      if (g16.threads) cuzk::ThreadPool::set_global_threads(g16.threads);
      return cuzk::cli::run_groth16(g16);
    }
    if (*ci) return cuzk::cli::run_circuit(circ);
    if (*dr) return cuzk::cli::run_doctor(doctor);
    if (!seal.action.empty()) return cuzk::cli::run_seal(seal);
    if (!post.action.empty()) {
      if (post.threads) cuzk::ThreadPool::set_global_threads(post.threads);
      return cuzk::cli::run_post(post);
    }
    if (*sp) return cuzk::cli::run_synth_post(synth_post);
    if (!snap.action.empty()) {
      if (snap.threads) cuzk::ThreadPool::set_global_threads(snap.threads);
      return cuzk::cli::run_snap(snap);
    }
    if (*ss) return cuzk::cli::run_synth_snap(synth_snap);
    if (*p) {
      if (pce.threads) cuzk::ThreadPool::set_global_threads(pce.threads);
      return cuzk::cli::run_pce(pce);
    }
  } catch (const std::exception& e) {
    std::cerr << "cuzk: error: " << e.what() << "\n";
    return 1;
  }
  return 2;
}
