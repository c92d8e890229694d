// cuzk-bench batch: COUNT Prove calls with at most J in flight, J client threads (each with its own
// stub on the one shared channel), random partition inputs per proof. Every answer is verified on a
// separate thread, off the submission path, so verification never delays the next submission and
// is not part of the measured wall time. GetStatus is sampled in the background for prover
// utilization and queue depths (status_sampler.hpp).
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <functional>
#include <iostream>
#include <mutex>
#include <thread>

#include "batch_report.hpp"
#include "commands.hpp"
#include "interrupt.hpp"
#include "post_request.hpp"
#include "proof_checker.hpp"
#include "report.hpp"
#include "request.hpp"
#include "snap_request.hpp"
#include "status_sampler.hpp"
#include "timeline.hpp"
#include "timeline_files.hpp"

namespace cuzk::bench {

namespace {

using Clock = std::chrono::steady_clock;

// Progress on stderr: one line per proof with -v; otherwise, on a terminal, one line redrawn.
class BatchProgress {
 public:
  BatchProgress(uint64_t total, bool verbose, std::string label)
      : total_(total), verbose_(verbose), tty_(isatty(STDERR_FILENO) == 1), label_(std::move(label)) {}
  ~BatchProgress() { clear(); }
  BatchProgress(const BatchProgress&) = delete;
  BatchProgress& operator=(const BatchProgress&) = delete;

  void proof_done(const ProofRecord& r, double elapsed_s) {
    std::lock_guard lock(mu_);
    ++done_;
    const bool failed = !r.completed && !r.cancelled;
    if (failed) ++failed_;
    if (verbose_ || failed) {
      clear_locked();
      char buf[256];
      if (r.cancelled) {
        std::fprintf(stderr, "%s[%llu/%llu] cancelled %8.0f ms  %s\n", label_.c_str(),
                     static_cast<unsigned long long>(done_), static_cast<unsigned long long>(total_), r.latency_ms,
                     r.job_id.c_str());
      } else if (r.completed) {
        std::snprintf(buf, sizeof buf, "%s[%llu/%llu] ok    %8.0f ms  (queue %llu, synth %llu, prove %llu ms)  %s\n",
                      label_.c_str(), static_cast<unsigned long long>(done_), static_cast<unsigned long long>(total_),
                      r.latency_ms, static_cast<unsigned long long>(r.queue_wait_ms),
                      static_cast<unsigned long long>(r.synthesis_ms), static_cast<unsigned long long>(r.prove_ms),
                      r.job_id.c_str());
        std::fputs(buf, stderr);
      } else {
        std::fprintf(stderr, "%s[%llu/%llu] FAIL  %8.0f ms  %s: %s\n", label_.c_str(),
                     static_cast<unsigned long long>(done_), static_cast<unsigned long long>(total_), r.latency_ms,
                     r.job_id.c_str(), r.error.c_str());
      }
    }
    if (!verbose_ && tty_) {
      const double per_min =
          elapsed_s > 0 ? 60.0 * static_cast<double>(done_ - failed_) / elapsed_s : 0;  // incl. cancelled
      std::fprintf(stderr, "\r%s[%llu/%llu] %llu failed, %.2f proofs/min, %.0f s\033[K", label_.c_str(),
                   static_cast<unsigned long long>(done_), static_cast<unsigned long long>(total_),
                   static_cast<unsigned long long>(failed_), per_min, elapsed_s);
      drawn_ = true;
    }
    std::fflush(stderr);
  }

  // A message that must not be mixed into the progress line.
  void message(const std::string& text) {
    std::lock_guard lock(mu_);
    clear_locked();
    std::fprintf(stderr, "%s\n", text.c_str());
  }

  void clear() {
    std::lock_guard lock(mu_);
    clear_locked();
  }

 private:
  void clear_locked() {
    if (!drawn_) return;
    std::fputs("\r\033[K", stderr);
    drawn_ = false;
  }

  std::mutex mu_;
  uint64_t total_, done_ = 0, failed_ = 0;
  bool verbose_, tty_, drawn_ = false;
  std::string label_;
};

// Verifies answers on its own thread; the verifying key is fetched when the first answer comes
// (so a cold daemon's key generation is charged to the first proof, as Prove would charge it).
class AsyncVerifier {
 public:
  struct Item {
    ProofRecord* record;
    std::string proof;
    std::vector<std::string> public_inputs;
    uint32_t partitions;
  };
  using OnInvalid = std::function<void(const ProofRecord&)>;

  AsyncVerifier(Client& client, std::string circuit, OnInvalid on_invalid)
      : client_(client), circuit_(std::move(circuit)), on_invalid_(std::move(on_invalid)) {
    thread_ = std::thread([this] { loop(); });
  }
  ~AsyncVerifier() { finish(); }
  AsyncVerifier(const AsyncVerifier&) = delete;
  AsyncVerifier& operator=(const AsyncVerifier&) = delete;

  void push(Item item) {
    {
      std::lock_guard lock(mu_);
      queue_.push_back(std::move(item));
    }
    cv_.notify_one();
  }
  // Waits until every pushed item is verified.
  void finish() {
    {
      std::lock_guard lock(mu_);
      closing_ = true;
    }
    cv_.notify_one();
    if (thread_.joinable()) thread_.join();
  }

 private:
  void loop() {
    std::optional<ProofChecker> checker;
    std::string fetch_error;
    for (;;) {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [&] { return closing_ || !queue_.empty(); });
      if (queue_.empty()) return;
      Item item = std::move(queue_.front());
      queue_.pop_front();
      lock.unlock();
      if (!checker && fetch_error.empty()) {
        auto c = ProofChecker::fetch(client_, circuit_);
        if (c) {
          checker.emplace(std::move(*c));
        } else {
          fetch_error = c.error();
        }
      }
      ProofRecord& r = *item.record;
      if (!checker) {
        r.valid = false;
        r.error = "cannot verify: " + fetch_error;
      } else {
        const CheckOutcome out = checker->check(item.proof, item.public_inputs, item.partitions);
        r.valid = out.valid;
        r.verify_ms = out.ms;
        if (!out.valid) r.error = "verification failed: " + out.detail;
      }
      if (!r.valid && on_invalid_) on_invalid_(r);
    }
  }

  Client& client_;
  std::string circuit_;
  OnInvalid on_invalid_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Item> queue_;
  bool closing_ = false;
  std::thread thread_;
};

struct PhaseResult {
  std::vector<ProofRecord> records;
  double wall_s = 0;
  uint64_t attempted = 0;
};

// What each proof of the batch sends: a PoRep C1, PoSt or SnapDeals request files (proof i sends
// file i mod their number), circom witnesses (one per partition, the same for every proof), or else
// random inputs of the generic circuit.
struct BatchSource {
  const PorepC1* porep = nullptr;
  const std::vector<PostRequest>* posts = nullptr;
  const std::vector<std::string>* witnesses = nullptr;  // .wtns file contents
};

// How proof i is asked for: its priority (the --priority list in turn), and whether it is cancelled
// (--cancel-every) after a delay spread over [0, --cancel-delay-ms] so that some cancels meet queued
// jobs and some running ones.
struct ProofPlan {
  v1::Priority priority = v1::PRIORITY_UNSPECIFIED;
  bool cancel = false;
  std::chrono::milliseconds cancel_delay{0};
};

ProofPlan plan_for(const BatchOptions& o, const std::vector<v1::Priority>& priorities, uint64_t i) {
  ProofPlan p;
  p.priority = priorities[i % priorities.size()];
  p.cancel = o.cancel_every > 0 && i % o.cancel_every == o.cancel_every - 1;
  if (p.cancel && o.cancel_delay_ms > 0) {
    const uint64_t k = i / o.cancel_every;  // the k-th cancelled proof: delays 0, 1/3, 2/3, 1 of the maximum
    p.cancel_delay = std::chrono::milliseconds(o.cancel_delay_ms * (k % 4) / 3);
  }
  return p;
}

v1::SubmitProofRequest make_submit(const BatchOptions& o, const BatchSource& src, uint64_t i, v1::Priority priority,
                                   const std::string& request_id) {
  v1::SubmitProofRequest s;
  const PostRequest* post = src.posts ? &(*src.posts)[i % src.posts->size()] : nullptr;
  if (post) {
    s = post->fields;  // kind, registered proof, randomness / commitments, vanilla proofs
  } else {
    s.set_proof_kind(v1::GENERIC);
  }
  s.set_request_id(request_id);
  s.set_priority(priority);
  if (post) return s;
  if (src.porep) {
    set_porep_request(s, *src.porep);
  } else if (src.witnesses) {
    s.set_circuit_id(o.circuit);
    for (const std::string& w : *src.witnesses) s.add_witnesses(w);
  } else {
    s.set_circuit_id(o.circuit);
    for (uint32_t p = 0; p < o.partitions; ++p) s.add_partition_inputs(random_partition_input());
  }
  return s;
}

// What one proof's calls returned: the last RPC's status and, when it is OK, the job's answer.
struct Answer {
  grpc::Status status;
  v1::AwaitProofResponse result;
  const char* rpc = "Prove";  // the call the status is of
};

// One unary call with the proof's deadline (system_clock max: none), the bearer token, and
// registered so that Ctrl-C cancels it.
template <class Call>
grpc::Status unary_call(const Client& client, InflightCalls& calls, std::chrono::system_clock::time_point deadline,
                        Call&& call) {
  grpc::ClientContext ctx;
  if (deadline != std::chrono::system_clock::time_point::max()) ctx.set_deadline(deadline);
  client.prepare(ctx);
  InflightGuard guard(calls, &ctx);
  return call(ctx);
}

// Prove: submission and wait in one call (what Curio does).
Answer prove_call(const Client& client, v1::ProvingEngine::Stub& stub, InflightCalls& calls,
                  const v1::SubmitProofRequest& s, std::chrono::system_clock::time_point deadline) {
  v1::ProveRequest req;
  *req.mutable_submit() = s;
  v1::ProveResponse resp;
  Answer a;
  a.status = unary_call(client, calls, deadline, [&](grpc::ClientContext& c) { return stub.Prove(&c, req, &resp); });
  if (a.status.ok()) a.result = std::move(*resp.mutable_result());
  return a;
}

// SubmitProof, CancelProof when the plan says so, then AwaitProof until the job ends. With
// --await-timeout-ms every wait is bounded: a TIMEOUT answer is counted and the job awaited again
// (it must go on regardless of its waiters).
Answer submit_call(Client& client, v1::ProvingEngine::Stub& stub, InflightCalls& calls, const v1::SubmitProofRequest& s,
                   std::chrono::system_clock::time_point deadline, const ProofPlan& plan, uint64_t await_timeout_ms,
                   ProofRecord& r) {
  Answer a;
  v1::SubmitProofResponse sub;
  a.rpc = "SubmitProof";
  a.status = unary_call(client, calls, deadline, [&](grpc::ClientContext& c) { return stub.SubmitProof(&c, s, &sub); });
  if (!a.status.ok()) return a;
  if (plan.cancel) {
    std::this_thread::sleep_for(plan.cancel_delay);
    a.rpc = "CancelProof";
    a.status = unary_call(client, calls, deadline, [&](grpc::ClientContext& c) {
      v1::CancelProofRequest req;
      req.set_job_id(sub.job_id());
      v1::CancelProofResponse resp;
      return stub.CancelProof(&c, req, &resp);
    });
    if (!a.status.ok()) return a;
  }
  a.rpc = "AwaitProof";
  v1::AwaitProofRequest req;
  req.set_job_id(sub.job_id());
  req.set_timeout_ms(await_timeout_ms);
  for (;;) {
    a.status = unary_call(client, calls, deadline,
                          [&](grpc::ClientContext& c) { return stub.AwaitProof(&c, req, &a.result); });
    if (!a.status.ok() || a.result.status() != v1::AwaitProofResponse::TIMEOUT) return a;
    ++r.await_timeouts;
    if (interrupted()) return {grpc::Status(grpc::StatusCode::CANCELLED, "interrupted"), {}, a.rpc};
  }
}

// Fills r from the answer; a job cancelled as planned is neither a proof nor a failure.
void record_answer(ProofRecord& r, const Answer& ans, bool no_verify, Client& client) {
  const grpc::Status& st = ans.status;
  if (!st.ok()) {
    r.error = interrupted() && st.error_code() == grpc::StatusCode::CANCELLED
                  ? std::string("interrupted")
                  : describe_rpc_error(ans.rpc, st, client.address());
    if (st.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED || interrupted()) {
      // The daemon keeps working on a job whose caller went away unless told otherwise.
      auto c = client.cancel(r.job_id, std::chrono::seconds(5));
      if (c && c->cancelled()) r.error += " (job cancelled)";
    }
    return;
  }
  const auto& a = ans.result;
  r.answered = true;
  if (!a.job_id().empty()) r.job_id = a.job_id();
  r.completed = a.status() == v1::AwaitProofResponse::COMPLETED;
  r.cancelled = r.cancel_requested && a.status() == v1::AwaitProofResponse::CANCELLED;
  r.queue_wait_ms = a.queue_wait_ms();
  r.srs_load_ms = a.srs_load_ms();
  r.synthesis_ms = a.synthesis_ms();
  r.prove_ms = a.gpu_compute_ms();
  r.finalize_ms = a.finalize_ms();
  r.total_ms = a.total_ms();
  r.compute_us = a.compute_us();
  r.total_us = a.total_us();
  r.parts.assign(a.partition_timings().begin(), a.partition_timings().end());
  if (!r.completed && !r.cancelled) {
    r.error = std::string(status_name(a.status())) + (a.error_message().empty() ? "" : ": " + a.error_message());
  } else if (r.completed && no_verify) {
    r.valid = true;
  }
}

// Runs `n` proofs with at most `j` in flight. Times are seconds since `start`.
PhaseResult run_phase(Client& client, const GlobalOptions& g, const BatchOptions& o, const BatchSource& src,
                      const std::vector<v1::Priority>& priorities, uint64_t n, Clock::time_point start,
                      Timeline* timeline, const std::string& id_prefix, const std::string& label,
                      const std::function<void()>& on_last_answer = {}) {
  PhaseResult res;
  res.records.resize(n);
  std::atomic<uint64_t> next{0};
  InflightCalls calls;
  InterruptWatcher watcher(calls);
  BatchProgress progress(n, g.verbose, label);
  auto since = [&](Clock::time_point t) { return std::chrono::duration<double>(t - start).count(); };

  AsyncVerifier verifier(client, o.circuit, [&](const ProofRecord& r) {
    progress.message(label + "proof " + std::to_string(r.index) + " (job " + r.job_id + "): " + r.error);
    if (timeline) timeline->event(since(Clock::now()) * 1e3, "fail", r.index, r.job_id, r.error);
  });

  auto worker = [&] {
    auto stub = client.new_stub();
    for (;;) {
      if (interrupted()) return;
      const uint64_t i = next.fetch_add(1);
      if (i >= n) return;
      ProofRecord& r = res.records[i];
      r.index = i;
      r.job_id = id_prefix + "-" + std::to_string(i);
      const ProofPlan plan = plan_for(o, priorities, i);
      r.cancel_requested = plan.cancel;
      const v1::SubmitProofRequest s = make_submit(o, src, i, plan.priority, r.job_id);
      const auto deadline = o.timeout_ms > 0
                                ? std::chrono::system_clock::now() + std::chrono::milliseconds(o.timeout_ms)
                                : std::chrono::system_clock::time_point::max();
      const auto t_submit = Clock::now();
      r.submit_s = since(t_submit);
      if (timeline) timeline->event(r.submit_s * 1e3, "submit", i, r.job_id, "");
      Answer ans = plan.cancel || o.await_timeout_ms > 0
                       ? submit_call(client, *stub, calls, s, deadline, plan, o.await_timeout_ms, r)
                       : prove_call(client, *stub, calls, s, deadline);
      const auto t_done = Clock::now();
      r.done_s = since(t_done);
      r.latency_ms = std::chrono::duration<double, std::milli>(t_done - t_submit).count();
      record_answer(r, ans, o.no_verify, client);
      if (timeline) log_answer(*timeline, r);
      progress.proof_done(r, r.done_s);
      // Last: from here on the verifier thread owns r.valid and r.error.
      if (r.completed && !o.no_verify) {
        const auto& a = ans.result;
        const PostRequest* post = src.posts ? &(*src.posts)[i % src.posts->size()] : nullptr;
        // PoRep / PoSt / SnapDeals: checked against the inputs derived here from C1 / the vanilla
        // proofs / the commitments, not the ones the daemon reports.
        verifier.push({&r, a.proof(),
                       src.porep ? src.porep->public_inputs
                       : post    ? post->public_inputs
                                 : std::vector<std::string>(a.public_inputs().begin(), a.public_inputs().end()),
                       o.partitions});
      }
    }
  };

  const unsigned threads = static_cast<unsigned>(std::min<uint64_t>(o.concurrency, n));
  std::vector<std::thread> pool;
  pool.reserve(threads);
  for (unsigned t = 0; t < threads; ++t) pool.emplace_back(worker);
  for (auto& t : pool) t.join();
  res.wall_s = since(Clock::now());
  res.attempted = std::min<uint64_t>(next.load(), n);
  if (on_last_answer) on_last_answer();  // before waiting for the verifier, which may lag
  progress.clear();
  verifier.finish();
  return res;
}

// The batch's inputs: a PoRep C1, PoSt or SnapDeals request files (validated here, unless
// --no-verify, to derive the inputs), or circom witnesses.
struct BatchInputs {
  std::optional<PorepC1> porep;
  std::vector<PostRequest> posts;
  std::vector<std::string> witnesses;  // .wtns file contents

  BatchSource source() const {
    return BatchSource{porep ? &*porep : nullptr, posts.empty() ? nullptr : &posts,
                       witnesses.empty() ? nullptr : &witnesses};
  }
};

int load_requests(BatchOptions& o, std::vector<PostRequest>& posts) {
  // One circuit per batch, so the report's figures are of one kind of proof.
  const bool snap = !o.snap.empty();
  const std::vector<std::string>& files = snap ? o.snap : o.post;
  for (const std::string& path : files) {
    std::optional<PostRequest> p;
    if (!load_request_option(snap ? load_snap_request : load_post_request, path, !o.no_verify, p)) return 2;
    if (!posts.empty() && p->circuit_id != posts.front().circuit_id) {
      std::cerr << "cuzk-bench: " << (snap ? "--snap " : "--post ") << path << " is a " << p->circuit_id << " request, "
                << files.front() << " a " << posts.front().circuit_id << " one; a batch proves one circuit\n";
      return 2;
    }
    posts.push_back(std::move(*p));
  }
  if (!posts.empty()) {
    o.circuit = posts.front().circuit_id;
    o.partitions = posts.front().partitions;  // PoSt: 1; SnapDeals: the sector size's partitions
  }
  return 0;
}

// circom witnesses: one partition each, the same files for every proof of the batch.
int load_witnesses(BatchOptions& o, bool other_source, std::vector<std::string>& witnesses) {
  if (o.wtns.empty()) return 0;
  if (other_source) {
    std::cerr << "cuzk-bench: --wtns is for a registered circom circuit (--circuit ID), not --c1, --post or --snap\n";
    return 2;
  }
  if (o.partitions != 1 && o.partitions != o.wtns.size()) {
    std::cerr << "cuzk-bench: --partitions " << o.partitions << " but " << o.wtns.size()
              << " --wtns files (one per partition)\n";
    return 2;
  }
  for (const std::string& path : o.wtns) {
    auto bytes = read_file(path);
    if (!bytes) {
      std::cerr << "cuzk-bench: " << bytes.error() << "\n";
      return 2;
    }
    witnesses.push_back(std::move(*bytes));
  }
  o.partitions = static_cast<uint32_t>(witnesses.size());
  return 0;
}

// Loads the inputs the options name; they also fix the circuit and the partitions in o. Returns 0,
// or the exit code after an error message.
int load_inputs(BatchOptions& o, BatchInputs& in) {
  // PoRep: the circuit and the partitions follow from the C1 output.
  if (!load_porep_option(o.c1, in.porep)) return 2;
  if (in.porep) {
    in.porep->miner_id = o.miner_id;
    o.circuit = in.porep->circuit_id;
    o.partitions = in.porep->partitions;
  }
  if (const int rc = load_requests(o, in.posts); rc != 0) return rc;
  return load_witnesses(o, in.porep || !in.posts.empty(), in.witnesses);
}

// --warmup: unmeasured proofs, every one of which must complete. Returns 0, or 1 with json set.
int run_warmup(Client& client, const GlobalOptions& g, const BatchOptions& o, const BatchSource& source,
               const std::vector<v1::Priority>& priority, const std::string& id_prefix, nlohmann::json& json) {
  if (g.verbose || isatty(STDERR_FILENO) == 1) {
    std::cerr << "warmup: " << o.warmup << " unmeasured proof" << (o.warmup == 1 ? "" : "s") << "\n";
  }
  BatchOptions wo = o;
  wo.cancel_every = 0;  // every warm-up proof must complete
  const PhaseResult w =
      run_phase(client, g, wo, source, priority, o.warmup, Clock::now(), nullptr, id_prefix + "-warmup", "warmup ");
  for (uint64_t i = 0; i < w.attempted; ++i) {
    const ProofRecord& r = w.records[i];
    if (!r.valid) {
      json = {{"command", "batch"}, {"error", "warmup proof " + std::to_string(r.index) + " failed: " + r.error}};
      std::cerr << "cuzk-bench: " << json["error"].get<std::string>() << "\n";
      return 1;
    }
  }
  if (interrupted()) {
    json = {{"command", "batch"}, {"error", "interrupted during the warmup"}, {"interrupted", true}};
    std::cerr << "cuzk-bench: interrupted during the warmup\n";
    return 1;
  }
  return 0;
}

}  // namespace

int run_batch(Client& client, const GlobalOptions& g, const BatchOptions& options, nlohmann::json& json) {
  BatchOptions o = options;
  BatchInputs inputs;
  if (const int rc = load_inputs(o, inputs); rc != 0) return rc;
  const BatchSource source = inputs.source();
  auto priority = parse_priority_list(o.priority);
  if (!priority) {
    std::cerr << "cuzk-bench: " << priority.error() << "\n";
    return 2;
  }
  Timeline timeline;
  if (const int rc = open_timeline(o, timeline); rc != 0) return rc;
  const std::string id_prefix = new_request_id();

  if (o.warmup > 0) {
    if (const int rc = run_warmup(client, g, o, source, *priority, id_prefix, json); rc != 0) return rc;
  }

  const auto start = Clock::now();
  StatusSampler sampler(client, start, std::chrono::milliseconds(o.sample_ms), [&](const StatusSample& s) {
    timeline.event(s.t_s * 1e3, "status", std::nullopt, "",
                   "prover_busy=" + fmt_fixed(s.prover_busy_s, 3) + ";queued=" + std::to_string(s.queued) +
                       ";running=" + std::to_string(s.running));
  });
  sampler.sample_now();
  PhaseResult res = run_phase(client, g, o, source, *priority, o.count, start, &timeline, id_prefix, "", [&] {
    sampler.sample_now();
    sampler.stop();
  });
  const std::vector<StatusSample> samples = sampler.samples();
  if (auto c = timeline.close(); !c) std::cerr << "cuzk-bench: " << c.error() << "\n";
  const bool picture_ok = write_picture(o, timeline);

  const uint64_t failed = report_batch(
      g, o,
      BatchRun{std::span<const ProofRecord>(res.records.data(), res.attempted), res.wall_s, samples, sampler.errors()},
      json);
  if (sampler.errors() > 0 && g.verbose) {
    std::cerr << "cuzk-bench: " << sampler.errors() << " GetStatus samples failed; last: " << sampler.last_error()
              << "\n";
  }
  if (interrupted()) std::cerr << "cuzk-bench: interrupted\n";
  return failed == 0 && picture_ok && !interrupted() ? 0 : 1;
}

}  // namespace cuzk::bench
