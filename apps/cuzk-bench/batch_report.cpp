#include "batch_report.hpp"

#include <algorithm>
#include <iostream>
#include <map>
#include <optional>

#include "interrupt.hpp"
#include "report.hpp"

namespace cuzk::bench {

namespace {

constexpr size_t kMaxListedFailures = 20;

std::optional<double> max_of(const std::vector<double>& v) {
  if (v.empty()) return std::nullopt;
  return *std::max_element(v.begin(), v.end());
}

// The answers' figures: per request, per partition and the counts.
struct AnswerStats {
  std::vector<double> latency, queue, srs, synth, prove, finalize, total;
  std::vector<double> part_synth, part_wait, part_prove, part_finalize;
  std::vector<double> part_upload, part_matvec, part_h, part_g1, part_g2;  // the device stage's parts
  std::map<std::string, uint64_t> part_backends;
  // Per request: client latency - the daemon's arithmetic (gRPC + scheduling + queueing), and the
  // daemon's part of it (its total - its arithmetic).
  std::vector<double> overhead, daemon_overhead;
  uint64_t ok = 0, completed = 0, verified = 0, cancelled = 0, cancel_requested = 0, await_timeouts = 0;
  double first_completion = -1, last_submission = -1;
  nlohmann::json failures = nlohmann::json::array();

  void add_parts(const ProofRecord& r) {
    for (const auto& p : r.parts) {
      part_synth.push_back(p.synthesis_ms());
      part_wait.push_back(p.prove_start_ms() - p.synthesis_start_ms() - p.synthesis_ms());
      part_prove.push_back(p.prove_ms());
      part_finalize.push_back(p.finalize_ms());
      part_upload.push_back(p.upload_ms());
      part_matvec.push_back(p.matvec_ms());
      part_h.push_back(p.h_ms());
      part_g1.push_back(p.msm_g1_ms());
      part_g2.push_back(p.msm_g2_ms());
      ++part_backends[p.backend().empty() ? "?" : p.backend()];
    }
  }

  void add(const ProofRecord& r, bool no_verify) {
    last_submission = std::max(last_submission, r.submit_s);
    cancel_requested += r.cancel_requested;
    await_timeouts += r.await_timeouts;
    if (r.cancelled) {
      ++cancelled;
      return;
    }
    if (r.completed) {
      ++completed;
      if (first_completion < 0 || r.done_s < first_completion) first_completion = r.done_s;
      if (!no_verify && r.valid) ++verified;
    }
    if (!r.valid) {
      if (failures.size() < kMaxListedFailures) {
        failures.push_back({{"index", r.index}, {"job_id", r.job_id}, {"error", r.error}});
      }
      return;
    }
    ++ok;
    latency.push_back(r.latency_ms);
    queue.push_back(static_cast<double>(r.queue_wait_ms));
    srs.push_back(static_cast<double>(r.srs_load_ms));
    synth.push_back(static_cast<double>(r.synthesis_ms));
    prove.push_back(static_cast<double>(r.prove_ms));
    finalize.push_back(static_cast<double>(r.finalize_ms));
    total.push_back(static_cast<double>(r.total_ms));
    add_parts(r);
    if (r.total_us != 0) {
      overhead.push_back(r.latency_ms - static_cast<double>(r.compute_us) / 1000);
      daemon_overhead.push_back(static_cast<double>(r.total_us - std::min(r.total_us, r.compute_us)) / 1000);
    }
  }
};

// What the GetStatus samples say of the daemon during the batch.
struct DaemonStats {
  std::optional<double> util, util_steady;
  unsigned provers = 0;
  uint64_t max_queued = 0, peak_rss = 0, rss = 0, max_memory_used = 0, memory_limit = 0, memory_waits = 0;

  DaemonStats(const std::vector<StatusSample>& samples, const AnswerStats& a) {
    // From the sample taken just before the first submission to the one taken just after the last
    // answer (the batch's wall time, give or take one GetStatus round trip at each end).
    if (!samples.empty()) util = prover_utilization(samples, 0.0, samples.back().t_s);
    if (a.first_completion >= 0 && a.last_submission > a.first_completion) {
      util_steady = prover_utilization(samples, a.first_completion, a.last_submission);
    }
    // Budget waits during the batch: the first sample is taken just before the first submission.
    if (!samples.empty()) memory_waits = samples.back().memory_waits - samples.front().memory_waits;
    for (const auto& s : samples) {
      provers = s.provers;
      max_queued = std::max(max_queued, s.queued);
      max_memory_used = std::max(max_memory_used, s.memory_used_bytes);
      memory_limit = s.memory_limit_bytes;
      peak_rss = std::max(peak_rss, s.peak_rss_bytes);
      rss = s.rss_bytes;
    }
  }
};

struct Throughput {
  std::optional<double> per_min, s_per_proof;
  Throughput(uint64_t ok, double wall) {
    if (wall > 0) per_min = 60.0 * static_cast<double>(ok) / wall;
    if (ok > 0) s_per_proof = wall / static_cast<double>(ok);
  }
};

void stage_json(const AnswerStats& a, nlohmann::json& json) {
  json["latency_p50_ms"] = json_number(percentile(a.latency, 50), 1);
  json["latency_p90_ms"] = json_number(percentile(a.latency, 90), 1);
  json["latency_max_ms"] = json_number(max_of(a.latency), 1);
  json["latency_mean_ms"] = json_number(mean(a.latency), 1);
  // Meaningful as "overhead per request" when requests do not queue (-j 1).
  json["overhead_ms_p50"] = json_number(percentile(a.overhead, 50), 3);
  json["daemon_overhead_ms_p50"] = json_number(percentile(a.daemon_overhead, 50), 3);
  json["stage_means_ms"] = {{"queue_wait", json_number(mean(a.queue), 1)},  {"srs_load", json_number(mean(a.srs), 1)},
                            {"synthesis", json_number(mean(a.synth), 1)},   {"prove", json_number(mean(a.prove), 1)},
                            {"finalize", json_number(mean(a.finalize), 1)}, {"total", json_number(mean(a.total), 1)}};
  // Per partition (the daemon's stage times): where a partition's time goes, and which backend.
  json["partition_stage_ms"] = {{"partitions", a.part_prove.size()},
                                {"synthesis_p50", json_number(percentile(a.part_synth, 50), 1)},
                                {"synthesis_p90", json_number(percentile(a.part_synth, 90), 1)},
                                {"prover_wait_p50", json_number(percentile(a.part_wait, 50), 1)},
                                {"prove_p50", json_number(percentile(a.part_prove, 50), 1)},
                                {"prove_p90", json_number(percentile(a.part_prove, 90), 1)},
                                {"prove_max", json_number(max_of(a.part_prove), 1)},
                                {"finalize_p50", json_number(percentile(a.part_finalize, 50), 1)},
                                {"backends", a.part_backends}};
  // The device stage's parts, p50 (G2 runs beside the G1 MSMs on a GPU, so they overlap).
  json["device_stage_p50_ms"] = {{"upload", json_number(percentile(a.part_upload, 50), 1)},
                                 {"matvec", json_number(percentile(a.part_matvec, 50), 1)},
                                 {"h", json_number(percentile(a.part_h, 50), 1)},
                                 {"msm_g1", json_number(percentile(a.part_g1, 50), 1)},
                                 {"msm_g2", json_number(percentile(a.part_g2, 50), 1)}};
}

void daemon_json(const DaemonStats& d, const BatchRun& run, nlohmann::json& json) {
  json["prover_utilization"] = json_number(d.util, 3);
  json["prover_utilization_steady"] = json_number(d.util_steady, 3);
  json["prover_workers"] = d.provers;
  json["status_samples"] = run.samples.size();
  json["status_errors"] = run.sampler_errors;
  json["max_queued"] = d.max_queued;
  json["daemon_peak_rss_bytes"] = d.peak_rss;
  json["daemon_rss_bytes"] = d.rss;
  // The most the sampled memory budget held: near the limit under backpressure.
  json["max_memory_used_bytes"] = d.max_memory_used;
  json["memory_limit_bytes"] = d.memory_limit;
  json["memory_waits"] = d.memory_waits;  // reservations that waited for room (from every client of the daemon)
}

void fill_json(const BatchOptions& o, const BatchRun& run, const AnswerStats& a, const DaemonStats& d,
               const Throughput& tp, uint64_t failed, nlohmann::json& json) {
  json["command"] = "batch";
  json["circuit"] = o.circuit;
  json["partitions"] = o.partitions;
  json["count"] = o.count;
  json["concurrency"] = o.concurrency;
  json["warmup"] = o.warmup;
  json["priority"] = o.priority;
  json["interrupted"] = interrupted();
  json["proofs"] = a.ok;
  json["failed"] = failed;
  json["cancelled"] = a.cancelled;  // cancelled as asked (--cancel-every); the others of those completed
  json["cancel_requested"] = a.cancel_requested;
  json["await_timeouts"] = a.await_timeouts;
  json["completed"] = a.completed;
  json["verified"] = a.verified;
  json["verification"] = o.no_verify ? "skipped" : "all";
  json["wall_s"] = rounded(run.wall_s, 3);
  json["throughput_proofs_per_min"] = json_number(tp.per_min, 3);
  json["seconds_per_proof"] = json_number(tp.s_per_proof, 3);
  stage_json(a, json);
  daemon_json(d, run, json);
  json["failures"] = a.failures;
  if (!o.timeline.empty()) json["timeline"] = o.timeline;
}

std::string result_line(const BatchOptions& o, const AnswerStats& a, uint64_t failed) {
  std::string s = std::to_string(a.ok) + " ok, " + std::to_string(failed) + " failed";
  if (a.cancel_requested > 0) {
    s += ", " + std::to_string(a.cancelled) + " of " + std::to_string(a.cancel_requested) + " cancelled as asked";
  }
  s += o.no_verify ? " (not verified)" : ", " + std::to_string(a.verified) + " verified";
  if (interrupted()) s += " (interrupted)";
  return s;
}

std::string util_line(const DaemonStats& d, size_t samples) {
  if (d.provers == 0) return "- (the daemon reports no prover workers)";
  return fmt_opt(d.util ? std::optional(*d.util * 100) : std::nullopt, 1) + " % overall, " +
         fmt_opt(d.util_steady ? std::optional(*d.util_steady * 100) : std::nullopt, 1) + " % steady (" +
         std::to_string(d.provers) + " prover worker" + (d.provers == 1 ? "" : "s") + ", " + std::to_string(samples) +
         " samples)";
}

void print_failures(const BatchOptions& o, const BatchRun& run, const AnswerStats& a, uint64_t failed) {
  const uint64_t not_attempted = o.count - run.records.size();
  if (a.failures.empty() && not_attempted == 0) return;
  const uint64_t listable = failed - not_attempted;
  std::cout << "\nfailures"
            << (listable > a.failures.size() ? " (first " + std::to_string(a.failures.size()) + ")" : "") << ":\n";
  if (not_attempted > 0) std::cout << "  " << not_attempted << " proofs not submitted (interrupted)\n";
  for (const auto& f : a.failures) {
    std::cout << "  #" << f["index"].get<uint64_t>() << " " << f["job_id"].get<std::string>() << ": "
              << f["error"].get<std::string>() << "\n";
  }
}

void print_text(const BatchOptions& o, const BatchRun& run, const AnswerStats& a, const DaemonStats& d,
                const Throughput& tp, uint64_t failed) {
  KeyValues kv;
  kv.add("circuit", o.circuit + " (" + std::to_string(o.partitions) +
                        (o.partitions == 1 ? " partition" : " partitions") + " per proof)");
  kv.add("batch", std::to_string(o.count) + " proofs, concurrency " + std::to_string(o.concurrency) +
                      (o.warmup > 0 ? ", after " + std::to_string(o.warmup) + " warmup" : ""));
  kv.add("result", result_line(o, a, failed));
  kv.add("wall", fmt_fixed(run.wall_s, 2) + " s");
  kv.add("throughput", fmt_opt(tp.per_min, 2) + " proofs/min, " + fmt_opt(tp.s_per_proof, 2) + " s/proof");
  kv.add("latency", "p50 " + fmt_opt(percentile(a.latency, 50), 0) + "  p90 " + fmt_opt(percentile(a.latency, 90), 0) +
                        "  max " + fmt_opt(max_of(a.latency), 0) + "  mean " + fmt_opt(mean(a.latency), 0) + " ms");
  kv.add("prover util", util_line(d, run.samples.size()));
  kv.add("overhead", "p50 " + fmt_opt(percentile(a.overhead, 50), 3) + " ms per request (latency - arithmetic), " +
                         fmt_opt(percentile(a.daemon_overhead, 50), 3) + " ms of it in the daemon");
  kv.add("max queued", std::to_string(d.max_queued));
  kv.add("daemon RSS", fmt_bytes(d.rss) + " (peak " + fmt_bytes(d.peak_rss) + ")");
  std::cout << kv.render();
  Table t({"stage", "mean ms"});
  t.add({"queue_wait", fmt_opt(mean(a.queue), 1)});
  t.add({"srs_load", fmt_opt(mean(a.srs), 1)});
  t.add({"synthesis", fmt_opt(mean(a.synth), 1)});
  t.add({"prove", fmt_opt(mean(a.prove), 1)});
  t.add({"  finalize", fmt_opt(mean(a.finalize), 1)});
  t.add({"total", fmt_opt(mean(a.total), 1)});
  std::cout << "\nserver timings per proof (summed over partitions):\n" << t.render(2);
  print_failures(o, run, a, failed);
}

}  // namespace

uint64_t report_batch(const GlobalOptions& g, const BatchOptions& o, const BatchRun& run, nlohmann::json& json) {
  AnswerStats a;
  for (const ProofRecord& r : run.records) a.add(r, o.no_verify);
  const DaemonStats d(run.samples, a);
  const uint64_t failed = o.count - a.ok - a.cancelled;  // not attempted (interrupted) counts as failed
  const Throughput tp(a.ok, run.wall_s);
  fill_json(o, run, a, d, tp, failed, json);
  if (!g.json) print_text(o, run, a, d, tp, failed);
  return failed;
}

}  // namespace cuzk::bench
