// cuzk-bench: a client of the cuzk daemon for single proofs, throughput batches and daemon
// administration, plus an in-process PCE benchmark. Exit codes: 0 success, 1 a failure (an RPC
// error, a failed or invalid proof, a spawned daemon that did not exit cleanly), 2 bad usage.
#include <CLI/CLI.hpp>
#include <chrono>
#include <exception>
#include <iostream>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "client.hpp"
#include "commands.hpp"
#include "daemon_spawner.hpp"
#include "interrupt.hpp"
#include "request.hpp"
#include "util/cpu_features.hpp"

namespace {

using namespace cuzk::bench;

const char* kFooter = R"(Addresses: unix:///path/to/socket or host:port (default: the daemon's default,
unix://$XDG_DATA_HOME/cuzk/cuzk.sock, or ~/.local/share/cuzk/cuzk.sock).
--spawn-daemon PATH starts a private daemon on a temporary socket for this run and stops it
afterwards (its exit code is reported); pass daemon flags with --daemon-arg=--flag=value.
Built-in circuit ids: chain:N and filecoin-like:N (N = constraints, a number or 2^k).
Exit codes: 0 success, 1 failure (RPC error, failed or invalid proof), 2 bad usage.)";

void print_json(const nlohmann::json& j) {
  std::cout << j.dump(2) << "\n";
}

// Every command's options, as CLI11 fills them.
struct Cli {
  GlobalOptions g;
  std::string single_type = "generic", batch_type = "generic";
  SingleOptions single;
  BatchOptions batch;
  std::string preload_circuit, evict_circuit, cancel_job;
  StatusOptions status;
  PceBenchOptions pce;
};

const std::vector<std::string> kPriorities{"default", "low", "normal", "high", "critical"};

void add_global_options(CLI::App& app, Cli& o) {
  app.add_option("-a,--addr", o.g.addr, "Daemon address: unix:///path or host:port (default: the daemon's default)");
  app.add_flag("--json", o.g.json, "Print one JSON object on stdout instead of text");
  app.add_flag("-v,--verbose", o.g.verbose, "Progress and per-proof lines on stderr; the spawned daemon's stderr too");
  app.add_option("--spawn-daemon", o.g.spawn_daemon,
                 "Start this cuzk-daemon on a private unix socket for the run, stop it (SIGTERM) at the end");
  app.add_option("--daemon-arg", o.g.daemon_args, "An argument for the spawned daemon (repeatable; --daemon-arg=--x=y)")
      ->allow_extra_args(false);
  app.add_option("--data-dir", o.g.data_dir, "The spawned daemon's data directory (default: a temporary one)");
  app.add_option("--connect-timeout", o.g.connect_timeout_s, "Seconds to wait for the connection (default 10)")
      ->check(CLI::Range(1u, 3600u));
  app.add_option("--spawn-timeout", o.g.spawn_timeout_s,
                 "Seconds to wait for the spawned daemon's 'listening' line (default 120)")
      ->check(CLI::Range(1u, 86400u));
  app.add_option("--stop-timeout", o.g.stop_timeout_s, "Seconds to wait for the spawned daemon to exit (default 120)")
      ->check(CLI::Range(1u, 86400u));
  app.add_option("--tls-ca", o.g.access.tls_ca, "TLS: the PEM CA certificate that signed the daemon's certificate");
  app.add_option("--tls-cert", o.g.access.tls_cert, "TLS: a PEM client certificate (daemon.tls_client_ca daemons)");
  app.add_option("--tls-key", o.g.access.tls_key, "TLS: the client certificate's PEM private key (mode 0600)");
  app.add_option("--tls-server-name", o.g.access.tls_server_name,
                 "TLS: the name the daemon's certificate carries, when not the address's host");
  app.add_option("--token-file", o.g.access.token_file,
                 "A file (mode 0600) with the daemon's bearer token (daemon.auth_token_file), sent with every call");
}

void add_single(CLI::App& app, Cli& o) {
  auto* s = app.add_subcommand("single", "One proof: server timings, client wall time, verification");
  auto* s_circuit = s->add_option("--circuit", o.single.circuit, "Circuit id (e.g. chain:2^18)");
  auto* s_c1 = s->add_option("--c1", o.single.c1,
                             "PoRep C2 (POREP_SEAL_COMMIT): the C1 output file, raw or wrapped; the proof is checked "
                             "against inputs derived from it")
                   ->check(CLI::ExistingFile);
  s_circuit->excludes(s_c1);
  auto* s_post = s->add_option("--post", o.single.post,
                               "WindowPoSt / WinningPoSt: a PoSt request file (`cuzk post vanilla`); the proof is "
                               "checked against inputs derived from its vanilla proofs")
                     ->check(CLI::ExistingFile);
  s_post->excludes(s_circuit)->excludes(s_c1);
  auto* s_snap = s->add_option("--snap", o.single.snap,
                               "SnapDeals: a SnapDeals request file (`cuzk snap vanilla`); the proofs (one per "
                               "partition) are checked against inputs derived from its commitments")
                     ->check(CLI::ExistingFile);
  s_snap->excludes(s_circuit)->excludes(s_c1)->excludes(s_post);
  s->add_option("--miner-id", o.single.miner_id,
                "PoRep C2: the miner actor id f0N to send (with a wrapped C1's SectorNum); the daemon refuses a C1 "
                "whose replica_id is not that sector's")
      ->needs(s_c1);
  s->add_option("--type", o.single_type, "generic (default) or porep (needs --c1)")
      ->check(CLI::IsMember({"generic", "porep"}));
  s->add_option("--partitions", o.single.partitions, "Partitions (default 1, or one per --input/--wtns)")
      ->check(CLI::Range(1u, 4096u));
  auto* s_input =
      s->add_option("--input", o.single.inputs, "A partition input in hex, up to 64 bytes (repeat per partition)")
          ->allow_extra_args(false);
  auto* s_seed = s->add_option("--seed", o.single.seed, "Derive the partition inputs from this seed (default: random)");
  auto* s_wtns = s->add_option("--wtns", o.single.wtns, "A circom .wtns witness per partition (repeatable)")
                     ->check(CLI::ExistingFile);
  s_input->excludes(s_seed);
  s_wtns->excludes(s_input)->excludes(s_seed);
  s->add_option("--priority", o.single.priority, "low, normal, high or critical (default: the kind's default)")
      ->check(CLI::IsMember(kPriorities));
  s->add_option("--request-id", o.single.request_id, "Idempotency key and job id (default: a fresh random id)");
  s->add_option("--timeout-ms", o.single.timeout_ms,
                "Give up (and cancel the job) after this long (default: no limit)");
  s->add_flag("--no-verify", o.single.no_verify, "Do not verify the proof");
  s->add_flag("--show-proof", o.single.show_proof, "Print the proof bytes in hex");
  s->add_option("--proof-out", o.single.proof_out, "Write the proof (192 bytes per partition) to this file");
}

void add_batch(CLI::App& app, Cli& o) {
  auto* b = app.add_subcommand("batch", "COUNT proofs, at most J in flight: throughput, latency, prover utilization");
  auto* b_circuit = b->add_option("--circuit", o.batch.circuit, "Circuit id (e.g. chain:2^18)");
  auto* b_c1 =
      b->add_option("--c1", o.batch.c1, "PoRep C2: prove this C1 output COUNT times")->check(CLI::ExistingFile);
  b_circuit->excludes(b_c1);
  auto* b_post = b->add_option("--post", o.batch.post,
                               "WindowPoSt / WinningPoSt: PoSt request files (`cuzk post vanilla`, `cuzk synth-post`) "
                               "of one circuit, sent in turn; each proof is checked against inputs derived from its "
                               "file's vanilla proofs")
                     ->check(CLI::ExistingFile);
  b_post->excludes(b_circuit)->excludes(b_c1);
  auto* b_snap = b->add_option("--snap", o.batch.snap,
                               "SnapDeals: request files (`cuzk snap vanilla`, `cuzk synth-snap`) of one sector size, "
                               "sent in turn; each proof (one per partition) is checked against inputs derived from "
                               "its file's commitments")
                     ->check(CLI::ExistingFile);
  b_snap->excludes(b_circuit)->excludes(b_c1)->excludes(b_post);
  b->add_option("--miner-id", o.batch.miner_id, "PoRep C2: the miner actor id f0N to send (see single --miner-id)")
      ->needs(b_c1);
  b->add_option("--type", o.batch_type, "generic (default) or porep (needs --c1)")
      ->check(CLI::IsMember({"generic", "porep"}));
  b->add_option("-c,--count", o.batch.count, "Proofs to measure (default 10)")
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 32));
  b->add_option("-j,--concurrency", o.batch.concurrency, "Proofs in flight at once (default 1)")
      ->check(CLI::Range(1u, 4096u));
  b->add_option("--partitions", o.batch.partitions, "Partitions per proof (default 1)")->check(CLI::Range(1u, 4096u));
  auto* b_wtns = b->add_option("--wtns", o.batch.wtns,
                               "A circom .wtns witness per partition (repeatable), sent with every proof of a "
                               "registered circom or .zkey circuit")
                     ->check(CLI::ExistingFile);
  b_wtns->excludes(b_c1)->excludes(b_post)->excludes(b_snap);
  b->add_option("--priority", o.batch.priority,
                "low, normal, high or critical, or a comma-separated list of them taken in turn (proof i gets "
                "entry i mod its length; default: the kind's default)");
  b->add_option("--cancel-every", o.batch.cancel_every,
                "Cancel every Nth proof (CancelProof after SubmitProof); one that ends CANCELLED is reported as "
                "cancelled, not failed, one that completed first is verified as usual")
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 32));
  b->add_option("--cancel-delay-ms", o.batch.cancel_delay_ms,
                "Wait 0, 1/3, 2/3 or all of this (in turn) between submitting and cancelling (default 0)")
      ->check(CLI::Range(uint64_t{0}, uint64_t{600000}));
  b->add_option("--await-timeout-ms", o.batch.await_timeout_ms,
                "SubmitProof, then AwaitProof with this timeout, again after every TIMEOUT answer (counted as "
                "await_timeouts), instead of one Prove call")
      ->check(CLI::Range(uint64_t{1}, uint64_t{86400000}));
  b->add_option("--timeline", o.batch.timeline, "Write a CSV of events: t_ms,event,proof_index,job_id,detail");
  b->add_option("--timeline-svg", o.batch.timeline_svg,
                "Draw the batch's timeline as an SVG picture: each partition's stages as bars on a time axis, one "
                "row per partition in flight per GPU, the proofs' completions marked");
  b->add_option("--warmup", o.batch.warmup, "Unmeasured proofs to run first (default 0)");
  b->add_option("--timeout-ms", o.batch.timeout_ms, "Per-proof limit; a proof past it fails (default: none)");
  b->add_option("--sample-ms", o.batch.sample_ms, "GetStatus sampling interval (default 100)")
      ->check(CLI::Range(10u, 60000u));
  b->add_flag("--no-verify", o.batch.no_verify, "Do not verify the proofs");
}

void add_admin(CLI::App& app, Cli& o) {
  auto* st = app.add_subcommand("status", "The daemon's status: workers, queues, loaded keys and circuits, memory");
  auto* watch = st->add_option_function<double>(
                      "--watch", [&o](double s) { o.status.watch_s = s; },
                      "Refresh a compact view every SECONDS (default 2) until Ctrl-C: jobs, the queue by priority, "
                      "the provers (GPUs) busy, memory, operations in progress")
                    ->expected(0, 1)
                    ->default_str("2")
                    ->type_name("[SECONDS]")
                    ->check(CLI::Range(0.1, 86400.0));
  st->add_option("--count", o.status.count, "With --watch: stop after N refreshes (exit 0)")
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 32))
      ->needs(watch);
  auto* pre = app.add_subcommand("preload", "Load (or generate) a circuit's keys ahead of use");
  pre->add_option("--circuit", o.preload_circuit, "Circuit id")->required();
  auto* ev = app.add_subcommand("evict", "Drop a circuit's keys from memory");
  ev->add_option("--circuit", o.evict_circuit, "Circuit id")->required();
  app.add_subcommand("metrics", "Print the daemon's Prometheus metrics");
  auto* can = app.add_subcommand("cancel", "Cancel a queued or running job");
  can->add_option("--job", o.cancel_job, "Job id")->required();
}

void add_pce_bench(CLI::App& app, Cli& o) {
  auto* p = app.add_subcommand("pce-bench", "In-process: full synthesis vs PCE extraction and witness + MatVec");
  p->add_option("--circuit", o.pce.circuit, "Built-in circuit (chain:N or filecoin-like:N)")->required();
  p->add_option("--reps", o.pce.reps, "Repetitions (medians are reported; default 3)")->check(CLI::Range(1u, 1000u));
  p->add_option("--threads", o.pce.threads, "Threads for MatVec (default: all hardware threads)")
      ->check(CLI::Range(1u, 4096u));
}

// Usage errors that CLI11's rules do not express, found before any connection. Returns 0 or 2.
int check_usage(const Cli& o, const std::string& name) {
  const GlobalOptions& g = o.g;
  if (!g.spawn_daemon.empty() && !g.addr.empty()) {
    std::cerr << "cuzk-bench: --spawn-daemon and --addr exclude each other\n";
    return 2;
  }
  if (g.spawn_daemon.empty() && (!g.daemon_args.empty() || !g.data_dir.empty())) {
    std::cerr << "cuzk-bench: --daemon-arg and --data-dir need --spawn-daemon\n";
    return 2;
  }

  // single / batch: a circuit id (GENERIC) or a C1 file (PoRep).
  for (auto [opts_type, circuit, c1] : {std::tuple{&o.single_type, &o.single.circuit, &o.single.c1},
                                        std::tuple{&o.batch_type, &o.batch.circuit, &o.batch.c1}}) {
    if (name != (opts_type == &o.single_type ? "single" : "batch")) continue;
    if (*opts_type == "porep" && c1->empty()) {
      std::cerr << "cuzk-bench: --type porep needs --c1 FILE\n";
      return 2;
    }
    const bool post = c1 == &o.single.c1 ? !o.single.post.empty() || !o.single.snap.empty()
                                         : !o.batch.post.empty() || !o.batch.snap.empty();
    if (circuit->empty() && c1->empty() && !post) {
      std::cerr << "cuzk-bench: " << name
                << " needs --circuit ID, --c1 FILE (PoRep), --post FILE (PoSt) or --snap FILE (SnapDeals)\n";
      return 2;
    }
  }

  if (name == "status" && o.status.watch_s && g.json) {
    std::cerr << "cuzk-bench: status --watch draws a view for people; for scripts, run status --json at the interval "
                 "you need\n";
    return 2;
  }
  if (name == "batch") {
    if (auto p = parse_priority_list(o.batch.priority); !p) {  // before any connection: a usage error
      std::cerr << "cuzk-bench: " << p.error() << "\n";
      return 2;
    }
  }

  if (!g.addr.empty()) {
    if (auto t = grpc_target(g.addr); !t) {
      std::cerr << "cuzk-bench: " << t.error() << "\n";
      return 2;
    }
  }
  return 0;
}

// --spawn-daemon: starts it and points address at it. Returns 0, or 1 after the error is reported.
int spawn_daemon(const GlobalOptions& g, const std::string& name, std::unique_ptr<SpawnedDaemon>& daemon,
                 std::string& address) {
  SpawnOptions so;
  so.daemon = g.spawn_daemon;
  so.data_dir = g.data_dir;
  so.extra_args = g.daemon_args;
  so.start_timeout = std::chrono::seconds(g.spawn_timeout_s);
  so.echo_stderr = g.verbose;
  auto d = SpawnedDaemon::start(so);
  if (!d) {
    std::cerr << "cuzk-bench: " << d.error() << "\n";
    if (g.json) print_json({{"command", name}, {"exit_code", 1}, {"error", d.error()}});
    return 1;
  }
  daemon = std::move(*d);
  address = daemon->address();
  if (g.verbose) std::cerr << "spawned daemon pid " << daemon->pid() << ": " << daemon->listening_line() << "\n";
  return 0;
}

// Runs the command against the daemon at address; fills json.
int dispatch(const Cli& o, const std::string& name, const std::string& address, nlohmann::json& json) {
  const GlobalOptions& g = o.g;
  // The connection is closed (at return) before the daemon is stopped: an open one can delay its
  // drain.
  auto client = Client::connect(address, std::chrono::seconds(g.connect_timeout_s), g.access);
  if (!client) {
    std::cerr << "cuzk-bench: " << client.error() << "\n";
    json = {{"command", name}, {"error", client.error()}};
    return 1;
  }
  if (name == "single") return run_single(*client, g, o.single, json);
  if (name == "batch") return run_batch(*client, g, o.batch, json);
  if (name == "status")
    return o.status.watch_s ? run_status_watch(*client, g, o.status, json) : run_status(*client, g, json);
  if (name == "preload") return run_preload(*client, g, o.preload_circuit, json);
  if (name == "evict") return run_evict(*client, g, o.evict_circuit, json);
  if (name == "metrics") return run_metrics(*client, g, json);
  if (name == "cancel") return run_cancel(*client, g, o.cancel_job, json);
  return 1;
}

// Stops the spawned daemon and reports how it exited; a daemon that did not exit cleanly fails a
// run that had passed.
void stop_daemon(const GlobalOptions& g, SpawnedDaemon& daemon, nlohmann::json& json, int& rc) {
  if (g.verbose) std::cerr << "stopping the daemon (SIGTERM) ...\n";
  const DaemonExit e = daemon.stop(std::chrono::seconds(g.stop_timeout_s));
  json["daemon"] = {{"exit_code", e.signal != 0 ? nlohmann::json(nullptr) : nlohmann::json(e.exit_code)},
                    {"signal", e.signal},
                    {"killed", e.killed},
                    {"clean", e.ok()},
                    {"data_dir", g.data_dir.empty() ? nlohmann::json(nullptr) : nlohmann::json(g.data_dir)}};
  if (!g.json) std::cout << "\nspawned daemon: " << e.describe() << "\n";
  if (!e.ok()) {
    const std::string tail = daemon.stderr_tail();
    std::cerr << "cuzk-bench: the spawned daemon did not exit cleanly (" << e.describe() << ")"
              << (tail.empty() ? std::string() : "; its stderr ended with:\n" + tail) << "\n";
    if (rc == 0) rc = 1;
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"cuzk-bench — drive and measure a cuzk proving daemon"};
  app.set_version_flag("--version", std::string("cuzk-bench ") + CUZK_VERSION);
  app.footer(kFooter);
  app.require_subcommand(1);
  app.fallthrough();  // global options may follow the subcommand
  Cli o;
  add_global_options(app, o);
  add_single(app, o);
  add_batch(app, o);
  add_admin(app, o);
  add_pce_bench(app, o);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }

  const GlobalOptions& g = o.g;
  nlohmann::json json = nlohmann::json::object();
  try {
    cuzk::require_cpu_features();
    install_interrupt_handlers();
    const std::string name = app.get_subcommands().front()->get_name();
    if (name == "pce-bench") {
      if (!g.spawn_daemon.empty() || !g.addr.empty()) {
        std::cerr << "cuzk-bench: pce-bench runs in-process; --spawn-daemon and --addr do not apply\n";
        return 2;
      }
      const int rc = run_pce_bench(g, o.pce, json);
      json["exit_code"] = rc;
      if (g.json) print_json(json);
      return rc;
    }
    if (const int rc = check_usage(o, name); rc != 0) return rc;
    std::unique_ptr<SpawnedDaemon> daemon;
    std::string address = g.addr.empty() ? default_address() : g.addr;
    if (!g.spawn_daemon.empty()) {
      if (const int rc = spawn_daemon(g, name, daemon, address); rc != 0) return rc;
    }
    int rc = dispatch(o, name, address, json);
    if (rc == 2) return 2;
    if (json.is_null() || json.empty()) json = {{"command", name}};
    if (daemon) stop_daemon(g, *daemon, json, rc);
    json["exit_code"] = rc;
    if (g.json) print_json(json);
    return rc;
  } catch (const std::exception& e) {
    std::cerr << "cuzk-bench: error: " << e.what() << "\n";
    return 1;
  }
}
