#pragma once
// The subcommands of cuzk-bench. Each run_* prints its human-readable output to stdout (unless
// --json), fills `json` with its machine-readable result, and returns the exit code (0 ok,
// 1 failure). main() prints the JSON object after a spawned daemon has been stopped, so that the
// daemon's exit code is part of it.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "client.hpp"

namespace cuzk::bench {

struct GlobalOptions {
  std::string addr;  // empty: default_address()
  bool json = false;
  bool verbose = false;
  std::string spawn_daemon;
  std::vector<std::string> daemon_args;
  std::string data_dir;
  unsigned connect_timeout_s = 10;
  unsigned spawn_timeout_s = 120;
  unsigned stop_timeout_s = 120;
  AccessOptions access;  // TLS files and the bearer token file
};

struct SingleOptions {
  std::string circuit;
  std::string c1;         // PoRep C2: the C1 file (the circuit follows from it)
  uint64_t miner_id = 0;  // PoRep C2: sent with the wrapper's SectorNum; 0 = not sent
  std::string post;       // WindowPoSt / WinningPoSt: a PoSt request file (`cuzk post vanilla`)
  std::string snap;       // SnapDeals: a SnapDeals request file (`cuzk snap vanilla`)
  std::optional<uint32_t> partitions;
  std::vector<std::string> inputs;  // hex, one per partition
  std::optional<uint64_t> seed;
  std::vector<std::string> wtns;
  std::string priority = "default";
  std::string request_id;
  uint64_t timeout_ms = 0;  // 0: none
  bool no_verify = false;
  bool show_proof = false;
  std::string proof_out;  // write the proof bytes here (atomically)
};
int run_single(Client& client, const GlobalOptions& g, const SingleOptions& o, nlohmann::json& json);

struct BatchOptions {
  std::string circuit;
  std::string c1;                 // PoRep C2: every proof of the batch is this C1's
  uint64_t miner_id = 0;          // PoRep C2: sent with the wrapper's SectorNum; 0 = not sent
  std::vector<std::string> post;  // PoSt: request files, proof i sends post[i % size]
  std::vector<std::string> snap;  // SnapDeals: request files, proof i sends snap[i % size]
  std::vector<std::string> wtns;  // circom witnesses (one per partition), sent with every proof
  uint64_t count = 10;
  unsigned concurrency = 1;
  uint32_t partitions = 1;
  std::string priority = "default";  // a comma-separated list: proof i gets entry i mod its length
  std::string timeline;
  std::string timeline_svg;  // the batch's timeline as a picture
  uint64_t warmup = 0;
  uint64_t timeout_ms = 0;
  uint64_t cancel_every = 0;      // cancel proof i when i % cancel_every == cancel_every - 1; 0: none
  uint64_t cancel_delay_ms = 0;   // the cancels come 0, 1/3, 2/3 or all of this after the submission
  uint64_t await_timeout_ms = 0;  // > 0: SubmitProof + AwaitProof with this timeout, again after each TIMEOUT
  unsigned sample_ms = 100;
  bool no_verify = false;
};
int run_batch(Client& client, const GlobalOptions& g, const BatchOptions& o, nlohmann::json& json);

int run_status(Client& client, const GlobalOptions& g, nlohmann::json& json);
struct StatusOptions {
  std::optional<double> watch_s;  // --watch: refresh every this many seconds
  uint64_t count = 0;             // --count: stop after this many refreshes; 0: until Ctrl-C
};
int run_status_watch(Client& client, const GlobalOptions& g, const StatusOptions& o, nlohmann::json& json);
int run_preload(Client& client, const GlobalOptions& g, const std::string& circuit, nlohmann::json& json);
int run_evict(Client& client, const GlobalOptions& g, const std::string& circuit, nlohmann::json& json);
int run_metrics(Client& client, const GlobalOptions& g, nlohmann::json& json);
int run_cancel(Client& client, const GlobalOptions& g, const std::string& job_id, nlohmann::json& json);

struct PceBenchOptions {
  std::string circuit;
  unsigned reps = 3;
  unsigned threads = 0;  // 0: all hardware threads
};
// In-process (no daemon).
int run_pce_bench(const GlobalOptions& g, const PceBenchOptions& o, nlohmann::json& json);

}  // namespace cuzk::bench
