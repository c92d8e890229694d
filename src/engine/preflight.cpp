// The preflight's host checks: configuration, GPUs, host memory, the PCE directory and the listen
// address. The parameter files and the proof kinds are in preflight_kinds.cpp.
#include "engine/preflight.hpp"

#include <pwd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "backend/device_report.hpp"
#include "engine/memory_budget.hpp"
#include "engine/process_stats.hpp"
#include "pce/pce_file.hpp"

namespace cuzk::engine {
namespace fs = std::filesystem;

const char* to_string(CheckStatus status) {
  switch (status) {
    case CheckStatus::Pass:
      return "pass";
    case CheckStatus::Warn:
      return "warn";
    case CheckStatus::Fail:
      return "fail";
  }
  return "?";
}

size_t PreflightReport::count(CheckStatus status) const {
  size_t n = 0;
  for (const auto& c : checks) n += c.status == status ? 1 : 0;
  return n;
}

namespace {

std::string user_name(uid_t uid) {
  const passwd* pw = ::getpwuid(uid);
  return pw ? std::string(pw->pw_name) : "uid " + std::to_string(uid);
}

// The nearest existing directory at or above `path` (where a missing directory would be created).
fs::path existing_ancestor(fs::path path) {
  std::error_code ec;
  while (!path.empty() && !fs::exists(path, ec)) {
    if (path == path.parent_path()) break;
    path = path.parent_path();
  }
  return path;
}

// pass when `dir` exists and this user may create files in it, or it is missing and could be
// created; fail otherwise, with the owner named.
CheckResult writable_dir(std::string group, std::string name, const std::string& dir, const std::string& purpose) {
  CheckResult r{std::move(group), std::move(name), CheckStatus::Pass, "", {{"path", dir}}};
  std::error_code ec;
  const bool exists = fs::exists(dir, ec);
  const fs::path probe = exists ? fs::path(dir) : existing_ancestor(dir);
  if (exists && !fs::is_directory(dir, ec)) {
    r.status = CheckStatus::Fail;
    r.message = dir + " is not a directory (" + purpose + ")";
    return r;
  }
  if (::access(probe.c_str(), W_OK | X_OK) != 0) {
    struct stat st {};
    const std::string owner = ::stat(probe.c_str(), &st) == 0 ? user_name(st.st_uid) : "?";
    r.status = CheckStatus::Fail;
    r.message = (exists ? dir : "the missing " + dir + "'s parent " + probe.string()) + " is not writable by " +
                user_name(::geteuid()) + " (owner " + owner + "): " + purpose +
                "; chown it to the daemon's user or change the path";
    return r;
  }
  r.message = exists ? dir + " writable" : dir + " will be created";
  return r;
}

// 1 when something accepts connections on the unix socket, 0 when nothing does (a stale socket).
bool socket_accepts(const std::string& path) {
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path.c_str(), sizeof(addr.sun_path) - 1);
  const bool ok = ::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0;
  ::close(fd);
  return ok;
}

void check_config_summary(const Config& c, std::vector<CheckResult>& out) {
  CheckResult r{"config", "effective configuration", CheckStatus::Pass, "", {}};
  r.message = "data_dir " + c.daemon.data_dir + ", listen " + c.daemon.listen + ", gpus.backend " + c.gpus.backend +
              ", srs.param_dir " + c.srs.param_dir + ", pce.dir " + c.pce.dir +
              " (all keys: cuzk-daemon --check-config)";
  r.facts = {{"data_dir", c.daemon.data_dir}, {"listen", c.daemon.listen}, {"backend", c.gpus.backend},
             {"param_dir", c.srs.param_dir},  {"pce_dir", c.pce.dir},      {"toml", config_to_toml(c)}};
  out.push_back(std::move(r));
  // What loaded but has no effect here (the seed daemon's keys), one line each.
  for (const auto& w : c.warnings) out.push_back({"config", w.key, CheckStatus::Warn, w.message, {{"key", w.key}}});
  if (c.srs.allow_test_keys) {
    out.push_back({"config",
                   "srs.allow_test_keys",
                   CheckStatus::Warn,
                   "TEST-ONLY keys are allowed: a Filecoin kind without official parameter files gets keys whose "
                   "proofs no chain accepts; set srs.allow_test_keys = false on a production host",
                   {}});
  }
}

}  // namespace

void check_gpus(const Config& config, std::vector<CheckResult>& out) {
  if (config.gpus.backend == "cpu") {
    out.push_back({"gpu", "backend", CheckStatus::Pass, "gpus.backend = \"cpu\": proofs run on the CPU", {}});
    return;
  }
  const backend::DeviceReport report = backend::describe_devices();
  if (report.devices.empty()) {
    const bool required = config.gpus.backend == "gpu";
    out.push_back({"gpu",
                   "devices",
                   required ? CheckStatus::Fail : CheckStatus::Warn,
                   "no GPU: " + report.unavailable_reason +
                       (required ? " (gpus.backend = \"gpu\": the daemon will not start; install the NVIDIA driver "
                                   "or set gpus.backend = \"auto\")"
                                 : "; proofs run on the CPU (much slower)"),
                   {{"driver_version", report.driver_version}}});
    return;
  }
  for (unsigned want : config.gpus.devices) {
    if (want >= report.devices.size()) {
      out.push_back({"gpu",
                     "gpus.devices",
                     CheckStatus::Fail,
                     "device " + std::to_string(want) + " is listed in gpus.devices but this host has " +
                         std::to_string(report.devices.size()),
                     {}});
    }
  }
  for (const auto& d : report.devices) {
    const bool used = config.gpus.devices.empty() || std::find(config.gpus.devices.begin(), config.gpus.devices.end(),
                                                               d.ordinal) != config.gpus.devices.end();
    const std::string cc = std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor);
    out.push_back({"gpu",
                   "gpu " + std::to_string(d.ordinal),
                   CheckStatus::Pass,
                   d.name + ", " + format_bytes(d.total_memory) + " (" + format_bytes(d.free_memory) +
                       " free), compute capability " + cc + ", driver " + report.driver_version +
                       (used ? "" : " (not in gpus.devices: unused)"),
                   {{"ordinal", static_cast<uint64_t>(d.ordinal)},
                    {"device_name", d.name},
                    {"total_memory", d.total_memory},
                    {"free_memory", d.free_memory},
                    {"compute_capability", cc},
                    {"driver_version", report.driver_version},
                    {"used", used}}});
  }
}

void check_host_memory(const Config& config, std::vector<CheckResult>& out) {
  const uint64_t total = mem_total_bytes(), available = mem_available_bytes();
  const uint64_t budget = effective_budget(config.memory.total_budget, config.memory.safety_margin, total);
  CheckResult r{"memory", "host", CheckStatus::Pass, "", {}};
  r.facts = {{"mem_total", total}, {"mem_available", available}, {"budget", budget}};
  r.message =
      "budget " + format_bytes(budget) +
      (config.memory.total_budget == 0 ? " (auto: MemTotal - memory.safety_margin)" : " (memory.total_budget)") +
      " of " + format_bytes(total) + " (" + format_bytes(available) + " available)";
  if (total != 0 && budget > total) {
    r.status = CheckStatus::Warn;
    r.message +=
        "; the budget exceeds the host's memory: the kernel may kill the daemon before the budget "
        "holds work back; lower memory.total_budget";
  }
  out.push_back(std::move(r));
}

void check_pce_dir(const Config& config, std::vector<CheckResult>& out) {
  out.push_back(writable_dir("pce", "pce.dir", config.pce.dir,
                             config.pce.extract_on_first_use ? "PCE files are extracted there on first use"
                                                             : "PCE files are read from there"));
  std::error_code ec;
  if (!fs::is_directory(config.pce.dir, ec)) return;
  for (const auto& entry : fs::directory_iterator(config.pce.dir, ec)) {
    if (entry.path().extension() != ".pce") continue;
    const std::string name = entry.path().filename().string();
    auto header = pce::read_pce_header(entry.path().string());
    if (!header) {
      out.push_back({"pce",
                     name,
                     CheckStatus::Warn,
                     "unreadable, skipped at start (" + header.error() + "); delete it to have it extracted again",
                     {}});
      continue;
    }
    out.push_back({"pce",
                   name,
                   CheckStatus::Pass,
                   "circuit " + header->info.circuit_id + ", " + format_bytes(header->file_bytes),
                   {{"circuit_id", header->info.circuit_id}, {"bytes", header->file_bytes}}});
  }
}

void check_listen(const Config& config, std::vector<CheckResult>& out) {
  const std::string& listen = config.daemon.listen;
  if (listen.rfind("unix://", 0) != 0) {
    const bool loopback =
        listen.rfind("127.0.0.1:", 0) == 0 || listen.rfind("localhost:", 0) == 0 || listen.rfind("[::1]:", 0) == 0;
    out.push_back({"listen",
                   listen,
                   loopback ? CheckStatus::Pass : CheckStatus::Warn,
                   loopback ? "TCP on loopback: any local user can submit proofs (a unix socket allows only whom its "
                              "mode and group let in)"
                            : "TCP on a non-loopback address: reachable from other machines, callers authenticate or "
                              "are allowlisted (see the access checks); firewall it to the Curio hosts",
                   {{"address", listen}}});
    return;
  }
  const std::string path = listen.substr(7);
  const std::string dir = fs::path(path).parent_path().string();
  CheckResult r = writable_dir("listen", listen, dir, "the daemon creates its socket there");
  r.facts.emplace_back("socket", path);
  std::error_code ec;
  if (r.status == CheckStatus::Pass && fs::exists(fs::symlink_status(path, ec))) {
    if (!fs::is_socket(fs::symlink_status(path, ec))) {
      r.status = CheckStatus::Fail;
      r.message = path +
                  " exists and is not a socket: the daemon refuses to replace it; remove it or change "
                  "daemon.listen";
    } else if (socket_accepts(path)) {
      r.status = CheckStatus::Warn;
      r.message = "a daemon already listens on " + path + " (a second one would be refused)";
    } else {
      r.message += "; a stale socket there will be replaced";
    }
  }
  if (r.status == CheckStatus::Pass) r.message += "; who may connect: the access check \"unix socket\"";
  out.push_back(std::move(r));
}

PreflightReport run_preflight(const Config& config, const PreflightOptions& options) {
  PreflightReport report;
  check_config_summary(config, report.checks);
  check_gpus(config, report.checks);
  check_host_memory(config, report.checks);
  check_parameter_files(config, options, report.checks);
  check_proof_kinds(config, report.checks);
  check_pce_dir(config, report.checks);
  check_listen(config, report.checks);
  check_access(config, report.checks);
  return report;
}

}  // namespace cuzk::engine
