// cuzk-daemon: the proving engine behind the cuzk.v1.ProvingEngine gRPC service (and optional
// HTTP /metrics and /status).
//
// Exit codes: 0 after a shutdown by signal, 1 on a runtime failure (address in use, engine
// failure), 2 on a configuration or usage error. SIGTERM/SIGINT once: stop accepting proofs,
// finish the queued and running ones (clients waiting in Prove/AwaitProof get their results),
// then stop serving. A second signal cancels the remaining work and exits at once.
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <sstream>
#include <string>
#include <thread>
#include <variant>

#include "engine/config.hpp"
#include "engine/engine.hpp"
#include "engine/preflight.hpp"
#include "server/grpc_server.hpp"
#include "server/metrics_http.hpp"
#include "server/proving_service.hpp"
#include "util/atomic_file.hpp"
#include "util/cpu_features.hpp"
#include "util/log.hpp"
#include "util/secret_file.hpp"
#include "util/unix_ids.hpp"

namespace {

using cuzk::engine::Config;
using cuzk::logging::Level;
using cuzk::logging::log_event;

constexpr int kExitOk = 0;
constexpr int kExitRuntime = 1;
constexpr int kExitConfig = 2;

struct Options {
  std::string config_path;
  std::string listen;
  std::string data_dir;
  std::string log_level;
  std::string log_format;
  std::string pid_file;
  bool check_config = false;
};

// ---- configuration ----

// Loads the file (or the defaults) and applies the command-line overrides; the result is
// finalized. Errors are messages for the user.
cuzk::Result<Config> effective_config(const Options& opt) {
  auto loaded = opt.config_path.empty() ? cuzk::engine::default_config() : cuzk::engine::load_config(opt.config_path);
  if (!loaded) return cuzk::make_error(loaded.error());
  Config cfg = std::move(*loaded);
  if (!opt.data_dir.empty()) {
    std::error_code ec;
    const std::string new_dir = std::filesystem::absolute(opt.data_dir, ec).lexically_normal().string();
    if (ec) return cuzk::make_error("--data-dir " + opt.data_dir + ": " + ec.message());
    // finalize() derived these from the old data directory unless they were set explicitly;
    // clearing the derived ones lets it derive them again from the new one.
    const std::string& old_dir = cfg.daemon.data_dir;
    if (cfg.daemon.listen == "unix://" + old_dir + "/cuzk.sock") cfg.daemon.listen.clear();
    if (cfg.srs.param_dir == old_dir + "/params") cfg.srs.param_dir.clear();
    if (cfg.pce.dir == old_dir + "/pce") cfg.pce.dir.clear();
    cfg.daemon.data_dir = new_dir;
  }
  if (!opt.listen.empty()) cfg.daemon.listen = opt.listen;
  if (!opt.log_level.empty()) cfg.logging.level = opt.log_level;
  if (!opt.log_format.empty()) cfg.logging.format = opt.log_format;
  if (auto r = cfg.finalize(); !r) {
    const bool overridden =
        !opt.data_dir.empty() || !opt.listen.empty() || !opt.log_level.empty() || !opt.log_format.empty();
    return cuzk::make_error(r.error() + (overridden ? " (after the command-line overrides)" : ""));
  }
  // Limits that finalize() does not know about (the length of a unix socket path), checked
  // before the engine spends time starting.
  try {
    cuzk::server::parse_listen_address(cfg.daemon.listen);
  } catch (const std::invalid_argument& e) {
    return cuzk::make_error(e.what());
  }
  return cfg;
}

// ---- start-up checks ----

// The checks of `cuzk doctor` without the slow digests, one log line each: an operator reads why a
// kind will fail or run on the CPU before the first request does. A failed check is logged, not
// fatal (the engine's own start-up errors stop the daemon where it cannot serve at all), except a
// GPU cap too small for any prover of a served kind: a configuration that can never work.
// Returns the checks' failures that are configuration errors: a gpus.memory_limit below the
// smallest arrangement any prover of a served kind works in (its proofs could never use that GPU).
std::string log_preflight(const Config& cfg) {
  const cuzk::engine::PreflightReport report = cuzk::engine::run_preflight(cfg);
  std::string config_errors;
  for (const auto& c : report.checks) {
    const Level level = c.status == cuzk::engine::CheckStatus::Pass   ? Level::info
                        : c.status == cuzk::engine::CheckStatus::Warn ? Level::warn
                                                                      : Level::err;
    log_event(
        level, "preflight",
        {{"status", cuzk::engine::to_string(c.status)}, {"check", c.group + " " + c.name}, {"detail", c.message}});
    for (const auto& [fact, value] : c.facts) {
      if (!fact.ends_with("_smallest_cap")) continue;
      const std::string gpu = fact.substr(0, fact.size() - std::string("_smallest_cap").size());
      config_errors += (config_errors.empty() ? "" : "; ") + std::string("gpus.memory_limit of ") + gpu +
                       " is below the smallest workable cap for " + c.name + ", " +
                       cuzk::engine::format_bytes(std::get<uint64_t>(value)) + ": raise it to at least that";
    }
  }
  log_event(report.failed() ? Level::warn : Level::info, "preflight done",
            {{"pass", std::to_string(report.count(cuzk::engine::CheckStatus::Pass))},
             {"warn", std::to_string(report.count(cuzk::engine::CheckStatus::Warn))},
             {"fail", std::to_string(report.count(cuzk::engine::CheckStatus::Fail))},
             {"more", "cuzk doctor --config FILE --digests"}});
  return config_errors;
}

// ---- access ----

// The TLS files and the bearer token named by the config, read and checked before the engine
// starts: a missing file or a token other users can read is a configuration error. Also the
// socket's group and the allowlist, resolved.
struct Access {
  std::optional<cuzk::server::TlsFiles> tls;
  std::string token;
  std::optional<gid_t> socket_gid;
  cuzk::IpNetworkList allowlist;
};

cuzk::Result<Access> load_access(const Config& cfg) {
  Access out;
  const auto& d = cfg.daemon;
  if (!d.socket_group.empty()) {
    auto group = cuzk::lookup_group(d.socket_group);
    if (!group) return cuzk::make_error("daemon.socket_group = \"" + d.socket_group + "\": " + group.error());
    out.socket_gid = group->gid;
  }
  auto allowlist = cuzk::IpNetworkList::parse(d.allow_unauthenticated_from, "daemon.allow_unauthenticated_from");
  if (!allowlist) return cuzk::make_error(allowlist.error());
  out.allowlist = std::move(*allowlist);
  if (!d.tls_cert.empty()) {
    cuzk::server::TlsFiles tls;
    std::string error;
    const auto read = [&error](const std::string& path, const char* what, bool secret, std::string& dst) {
      if (path.empty() || !error.empty()) return;
      auto pem = cuzk::read_pem_file(path, what, secret);
      if (pem)
        dst = std::move(*pem);
      else
        error = pem.error();
    };
    read(d.tls_cert, "daemon.tls_cert file", false, tls.cert_chain);
    read(d.tls_key, "daemon.tls_key file", true, tls.private_key);
    read(d.tls_client_ca, "daemon.tls_client_ca file", false, tls.client_ca);
    if (!error.empty()) return cuzk::make_error(error);
    out.tls = std::move(tls);
  }
  if (!d.auth_token_file.empty()) {
    auto token = cuzk::read_bearer_token(d.auth_token_file);
    if (!token) return cuzk::make_error("daemon.auth_token_file: " + token.error());
    out.token = std::move(*token);
  }
  return out;
}

std::string networks_text(const cuzk::IpNetworkList& list) {
  std::string out;
  for (const auto& n : list.networks()) out += (out.empty() ? "" : ", ") + n.text();
  return out;
}

// How the listener admits callers, for the access line.
std::string transport_text(const Config& cfg, const Access& access) {
  const auto& d = cfg.daemon;
  if (d.listen.rfind("unix://", 0) == 0) {
    return "unix socket, mode " + cuzk::engine::octal_mode(d.socket_mode) + ", group " +
           (access.socket_gid ? cuzk::group_label(*access.socket_gid)
                              : "the daemon's (" + cuzk::group_label(::getegid()) + ")");
  }
  if (!access.allowlist.empty()) return "tcp, plaintext, only from " + networks_text(access.allowlist);
  return d.allow_remote ? "tcp, remote allowed" : "tcp";
}

// One line that says who can reach the daemon; a warning where the token crosses the network in
// clear text, and one naming the networks that call without any authentication.
void log_access(const Config& cfg, const Access& access) {
  const auto& d = cfg.daemon;
  const bool unix_socket = d.listen.rfind("unix://", 0) == 0;
  const std::string tls = !access.tls                     ? "off"
                          : access.tls->client_ca.empty() ? "on"
                                                          : "on, client certificates required";
  log_event(Level::info, "access",
            {{"listen", d.listen},
             {"transport", transport_text(cfg, access)},
             {"tls", tls},
             {"bearer_token", access.token.empty() ? "off" : "required (" + d.auth_token_file + ")"},
             {"metrics", d.metrics_listen.empty() ? "off" : d.metrics_listen + " (GET only)"}});
  if (!unix_socket && d.allow_remote && !access.tls && !access.token.empty()) {
    log_event(Level::warn, "access",
              {{"warning",
                "the bearer token is sent in clear text over TCP without TLS; anyone who can watch the network "
                "can reuse it: set daemon.tls_cert and daemon.tls_key"}});
  }
  if (!access.allowlist.empty()) {
    log_event(
        Level::warn, "access",
        {{"unauthenticated_from", networks_text(access.allowlist)},
         {"warning",
          "clients from these networks call every RPC without TLS or a token (daemon.allow_unauthenticated_from); "
          "connections from other addresses are closed before any RPC"}});
  }
}

// ---- pid file ----

// Writes the pid file atomically and removes it on destruction if it still names this process
// (a newer daemon may have taken it over).
class PidFile {
 public:
  explicit PidFile(std::string path) : path_(std::move(path)) {
    if (path_.empty()) return;
    const std::string text = std::to_string(::getpid()) + "\n";
    cuzk::AtomicFile file(path_, 0644);
    file.write(std::as_bytes(std::span(text.data(), text.size())));
    file.commit();
  }
  ~PidFile() {
    if (path_.empty()) return;
    std::ifstream in(path_);
    long pid = 0;
    if (in >> pid && pid == static_cast<long>(::getpid())) {
      std::error_code ec;
      std::filesystem::remove(path_, ec);
    }
  }
  PidFile(const PidFile&) = delete;
  PidFile& operator=(const PidFile&) = delete;

 private:
  std::string path_;
};

// ---- signals ----

// Receives SIGINT/SIGTERM with sigtimedwait on its own thread (the signals are blocked in every
// thread, so none is interrupted and no work happens in a signal handler) and counts them.
class SignalWatcher {
 public:
  explicit SignalWatcher(const sigset_t& set) : set_(set), thread_([this] { loop(); }) {}
  ~SignalWatcher() {
    stop_.store(true);
    thread_.join();
  }
  SignalWatcher(const SignalWatcher&) = delete;
  SignalWatcher& operator=(const SignalWatcher&) = delete;

  // Waits until at least `n` signals arrived or `pred()` holds; returns the signal count.
  template <class Pred>
  int wait_for(int n, Pred pred) {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return count_ >= n || pred(); });
    return count_;
  }
  template <class Pred>
  bool wait_until(std::chrono::steady_clock::time_point deadline, Pred pred) {
    std::unique_lock lock(mu_);
    return cv_.wait_until(lock, deadline, pred);
  }
  // Wakes waiters after a state change made under lock().
  void notify() { cv_.notify_all(); }
  std::mutex& mutex() { return mu_; }
  int last_signal() {
    std::lock_guard lock(mu_);
    return last_;
  }

 private:
  void loop() {
    while (!stop_.load()) {
      // A short timeout so the destructor can stop the thread.
      const timespec timeout{0, 200'000'000};
      siginfo_t info{};
      const int sig = ::sigtimedwait(&set_, &info, &timeout);
      if (sig <= 0) continue;
      int count = 0;
      {
        std::lock_guard lock(mu_);
        count = ++count_;
        last_ = sig;
      }
      log_event(count == 1 ? Level::info : Level::warn, "signal",
                {{"signal", sigabbrev_np(sig) ? sigabbrev_np(sig) : std::to_string(sig)},
                 {"action", count == 1 ? "drain (a second signal cancels the remaining work)" : "cancel"}});
      cv_.notify_all();
    }
  }

  sigset_t set_;
  std::mutex mu_;
  std::condition_variable cv_;
  int count_ = 0;
  int last_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

// ---- the daemon ----

// The engine, or the exit code when it cannot start (a bad configuration or a runtime failure).
std::variant<std::unique_ptr<cuzk::engine::Engine>, int> start_engine(const Config& cfg) {
  try {
    auto engine = std::make_unique<cuzk::engine::Engine>(cfg);
    engine->start();
    return engine;
  } catch (const std::invalid_argument& e) {
    log_event(Level::err, "startup failed", {{"error", e.what()}});
    return kExitConfig;
  } catch (const std::exception& e) {
    log_event(Level::err, "startup failed", {{"error", e.what()}});
    return kExitRuntime;
  }
}

// The gRPC listener and the optional /metrics one; both stop before the service they call.
struct Listeners {
  std::optional<cuzk::server::GrpcServer> grpc;
  std::unique_ptr<cuzk::server::MetricsHttpServer> http;
};

// Throws when a listener cannot start.
void start_listeners(const Config& cfg, const Access& access, cuzk::server::ProvingService& service, Listeners& out) {
  // The transport accepts a margin above the configured limit so that slightly oversized proof
  // requests reach the service and get INVALID_ARGUMENT with the limit named; far larger ones are
  // cut off by gRPC itself (RESOURCE_EXHAUSTED) before they are buffered.
  const uint64_t transport_limit =
      cfg.daemon.max_message_bytes + std::min<uint64_t>(cfg.daemon.max_message_bytes, 64ull << 20);
  cuzk::server::GrpcServerOptions grpc_options{cfg.daemon.listen, transport_limit};
  grpc_options.tls = access.tls;
  grpc_options.socket_mode = cfg.daemon.socket_mode;
  grpc_options.socket_gid = access.socket_gid;
  grpc_options.allow_unauthenticated_from = access.allowlist;
  grpc_options.on_connection_refused = [&service] { service.rpc_metrics().connection_refused(); };
  out.grpc.emplace(std::move(grpc_options), service);
  out.grpc->start();
  if (!cfg.daemon.metrics_listen.empty()) {
    out.http = std::make_unique<cuzk::server::MetricsHttpServer>(
        cuzk::server::MetricsHttpServer::Options{cfg.daemon.metrics_listen, cfg.daemon.allow_remote},
        [&service] { return service.metrics_text(); }, [&service] { return service.status_json(); });
    out.http->start();
  }
}

// After the first signal: drains the engine, or cancels its work when a second signal comes first.
// The engine stops on helper threads, so that the main thread stays free to notice a second
// signal and to bound how long a forced stop may take. Returns whether the stop was forced.
bool stop_engine(cuzk::engine::Engine& engine, SignalWatcher& watcher) {
  bool drained = false;
  bool cancelled = false;
  const auto stop_on_thread = [&](bool drain, bool& done) {
    return std::thread([&engine, &watcher, &done, drain] {
      try {
        engine.shutdown(drain);
      } catch (const std::exception& e) {
        log_event(Level::err, "engine shutdown failed", {{"error", e.what()}});
      }
      {
        std::lock_guard lock(watcher.mutex());
        done = true;
      }
      watcher.notify();
    });
  };
  std::thread drainer = stop_on_thread(true, drained);
  watcher.wait_for(2, [&] { return drained; });
  bool forced = false;
  {
    std::lock_guard lock(watcher.mutex());
    forced = !drained;
  }
  if (forced) {
    std::thread canceller = stop_on_thread(false, cancelled);
    // A stage that cannot be interrupted (key generation, a long MSM) would keep the process
    // alive; a second signal asks for a prompt exit, so the wait is bounded.
    constexpr auto kForcedStopLimit = std::chrono::seconds(5);
    if (!watcher.wait_until(std::chrono::steady_clock::now() + kForcedStopLimit,
                            [&] { return drained && cancelled; })) {
      log_event(Level::err, "forced exit", {{"reason", "the engine was still busy 5 s after cancelling its work"}});
      std::fflush(nullptr);
      std::_Exit(kExitRuntime);
    }
    canceller.join();
  }
  drainer.join();
  return forced;
}

int run(const Options& opt, const sigset_t& signals) {
  auto cfg_result = effective_config(opt);
  if (!cfg_result) {
    std::cerr << "cuzk-daemon: configuration error: " << cfg_result.error() << "\n";
    return kExitConfig;
  }
  const Config& cfg = *cfg_result;
  auto access = load_access(cfg);
  if (!access) {
    std::cerr << "cuzk-daemon: configuration error: " << access.error() << "\n";
    return kExitConfig;
  }
  if (opt.check_config) {
    for (const auto& w : cfg.warnings) std::cerr << "cuzk-daemon: warning: " << w.message << "\n";
    std::cout << cuzk::engine::config_to_toml(cfg) << std::flush;
    return kExitOk;
  }

  try {
    cuzk::logging::init_logging(cfg.logging.level, cfg.logging.format);
  } catch (const std::invalid_argument& e) {
    std::cerr << "cuzk-daemon: configuration error: " << e.what() << "\n";
    return kExitConfig;
  }
  cuzk::server::route_grpc_logs_to_spdlog();
  log_event(Level::info, "starting",
            {{"version", CUZK_VERSION},
             {"config", opt.config_path.empty() ? "(defaults)" : opt.config_path},
             {"data_dir", cfg.daemon.data_dir},
             {"listen", cfg.daemon.listen}});

  log_access(cfg, *access);
  // With a warning line for each of cfg.warnings.
  if (const std::string errors = log_preflight(cfg); !errors.empty()) {
    std::cerr << "cuzk-daemon: configuration error: " << errors << "\n";
    log_event(Level::err, "startup failed", {{"error", errors}});
    return kExitConfig;
  }

  std::optional<PidFile> pid_file;
  try {
    pid_file.emplace(opt.pid_file);
  } catch (const std::exception& e) {
    log_event(Level::err, "startup failed", {{"error", std::string("cannot write the pid file: ") + e.what()}});
    return kExitRuntime;
  }

  // Declared in this order so that they are destroyed in reverse: the listeners stop before
  // the service and the engine they call go away.
  auto started = start_engine(cfg);
  if (const int* rc = std::get_if<int>(&started)) return *rc;
  auto& engine = std::get<std::unique_ptr<cuzk::engine::Engine>>(started);
  cuzk::server::ProvingService::Options service_options;
  service_options.version = CUZK_VERSION;
  service_options.max_request_bytes = cfg.daemon.max_message_bytes;
  service_options.bearer_token = access->token;
  for (const auto& n : access->allowlist.networks()) service_options.unauthenticated_from.push_back(n.text());
  cuzk::server::ProvingService service(*engine, service_options);
  Listeners listeners;
  try {
    start_listeners(cfg, *access, service, listeners);
  } catch (const std::exception& e) {
    log_event(Level::err, "startup failed", {{"error", e.what()}});
    engine->shutdown(false);
    return kExitRuntime;
  }

  SignalWatcher watcher(signals);
  log_event(Level::info, "ready",
            {{"listen", listeners.grpc->address()},
             {"metrics", listeners.http ? listeners.http->address() : ""},
             {"version", CUZK_VERSION},
             {"pid", std::to_string(::getpid())}});
  std::cout << "listening " << listeners.grpc->address() << std::endl;  // flushed: scripts wait for it

  watcher.wait_for(1, [] { return false; });
  const bool forced = stop_engine(*engine, watcher);

  // Jobs are finished; give the calls in flight a moment to deliver their results.
  const auto grace = forced ? std::chrono::seconds(0) : std::chrono::seconds(5);
  listeners.grpc->shutdown(std::chrono::system_clock::now() + grace);
  listeners.grpc->wait();
  if (listeners.http) listeners.http->stop();
  log_event(Level::info, "stopped", {{"mode", forced ? "cancel" : "drain"}});
  return kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  // Block the shutdown signals before any thread exists: every thread (gRPC's, the engine's)
  // inherits the mask, so only the watcher's sigtimedwait ever sees them.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  // A client that disconnects mid-response must not kill the daemon.
  std::signal(SIGPIPE, SIG_IGN);
  // A file size limit (ulimit -f) reached by a PCE or key save must fail that save (EFBIG, named
  // in its error) like a full disk does, not kill the daemon with SIGXFSZ's default action.
  std::signal(SIGXFSZ, SIG_IGN);

  CLI::App app{"cuzk-daemon — persistent Groth16 proving engine serving cuzk.v1.ProvingEngine over gRPC"};
  app.set_version_flag("--version", std::string("cuzk-daemon ") + CUZK_VERSION);
  Options opt;
  app.add_option("-c,--config", opt.config_path, "Configuration file (TOML); without it the defaults apply");
  app.add_option("-l,--listen", opt.listen, "Listen address, unix:///path or host:port (overrides daemon.listen)");
  app.add_option("--data-dir", opt.data_dir, "Data directory (overrides daemon.data_dir)");
  app.add_option("--log-level", opt.log_level, "Log level (overrides logging.level; env CUZK_LOG overrides both)")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error"}));
  app.add_option("--log-format", opt.log_format, "Log format (overrides logging.format)")
      ->check(CLI::IsMember({"text", "json"}));
  app.add_option("--pid-file", opt.pid_file, "Write the daemon's pid to this file while it runs");
  app.add_flag("--check-config", opt.check_config,
               "Validate the configuration, print the effective one as TOML and exit (0 valid, 2 invalid)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? kExitOk : kExitConfig;
  }

  try {
    cuzk::require_cpu_features();
    return run(opt, signals);
  } catch (const std::exception& e) {
    std::cerr << "cuzk-daemon: error: " << e.what() << "\n";
    return kExitRuntime;
  }
}
