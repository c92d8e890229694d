#pragma once
// The preflight of a host before it takes work: `cuzk doctor` prints it, the daemon logs it at
// start-up. Each check is one line with a status: pass, warn (the daemon runs, but not as well as
// it could, or an operator should know) or fail (work of that kind will fail). Checks: the
// GPUs and whether each proof kind's resident prover fits them; host memory against the budget and
// what each kind needs; the official Filecoin parameter files (names computed as rust-fil-proofs
// names them, sizes, layout, and with `digests` their BLAKE2b digests against parameters.json);
// the PCE directory; the listen address and who may call (TLS, bearer token, metrics endpoint); the
// effective configuration. Nothing is loaded: keys are
// sized from their .params layout, PCE files from their header.
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "backend/device_report.hpp"
#include "engine/config.hpp"
#include "groth16/params_file.hpp"

namespace cuzk::engine {

enum class CheckStatus { Pass, Warn, Fail };
const char* to_string(CheckStatus status);  // "pass", "warn", "fail"

// A value for --json (numbers stay numbers).
using CheckFact = std::variant<std::string, uint64_t, bool>;

struct CheckResult {
  std::string group;  // "config", "gpu", "memory", "params", "kind", "pce", "listen", "access"
  std::string name;   // what was checked: "gpu 0", "porep:32GiB", a file name
  CheckStatus status = CheckStatus::Pass;
  std::string message;  // one line; for warn and fail it says what to do
  std::vector<std::pair<std::string, CheckFact>> facts;
};

struct PreflightOptions {
  // Hash every official parameter file present (BLAKE2b over up to ~100 GB: minutes) and compare
  // with parameters.json. Off, files are checked by name, size and layout only.
  bool digests = false;
  // Called while a file is hashed: its name, bytes done, its size.
  std::function<void(const std::string& file, uint64_t done, uint64_t total)> digest_progress;
};

struct PreflightReport {
  std::vector<CheckResult> checks;
  size_t count(CheckStatus status) const;
  bool failed() const { return count(CheckStatus::Fail) != 0; }
};

// Runs every check against a finalized configuration. Never throws for what it finds (a problem is
// a failed check); only for a broken environment (std::bad_alloc and the like).
PreflightReport run_preflight(const Config& config, const PreflightOptions& options = {});

// The groups, separately (run_preflight calls them in this order); each appends to `out`.
void check_gpus(const Config& config, std::vector<CheckResult>& out);
void check_host_memory(const Config& config, std::vector<CheckResult>& out);
void check_parameter_files(const Config& config, const PreflightOptions& options, std::vector<CheckResult>& out);
void check_proof_kinds(const Config& config, std::vector<CheckResult>& out);
void check_pce_dir(const Config& config, std::vector<CheckResult>& out);
void check_listen(const Config& config, std::vector<CheckResult>& out);
// TLS files and the bearer token file read as the daemon reads them; the metrics endpoint's reach.
void check_access(const Config& config, std::vector<CheckResult>& out);

// Part of check_proof_kinds, on given devices: where a kind with this key layout (and a PCE of
// pce_bytes, 0 when not extracted yet) proves on each GPU the daemon uses (resident, streamed or
// the CPU, with the device memory each takes), appended to `r`'s message and facts
// (gpu:N_placement, gpu:N_device_bytes); the CPU on a GPU warns (fails with gpus.backend = "gpu"),
// a gpus.memory_limit below the streamed prover's smallest workable cap fails naming that cap.
void check_kind_gpus(const Config& config, const backend::DeviceReport& devices, const groth16::ParamsLayout& layout,
                     uint64_t pce_bytes, CheckResult& r);

}  // namespace cuzk::engine
