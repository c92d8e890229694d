#pragma once
// The daemon's configuration (cuzk.toml). Sections follow the seed daemon's (daemon, memory,
// gpus, scheduler, synthesis, srs, logging; curio extern/cuzk/cuzk-core/src/config.rs) plus
// `pce`, `prover`, `tuning` and `[[circuits]]`. Every key is optional; unknown keys and sections
// are errors (a typo must not silently fall back to a default), and so are malformed sizes and
// durations. The seed's own keys that are not ours are the exception (engine/config_seed.cpp):
// read into ours where the meaning is the same, else accepted with a warning, so that the seed's
// cuzk.toml loads unchanged.
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.hpp"
#include "util/tuning.hpp"

namespace cuzk::engine {

struct DaemonSection {
  // "unix:///path" or "host:port". Default: unix://<data_dir>/cuzk.sock.
  std::string listen;
  // TCP on a non-loopback address needs this, and then authentication: TLS (tls_cert + tls_key)
  // or a bearer token (auth_token_file), or both.
  bool allow_remote = false;
  // TLS for a TCP listener: the server's PEM certificate chain and private key (mode 0600). With
  // tls_client_ca, clients must present a certificate signed by that CA (mutual TLS).
  std::string tls_cert;
  std::string tls_key;
  std::string tls_client_ca;
  // A file (mode 0600) holding a token every call must carry as "authorization: Bearer <token>"
  // metadata, on every listener (unix socket included); empty: no token.
  std::string auth_token_file;
  // A unix socket's mode (0600..0777, owner read+write required) and group (a name or a numeric
  // gid; empty: the daemon's own), set right after the bind: 0660 and Curio's group let Curio
  // connect as another user. Only for unix:// listeners.
  unsigned socket_mode = 0600;
  std::string socket_group;
  // TCP only: clients from these networks ("10.0.0.0/8", "fd00::/8"; a bare address is one host)
  // need neither TLS nor a bearer token, for Curio, which sends neither; a connection from any
  // other address is closed before any RPC runs. Not with TLS or a token (a listener is either
  // authenticated or allowlisted); a non-loopback listen address still needs allow_remote.
  std::vector<std::string> allow_unauthenticated_from;
  uint64_t max_message_bytes = 256ull << 20;
  std::string metrics_listen;  // "host:port" for HTTP GET /metrics; empty: off
  std::string data_dir;        // default: $XDG_DATA_HOME/cuzk or ~/.local/share/cuzk
  // Any built-in circuit name ("chain:2^18") is a valid circuit id, with test-only keys
  // generated on first use and cached in <data_dir>/params.
  bool builtin_circuits = true;
};

struct MemorySection {
  uint64_t total_budget = 0;  // bytes; 0 = auto: MemTotal - safety_margin
  uint64_t safety_margin = 5ull << 30;
  double eviction_min_idle_s = 300;  // key: eviction_min_idle (a duration)
};

struct GpusSection {
  // Where partitions' device stage runs: "auto" (every GPU found, else the CPU), "gpu" (an error at
  // start when there is none) or "cpu".
  std::string backend = "auto";
  std::vector<unsigned> devices;  // empty: all
  // Prover workers per device. A device holds one prover per circuit (bases and PCE resident);
  // calls into it are serialized, except that a PCE circuit's GPU prover takes two witnesses at
  // once (two or more workers): the next partition's upload overlaps this one's kernels, for one
  // more witness buffer on the device and one pinned on the host. More workers also let different
  // circuits share a device.
  unsigned workers_per_device = 2;
  // Extra prover workers per device that take only CRITICAL partitions (a WinningPoSt's default):
  // one is free when the others are busy with a long PoRep partition, so the deadline proof runs
  // beside it instead of after it. 0: none.
  unsigned deadline_workers = 1;
  std::string g2_msm = "gpu";  // "gpu" or "cpu": the b_g2 MSM on the CPU, concurrent with the G1 MSMs
  // 0: off; 2..24: precomputed MSM window tables of this width for every resident prover's bases
  // (docs/gpu-msm.md: pays for large MSMs with memory to spare, e.g. 20 for 2^20 circuits whose
  // scalars are mostly not 0/1; dropped for a prover that would not fit the device with them).
  unsigned msm_table_bits = 0;
  // H's transforms beside the l, a and b_g1 MSMs (gpu::GpuProverOptions::overlap_h); the h MSM
  // follows H either way. Off by default (BENCHMARKS.md, "H beside the l, a, b_g1 MSMs").
  bool overlap_h = false;
  // Device memory the daemon may take on a GPU (gpus.memory_limit): a size for every device
  // ("16GiB"), or a table of sizes by ordinal ({ "0" = "16GiB", "1" = "24GiB" }; devices not named
  // there have no cap). For cards shared with other work, and to measure a small card on a large
  // one. A prover that does not fit resident under it streams its key (placement.hpp); 0: no cap.
  uint64_t memory_limit = 0;
  std::map<unsigned, uint64_t> memory_limit_per_device;
  uint64_t memory_limit_of(unsigned device) const {
    const auto it = memory_limit_per_device.find(device);
    return it != memory_limit_per_device.end() ? it->second : memory_limit;
  }
};

struct SchedulerSection {
  unsigned max_pending_jobs = 1024;    // more queued jobs: RESOURCE_EXHAUSTED
  double completed_retention_s = 600;  // key: completed_retention; finished jobs stay awaitable this long
};

struct SynthesisSection {
  unsigned workers = 0;    // 0 = auto (3/8 of the hardware threads, 2..8)
  unsigned threads = 0;    // threads the synthesis workers share; 0 = auto (all hardware threads)
  unsigned lookahead = 0;  // partitions in synthesis or waiting for the prover; 0 = auto (workers)
  // Nice levels below the rest of the daemon for the synthesis threads (0..19): the device stage's
  // host work (the witness into pinned memory, launches) then never waits behind synthesis.
  unsigned nice = 0;
};

struct ProverSection {
  unsigned workers = 1;
  unsigned threads = 0;  // 0 = all cores
  unsigned finalize_workers = 1;
};

struct SrsSection {
  std::string param_dir;             // default: <data_dir>/params
  std::vector<std::string> preload;  // circuit ids loaded at start
  bool check_subgroups = false;      // slow at tens of GiB
  // TEST-ONLY keys for production circuits (porep:*) whose official files are missing. Off: such a
  // circuit is an error naming the file, so a misplaced parameter directory never yields proofs that
  // no chain accepts. Built-in test circuits (chain:N, filecoin-like:N) always use test keys.
  bool allow_test_keys = false;
  // Where TEST-ONLY keys made here are kept (built-in circuits, [[circuits]] test_setup, and the
  // Filecoin circuits under allow_test_keys): "file" (written to param_dir, loaded from there and
  // cached for the next start), "memory" (held in memory only, never written: a 32 GiB WindowPoSt
  // key does not fit a 64 GiB disk; made again after an eviction), or "auto" (file when param_dir's
  // filesystem has room for the key plus a margin, else memory; the choice and why are logged).
  // A test key already cached in param_dir is loaded whatever this says. Real parameters are files.
  std::string test_keys = "auto";
};

struct PceSection {
  std::string dir;  // default: <data_dir>/pce
  bool extract_on_first_use = true;
  bool verify_checksums = true;
};

struct LoggingSection {
  std::string level = "info";   // trace, debug, info, warn, error
  std::string format = "text";  // text or json
};

// A circuit of the registry. Exactly one structure source (builtin, pce, r1cs) or a zkey; keys
// from params (+ optional vk), from the zkey, or generated by the test-only setup when
// `test_setup` is true (cached under <data_dir>/params).
struct CircuitSection {
  std::string id;
  std::string builtin;  // e.g. "chain:2^18" (circuits/builtin.hpp)
  std::string pce;
  std::string r1cs;
  std::string params;
  std::string vk;
  std::string zkey;
  bool test_setup = false;
};

// Something in the file that loads but deserves the operator's attention (a seed key that has no
// effect here): logged at start-up, printed by --check-config and `cuzk doctor`.
struct ConfigWarning {
  std::string key;      // "section.key"
  std::string message;  // one line, naming the key
};

struct Config {
  DaemonSection daemon;
  MemorySection memory;
  GpusSection gpus;
  SchedulerSection scheduler;
  SynthesisSection synthesis;
  ProverSection prover;
  SrsSection srs;
  PceSection pce;
  LoggingSection logging;
  Tuning tuning;  // [tuning]: the kernels' switches (util/tuning.hpp); environment variables override
  std::vector<CircuitSection> circuits;
  // "section.key" of every key the file set (parse_config), to tell a knob that was set but would
  // be ignored (an error in finalize) from a default.
  std::set<std::string> explicit_keys;
  std::vector<ConfigWarning> warnings;
  // Our "section.key" -> the seed daemon's key the file set it with ("prover.threads" ->
  // "gpus.gpu_threads"), so that messages name what the file says.
  std::map<std::string, std::string> seed_names;

  // "prover.threads", or "gpus.gpu_threads (prover.threads here)" when the file used the seed's key.
  std::string key_name(const std::string& key) const;

  // Fills defaults that depend on the environment (data_dir, listen, param_dir, pce dir) and
  // checks cross-field rules (listen syntax, remote TCP needs allow_remote, circuit ids unique
  // and each with one source, sizes > 0).
  Result<bool> finalize();
};

// "5GiB", "512MiB", "2GB", "100MB", "4096" (bytes); "auto" is not accepted here.
Result<uint64_t> parse_size(std::string_view text);
// "5m", "30s", "250ms", "2h", "1d", "1.5h", "10" (seconds).
Result<double> parse_duration(std::string_view text);

// A unix socket mode as the config writes it: "0660".
std::string octal_mode(unsigned mode);

// Makes the relative paths a config file may set (daemon.data_dir, srs.param_dir, pce.dir and the
// files of [[circuits]]) relative to `base_dir` (load_config: the file's directory); absolute and
// empty paths are left alone.
void resolve_relative_paths(Config& config, const std::string& base_dir);

// Parses TOML text; `source` names it in messages ("cuzk.toml:12:3: ..."). Does not finalize and
// does not resolve relative paths.
Result<Config> parse_config(std::string_view toml_text, std::string_view source);
// Reads and parses a file, resolves its relative paths against the file's directory
// (resolve_relative_paths), then finalize(). Errors name the file.
Result<Config> load_config(const std::string& path);
// Defaults only (no file), finalized.
Result<Config> default_config();

// The configuration as TOML that load_config reads back to the same values (sizes in bytes,
// durations in seconds): `cuzk-daemon --check-config`, `cuzk doctor --json`.
std::string config_to_toml(const Config& config);

}  // namespace cuzk::engine
