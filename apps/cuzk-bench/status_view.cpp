#include "status_view.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <string_view>
#include <utility>

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

std::string joined(const google::protobuf::RepeatedPtrField<std::string>& items) {
  std::string out;
  for (const auto& x : items) out += (out.empty() ? "" : ", ") + x;
  return out;
}

void section(std::string& out, const char* title, const Table& t) {
  if (!t.empty()) out += std::string("\n") + title + ":\n" + t.render(2);
}

KeyValues summary(const v1::GetStatusResponse& s) {
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
  if (const std::string c = joined(s.circuits()); !c.empty()) kv.add("circuits", c);
  if (const std::string t = joined(s.tuning()); !t.empty()) kv.add("tuning", t);
  if (s.test_keys_allowed()) kv.add("test keys", "ALLOWED (srs.allow_test_keys): PoRep proofs may use TEST-ONLY keys");
  if (const std::string n = joined(s.unauthenticated_from()); !n.empty()) {
    kv.add("unauthenticated", "clients from " + n + " call without TLS or a token (daemon.allow_unauthenticated_from)");
  }
  return kv;
}

Table workers_table(const v1::GetStatusResponse& s) {
  Table workers({"worker", "state", "job", "partition", "busy s"});
  for (const auto& w : s.workers()) {
    const bool busy = !w.current_job_id().empty();
    workers.add({w.name(), w.state(), busy ? w.current_job_id() : "-",
                 busy ? std::to_string(w.current_partition()) : "-", fmt_fixed(w.busy_seconds(), 1)});
  }
  return workers;
}

Table operations_table(const v1::GetStatusResponse& s) {
  Table ops({"operation", "circuit", "progress", "elapsed s"});
  for (const auto& op : s.operations()) {
    const std::string progress = op.total() == 0
                                     ? "-"
                                     : fmt_fixed(100.0 * op.fraction(), 1) + "% (" + std::to_string(op.done()) + "/" +
                                           std::to_string(op.total()) + " " + op.unit() + ")";
    ops.add({op.what(), op.circuit_id(), progress, fmt_fixed(op.elapsed_seconds(), 1)});
  }
  return ops;
}

Table jobs_table(const v1::GetStatusResponse& s) {
  Table jobs({"kind", "priority", "jobs queued", "jobs running", "partitions queued", "partitions running"});
  for (const auto& q : s.queues()) {
    jobs.add({q.proof_kind(), priority_name(q.priority()), std::to_string(q.pending()), std::to_string(q.in_progress()),
              std::to_string(q.pending_partitions()), std::to_string(q.in_progress_partitions())});
  }
  return jobs;
}

Table stages_table(const v1::GetStatusResponse& s) {
  Table stages({"kind", "priority", "stage", "partitions waiting", "partitions in work"});
  for (const auto& q : s.stage_queues()) {
    stages.add({q.proof_kind(), priority_name(q.priority()), q.stage().empty() ? "-" : q.stage(),
                std::to_string(q.pending()), std::to_string(q.in_progress())});
  }
  return stages;
}

Table keys_table(const v1::GetStatusResponse& s) {
  Table srs({"circuit", "tier", "size", "refs", "keys"});
  for (const auto& x : s.loaded_srs()) {
    // Where the keys live: a file, or (TEST-ONLY keys, srs.test_keys) memory only.
    const std::string storage = x.storage().empty() ? "file" : x.storage();
    srs.add({x.circuit_id(), tier_name(x.tier()), fmt_bytes(x.size_bytes()), std::to_string(x.ref_count()),
             x.test_only() ? "TEST-ONLY (" + storage + ")" : storage});
  }
  return srs;
}

Table pce_table(const v1::GetStatusResponse& s) {
  Table pce({"circuit", "state", "size", "path"});
  for (const auto& x : s.loaded_pce()) pce.add({x.circuit_id(), x.state(), fmt_bytes(x.size_bytes()), x.path()});
  return pce;
}

// The seed daemon's GPU list (cuzk's daemon shows its GPUs through their prover workers).
Table gpus_table(const v1::GetStatusResponse& s) {
  Table gpus({"gpu", "name", "vram free", "vram total", "job"});
  for (const auto& g : s.gpus()) {
    gpus.add({std::to_string(g.ordinal()), g.name(), fmt_bytes(g.vram_free_bytes()), fmt_bytes(g.vram_total_bytes()),
              g.current_job_id().empty() ? "-" : g.current_job_id() + " (" + g.current_proof_kind() + ")"});
  }
  return gpus;
}

// Where a prover worker runs its device stages: "prover-gpu0-1" and "prover-gpu0-deadline-0" on
// "gpu:0", "prover-0" on the CPU; "" for a worker of another stage.
std::string prover_place(const std::string& worker) {
  constexpr std::string_view kGpu = "prover-gpu";
  if (worker.rfind(kGpu, 0) == 0) {
    const size_t end = worker.find('-', kGpu.size());
    return "gpu:" + worker.substr(kGpu.size(), end == std::string::npos ? end : end - kGpu.size());
  }
  return worker.rfind("prover-", 0) == 0 ? "cpu" : "";
}

// The stage a worker serves, from its name ("synth-0": synthesis).
std::string stage_of(const std::string& worker) {
  const std::string prefix = worker.substr(0, worker.find('-'));
  if (prefix == "synth") return "synthesis";
  if (prefix == "loader") return "scheduler";
  return prefix;
}

struct ProverUse {
  unsigned workers = 0, busy = 0;
  double busy_s = 0;  // summed over its workers, since the daemon started
  std::set<std::string> jobs;
};

std::map<std::string, ProverUse> prover_use(const v1::GetStatusResponse& s) {
  std::map<std::string, ProverUse> out;
  for (const auto& w : s.workers()) {
    const std::string place = prover_place(w.name());
    if (place.empty()) continue;
    ProverUse& u = out[place];
    ++u.workers;
    u.busy_s += w.busy_seconds();
    if (w.current_job_id().empty()) continue;
    ++u.busy;
    u.jobs.insert(w.current_job_id());
  }
  return out;
}

// Busy over total workers of every other stage: "synthesis 1/2, finalize 0/1, scheduler 0/2".
std::string other_workers(const v1::GetStatusResponse& s) {
  std::map<std::string, std::pair<unsigned, unsigned>> stages;  // busy, total
  for (const auto& w : s.workers()) {
    if (!prover_place(w.name()).empty()) continue;
    auto& [busy, total] = stages[stage_of(w.name())];
    ++total;
    if (!w.current_job_id().empty()) ++busy;
  }
  std::string out;
  for (const auto& [stage, n] : stages) {
    out += (out.empty() ? "" : ", ") + stage + " " + std::to_string(n.first) + "/" + std::to_string(n.second);
  }
  return out.empty() ? "-" : out + " busy";
}

// Every priority, highest first, summed over the proof kinds.
Table queue_table(const v1::GetStatusResponse& s) {
  Table t({"priority", "jobs queued", "jobs running", "partitions queued", "partitions running"});
  for (const v1::Priority p : {v1::CRITICAL, v1::HIGH, v1::NORMAL, v1::LOW}) {
    uint64_t jq = 0, jr = 0, pq = 0, pr = 0;
    for (const auto& q : s.queues()) {
      if (q.priority() != p) continue;
      jq += q.pending();
      jr += q.in_progress();
      pq += q.pending_partitions();
      pr += q.in_progress_partitions();
    }
    t.add({priority_name(p), std::to_string(jq), std::to_string(jr), std::to_string(pq), std::to_string(pr)});
  }
  return t;
}

// Each GPU (or the CPU prover): its workers busy now, on average since the last refresh (two
// workers of a GPU overlap: one uploads while the other's kernels run), and the jobs they prove.
Table provers_table(const v1::GetStatusResponse& now, const v1::GetStatusResponse* prev, double elapsed_s) {
  const std::map<std::string, ProverUse> use = prover_use(now);
  const std::map<std::string, ProverUse> before = prev ? prover_use(*prev) : std::map<std::string, ProverUse>{};
  Table t({"prover", "workers busy", "busy since last refresh", "jobs"});
  for (const auto& [place, u] : use) {
    std::string average = "-";
    auto b = before.find(place);
    if (b != before.end() && elapsed_s > 0) {
      // Clamped: the daemon's clock and this one see the interval's ends at slightly different times.
      const double busy = std::clamp((u.busy_s - b->second.busy_s) / elapsed_s, 0.0, static_cast<double>(u.workers));
      average = fmt_fixed(busy, 2) + " of " + std::to_string(u.workers);
    }
    std::string jobs;
    for (const std::string& j : u.jobs) jobs += (jobs.empty() ? "" : ", ") + j;
    t.add({place, std::to_string(u.busy) + "/" + std::to_string(u.workers), average, jobs.empty() ? "-" : jobs});
  }
  return t;
}

}  // namespace

std::string watch_text(const v1::GetStatusResponse& now, const v1::GetStatusResponse* prev, double elapsed_s) {
  KeyValues kv;
  kv.add("daemon", (now.version().empty() ? std::string("version not reported") : "version " + now.version()) +
                       ", up " + fmt_duration(now.uptime_seconds()));
  std::string since;
  if (prev) {
    const uint64_t n =
        now.total_proofs_completed() - std::min(now.total_proofs_completed(), prev->total_proofs_completed());
    since = " (+" + std::to_string(n) + " since the last refresh)";
  }
  kv.add("proofs", std::to_string(now.total_proofs_completed()) + " completed" + since + ", " +
                       std::to_string(now.total_proofs_failed()) + " failed, " +
                       std::to_string(now.total_proofs_cancelled()) + " cancelled");
  if (now.memory_limit_bytes() > 0) {
    kv.add("memory",
           fmt_bytes(now.memory_used_bytes()) + " used of a " + fmt_bytes(now.memory_limit_bytes()) + " budget (" +
               fmt_fixed(
                   100.0 * static_cast<double>(now.memory_used_bytes()) / static_cast<double>(now.memory_limit_bytes()),
                   1) +
               " %); " + std::to_string(now.memory_waits()) + " waits for room so far");
  }
  if (now.daemon_rss_bytes() > 0) {
    kv.add("rss", fmt_bytes(now.daemon_rss_bytes()) + " (peak " + fmt_bytes(now.daemon_peak_rss_bytes()) + ")");
  }
  kv.add("workers", other_workers(now));
  std::string out = kv.render();
  section(out, "queue by priority", queue_table(now));
  section(out, "provers", provers_table(now, prev, elapsed_s));
  section(out, "jobs", jobs_table(now));
  const Table ops = operations_table(now);
  if (ops.empty()) {
    out += "\noperations: none in progress\n";
  } else {
    section(out, "operations", ops);
  }
  section(out, "gpus", gpus_table(now));
  return out;
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

std::string status_text(const v1::GetStatusResponse& s) {
  std::string out = summary(s).render();
  section(out, "workers", workers_table(s));
  // Long operations (test-only keys, PCE extraction, device provers) first after the workers: they
  // explain why a first proof waits.
  section(out, "operations", operations_table(s));
  section(out, "jobs", jobs_table(s));
  section(out, "stages", stages_table(s));
  section(out, "srs", keys_table(s));
  section(out, "pce", pce_table(s));
  section(out, "gpus", gpus_table(s));
  return out;
}

}  // namespace cuzk::bench
