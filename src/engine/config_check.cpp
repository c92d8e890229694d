// Config::finalize: the defaults that follow from daemon.data_dir and the checks of every section,
// with messages that name the key and what it accepts.
#include <algorithm>
#include <charconv>
#include <set>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "circuits/builtin.hpp"
#include "engine/config.hpp"
#include "util/cidr.hpp"
#include "util/paths.hpp"
#include "util/unix_ids.hpp"

namespace cuzk::engine {

namespace {

// Checks "unix:///abs/path" (when allow_unix) or "host:port"; a non-loopback TCP host needs
// daemon.allow_remote. Sets `is_remote` for a TCP host that is not loopback.
Result<bool> check_endpoint(const std::string& key, const std::string& value, bool allow_unix, bool allow_remote,
                            bool& is_remote) {
  is_remote = false;
  const std::string what = key + " = \"" + value + "\": ";
  const std::string forms = allow_unix ? "\"unix:///absolute/path.sock\" or \"host:port\"" : "\"host:port\"";
  constexpr std::string_view kUnix = "unix://";
  if (value.rfind(kUnix, 0) == 0) {
    if (!allow_unix) return make_error(what + "only TCP is supported here; expected " + forms);
    const std::string path = value.substr(kUnix.size());
    if (path.empty() || path[0] != '/') {
      return make_error(what +
                        "the socket path must be absolute, as in \"unix:///run/cuzk/cuzk.sock\" (three slashes)");
    }
    // sockaddr_un::sun_path holds 108 bytes with the terminating NUL.
    if (path.size() > 107) {
      return make_error(what + "the socket path is " + std::to_string(path.size()) +
                        " bytes long; unix sockets allow at most 107");
    }
    return true;
  }
  if (value.find("://") != std::string::npos) return make_error(what + "unsupported scheme; expected " + forms);

  std::string host, port;
  if (!value.empty() && value[0] == '[') {
    const size_t close = value.find(']');
    if (close == std::string::npos || close + 1 >= value.size() || value[close + 1] != ':') {
      return make_error(what + "expected \"[ipv6-address]:port\", as in \"[::1]:9820\"");
    }
    host = value.substr(1, close - 1);
    port = value.substr(close + 2);
  } else {
    const size_t colon = value.rfind(':');
    if (colon == std::string::npos) return make_error(what + "missing \":port\"; expected " + forms);
    host = value.substr(0, colon);
    port = value.substr(colon + 1);
    if (host.find(':') != std::string::npos) {
      return make_error(what + "an IPv6 address must be in brackets, as in \"[::1]:9820\"");
    }
  }
  if (host.empty()) {
    return make_error(what + "missing host; use 127.0.0.1 for this machine only, or 0.0.0.0 for every interface");
  }
  unsigned p = 0;
  const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), p);
  if (port.empty() || ec != std::errc{} || end != port.data() + port.size() || p < 1 || p > 65535) {
    return make_error(what + "the port must be a number from 1 to 65535, got \"" + port + "\"");
  }
  const bool loopback = host == "127.0.0.1" || host == "localhost" || host == "::1";
  is_remote = !loopback;
  if (!loopback && !allow_remote) {
    return make_error(what +
                      "this accepts connections from other machines; set daemon.allow_remote = true to allow "
                      "that (with authentication: daemon.tls_cert + daemon.tls_key, or daemon.auth_token_file; "
                      "or, for clients that send neither, such as Curio, daemon.allow_unauthenticated_from), "
                      "or listen on 127.0.0.1, [::1] or a unix:// socket");
  }
  return true;
}

// The access keys: TLS files come as a pair, TLS only on TCP, and a remote gRPC listener only with
// TLS or a token (README "Running it safely").
Result<bool> check_access(const DaemonSection& d, bool listen_is_remote) {
  const bool tls = !d.tls_cert.empty() || !d.tls_key.empty();
  if (tls && (d.tls_cert.empty() || d.tls_key.empty())) {
    return make_error(std::string("daemon.") + (d.tls_cert.empty() ? "tls_key" : "tls_cert") +
                      " is set without daemon." + (d.tls_cert.empty() ? "tls_cert" : "tls_key") +
                      "; TLS needs both the certificate chain and its private key (PEM files)");
  }
  if (!d.tls_client_ca.empty() && !tls) {
    return make_error(
        "daemon.tls_client_ca is set without daemon.tls_cert and daemon.tls_key; client certificates are "
        "checked only on a TLS listener");
  }
  if (tls && d.listen.rfind("unix://", 0) == 0) {
    return make_error("daemon.tls_cert is set but daemon.listen = \"" + d.listen +
                      "\" is a unix socket; TLS is for TCP listeners (the socket is protected by its mode and group); "
                      "remove the tls_* keys or listen on host:port");
  }
  if (listen_is_remote && !tls && d.auth_token_file.empty() && d.allow_unauthenticated_from.empty()) {
    return make_error("daemon.listen = \"" + d.listen +
                      "\" accepts connections from other machines without authentication; set "
                      "daemon.tls_cert + daemon.tls_key (TLS, optionally daemon.tls_client_ca for client "
                      "certificates) or daemon.auth_token_file (a bearer token in a mode-0600 file), or both; for "
                      "clients that can send neither (Curio), name their networks in "
                      "daemon.allow_unauthenticated_from");
  }
  return true;
}

// daemon.allow_unauthenticated_from: valid networks, on a plaintext TCP listener without a token.
Result<bool> check_allowlist(const DaemonSection& d, bool unix_listen) {
  if (d.allow_unauthenticated_from.empty()) return true;
  auto list = IpNetworkList::parse(d.allow_unauthenticated_from, "daemon.allow_unauthenticated_from");
  if (!list) return make_error(list.error());
  if (unix_listen) {
    return make_error("daemon.allow_unauthenticated_from is set but daemon.listen = \"" + d.listen +
                      "\" is a unix socket; the allowlist is for TCP listeners (who may use a socket is set by "
                      "daemon.socket_mode and daemon.socket_group)");
  }
  if (!d.tls_cert.empty()) {
    return make_error(
        "daemon.allow_unauthenticated_from and daemon.tls_cert are both set; a listener is either TLS or "
        "plaintext, and the allowlist is for plaintext clients that send no certificate or token (Curio): remove "
        "one of them");
  }
  if (!d.auth_token_file.empty()) {
    return make_error(
        "daemon.allow_unauthenticated_from and daemon.auth_token_file are both set; the daemon has one listener, "
        "on which allowlisted clients call without a token and every other connection is closed, so the token "
        "would be checked nowhere: remove one of them");
  }
  return true;
}

// daemon.socket_mode and daemon.socket_group: unix sockets only (their defaults are harmless
// anywhere), a mode the owner can use, a group that exists.
Result<bool> check_socket(const DaemonSection& d, bool unix_listen) {
  if (!unix_listen && (d.socket_mode != 0600 || !d.socket_group.empty())) {
    const std::string key = d.socket_mode != 0600 ? "daemon.socket_mode" : "daemon.socket_group";
    return make_error(key + " has no effect: daemon.listen = \"" + d.listen +
                      "\" is TCP, and the mode and group are a unix socket's; remove it");
  }
  if ((d.socket_mode & ~0777u) != 0 || (d.socket_mode & 0600u) != 0600u) {
    return make_error("daemon.socket_mode = \"" + octal_mode(d.socket_mode) +
                      "\": expected an octal mode from 0600 to 0777 in which the owner (the daemon's user) can read "
                      "and write, e.g. \"0660\" for the owner and daemon.socket_group");
  }
  if (!d.socket_group.empty()) {
    if (auto g = lookup_group(d.socket_group); !g) {
      return make_error("daemon.socket_group = \"" + d.socket_group + "\": " + g.error());
    }
  }
  return true;
}

Result<bool> check_circuit(const CircuitSection& c) {
  const std::string who = "circuit '" + c.id + "': ";
  std::vector<std::string> sources;
  if (!c.builtin.empty()) sources.push_back("builtin");
  if (!c.pce.empty()) sources.push_back("pce");
  if (!c.r1cs.empty()) sources.push_back("r1cs");
  if (!c.zkey.empty()) sources.push_back("zkey");
  if (sources.empty()) return make_error(who + "no circuit given; set exactly one of builtin, pce, r1cs or zkey");
  if (sources.size() > 1) {
    return make_error(who + "sets both " + sources[0] + " and " + sources[1] +
                      "; set exactly one of builtin, pce, r1cs or zkey");
  }
  if (!c.zkey.empty()) {
    if (!c.params.empty() || !c.vk.empty()) {
      return make_error(who + "a zkey carries its own proving and verifying keys; remove params and vk");
    }
    if (c.test_setup) return make_error(who + "a zkey carries its own keys; remove test_setup");
  } else {
    if (c.params.empty() && !c.test_setup) {
      return make_error(who +
                        "no proving key; set params = \"<file>.params\" (and optionally vk), or test_setup = "
                        "true for test-only keys generated from a public seed");
    }
    if (!c.params.empty() && c.test_setup) {
      return make_error(who + "set either params or test_setup = true, not both");
    }
    if (!c.vk.empty() && c.params.empty()) return make_error(who + "vk is given without params");
  }
  if (!c.builtin.empty()) {
    auto spec = circuits::parse_builtin(c.builtin);
    if (!spec) return make_error(who + "builtin = \"" + c.builtin + "\": " + spec.error());
  }
  return true;
}

// The listeners, their access keys and the message cap.
Result<bool> check_daemon(const Config& c) {
  const DaemonSection& daemon = c.daemon;
  bool listen_is_remote = false;
  if (auto r =
          check_endpoint("daemon.listen", daemon.listen, /*allow_unix=*/true, daemon.allow_remote, listen_is_remote);
      !r) {
    return make_error(r.error());
  }
  if (auto r = check_access(daemon, listen_is_remote); !r) return make_error(r.error());
  const bool unix_listen = daemon.listen.rfind("unix://", 0) == 0;
  if (auto r = check_allowlist(daemon, unix_listen); !r) return r;
  if (auto r = check_socket(daemon, unix_listen); !r) return r;
  if (!daemon.metrics_listen.empty()) {
    bool metrics_remote = false;
    if (auto r = check_endpoint(c.key_name("daemon.metrics_listen"), daemon.metrics_listen, /*allow_unix=*/false,
                                daemon.allow_remote, metrics_remote);
        !r) {
      return make_error(r.error());
    }
  }
  if (daemon.max_message_bytes < (1ull << 20)) {
    return make_error("daemon.max_message_bytes = " + std::to_string(daemon.max_message_bytes) +
                      " is below the minimum of 1 MiB (a single PoRep request is tens of MiB)");
  }

  return true;
}

Result<bool> check_logging(const LoggingSection& logging) {
  static const std::set<std::string> kLevels = {"trace", "debug", "info", "warn", "error"};
  if (!kLevels.count(logging.level)) {
    return make_error("logging.level = \"" + logging.level + "\": expected one of trace, debug, info, warn, error");
  }
  if (logging.format != "text" && logging.format != "json") {
    return make_error("logging.format = \"" + logging.format + "\": expected \"text\" or \"json\"");
  }

  return true;
}

// Worker counts and the GPU keys.
Result<bool> check_workers(const Config& c) {
  const ProverSection& prover = c.prover;
  const SynthesisSection& synthesis = c.synthesis;
  const GpusSection& gpus = c.gpus;
  const SchedulerSection& scheduler = c.scheduler;
  const auto& explicit_keys = c.explicit_keys;
  if (prover.workers < 1) return make_error("prover.workers must be at least 1");
  if (synthesis.nice > 19) {
    return make_error("synthesis.nice = " + std::to_string(synthesis.nice) +
                      ": expected 0 (the daemon's own priority) to 19 (the lowest)");
  }
  if (prover.finalize_workers < 1) return make_error("prover.finalize_workers must be at least 1");
  if (gpus.workers_per_device < 1) return make_error(c.key_name("gpus.workers_per_device") + " must be at least 1");
  if (gpus.deadline_workers > 8) return make_error("gpus.deadline_workers must be at most 8");
  if (gpus.backend != "auto" && gpus.backend != "gpu" && gpus.backend != "cpu") {
    return make_error("gpus.backend = \"" + gpus.backend + "\": expected \"auto\", \"gpu\" or \"cpu\"");
  }
  // Knobs that the chosen backend would ignore are errors rather than silent no-ops.
  if (gpus.backend == "cpu") {
    for (const char* k : {"gpus.devices", "gpus.workers_per_device", "gpus.deadline_workers", "gpus.g2_msm",
                          "gpus.msm_table_bits", "gpus.overlap_h"}) {
      if (explicit_keys.count(k)) {
        return make_error(c.key_name(k) +
                          " has no effect with gpus.backend = \"cpu\" (nothing runs on a GPU); remove "
                          "it or set gpus.backend = \"auto\" or \"gpu\"");
      }
    }
  }
  if (gpus.backend == "gpu" && explicit_keys.count("prover.workers")) {
    return make_error(
        "prover.workers has no effect with gpus.backend = \"gpu\" (the GPU prover workers are "
        "gpus.workers_per_device per device); remove it or set gpus.workers_per_device");
  }
  if (gpus.g2_msm != "gpu" && gpus.g2_msm != "cpu") {
    return make_error("gpus.g2_msm = \"" + gpus.g2_msm + "\": expected \"gpu\" or \"cpu\"");
  }
  if (gpus.msm_table_bits == 1 || gpus.msm_table_bits > 24) {
    return make_error("gpus.msm_table_bits = " + std::to_string(gpus.msm_table_bits) +
                      ": expected 0 (no window tables) or a window width in 2..24");
  }
  if (scheduler.max_pending_jobs < 1) return make_error("scheduler.max_pending_jobs must be at least 1");
  for (size_t i = 0; i < gpus.devices.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (gpus.devices[i] == gpus.devices[j]) {
        return make_error("gpus.devices lists device " + std::to_string(gpus.devices[i]) + " twice");
      }
    }
  }
  return true;
}

Result<bool> check_srs(const SrsSection& srs) {
  for (const auto& id : srs.preload) {
    if (id.empty()) return make_error("srs.preload contains an empty circuit id");
  }
  if (srs.test_keys != "file" && srs.test_keys != "memory" && srs.test_keys != "auto") {
    return make_error("srs.test_keys = \"" + srs.test_keys +
                      "\": expected \"file\" (TEST-ONLY keys written to srs.param_dir), \"memory\" (held in "
                      "memory only, never written) or \"auto\" (a file when srs.param_dir's filesystem has room, "
                      "else memory)");
  }

  return true;
}

// The [[circuits]] entries, and srs.test_keys where no circuit can get a TEST-ONLY key.
Result<bool> check_circuits(const Config& c) {
  const std::vector<CircuitSection>& circuits = c.circuits;
  const SrsSection& srs = c.srs;
  const DaemonSection& daemon = c.daemon;
  const auto& explicit_keys = c.explicit_keys;
  std::set<std::string> ids;
  for (size_t i = 0; i < circuits.size(); ++i) {
    const auto& c = circuits[i];
    if (c.id.empty()) {
      return make_error("[[circuits]] entry " + std::to_string(i + 1) + " has no id; set id = \"<name>\"");
    }
    if (!ids.insert(c.id).second) return make_error("circuit id '" + c.id + "' is defined more than once");
    if (auto r = check_circuit(c); !r) return make_error(r.error());
  }
  // Like the GPU knobs: srs.test_keys set where no TEST-ONLY key can ever be made is an error.
  const bool any_test_setup =
      std::any_of(circuits.begin(), circuits.end(), [](const CircuitSection& c) { return c.test_setup; });
  if (explicit_keys.count("srs.test_keys") && !srs.allow_test_keys && !daemon.builtin_circuits && !any_test_setup) {
    return make_error(
        "srs.test_keys has no effect: no circuit gets TEST-ONLY keys here (srs.allow_test_keys = false, "
        "daemon.builtin_circuits = false and no [[circuits]] sets test_setup); remove it");
  }
  return true;
}

}  // namespace

Result<bool> Config::finalize() {
  if (daemon.data_dir.empty()) daemon.data_dir = default_data_dir();
  while (daemon.data_dir.size() > 1 && daemon.data_dir.back() == '/') daemon.data_dir.pop_back();
  if (daemon.listen.empty()) daemon.listen = "unix://" + daemon.data_dir + "/cuzk.sock";
  if (srs.param_dir.empty()) srs.param_dir = daemon.data_dir + "/params";
  if (pce.dir.empty()) pce.dir = daemon.data_dir + "/pce";

  if (auto r = check_daemon(*this); !r) return r;
  if (auto r = check_logging(logging); !r) return r;
  if (auto r = check_workers(*this); !r) return r;
  if (auto r = check_srs(srs); !r) return r;
  return check_circuits(*this);
}

}  // namespace cuzk::engine
