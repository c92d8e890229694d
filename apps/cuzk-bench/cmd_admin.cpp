// cuzk-bench status, preload, evict, metrics, cancel: one RPC each, printed as a table or JSON.
#include <unistd.h>

#include <iostream>

#include "commands.hpp"
#include "report.hpp"
#include "request.hpp"

namespace cuzk::bench {

namespace {

const char* tier_name(v1::SRSStatus::Tier t) {
  switch (t) {
    case v1::SRSStatus::HOT:
      return "hot";
    case v1::SRSStatus::WARM:
      return "warm";
    case v1::SRSStatus::COLD:
      return "cold";
    default:
      return "?";
  }
}

nlohmann::json status_json(const v1::GetStatusResponse& s) {
  nlohmann::json j;
  j["version"] = s.version();
  j["uptime_seconds"] = s.uptime_seconds();
  j["total_proofs_completed"] = s.total_proofs_completed();
  j["total_proofs_failed"] = s.total_proofs_failed();
  j["total_proofs_cancelled"] = s.total_proofs_cancelled();
  j["memory_used_bytes"] = s.memory_used_bytes();
  j["memory_limit_bytes"] = s.memory_limit_bytes();
  j["memory_waits"] = s.memory_waits();
  j["pinned_memory_bytes"] = s.pinned_memory_bytes();
  j["pinned_memory_limit_bytes"] = s.pinned_memory_limit_bytes();
  j["daemon_rss_bytes"] = s.daemon_rss_bytes();
  j["daemon_peak_rss_bytes"] = s.daemon_peak_rss_bytes();
  j["test_keys_allowed"] = s.test_keys_allowed();
  j["unauthenticated_from"] = nlohmann::json::array();
  for (const auto& n : s.unauthenticated_from()) j["unauthenticated_from"].push_back(n);
  j["tuning"] = nlohmann::json::array();
  for (const auto& t : s.tuning()) j["tuning"].push_back(t);
  j["circuits"] = nlohmann::json::array();
  for (const auto& c : s.circuits()) j["circuits"].push_back(c);
  j["workers"] = nlohmann::json::array();
  for (const auto& w : s.workers()) {
    j["workers"].push_back({{"name", w.name()},
                            {"state", w.state()},
                            {"current_job_id", w.current_job_id()},
                            {"current_partition", w.current_partition()},
                            {"busy_seconds", rounded(w.busy_seconds(), 3)}});
  }
  j["queues"] = nlohmann::json::array();
  for (const auto& q : s.queues()) {
    j["queues"].push_back({{"proof_kind", q.proof_kind()},
                           {"priority", priority_name(q.priority())},
                           {"pending", q.pending()},
                           {"in_progress", q.in_progress()},
                           {"pending_partitions", q.pending_partitions()},
                           {"in_progress_partitions", q.in_progress_partitions()}});
  }
  j["stage_queues"] = nlohmann::json::array();
  for (const auto& q : s.stage_queues()) {
    j["stage_queues"].push_back({{"proof_kind", q.proof_kind()},
                                 {"priority", priority_name(q.priority())},
                                 {"stage", q.stage()},
                                 {"pending", q.pending()},
                                 {"in_progress", q.in_progress()}});
  }
  j["loaded_srs"] = nlohmann::json::array();
  for (const auto& x : s.loaded_srs()) {
    j["loaded_srs"].push_back({{"circuit_id", x.circuit_id()},
                               {"tier", tier_name(x.tier())},
                               {"size_bytes", x.size_bytes()},
                               {"ref_count", x.ref_count()},
                               {"test_only", x.test_only()},
                               {"storage", x.storage()}});
  }
  j["loaded_pce"] = nlohmann::json::array();
  for (const auto& x : s.loaded_pce()) {
    j["loaded_pce"].push_back(
        {{"circuit_id", x.circuit_id()}, {"size_bytes", x.size_bytes()}, {"state", x.state()}, {"path", x.path()}});
  }
  j["operations"] = nlohmann::json::array();
  for (const auto& op : s.operations()) {
    j["operations"].push_back({{"what", op.what()},
                               {"circuit_id", op.circuit_id()},
                               {"done", op.done()},
                               {"total", op.total()},
                               {"unit", op.unit()},
                               {"fraction", rounded(op.fraction(), 4)},
                               {"elapsed_seconds", rounded(op.elapsed_seconds(), 1)}});
  }
  j["gpus"] = nlohmann::json::array();
  for (const auto& g : s.gpus()) {
    j["gpus"].push_back({{"ordinal", g.ordinal()},
                         {"name", g.name()},
                         {"vram_total_bytes", g.vram_total_bytes()},
                         {"vram_free_bytes", g.vram_free_bytes()},
                         {"current_job_id", g.current_job_id()},
                         {"current_proof_kind", g.current_proof_kind()}});
  }
  return j;
}

void print_status(const v1::GetStatusResponse& s) {
  KeyValues kv;
  kv.add("daemon", (s.version().empty() ? std::string("version not reported") : "version " + s.version()) + ", up " +
                       fmt_duration(s.uptime_seconds()));
  kv.add("proofs", std::to_string(s.total_proofs_completed()) + " completed, " +
                       std::to_string(s.total_proofs_failed()) + " failed, " +
                       std::to_string(s.total_proofs_cancelled()) + " cancelled");
  if (s.memory_limit_bytes() > 0) {
    kv.add("memory", fmt_bytes(s.memory_used_bytes()) + " used of a " + fmt_bytes(s.memory_limit_bytes()) +
                         " budget; " + std::to_string(s.memory_waits()) + " waits for room so far");
  }
  if (s.daemon_rss_bytes() > 0) {
    kv.add("rss", fmt_bytes(s.daemon_rss_bytes()) + " (peak " + fmt_bytes(s.daemon_peak_rss_bytes()) + ")");
  }
  if (s.pinned_memory_limit_bytes() > 0) {
    kv.add("pinned", fmt_bytes(s.pinned_memory_bytes()) + " of " + fmt_bytes(s.pinned_memory_limit_bytes()));
  }
  std::string circuits;
  for (const auto& c : s.circuits()) circuits += (circuits.empty() ? "" : ", ") + c;
  if (!circuits.empty()) kv.add("circuits", circuits);
  std::string tuning;
  for (const auto& t : s.tuning()) tuning += (tuning.empty() ? "" : ", ") + t;
  if (!tuning.empty()) kv.add("tuning", tuning);
  if (s.test_keys_allowed()) kv.add("test keys", "ALLOWED (srs.allow_test_keys): PoRep proofs may use TEST-ONLY keys");
  std::string networks;
  for (const auto& n : s.unauthenticated_from()) networks += (networks.empty() ? "" : ", ") + n;
  if (!networks.empty()) {
    kv.add("unauthenticated",
           "clients from " + networks + " call without TLS or a token (daemon.allow_unauthenticated_from)");
  }
  std::cout << kv.render();

  auto section = [](const char* title, const Table& t) {
    if (!t.empty()) std::cout << "\n" << title << ":\n" << t.render(2);
  };
  Table workers({"worker", "state", "job", "partition", "busy s"});
  for (const auto& w : s.workers()) {
    const bool busy = !w.current_job_id().empty();
    workers.add({w.name(), w.state(), busy ? w.current_job_id() : "-",
                 busy ? std::to_string(w.current_partition()) : "-", fmt_fixed(w.busy_seconds(), 1)});
  }
  section("workers", workers);
  // Long operations (test-only keys, PCE extraction, device provers) first after the workers: they
  // explain why a first proof waits.
  Table ops({"operation", "circuit", "progress", "elapsed s"});
  for (const auto& op : s.operations()) {
    const std::string progress = op.total() == 0
                                     ? "-"
                                     : fmt_fixed(100.0 * op.fraction(), 1) + "% (" + std::to_string(op.done()) + "/" +
                                           std::to_string(op.total()) + " " + op.unit() + ")";
    ops.add({op.what(), op.circuit_id(), progress, fmt_fixed(op.elapsed_seconds(), 1)});
  }
  section("operations", ops);
  Table jobs({"kind", "priority", "jobs queued", "jobs running", "partitions queued", "partitions running"});
  for (const auto& q : s.queues()) {
    jobs.add({q.proof_kind(), priority_name(q.priority()), std::to_string(q.pending()), std::to_string(q.in_progress()),
              std::to_string(q.pending_partitions()), std::to_string(q.in_progress_partitions())});
  }
  section("jobs", jobs);
  Table stages({"kind", "priority", "stage", "partitions waiting", "partitions in work"});
  for (const auto& q : s.stage_queues()) {
    stages.add({q.proof_kind(), priority_name(q.priority()), q.stage().empty() ? "-" : q.stage(),
                std::to_string(q.pending()), std::to_string(q.in_progress())});
  }
  section("stages", stages);
  Table srs({"circuit", "tier", "size", "refs", "keys"});
  for (const auto& x : s.loaded_srs()) {
    // Where the keys live: a file, or (TEST-ONLY keys, srs.test_keys) memory only.
    const std::string storage = x.storage().empty() ? "file" : x.storage();
    srs.add({x.circuit_id(), tier_name(x.tier()), fmt_bytes(x.size_bytes()), std::to_string(x.ref_count()),
             x.test_only() ? "TEST-ONLY (" + storage + ")" : storage});
  }
  section("srs", srs);
  Table pce({"circuit", "state", "size", "path"});
  for (const auto& x : s.loaded_pce()) pce.add({x.circuit_id(), x.state(), fmt_bytes(x.size_bytes()), x.path()});
  section("pce", pce);
  Table gpus({"gpu", "name", "vram free", "vram total", "job"});
  for (const auto& g : s.gpus()) {
    gpus.add({std::to_string(g.ordinal()), g.name(), fmt_bytes(g.vram_free_bytes()), fmt_bytes(g.vram_total_bytes()),
              g.current_job_id().empty() ? "-" : g.current_job_id() + " (" + g.current_proof_kind() + ")"});
  }
  section("gpus", gpus);
}

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
  if (!g.json) print_status(*s);
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
