#pragma once
// Subcommands of the `cuzk` CLI. Each registers its options on the app and returns the flag that
// tells whether it was chosen; run_* returns the process exit code.
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
  bool verbose = false;
  bool quiet = false;
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
};
// Registers `circuit` and its subcommands; returns the `circuit` subcommand.
CLI::App* add_circuit_command(CLI::App& app, CircuitOptions& o);
int run_circuit(const CircuitOptions& o);

// "model name" of the CPU, core count and ISA flags that matter to us, for reports.
std::string cpu_model();

}  // namespace cuzk::cli
