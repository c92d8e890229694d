// cuzk-bench status, preload, evict, metrics, cancel: one RPC each, printed as a table or JSON
// (status: status_view.hpp; status --watch: status_watch.cpp).
#include <unistd.h>

#include <iostream>

#include "commands.hpp"
#include "report.hpp"
#include "status_view.hpp"

namespace cuzk::bench {

namespace {

int fail(const std::string& message) {
  std::cerr << "cuzk-bench: " << message << "\n";
  return 1;
}

}  // namespace

int run_status(Client& client, const GlobalOptions& g, nlohmann::json& json) {
  auto s = client.get_status();
  if (!s) return fail(s.error());
  json = status_json(*s);
  json["command"] = "status";
  if (!g.json) std::cout << status_text(*s);
  return 0;
}

int run_preload(Client& client, const GlobalOptions& g, const std::string& circuit, nlohmann::json& json) {
  if (g.verbose || isatty(STDERR_FILENO) == 1) {
    std::cerr << "preloading " << circuit << " (keys are generated on first use; this can take minutes)\n";
  }
  auto r = client.preload(circuit);
  if (!r) return fail(r.error());
  json = {{"command", "preload"},
          {"circuit", circuit},
          {"already_loaded", r->already_loaded()},
          {"load_time_ms", r->load_time_ms()}};
  if (!g.json) {
    std::cout << circuit << ": "
              << (r->already_loaded() ? std::string("already loaded")
                                      : "loaded in " + std::to_string(r->load_time_ms()) + " ms")
              << "\n";
  }
  return 0;
}

int run_evict(Client& client, const GlobalOptions& g, const std::string& circuit, nlohmann::json& json) {
  auto r = client.evict(circuit);
  if (!r) return fail(r.error());
  json = {
      {"command", "evict"}, {"circuit", circuit}, {"was_loaded", r->was_loaded()}, {"freed_bytes", r->freed_bytes()}};
  if (!g.json) {
    std::cout << circuit << ": "
              << (r->was_loaded() ? "evicted, freed " + fmt_bytes(r->freed_bytes()) : std::string("was not loaded"))
              << "\n";
  }
  return 0;
}

int run_metrics(Client& client, const GlobalOptions& g, nlohmann::json& json) {
  auto r = client.get_metrics();
  if (!r) return fail(r.error());
  json = {{"command", "metrics"}, {"prometheus_text", r->prometheus_text()}};
  if (!g.json) std::cout << r->prometheus_text() << (r->prometheus_text().ends_with('\n') ? "" : "\n");
  return 0;
}

int run_cancel(Client& client, const GlobalOptions& g, const std::string& job_id, nlohmann::json& json) {
  auto r = client.cancel(job_id);
  if (!r) return fail(r.error());
  json = {{"command", "cancel"},
          {"job_id", job_id},
          {"found", r->found()},
          {"cancelled", r->cancelled()},
          {"was_running", r->was_running()}};
  if (!r->found()) {
    // A seed daemon never sets `found`; neither does ours for an unknown id.
    if (!g.json) std::cout << job_id << ": no such job\n";
    std::cerr << "cuzk-bench: job " << job_id << " not found (or the daemon does not report it)\n";
    return 1;
  }
  if (!g.json) {
    std::cout << job_id << ": "
              << (r->cancelled()
                      ? std::string("cancelled") + (r->was_running() ? " (it was running)" : " (it was queued)")
                      : std::string("already finished; nothing to cancel"))
              << "\n";
  }
  return 0;
}

}  // namespace cuzk::bench
