#pragma once
// Subcommands of the `cuzk` CLI. Each registers its options on the app and returns the flag that
// tells whether it was chosen; run_* returns the process exit code.
#include <cstdint>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace cuzk::cli {

struct SpeedOptions {
  unsigned threads = 0;  // 0 = all hardware threads
  bool json = false;
  bool full = false;   // add the large sizes (MSM 2^22, G2 2^18/2^20, NTT 2^24)
  bool quick = false;  // small sizes only (smoke test)
  bool gpu = false;    // add the GPU rows (end-to-end proofs of the built-in circuits)
  std::string only;    // comma-separated row keys to run
};
int run_speed(const SpeedOptions& o);

struct SelfcheckOptions {
  bool json = false;
};
int run_selfcheck(const SelfcheckOptions& o);

struct PceOptions {
  std::string action;  // extract | info | verify | bench (set by the parser)
  std::string r1cs, circuit, output, circuit_id, encoding = "auto", file, mode = "mmap";
  double synthetic_scale = 0;
  unsigned reps = 3;
  unsigned threads = 0;
  bool json = false;
  bool quiet = false;
};
// Registers `pce` and its subcommands; returns the `pce` subcommand.
CLI::App* add_pce_command(CLI::App& app, PceOptions& o);
int run_pce(const PceOptions& o);

struct Groth16Options {
  std::string action;  // setup | prove | verify | export-vk (set by the parser)
  std::string pce, r1cs, circuit, params, vk, zkey, proof, public_json, json_out;
  std::vector<std::string> wtns;  // --params: one proof per witness (partitions), in order
  uint64_t seed = 1;
  unsigned threads = 0;           // 0 = all hardware threads
  std::string backend = "auto";   // prove: cpu | gpu | auto
  std::vector<unsigned> devices;  // prove: GPU ordinals (empty: all)
  bool g2_on_cpu = false;         // prove --backend gpu: the G2 MSM on the CPU
  std::string gpu_memory_limit;   // prove: a cap on each GPU ("16GiB"; the daemon's gpus.memory_limit)
  bool verbose = false;
  bool quiet = false;
  // PoRep C2: --porep --c1 FILE (prove, verify); --sector-size with --circuit porep (setup).
  bool porep = false;
  std::string c1, sector_size;
  std::vector<uint32_t> partitions;  // empty: all of the C1 output's partitions
  bool json = false;                 // prove/verify --porep/--post/--snap: a JSON summary on stdout
  std::string post;                  // prove/verify --post: a PoSt request file (`cuzk post vanilla`)
  std::string snap;                  // prove/verify --snap: a SnapDeals request file (`cuzk snap vanilla`)
};
void add_groth16_commands(CLI::App& app, Groth16Options& o);
int run_groth16(const Groth16Options& o);

struct CircuitOptions {
  std::string action;  // info (set by the parser)
  std::string circuit;
  std::string hasher = "sha256";
  size_t arity = 2, sub_arity = 0, top_arity = 0, leaves = 0, size = 8, bits = 512;
  bool private_root = false;
  bool json = false;
  std::string sector_size;               // porep
  std::string proof;                     // porep: a registered seal proof name instead of --sector-size
  uint32_t sectors = 3, challenges = 5;  // post-test (tests/fallback_circuit.rs's 3 x 5)
};
// Registers `circuit` and its subcommands; returns the `circuit` subcommand.
CLI::App* add_circuit_command(CLI::App& app, CircuitOptions& o);
int run_circuit(const CircuitOptions& o);

struct SealOutputOptions {
  std::string out;
  bool wrapper = false;
};
struct SealOptions {
  std::string action;  // seal | synth-c1 (set by the parser)
  std::string sector_size, proof, data, prover_id;
  std::string cache;  // seal: also write the sealed cache (filecoin/sector_cache.hpp) here
  std::string ticket = "0101010101010101010101010101010101010101010101010101010101010101";
  std::string seed = "0202020202020202020202020202020202020202020202020202020202020202";
  uint64_t rng_seed = 1, sector_id = 1, actor_id = 1000;
  bool random = false;
  bool json = false;
  bool verbose = false;
  SealOutputOptions output;
};
// Registers `seal` and `synth-c1`.
void add_seal_commands(CLI::App& app, SealOptions& o);
int run_seal(const SealOptions& o);

struct PostOptions {
  std::string action;   // vanilla or witness (set by the parser)
  std::string request;  // witness: the PoSt request file
  bool check = false;   // witness: compare with the circuit's synthesis
  unsigned threads = 0;
  std::string kind = "window", sector_size, proof, out;
  std::string randomness = "0303030303030303030303030303030303030303030303030303030303030303";
  uint32_t sectors = 1, partition_index = 0;
  uint64_t first_sector = 1, actor_id = 1000, rng_seed = 1;
  bool json = false;
};
// Registers `post` and its subcommands.
void add_post_commands(CLI::App& app, PostOptions& o);
int run_post(const PostOptions& o);
// `post witness` (cmd_post_witness.cpp).
void add_post_witness_command(CLI::App& post, PostOptions& o);
int run_post_witness(const PostOptions& o);

struct SynthPostOptions {
  std::string kind = "window", sector_size, proof, randomness, prover_id, out;
  uint32_t sectors = 0;  // 0: a full WindowPoSt partition, a WinningPoSt set of one sector
  uint32_t partition_index = 0;
  uint64_t first_sector = 1, miner_id = 1000, seed = 1;
  bool json = false;
};
// Registers `synth-post`; returns it.
CLI::App* add_synth_post_command(CLI::App& app, SynthPostOptions& o);
int run_synth_post(const SynthPostOptions& o);
struct SnapOptions {
  std::string action;  // encode | vanilla | witness (set by the parser)
  std::string cache, update, data, out;
  bool random = false;
  uint64_t rng_seed = 1;
  bool json = false;
  std::string request;               // witness: the SnapDeals request file
  std::vector<uint32_t> partitions;  // witness: those partitions (default: all)
  bool check = false;                // witness: compare with the circuit's synthesis
  unsigned threads = 0;
};
// Registers `snap` and its subcommands.
void add_snap_commands(CLI::App& app, SnapOptions& o);
int run_snap(const SnapOptions& o);
// `snap witness` (cmd_snap_witness.cpp).
void add_snap_witness_command(CLI::App& snap, SnapOptions& o);
int run_snap_witness(const SnapOptions& o);

struct SynthSnapOptions {
  std::string sector_size, out;
  uint64_t seed = 1, sector_id = 1, miner_id = 1000;
  bool json = false;
};
// Registers `synth-snap`; returns it.
CLI::App* add_synth_snap_command(CLI::App& app, SynthSnapOptions& o);
int run_synth_snap(const SynthSnapOptions& o);

struct DoctorOptions {
  std::string config;    // the daemon's cuzk.toml; empty: the defaults
  bool digests = false;  // hash the official parameter files (minutes)
  bool json = false;
};
// Registers `doctor`; returns its subcommand.
CLI::App* add_doctor_command(CLI::App& app, DoctorOptions& o);
int run_doctor(const DoctorOptions& o);

// "model name" of the CPU, core count and ISA flags that matter to us, for reports.
std::string cpu_model();

}  // namespace cuzk::cli
