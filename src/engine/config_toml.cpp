// config_to_toml: the printer of --check-config and `cuzk doctor`, kept beside the parser so a new
// key is added to both (docs/architecture.md "A config key").
#include <cstdio>
#include <sstream>
#include <string>
#include <utility>

#include "engine/config.hpp"

namespace cuzk::engine {
namespace {

std::string toml_string(const std::string& s) {
  std::string out = "\"";
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += ch;
    } else if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += ch;
    }
  }
  return out + "\"";
}

std::string toml_bool(bool b) {
  return b ? "true" : "false";
}

std::string toml_seconds(double s) {
  std::ostringstream os;
  os.precision(17);
  os << s;
  std::string text = os.str();
  // A TOML float needs a fraction or exponent: 300 -> 300.0.
  if (text.find_first_of(".eE") == std::string::npos && text.find_first_of("ni") == std::string::npos) text += ".0";
  return text;
}

}  // namespace

std::string config_to_toml(const Config& c) {
  std::ostringstream o;
  o << "[daemon]\n"
    << "listen = " << toml_string(c.daemon.listen) << "\n"
    << "allow_remote = " << toml_bool(c.daemon.allow_remote) << "\n"
    << "tls_cert = " << toml_string(c.daemon.tls_cert) << "\n"
    << "tls_key = " << toml_string(c.daemon.tls_key) << "\n"
    << "tls_client_ca = " << toml_string(c.daemon.tls_client_ca) << "\n"
    << "auth_token_file = " << toml_string(c.daemon.auth_token_file) << "\n";
  o << "socket_mode = " << toml_string(octal_mode(c.daemon.socket_mode)) << "\n"
    << "socket_group = " << toml_string(c.daemon.socket_group) << "\n"
    << "allow_unauthenticated_from = [";
  for (size_t i = 0; i < c.daemon.allow_unauthenticated_from.size(); ++i) {
    o << (i ? ", " : "") << toml_string(c.daemon.allow_unauthenticated_from[i]);
  }
  o << "]\n"
    << "max_message_bytes = " << c.daemon.max_message_bytes << "\n"
    << "metrics_listen = " << toml_string(c.daemon.metrics_listen) << "\n"
    << "data_dir = " << toml_string(c.daemon.data_dir) << "\n"
    << "builtin_circuits = " << toml_bool(c.daemon.builtin_circuits) << "\n\n";
  o << "[memory]\n"
    << "total_budget = "
    << (c.memory.total_budget == 0 ? std::string("\"auto\"") : std::to_string(c.memory.total_budget)) << "\n"
    << "safety_margin = " << c.memory.safety_margin << "\n"
    << "eviction_min_idle = " << toml_seconds(c.memory.eviction_min_idle_s) << "\n\n";
  o << "[gpus]\ndevices = [";
  for (size_t i = 0; i < c.gpus.devices.size(); ++i) o << (i ? ", " : "") << c.gpus.devices[i];
  o << "]\nworkers_per_device = " << c.gpus.workers_per_device << "\n";
  if (!c.gpus.memory_limit_per_device.empty()) {
    o << "memory_limit = {";
    const char* sep = " ";
    for (const auto& [device, bytes] : c.gpus.memory_limit_per_device) {
      o << sep << "\"" << device << "\" = " << bytes;
      sep = ", ";
    }
    o << " }\n";
  } else {
    o << "memory_limit = " << (c.gpus.memory_limit == 0 ? std::string("\"none\"") : std::to_string(c.gpus.memory_limit))
      << "\n";
  }
  o << "\n";
  o << "[scheduler]\n"
    << "max_pending_jobs = " << c.scheduler.max_pending_jobs << "\n"
    << "completed_retention = " << toml_seconds(c.scheduler.completed_retention_s) << "\n\n";
  o << "[synthesis]\n"
    << "workers = " << c.synthesis.workers << "\n"
    << "threads = " << c.synthesis.threads << "\n"
    << "lookahead = " << c.synthesis.lookahead << "\n"
    << "nice = " << c.synthesis.nice << "\n\n";
  o << "[prover]\n"
    << "workers = " << c.prover.workers << "\n"
    << "threads = " << c.prover.threads << "\n"
    << "finalize_workers = " << c.prover.finalize_workers << "\n\n";
  o << "[srs]\n"
    << "param_dir = " << toml_string(c.srs.param_dir) << "\n"
    << "preload = [";
  for (size_t i = 0; i < c.srs.preload.size(); ++i) o << (i ? ", " : "") << toml_string(c.srs.preload[i]);
  o << "]\ncheck_subgroups = " << toml_bool(c.srs.check_subgroups) << "\n"
    << "allow_test_keys = " << toml_bool(c.srs.allow_test_keys) << "\n"
    << "test_keys = " << toml_string(c.srs.test_keys) << "\n\n";
  o << "[pce]\n"
    << "dir = " << toml_string(c.pce.dir) << "\n"
    << "extract_on_first_use = " << toml_bool(c.pce.extract_on_first_use) << "\n"
    << "verify_checksums = " << toml_bool(c.pce.verify_checksums) << "\n\n";
  o << "[logging]\n"
    << "level = " << toml_string(c.logging.level) << "\n"
    << "format = " << toml_string(c.logging.format) << "\n\n";
  o << "[tuning]\n"
    << "msm_simd = " << toml_bool(c.tuning.msm_simd) << "\n"
    << "msm_glv = " << toml_bool(c.tuning.msm_glv) << "\n"
    << "matvec_stream = " << toml_bool(c.tuning.matvec_stream) << "\n"
    << "gpu_msm_reduce_threads = "
    << (c.tuning.gpu_msm_reduce_threads ? std::to_string(*c.tuning.gpu_msm_reduce_threads) : "\"auto\"") << "\n"
    << "gpu_msm_prefetch = " << (c.tuning.gpu_msm_prefetch ? toml_bool(*c.tuning.gpu_msm_prefetch) : "\"auto\"") << "\n"
    << "gpu_msm_affine = " << (c.tuning.gpu_msm_affine ? toml_bool(*c.tuning.gpu_msm_affine) : "\"auto\"") << "\n";
  for (const auto& circuit : c.circuits) {
    o << "\n[[circuits]]\nid = " << toml_string(circuit.id) << "\n";
    const std::pair<const char*, const std::string*> files[] = {
        {"builtin", &circuit.builtin}, {"pce", &circuit.pce}, {"r1cs", &circuit.r1cs},
        {"params", &circuit.params},   {"vk", &circuit.vk},   {"zkey", &circuit.zkey}};
    for (const auto& [key, value] : files) {
      if (!value->empty()) o << key << " = " << toml_string(*value) << "\n";
    }
    if (circuit.test_setup) o << "test_setup = true\n";
  }
  return o.str();
}

}  // namespace cuzk::engine
