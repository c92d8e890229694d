#pragma once
// A fake EngineApi with canned answers, for the gRPC front end's tests (test_grpc_service,
// test_grpc_access).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "engine/engine_api.hpp"

namespace cuzk::test {

namespace eng = cuzk::engine;
using std::chrono::milliseconds;

// Circuit ids steer submit(): "err:<code>" fails with that ErrorCode, "hang" makes a job that
// never finishes, anything else a job that is complete at once. Job "done-1" exists from the
// start; other unknown ids are "not found".
class FakeEngine final : public eng::EngineApi {
 public:
  eng::Outcome<eng::Submitted> submit(eng::ProofRequest request) override {
    std::lock_guard lock(mu_);
    submits.push_back(request);
    static const std::map<std::string, eng::ErrorCode> kErrors = {
        {"err:invalid", eng::ErrorCode::InvalidArgument},         {"err:notfound", eng::ErrorCode::NotFound},
        {"err:precondition", eng::ErrorCode::FailedPrecondition}, {"err:exhausted", eng::ErrorCode::ResourceExhausted},
        {"err:unavailable", eng::ErrorCode::Unavailable},         {"err:internal", eng::ErrorCode::Internal},
    };
    if (const auto it = kErrors.find(request.circuit_id); it != kErrors.end()) {
      return eng::Outcome<eng::Submitted>::failure(it->second, "fake failure for " + request.circuit_id);
    }
    if (request.circuit_id == "throw") throw std::runtime_error("fake engine exploded");
    if (request.circuit_id == "err:huge")  // an error that quotes a hostile 1 MB value whole
      return eng::Outcome<eng::Submitted>::failure(eng::ErrorCode::InvalidArgument, std::string(1 << 20, 'h'));
    eng::Submitted s;
    s.job_id = request.request_id.empty() ? "job-" + std::to_string(++next_id_) : request.request_id;
    s.queue_position = 3;
    hanging_[s.job_id] = request.circuit_id == "hang";
    return eng::Outcome<eng::Submitted>::success(s);
  }

  std::optional<eng::JobResult> await(const std::string& job_id, milliseconds timeout) override {
    bool hang = false;
    {
      std::lock_guard lock(mu_);
      awaits.emplace_back(job_id, timeout);
      if (timeout.count() == 0) zero_timeout_seen = true;
      const auto it = hanging_.find(job_id);
      if (it == hanging_.end()) return std::nullopt;
      hang = it->second;
      peak_in_await_ = std::max(peak_in_await_, ++in_await_);
    }
    eng::JobResult r;
    r.job_id = job_id;
    if (hang) {
      // Never completes: behaves like the engine's timed wait.
      std::this_thread::sleep_for(std::min(timeout, milliseconds(2000)));
      r.status = eng::JobStatus::Timeout;
    } else {
      r = completed_result(job_id);
    }
    std::lock_guard lock(mu_);
    --in_await_;
    return r;
  }

  eng::CancelResult cancel(const std::string& job_id) override {
    std::lock_guard lock(mu_);
    cancels.push_back(job_id);
    eng::CancelResult r;
    r.found = hanging_.count(job_id) > 0;
    r.was_running = r.found && hanging_[job_id];
    r.cancelled = r.was_running;
    return r;
  }

  eng::EngineStatus status() override {
    status_calls++;
    eng::EngineStatus s;
    s.srs.push_back({"chain:2^10", 1, 4096, 2, true, "memory"});
    s.pce.push_back({"chain:2^10", 777, "loaded", "/data/pce/chain.pce"});
    s.queues.push_back({"generic", eng::Priority::High, "", 2, 1, 5, 3});
    s.stage_queues.push_back({"generic", eng::Priority::High, "synthesis", 4, 1});
    s.workers.push_back({"synth-0", "busy", "job-7", 3, 1.5});
    s.circuits = {"chain:2^10", "filecoin-like:2^16"};
    s.completed = 11;
    s.failed = 2;
    s.cancelled = 1;
    s.uptime_seconds = 99;
    s.memory_used_bytes = 1000;
    s.memory_limit_bytes = 2000;
    s.rss_bytes = 3000;
    s.peak_rss_bytes = 4000;
    s.operations.push_back({"test_keys", "porep:32GiB", "points", 250, 1000, 0.25, 12.5});
    return s;
  }

  std::string metrics_text() override { return "# TYPE cuzk_fake_metric gauge\ncuzk_fake_metric 42\n"; }

  eng::Outcome<eng::PreloadResult> preload_srs(const std::string& circuit_id) override {
    if (circuit_id == "missing")
      return eng::Outcome<eng::PreloadResult>::failure(eng::ErrorCode::NotFound, "no such circuit 'missing'");
    return eng::Outcome<eng::PreloadResult>::success({true, 123});
  }
  eng::Outcome<eng::EvictResult> evict_srs(const std::string& circuit_id) override {
    if (circuit_id == "busy")
      return eng::Outcome<eng::EvictResult>::failure(eng::ErrorCode::FailedPrecondition, "SRS in use");
    return eng::Outcome<eng::EvictResult>::success({true, 4096});
  }
  eng::Outcome<eng::VerifyingKeyInfo> verifying_key(const std::string& circuit_id) override {
    if (circuit_id == "missing")
      return eng::Outcome<eng::VerifyingKeyInfo>::failure(eng::ErrorCode::NotFound, "no such circuit");
    return eng::Outcome<eng::VerifyingKeyInfo>::success({std::string("\x01\x02vk", 4), 5});
  }

  static eng::JobResult completed_result(const std::string& job_id) {
    eng::JobResult r;
    r.job_id = job_id;
    r.status = eng::JobStatus::Completed;
    r.proof = std::string(384, '\x5a');
    r.timings = {1, 2, 3, 4, 5, 6};
    r.public_inputs = {std::string(32, '\x01'), std::string(64, '\x02')};
    r.partitions = 2;
    return r;
  }

  int in_await() {
    std::lock_guard lock(mu_);
    return in_await_;
  }
  int peak_in_await() {
    std::lock_guard lock(mu_);
    return peak_in_await_;
  }

  std::mutex mu_;
  std::vector<eng::ProofRequest> submits;
  std::vector<std::pair<std::string, milliseconds>> awaits;
  std::vector<std::string> cancels;
  std::atomic<int> status_calls{0};
  bool zero_timeout_seen = false;

 private:
  std::map<std::string, bool> hanging_{{"done-1", false}};
  int next_id_ = 0;
  int in_await_ = 0;
  int peak_in_await_ = 0;
};

}  // namespace cuzk::test
