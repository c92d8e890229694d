// The preflight's proving checks: the official Filecoin parameter files in srs.param_dir, and for
// every proof kind the daemon will serve (preloaded, configured, or with official files present)
// the host memory and device memory its keys, PCE and one partition need.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

#include "backend/device_report.hpp"
#include "backend/fit_ladder.hpp"
#include "engine/circuit_registry.hpp"
#include "engine/memory_budget.hpp"
#include "engine/partition_work.hpp"
#include "engine/preflight.hpp"
#include "engine/process_stats.hpp"
#include "engine/srs_manager.hpp"
#include "filecoin/parameter_files.hpp"
#include "filecoin/registered_post_proof.hpp"
#include "filecoin/registered_proof.hpp"
#include "filecoin/registered_update_proof.hpp"
#include "groth16/params_file.hpp"
#include "pce/pce_file.hpp"

namespace cuzk::engine {
namespace fs = std::filesystem;
namespace {

struct FilecoinCircuit {
  std::string id;    // "porep:32GiB", "window-post:32GiB", "winning-post:32GiB", "snap:32GiB"
  std::string stem;  // the v28 file name without extension
};

// Every Filecoin circuit the daemon serves, with the parameter file stem we compute for it.
std::vector<FilecoinCircuit> filecoin_circuits() {
  std::vector<uint64_t> sizes;
  for (const auto& p : filecoin::registered_seal_proofs()) {
    if (std::find(sizes.begin(), sizes.end(), p.shape.sector_size) == sizes.end()) sizes.push_back(p.shape.sector_size);
  }
  std::vector<FilecoinCircuit> out;
  for (uint64_t size : sizes) {
    out.push_back(
        {CircuitRegistry::porep_id(size), filecoin::porep_parameter_file_stem(filecoin::default_seal_proof(size))});
    for (auto type : {filecoin::PostType::kWindow, filecoin::PostType::kWinning}) {
      const auto& proof = filecoin::default_post_proof(type, size);
      out.push_back({filecoin::post_circuit_id(proof), filecoin::post_parameter_file_stem(proof)});
    }
    const auto& update = filecoin::update_proof_of_size(size);
    out.push_back({filecoin::snap_circuit_id(update), filecoin::update_parameter_file_stem(update)});
  }
  return out;
}

// A .vk is the fixed points, a u32 big-endian count and that many G1 points: the size must agree.
std::string vk_layout_error(const std::string& path, uint64_t size) {
  std::ifstream in(path, std::ios::binary);
  unsigned char c[4] = {};
  in.seekg(static_cast<std::streamoff>(groth16::VK_FIXED_BYTES));
  if (!in.read(reinterpret_cast<char*>(c), 4)) return "shorter than a verifying key";
  const uint64_t count = (uint64_t{c[0]} << 24) | (uint64_t{c[1]} << 16) | (uint64_t{c[2]} << 8) | c[3];
  const uint64_t want = groth16::VK_FIXED_BYTES + 4 + count * 96;
  if (want != size) return "its ic count " + std::to_string(count) + " needs " + std::to_string(want) + " bytes";
  return "";
}

// One present official file: layout (always) and digest (when asked for).
CheckResult check_official_file(const FilecoinCircuit& fc, const std::string& name, const std::string& path,
                                const PreflightOptions& options) {
  std::error_code ec;
  const uint64_t size = fs::file_size(path, ec);
  CheckResult r{"params", name, CheckStatus::Pass, "", {{"kind", fc.id}, {"path", path}, {"bytes", size}}};
  const filecoin::OfficialParameterFile* official = filecoin::find_official_parameter_file(name);
  if (!official) {  // our computed name is not in parameters.json: a cuzk bug (a test guards it)
    r.status = CheckStatus::Fail;
    r.message = "not a file of rust-fil-proofs' parameters.json; cuzk computed a wrong name (please report)";
    return r;
  }
  std::string layout_error;
  if (name.ends_with(".params")) {
    auto layout = groth16::scan_params(path);
    if (!layout) layout_error = layout.error();
  } else {
    layout_error = vk_layout_error(path, size);
  }
  if (!layout_error.empty()) {
    r.status = CheckStatus::Fail;
    r.message = "not a valid " + std::string(name.ends_with(".vk") ? "verifying key" : "parameter file") + " (" +
                layout_error + "): download it again (curio fetch-params)";
    return r;
  }
  r.message = fc.id + ", " + format_bytes(size);
  if (!options.digests) {
    r.message += ", digest not checked (cuzk doctor --digests)";
    return r;
  }
  std::string digest;
  try {
    digest = filecoin::parameter_file_digest(path, [&](uint64_t done) {
      if (options.digest_progress) options.digest_progress(name, done, size);
    });
  } catch (const std::exception& e) {
    r.status = CheckStatus::Fail;
    r.message = e.what();
    return r;
  }
  r.facts.emplace_back("digest", digest);
  r.facts.emplace_back("expected_digest", std::string(official->digest));
  if (digest != official->digest) {
    r.status = CheckStatus::Fail;
    r.message = "digest " + digest + " is not parameters.json's " + std::string(official->digest) +
                ": the file is damaged or of another release; download it again (curio fetch-params)";
  } else {
    r.message += ", digest matches parameters.json";
  }
  return r;
}

uint64_t pce_file_bytes(const std::string& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) return 0;
  auto header = pce::read_pce_header(path);
  return header ? header->file_bytes : 0;
}

// The ladder's first rung as the daemon builds it (engine.cpp make_placement).
backend::FitOptions first_fit(const GpusSection& g) {
  return {.b_g2_on_gpu = g.g2_msm != "cpu",
          .msm_table_bits = g.msm_table_bits,
          .witness_slots = std::min(g.workers_per_device, 2u),
          .overlap_h = g.overlap_h};
}

// One proof kind: keys present, host memory for key + PCE + one partition, device memory.
CheckResult check_kind(const Config& config, const CircuitRegistry& registry, const backend::DeviceReport& devices,
                       const std::string& id, uint64_t budget) {
  CheckResult r{"kind", id, CheckStatus::Pass, "", {}};
  auto def = registry.find(id);
  if (!def) return {"kind", id, CheckStatus::Fail, def.error(), {}};
  std::error_code ec;
  if (def->uses_zkey()) {
    const uint64_t size = fs::file_size(def->zkey_path, ec);
    if (ec) return {"kind", id, CheckStatus::Fail, "cannot read zkey " + def->zkey_path + ": " + ec.message(), {}};
    r.message = "snarkjs zkey " + format_bytes(size) + " (about " + format_bytes(size + size / 4) + " loaded)";
    r.facts = {{"key_bytes", size + size / 4}};
    return r;
  }
  if (!fs::exists(def->params_path, ec)) {
    if (!def->test_setup) return {"kind", id, CheckStatus::Fail, "its keys are missing: " + def->params_path, {}};
    const std::string& mode = config.srs.test_keys;
    const std::string where =
        mode == "memory" ? "in memory only (srs.test_keys = \"memory\": no file; made again after an eviction)"
        : mode == "file" ? "into " + def->params_path
                         : "into " + def->params_path +
                               ", or in memory only when its filesystem lacks room (srs.test_keys = \"auto\")";
    return {"kind",
            id,
            CheckStatus::Warn,
            "TEST-ONLY keys will be generated on first use " + where +
                " (minutes for large circuits; proofs no chain accepts)",
            {{"test_keys", mode}}};
  }
  auto layout = groth16::scan_params(def->params_path);
  if (!layout) return {"kind", id, CheckStatus::Fail, layout.error(), {}};
  const uint64_t key = groth16::KeySizes::of(*layout).host_bytes(), pce = pce_file_bytes(def->pce_path);
  const bool on_gpu = config.gpus.backend != "cpu" && !devices.devices.empty() && pce != 0;
  const uint64_t part =
      partition_bytes(layout->domain_size(), layout->num_inputs() + layout->num_aux(), on_gpu, false, pce == 0);
  const uint64_t need = key + pce + part;
  r.facts = {{"key_bytes", key}, {"pce_bytes", pce}, {"partition_bytes", part}, {"host_bytes", need}};
  r.message = "host: key " + format_bytes(key) + ", PCE " + (pce ? format_bytes(pce) : "not extracted yet") +
              ", one partition " + format_bytes(part) + " = " + format_bytes(need) + " of the " + format_bytes(budget) +
              " budget";
  if (need > budget) {
    r.status = CheckStatus::Fail;
    r.message += ": does not fit; raise memory.total_budget or add RAM";
  }
  check_kind_gpus(config, devices, *layout, pce, r);
  return r;
}

}  // namespace

// Where a kind proves on each GPU the daemon uses (resident, streamed or CPU, with the device
// memory each takes), against the device's total (the daemon evicts idle provers of other
// circuits to make room) or its gpus.memory_limit: appended to `r` (message, facts, status).
// A cap below the streamed prover's smallest arrangement is a failure naming that cap.
void check_kind_gpus(const Config& config, const backend::DeviceReport& devices, const groth16::ParamsLayout& layout,
                     uint64_t pce_bytes, CheckResult& r) {
  if (config.gpus.backend == "cpu" || devices.devices.empty()) return;
  const groth16::KeySizes key = groth16::KeySizes::of(layout);
  const gpu::StreamedShape shape{layout.num_inputs(), layout.num_aux(), layout.domain_size(), pce_bytes};
  const bool required = config.gpus.backend == "gpu";
  for (const auto& d : devices.devices) {
    const auto& only = config.gpus.devices;
    if (!only.empty() && std::find(only.begin(), only.end(), static_cast<unsigned>(d.ordinal)) == only.end()) continue;
    const uint64_t cap = config.gpus.memory_limit_of(static_cast<unsigned>(d.ordinal));
    const uint64_t room = cap == 0 ? d.total_memory : std::min<uint64_t>(cap, d.total_memory);
    const backend::PlacementChoice c = backend::plan_placement(room, key, shape, first_fit(config.gpus));
    const std::string gpu = "gpu:" + std::to_string(d.ordinal);
    r.message +=
        "; " + gpu + " (" + format_bytes(room) + (cap != 0 ? ", gpus.memory_limit" : "") + "): " + c.describe();
    r.facts.emplace_back(gpu + "_placement", std::string(backend::where_name(c.where)));
    r.facts.emplace_back(gpu + "_device_bytes", c.device_bytes);
    if (c.where != backend::Where::Cpu) continue;
    if (cap != 0 && cap < c.streamed.smallest_cap && c.streamed.smallest_cap <= d.total_memory) {
      r.status = CheckStatus::Fail;
      r.message += " (gpus.memory_limit is below the smallest workable cap, " + format_bytes(c.streamed.smallest_cap) +
                   ": raise it to at least that)";
      r.facts.emplace_back(gpu + "_smallest_cap", c.streamed.smallest_cap);
      continue;
    }
    r.status = std::max(r.status, required ? CheckStatus::Fail : CheckStatus::Warn);
    r.message += required ? " (gpus.backend = \"gpu\": its proofs fail)" : " (its proofs run on the CPU: much slower)";
  }
  if (pce_bytes == 0) r.message += "; PCE not extracted yet: its size is not counted";
}

void check_parameter_files(const Config& config, const PreflightOptions& options, std::vector<CheckResult>& out) {
  const std::string& dir = config.srs.param_dir;
  std::error_code ec;
  size_t present = 0, expected = 0;
  std::string missing;
  for (const FilecoinCircuit& fc : filecoin_circuits()) {
    std::string absent;
    for (const char* ext : {".params", ".vk"}) {
      ++expected;
      const std::string name = fc.stem + ext;
      const std::string path = dir + "/" + name;
      if (!fs::exists(path, ec)) {
        absent += absent.empty() ? ext : std::string(" ") + ext;
        continue;
      }
      ++present;
      out.push_back(check_official_file(fc, name, path, options));
    }
    if (!absent.empty()) missing += (missing.empty() ? "" : ", ") + fc.id + " (" + absent + ")";
  }
  CheckResult r{"params", "srs.param_dir", CheckStatus::Pass, "", {{"path", dir}, {"missing", missing}}};
  r.message = dir + ": " + std::to_string(present) + " of " + std::to_string(expected) + " official files present" +
              (present == 0 || missing.empty() ? "" : "; missing: " + missing);
  if (present == 0 && !config.srs.allow_test_keys) {
    r.status = CheckStatus::Warn;
    r.message +=
        "; Filecoin proofs are refused until their files are there (curio fetch-params <sector size>, then "
        "point srs.param_dir at the download directory, /var/tmp/filecoin-proof-parameters by default)";
  }
  out.push_back(std::move(r));
}

void check_proof_kinds(const Config& config, std::vector<CheckResult>& out) {
  std::vector<std::string> ids;
  const auto add = [&ids](const std::string& id) {
    if (std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
  };
  for (const auto& id : config.srs.preload) add(id);
  for (const auto& c : config.circuits) add(c.id);
  std::error_code ec;
  for (const FilecoinCircuit& fc : filecoin_circuits()) {
    if (fs::exists(config.srs.param_dir + "/" + fc.stem + ".params", ec)) add(fc.id);
  }
  if (ids.empty()) {
    out.push_back({"kind",
                   "proof kinds",
                   CheckStatus::Pass,
                   "none preloaded or configured and no official parameter file present: nothing to size",
                   {}});
    return;
  }
  const CircuitRegistry registry(config);
  const backend::DeviceReport devices =
      config.gpus.backend == "cpu" ? backend::DeviceReport{} : backend::describe_devices();
  const uint64_t budget = effective_budget(config.memory.total_budget, config.memory.safety_margin, mem_total_bytes());
  for (const auto& id : ids) out.push_back(check_kind(config, registry, devices, id, budget));
}

}  // namespace cuzk::engine
