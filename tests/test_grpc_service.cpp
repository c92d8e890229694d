// The gRPC front end over a fake engine: every RPC's mapping between wire messages and EngineApi,
// error codes, deadlines and cancellation of blocking calls, the unix socket's handling (mode,
// stale and foreign files), message size limits, the HTTP metrics endpoint, logging, and the
// Python client used by the end-to-end tests.
#include <arpa/inet.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "captured_log.hpp"
#include "cuzk/v1/proving.grpc.pb.h"
#include "fake_engine.hpp"
#include "server/grpc_server.hpp"
#include "server/metrics_http.hpp"
#include "server/proving_service.hpp"
#include "test_helpers.hpp"
#include "util/log.hpp"

namespace {

using cuzk::test::FakeEngine;
using cuzk::test::TempDir;

namespace fs = std::filesystem;
namespace v1 = cuzk::v1;
namespace eng = cuzk::engine;
using cuzk::server::GrpcServer;
using cuzk::server::GrpcServerOptions;
using cuzk::server::MetricsHttpServer;
using cuzk::server::ProvingService;
using cuzk::server::RefusalLog;
namespace test = cuzk::test;
using std::chrono::milliseconds;
using std::chrono::steady_clock;

constexpr uint64_t kMaxMessage = 1 << 20;

class GrpcServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    socket_path_ = (dir_.path() / "run" / "cuzk.sock").string();
    service_ = std::make_unique<ProvingService>(engine_, ProvingService::Options{"9.9.9-test", milliseconds(50)});
    server_ = std::make_unique<GrpcServer>(GrpcServerOptions{"unix://" + socket_path_, kMaxMessage, 64}, *service_);
    server_->start();
    grpc::ChannelArguments args;
    args.SetMaxReceiveMessageSize(64 << 20);
    auto channel = grpc::CreateCustomChannel(server_->address(), grpc::InsecureChannelCredentials(), args);
    stub_ = v1::ProvingEngine::NewStub(channel);
  }
  void TearDown() override {
    server_->shutdown(std::chrono::system_clock::now() + milliseconds(500));
    server_->wait();
    EXPECT_FALSE(engine_.zero_timeout_seen) << "the service must never ask the engine to wait without limit";
  }

  std::unique_ptr<grpc::ClientContext> context(milliseconds deadline = milliseconds(5000)) {
    auto ctx = std::make_unique<grpc::ClientContext>();
    ctx->set_deadline(std::chrono::system_clock::now() + deadline);
    return ctx;
  }

  v1::SubmitProofRequest generic_request(const std::string& circuit) {
    v1::SubmitProofRequest r;
    r.set_proof_kind(v1::GENERIC);
    r.set_circuit_id(circuit);
    return r;
  }

  TempDir dir_;
  std::string socket_path_;
  FakeEngine engine_;
  std::unique_ptr<ProvingService> service_;
  std::unique_ptr<GrpcServer> server_;
  std::unique_ptr<v1::ProvingEngine::Stub> stub_;
};

TEST_F(GrpcServiceTest, SubmitProofPassesEveryFieldAndReturnsTheJob) {
  v1::SubmitProofRequest req = generic_request("chain:2^10");
  req.set_request_id("req-1");
  req.set_priority(v1::HIGH);
  req.set_sector_size(34359738368ull);
  req.set_registered_proof(8);
  req.set_vanilla_proof("vp");
  req.add_vanilla_proofs("a");
  req.add_vanilla_proofs("b");
  req.set_randomness(std::string(32, '\x07'));
  req.set_partition_index(3);
  req.add_witnesses(std::string("w\0w", 3));
  req.add_partition_inputs("in-0");
  req.add_partition_inputs("in-1");
  v1::SubmitProofResponse resp;
  auto ctx = context();
  const auto st = stub_->SubmitProof(ctx.get(), req, &resp);
  ASSERT_TRUE(st.ok()) << st.error_message();
  EXPECT_EQ(resp.job_id(), "req-1");
  EXPECT_EQ(resp.queue_position(), 3u);
  EXPECT_EQ(resp.assigned_gpu(), "");

  std::lock_guard lock(engine_.mu_);
  ASSERT_EQ(engine_.submits.size(), 1u);
  const auto& s = engine_.submits[0];
  EXPECT_EQ(s.request_id, "req-1");
  EXPECT_EQ(s.kind, eng::ProofKind::Generic);
  EXPECT_EQ(s.wire_priority, 3);
  EXPECT_EQ(s.circuit_id, "chain:2^10");
  EXPECT_EQ(s.sector_size, 34359738368ull);
  EXPECT_EQ(s.registered_proof, 8u);
  EXPECT_EQ(s.vanilla_proof, "vp");
  EXPECT_EQ(s.vanilla_proofs, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(s.randomness, std::string(32, '\x07'));
  EXPECT_EQ(s.partition_index, 3u);
  EXPECT_EQ(s.witnesses, (std::vector<std::string>{std::string("w\0w", 3)}));
  EXPECT_EQ(s.partition_inputs, (std::vector<std::string>{"in-0", "in-1"}));
}

TEST_F(GrpcServiceTest, UnspecifiedOrUnknownProofKindIsInvalidArgument) {
  for (const int kind : {0, 5, 99, 101}) {
    v1::SubmitProofRequest req = generic_request("chain:2^10");
    req.set_proof_kind(static_cast<v1::ProofKind>(kind));
    v1::SubmitProofResponse resp;
    auto ctx = context();
    const auto st = stub_->SubmitProof(ctx.get(), req, &resp);
    EXPECT_EQ(st.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << kind;
    EXPECT_NE(st.error_message().find("proof_kind"), std::string::npos) << st.error_message();
    EXPECT_NE(st.error_message().find("GENERIC"), std::string::npos) << st.error_message();
  }
  std::lock_guard lock(engine_.mu_);
  EXPECT_TRUE(engine_.submits.empty()) << "rejected before reaching the engine";
}

TEST_F(GrpcServiceTest, EngineErrorCodesMapToGrpcCodes) {
  const std::vector<std::pair<std::string, grpc::StatusCode>> cases = {
      {"err:invalid", grpc::StatusCode::INVALID_ARGUMENT},
      {"err:notfound", grpc::StatusCode::NOT_FOUND},
      {"err:precondition", grpc::StatusCode::FAILED_PRECONDITION},
      {"err:exhausted", grpc::StatusCode::RESOURCE_EXHAUSTED},
      {"err:unavailable", grpc::StatusCode::UNAVAILABLE},
      {"err:internal", grpc::StatusCode::INTERNAL},
  };
  for (const auto& [circuit, code] : cases) {
    v1::SubmitProofResponse resp;
    auto ctx = context();
    auto st = stub_->SubmitProof(ctx.get(), generic_request(circuit), &resp);
    EXPECT_EQ(st.error_code(), code) << circuit;
    EXPECT_EQ(st.error_message(), "fake failure for " + circuit);
    // Prove maps them the same way.
    v1::ProveRequest preq;
    *preq.mutable_submit() = generic_request(circuit);
    v1::ProveResponse presp;
    auto ctx2 = context();
    st = stub_->Prove(ctx2.get(), preq, &presp);
    EXPECT_EQ(st.error_code(), code) << circuit;
  }
  {
    // A 1 MB message would not fit the HTTP/2 trailer (the client would see UNKNOWN "Stream
    // removed"): the service cuts it, and the next call is served as usual.
    v1::SubmitProofResponse big;
    auto ctx = context();
    auto st = stub_->SubmitProof(ctx.get(), generic_request("err:huge"), &big);
    EXPECT_EQ(st.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << st.error_message().substr(0, 200);
    EXPECT_LT(st.error_message().size(), 4096u);
    EXPECT_NE(st.error_message().find("... (1048576 bytes)"), std::string::npos) << st.error_message().substr(0, 200);
    auto ctx2 = context();
    EXPECT_EQ(stub_->SubmitProof(ctx2.get(), generic_request("err:invalid"), &big).error_code(),
              grpc::StatusCode::INVALID_ARGUMENT);
  }
  // An exception inside the engine is INTERNAL with its message, not a crash.
  v1::SubmitProofResponse resp;
  auto ctx = context();
  const auto st = stub_->SubmitProof(ctx.get(), generic_request("throw"), &resp);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::INTERNAL);
  EXPECT_NE(st.error_message().find("fake engine exploded"), std::string::npos);
}

// Every refused proof request leaves one log line (id, kind, size, code, reason), however it was
// refused: before the engine (a bad kind), by the engine, through Prove.
TEST_F(GrpcServiceTest, RefusedProofRequestsAreLogged) {
  test::CapturedLog log;
  v1::SubmitProofRequest bad_kind = generic_request("chain:2^10");
  bad_kind.set_request_id("wdpost-1000-0-[1 2 3 4 5 6 7 8]");
  bad_kind.set_proof_kind(static_cast<v1::ProofKind>(0));
  v1::SubmitProofResponse resp;
  auto ctx = context();
  EXPECT_EQ(stub_->SubmitProof(ctx.get(), bad_kind, &resp).error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  v1::ProveRequest preq;
  *preq.mutable_submit() = generic_request("err:exhausted");
  preq.mutable_submit()->set_request_id("porep-1000-7");
  preq.mutable_submit()->set_vanilla_proof(std::string(1000, 'x'));
  v1::ProveResponse presp;
  auto ctx2 = context();
  EXPECT_EQ(stub_->Prove(ctx2.get(), preq, &presp).error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  auto ctx3 = context();
  EXPECT_TRUE(stub_->SubmitProof(ctx3.get(), generic_request("chain:2^10"), &resp).ok());
  const std::vector<std::string> lines = log.lines("request_refused");
  ASSERT_EQ(lines.size(), 2u) << "one line per refusal, none for the accepted request";
  EXPECT_EQ(lines[0],
            "request_refused request_id=\"wdpost-1000-0-[1 2 3 4 5 6 7 8]\" kind=PROOF_KIND_UNSPECIFIED "
            "bytes=" +
                std::to_string(bad_kind.ByteSizeLong()) +
                " code=INVALID_ARGUMENT reason=\"proof_kind is PROOF_KIND_UNSPECIFIED; set it to "
                "POREP_SEAL_COMMIT, SNAP_DEALS_UPDATE, WINDOW_POST_PARTITION, WINNING_POST or GENERIC\" "
                "suppressed_before=0");
  EXPECT_EQ(lines[1], "request_refused request_id=porep-1000-7 kind=GENERIC bytes=" +
                          std::to_string(preq.submit().ByteSizeLong()) +
                          " code=RESOURCE_EXHAUSTED reason=\"fake failure for err:exhausted\" suppressed_before=0");
  // And counted by code, for the metrics (the accepted request is not).
  const std::string metrics = service_->metrics_text();
  EXPECT_NE(metrics.find("\ncuzk_requests_refused_total{code=\"INVALID_ARGUMENT\"} 1\n"), std::string::npos) << metrics;
  EXPECT_NE(metrics.find("\ncuzk_requests_refused_total{code=\"RESOURCE_EXHAUSTED\"} 1\n"), std::string::npos)
      << metrics;
  EXPECT_EQ(metrics.find("cuzk_requests_refused_total{code=\"OK\"}"), std::string::npos) << metrics;
}

// A client retrying a refused request in a loop does not flood the log: past the burst, lines are
// counted and the next written line says how many were held back.
TEST(RefusalLog, IsRateLimitedAndCountsWhatItHeldBack) {
  test::CapturedLog log;
  RefusalLog refusals(2, std::chrono::seconds(1));
  const RefusalLog::Request r{"snap-1000-9", "SNAP_DEALS_UPDATE", 123};
  const grpc::Status status(grpc::StatusCode::INVALID_ARGUMENT, "first line\nsecond line");
  for (int i = 0; i < 5; ++i) refusals.record(r, status);
  EXPECT_EQ(log.count("request_refused"), 2u);
  EXPECT_EQ(refusals.suppressed_total(), 3u);
  EXPECT_NE(log.lines("request_refused")[0].find("reason=\"first line\" "), std::string::npos)
      << "only the reason's first line";
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  refusals.record(r, status);
  ASSERT_EQ(log.count("request_refused"), 3u);
  EXPECT_NE(log.lines("request_refused")[2].find("suppressed_before=3"), std::string::npos)
      << log.lines("request_refused")[2];
  // The metric counts every refusal, logged or held back.
  EXPECT_NE(refusals.metrics_text().find("\ncuzk_requests_refused_total{code=\"INVALID_ARGUMENT\"} 6\n"),
            std::string::npos)
      << refusals.metrics_text();
}

void expect_completed(const v1::AwaitProofResponse& r, const std::string& job_id) {
  EXPECT_EQ(r.job_id(), job_id);
  EXPECT_EQ(r.status(), v1::AwaitProofResponse::COMPLETED);
  EXPECT_EQ(r.proof(), std::string(384, '\x5a'));
  EXPECT_EQ(r.error_message(), "");
  EXPECT_EQ(r.queue_wait_ms(), 1u);
  EXPECT_EQ(r.srs_load_ms(), 2u);
  EXPECT_EQ(r.synthesis_ms(), 3u);
  EXPECT_EQ(r.gpu_compute_ms(), 4u);
  EXPECT_EQ(r.finalize_ms(), 5u);
  EXPECT_EQ(r.total_ms(), 6u);
  ASSERT_EQ(r.public_inputs_size(), 2);
  EXPECT_EQ(r.public_inputs(0), std::string(32, '\x01'));
  EXPECT_EQ(r.public_inputs(1), std::string(64, '\x02'));
  EXPECT_EQ(r.partitions(), 2u);
}

TEST_F(GrpcServiceTest, AwaitProofFillsSeedAndExtensionFields) {
  v1::AwaitProofRequest req;
  req.set_job_id("done-1");
  v1::AwaitProofResponse resp;
  auto ctx = context();
  const auto st = stub_->AwaitProof(ctx.get(), req, &resp);
  ASSERT_TRUE(st.ok()) << st.error_message();
  expect_completed(resp, "done-1");
}

TEST_F(GrpcServiceTest, AwaitProofUnknownJobIsNotFoundAndEmptyIdInvalid) {
  v1::AwaitProofRequest req;
  req.set_job_id("no-such-job");
  v1::AwaitProofResponse resp;
  auto ctx = context();
  auto st = stub_->AwaitProof(ctx.get(), req, &resp);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_NE(st.error_message().find("no-such-job"), std::string::npos);
  req.set_job_id("");
  auto ctx2 = context();
  st = stub_->AwaitProof(ctx2.get(), req, &resp);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
}

TEST_F(GrpcServiceTest, AwaitProofTimeoutReturnsTimeoutStatus) {
  v1::SubmitProofResponse sub;
  auto ctx = context();
  ASSERT_TRUE(stub_->SubmitProof(ctx.get(), generic_request("hang"), &sub).ok());
  v1::AwaitProofRequest req;
  req.set_job_id(sub.job_id());
  req.set_timeout_ms(150);
  v1::AwaitProofResponse resp;
  auto ctx2 = context();
  const auto t0 = steady_clock::now();
  const auto st = stub_->AwaitProof(ctx2.get(), req, &resp);
  const auto elapsed = steady_clock::now() - t0;
  ASSERT_TRUE(st.ok()) << st.error_message();
  EXPECT_EQ(resp.status(), v1::AwaitProofResponse::TIMEOUT);
  EXPECT_EQ(resp.job_id(), sub.job_id());
  EXPECT_GE(elapsed, milliseconds(140));
  EXPECT_LT(elapsed, milliseconds(1500));
}

TEST_F(GrpcServiceTest, ProveReturnsTheResultAndRejectsMissingSubmit) {
  v1::ProveRequest req;
  *req.mutable_submit() = generic_request("chain:2^10");
  req.mutable_submit()->set_request_id("prove-1");
  v1::ProveResponse resp;
  auto ctx = context();
  auto st = stub_->Prove(ctx.get(), req, &resp);
  ASSERT_TRUE(st.ok()) << st.error_message();
  expect_completed(resp.result(), "prove-1");

  v1::ProveRequest empty;
  auto ctx2 = context();
  st = stub_->Prove(ctx2.get(), empty, &resp);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(st.error_message().find("submit"), std::string::npos);
}

TEST_F(GrpcServiceTest, ProveHonoursTheClientDeadline) {
  v1::ProveRequest req;
  *req.mutable_submit() = generic_request("hang");
  v1::ProveResponse resp;
  auto ctx = context(milliseconds(200));
  const auto t0 = steady_clock::now();
  const auto st = stub_->Prove(ctx.get(), req, &resp);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED);
  EXPECT_LT(steady_clock::now() - t0, milliseconds(1000));
  // The handler stops waiting soon after the deadline (the engine sees no more waits).
  const auto until = steady_clock::now() + milliseconds(2000);
  while (engine_.in_await() > 0 && steady_clock::now() < until) std::this_thread::sleep_for(milliseconds(10));
  EXPECT_EQ(engine_.in_await(), 0);
  // And the server is still fine.
  v1::GetStatusResponse sresp;
  auto ctx2 = context();
  EXPECT_TRUE(stub_->GetStatus(ctx2.get(), {}, &sresp).ok());
}

TEST_F(GrpcServiceTest, ClientCancellationEndsTheWait) {
  v1::ProveRequest req;
  *req.mutable_submit() = generic_request("hang");
  req.mutable_submit()->set_request_id("cancel-me");
  v1::ProveResponse resp;
  grpc::ClientContext ctx;  // no deadline: only the cancellation can end it
  auto call = std::async(std::launch::async, [&] { return stub_->Prove(&ctx, req, &resp); });
  std::this_thread::sleep_for(milliseconds(150));
  ctx.TryCancel();
  ASSERT_EQ(call.wait_for(milliseconds(2000)), std::future_status::ready);
  EXPECT_EQ(call.get().error_code(), grpc::StatusCode::CANCELLED);
  const auto until = steady_clock::now() + milliseconds(2000);
  size_t awaits_then = 0;
  while (steady_clock::now() < until) {
    {
      std::lock_guard lock(engine_.mu_);
      awaits_then = engine_.awaits.size();
    }
    if (engine_.in_await() == 0) break;
    std::this_thread::sleep_for(milliseconds(10));
  }
  std::this_thread::sleep_for(milliseconds(200));
  std::lock_guard lock(engine_.mu_);
  EXPECT_EQ(engine_.awaits.size(), awaits_then) << "the server kept waiting after the client cancelled";
  EXPECT_TRUE(engine_.cancels.empty()) << "a client cancel must not cancel the job";
}

TEST_F(GrpcServiceTest, BlockingCallsDoNotStarveOtherRpcs) {
  constexpr int kWaiters = 12;
  std::vector<std::future<grpc::StatusCode>> waiters;
  for (int i = 0; i < kWaiters; ++i) {
    waiters.push_back(std::async(std::launch::async, [this] {
      v1::ProveRequest req;
      *req.mutable_submit() = generic_request("hang");
      v1::ProveResponse resp;
      auto ctx = context(milliseconds(1500));
      return stub_->Prove(ctx.get(), req, &resp).error_code();
    }));
  }
  const auto until = steady_clock::now() + milliseconds(3000);
  while (engine_.peak_in_await() < kWaiters && steady_clock::now() < until) {
    std::this_thread::sleep_for(milliseconds(5));
  }
  ASSERT_EQ(engine_.peak_in_await(), kWaiters) << "all Prove calls should be waiting concurrently";
  for (int i = 0; i < 5; ++i) {
    v1::GetStatusResponse resp;
    auto ctx = context(milliseconds(1000));
    const auto t0 = steady_clock::now();
    ASSERT_TRUE(stub_->GetStatus(ctx.get(), {}, &resp).ok());
    EXPECT_LT(steady_clock::now() - t0, milliseconds(300));
  }
  for (auto& w : waiters) EXPECT_EQ(w.get(), grpc::StatusCode::DEADLINE_EXCEEDED);
}

TEST_F(GrpcServiceTest, CancelProofMapsTheResult) {
  v1::SubmitProofResponse sub;
  auto ctx = context();
  ASSERT_TRUE(stub_->SubmitProof(ctx.get(), generic_request("hang"), &sub).ok());
  v1::CancelProofRequest req;
  req.set_job_id(sub.job_id());
  v1::CancelProofResponse resp;
  auto ctx2 = context();
  ASSERT_TRUE(stub_->CancelProof(ctx2.get(), req, &resp).ok());
  EXPECT_TRUE(resp.found());
  EXPECT_TRUE(resp.was_running());
  EXPECT_TRUE(resp.cancelled());

  req.set_job_id("ghost");
  auto ctx3 = context();
  ASSERT_TRUE(stub_->CancelProof(ctx3.get(), req, &resp).ok());
  EXPECT_FALSE(resp.found());
  EXPECT_FALSE(resp.was_running());
  EXPECT_FALSE(resp.cancelled());

  req.set_job_id("");
  auto ctx4 = context();
  EXPECT_EQ(stub_->CancelProof(ctx4.get(), req, &resp).error_code(), grpc::StatusCode::INVALID_ARGUMENT);
}

TEST_F(GrpcServiceTest, GetStatusFillsSeedAndExtensionFields) {
  v1::GetStatusResponse r;
  auto ctx = context();
  ASSERT_TRUE(stub_->GetStatus(ctx.get(), {}, &r).ok());
  EXPECT_EQ(r.gpus_size(), 0);
  ASSERT_EQ(r.loaded_srs_size(), 1);
  EXPECT_EQ(r.loaded_srs(0).circuit_id(), "chain:2^10");
  EXPECT_EQ(r.loaded_srs(0).tier(), v1::SRSStatus::WARM);
  EXPECT_EQ(r.loaded_srs(0).size_bytes(), 4096u);
  EXPECT_EQ(r.loaded_srs(0).ref_count(), 2u);
  EXPECT_TRUE(r.loaded_srs(0).test_only());
  EXPECT_EQ(r.loaded_srs(0).storage(), "memory");
  // queues: jobs (the seed's meaning) with their partitions; stage_queues: partitions per stage.
  ASSERT_EQ(r.queues_size(), 1);
  EXPECT_EQ(r.queues(0).proof_kind(), "generic");
  EXPECT_EQ(r.queues(0).pending(), 2u);
  EXPECT_EQ(r.queues(0).in_progress(), 1u);
  EXPECT_EQ(r.queues(0).pending_partitions(), 5u);
  EXPECT_EQ(r.queues(0).in_progress_partitions(), 3u);
  EXPECT_EQ(r.queues(0).priority(), v1::HIGH);
  EXPECT_EQ(r.queues(0).stage(), "");
  ASSERT_EQ(r.stage_queues_size(), 1);
  EXPECT_EQ(r.stage_queues(0).proof_kind(), "generic");
  EXPECT_EQ(r.stage_queues(0).pending(), 4u);
  EXPECT_EQ(r.stage_queues(0).in_progress(), 1u);
  EXPECT_EQ(r.stage_queues(0).priority(), v1::HIGH);
  EXPECT_EQ(r.stage_queues(0).stage(), "synthesis");
  ASSERT_EQ(r.loaded_pce_size(), 1);
  EXPECT_EQ(r.loaded_pce(0).size_bytes(), 777u);
  EXPECT_EQ(r.loaded_pce(0).state(), "loaded");
  EXPECT_EQ(r.loaded_pce(0).path(), "/data/pce/chain.pce");
  ASSERT_EQ(r.workers_size(), 1);
  EXPECT_EQ(r.workers(0).name(), "synth-0");
  EXPECT_EQ(r.workers(0).state(), "busy");
  EXPECT_EQ(r.workers(0).current_job_id(), "job-7");
  EXPECT_EQ(r.workers(0).current_partition(), 3u);
  EXPECT_DOUBLE_EQ(r.workers(0).busy_seconds(), 1.5);
  EXPECT_EQ(r.total_proofs_completed(), 11u);
  EXPECT_EQ(r.total_proofs_failed(), 2u);
  EXPECT_EQ(r.total_proofs_cancelled(), 1u);
  EXPECT_EQ(r.uptime_seconds(), 99u);
  EXPECT_EQ(r.pinned_memory_bytes(), 0u);
  EXPECT_EQ(r.memory_used_bytes(), 1000u);
  EXPECT_EQ(r.memory_limit_bytes(), 2000u);
  EXPECT_EQ(r.daemon_rss_bytes(), 3000u);
  EXPECT_EQ(r.daemon_peak_rss_bytes(), 4000u);
  EXPECT_EQ(r.version(), "9.9.9-test");
  ASSERT_EQ(r.circuits_size(), 2);
  EXPECT_EQ(r.circuits(1), "filecoin-like:2^16");
  ASSERT_EQ(r.operations_size(), 1);  // field 51: a long operation and its progress
  EXPECT_EQ(r.operations(0).what(), "test_keys");
  EXPECT_EQ(r.operations(0).circuit_id(), "porep:32GiB");
  EXPECT_EQ(r.operations(0).unit(), "points");
  EXPECT_EQ(r.operations(0).done(), 250u);
  EXPECT_EQ(r.operations(0).total(), 1000u);
  EXPECT_DOUBLE_EQ(r.operations(0).fraction(), 0.25);
  EXPECT_DOUBLE_EQ(r.operations(0).elapsed_seconds(), 12.5);
}

TEST_F(GrpcServiceTest, GetMetricsHasEngineAndGrpcMetrics) {
  v1::GetStatusResponse sresp;
  auto ctx = context();
  ASSERT_TRUE(stub_->GetStatus(ctx.get(), {}, &sresp).ok());
  v1::AwaitProofRequest areq;
  areq.set_job_id("nope");
  v1::AwaitProofResponse aresp;
  auto ctx2 = context();
  (void)stub_->AwaitProof(ctx2.get(), areq, &aresp);
  v1::GetMetricsResponse r;
  auto ctx3 = context();
  ASSERT_TRUE(stub_->GetMetrics(ctx3.get(), {}, &r).ok());
  const std::string& t = r.prometheus_text();
  EXPECT_NE(t.find("cuzk_fake_metric 42\n"), std::string::npos) << t;
  EXPECT_NE(t.find("cuzk_grpc_requests_total{method=\"GetStatus\",code=\"OK\"} 1\n"), std::string::npos) << t;
  EXPECT_NE(t.find("cuzk_grpc_requests_total{method=\"AwaitProof\",code=\"NOT_FOUND\"} 1\n"), std::string::npos) << t;
  EXPECT_NE(t.find("cuzk_grpc_request_duration_seconds_count{method=\"GetStatus\"} 1\n"), std::string::npos) << t;
  EXPECT_NE(t.find("cuzk_grpc_request_duration_seconds_bucket{method=\"GetStatus\",le=\"+Inf\"} 1\n"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("cuzk_grpc_requests_in_flight{method=\"GetMetrics\"} 1\n"), std::string::npos) << t;
}

TEST_F(GrpcServiceTest, SrsAndVerifyingKeyCallsMapOutcomes) {
  v1::PreloadSrsRequest preq;
  preq.set_circuit_id("chain:2^10");
  v1::PreloadSrsResponse presp;
  auto c1 = context();
  ASSERT_TRUE(stub_->PreloadSRS(c1.get(), preq, &presp).ok());
  EXPECT_TRUE(presp.already_loaded());
  EXPECT_EQ(presp.load_time_ms(), 123u);
  preq.set_circuit_id("missing");
  auto c2 = context();
  auto st = stub_->PreloadSRS(c2.get(), preq, &presp);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(st.error_message(), "no such circuit 'missing'");

  v1::EvictSrsRequest ereq;
  ereq.set_circuit_id("chain:2^10");
  v1::EvictSrsResponse eresp;
  auto c3 = context();
  ASSERT_TRUE(stub_->EvictSRS(c3.get(), ereq, &eresp).ok());
  EXPECT_TRUE(eresp.was_loaded());
  EXPECT_EQ(eresp.freed_bytes(), 4096u);
  ereq.set_circuit_id("busy");
  auto c4 = context();
  EXPECT_EQ(stub_->EvictSRS(c4.get(), ereq, &eresp).error_code(), grpc::StatusCode::FAILED_PRECONDITION);

  v1::GetVerifyingKeyRequest vreq;
  vreq.set_circuit_id("chain:2^10");
  v1::GetVerifyingKeyResponse vresp;
  auto c5 = context();
  ASSERT_TRUE(stub_->GetVerifyingKey(c5.get(), vreq, &vresp).ok());
  EXPECT_EQ(vresp.vk(), std::string("\x01\x02vk", 4));
  EXPECT_EQ(vresp.num_public_inputs(), 5u);
  vreq.set_circuit_id("missing");
  auto c6 = context();
  EXPECT_EQ(stub_->GetVerifyingKey(c6.get(), vreq, &vresp).error_code(), grpc::StatusCode::NOT_FOUND);

  // Empty circuit ids never reach the engine.
  for (int rpc = 0; rpc < 3; ++rpc) {
    auto c = context();
    grpc::Status s;
    if (rpc == 0) s = stub_->PreloadSRS(c.get(), {}, &presp);
    if (rpc == 1) s = stub_->EvictSRS(c.get(), {}, &eresp);
    if (rpc == 2) s = stub_->GetVerifyingKey(c.get(), {}, &vresp);
    EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << rpc;
  }
}

TEST_F(GrpcServiceTest, OversizedRequestIsResourceExhaustedAndServingContinues) {
  v1::SubmitProofRequest req = generic_request("chain:2^10");
  req.add_witnesses(std::string(kMaxMessage + 1024, '\x07'));
  v1::SubmitProofResponse resp;
  auto ctx = context();
  const auto st = stub_->SubmitProof(ctx.get(), req, &resp);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << st.error_message();
  auto ctx2 = context();
  const auto st2 = stub_->SubmitProof(ctx2.get(), generic_request("chain:2^10"), &resp);
  EXPECT_TRUE(st2.ok()) << st2.error_message();
}

TEST_F(GrpcServiceTest, UnixSocketIsPrivate) {
  struct stat st {};
  ASSERT_EQ(::lstat(socket_path_.c_str(), &st), 0);
  EXPECT_TRUE(S_ISSOCK(st.st_mode));
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  ASSERT_EQ(::stat((dir_.path() / "run").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u) << "a parent directory the server creates is private";
  // Shutdown removes the socket.
  server_->shutdown(std::chrono::system_clock::now());
  server_->wait();
  EXPECT_FALSE(fs::exists(socket_path_));
}

// ---- the listener on its own ----

class NullService final : public v1::ProvingEngine::Service {};

// A unix socket file at `path`; listening when `listen` (then the fd stays open), else closed
// at once so the file is stale.
int make_unix_socket(const std::string& path, bool listen) {
  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path.c_str());
  EXPECT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  if (listen) {
    EXPECT_EQ(::listen(fd, 4), 0);
    return fd;
  }
  ::close(fd);
  return -1;
}

std::string start_error(const GrpcServerOptions& options) {
  NullService service;
  GrpcServer server(options, service);
  try {
    server.start();
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

TEST(GrpcServer, RemovesAStaleSocket) {
  TempDir dir;
  const std::string path = (dir.path() / "s.sock").string();
  make_unix_socket(path, false);
  ASSERT_TRUE(fs::is_socket(path));
  EXPECT_EQ(start_error({"unix://" + path, 1 << 20, 16}), "");
}

TEST(GrpcServer, RefusesALiveSocket) {
  TempDir dir;
  const std::string path = (dir.path() / "s.sock").string();
  const int fd = make_unix_socket(path, true);
  const std::string err = start_error({"unix://" + path, 1 << 20, 16});
  ::close(fd);
  EXPECT_NE(err.find("another process is serving"), std::string::npos) << err;
}

TEST(GrpcServer, RefusesToRemoveANonSocketFile) {
  TempDir dir;
  const std::string path = (dir.path() / "s.sock").string();
  std::ofstream(path) << "precious";
  const std::string err = start_error({"unix://" + path, 1 << 20, 16});
  EXPECT_NE(err.find("not a socket"), std::string::npos) << err;
  std::ifstream in(path);
  std::string content;
  in >> content;
  EXPECT_EQ(content, "precious");
}

TEST(GrpcServer, TcpPortZeroAndAddressInUse) {
  NullService service;
  GrpcServer first({"127.0.0.1:0", 1 << 20, 16}, service);
  first.start();
  ASSERT_NE(first.port(), 0);
  EXPECT_EQ(first.address(), "127.0.0.1:" + std::to_string(first.port()));
  const std::string err = start_error({first.address(), 1 << 20, 16});
  EXPECT_NE(err.find("address already in use"), std::string::npos) << err;
}

TEST(GrpcServer, RejectsMalformedAddresses) {
  NullService service;
  for (const std::string& bad :
       std::vector<std::string>{"", "unix://relative", "unix:", "localhost", "host:", ":80", "host:99999", "::1:80",
                                "host:8x", "unix:///" + std::string(200, 'a')}) {
    EXPECT_THROW(GrpcServer({bad, 1 << 20, 16}, service), std::invalid_argument) << bad;
  }
  const auto v6 = cuzk::server::parse_listen_address("[::1]:9820");
  EXPECT_FALSE(v6.is_unix);
  EXPECT_EQ(v6.host, "::1");
  EXPECT_EQ(v6.port, 9820);
  const auto ux = cuzk::server::parse_listen_address("unix:///run/x.sock");
  EXPECT_TRUE(ux.is_unix);
  EXPECT_EQ(ux.path, "/run/x.sock");
}

// ---- HTTP metrics endpoint ----

std::string http_exchange(uint16_t port, const std::string& request, bool half_close = true) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return "connect failed";
  }
  if (!request.empty()) (void)!::send(fd, request.data(), request.size(), MSG_NOSIGNAL);
  if (half_close) ::shutdown(fd, SHUT_WR);
  std::string out;
  char buf[4096];
  for (;;) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 5000) <= 0) break;
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return out;
}

TEST(MetricsHttp, ServesMetricsStatusAnd404AndSurvivesGarbage) {
  std::atomic<int> status_calls{0};
  MetricsHttpServer::Options opts;
  opts.listen = "127.0.0.1:0";
  opts.io_timeout = milliseconds(300);
  MetricsHttpServer http(
      opts, [] { return std::string("cuzk_x 1\n"); },
      [&] {
        ++status_calls;
        return std::string("{\"ok\":true}");
      });
  http.start();
  ASSERT_NE(http.port(), 0);

  auto r = http_exchange(http.port(), "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_EQ(r.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << r;
  EXPECT_NE(r.find("Content-Type: text/plain; version=0.0.4"), std::string::npos) << r;
  EXPECT_NE(r.find("Content-Length: 9\r\n"), std::string::npos) << r;
  EXPECT_EQ(r.substr(r.size() - 9), "cuzk_x 1\n");

  r = http_exchange(http.port(), "GET /status?pretty HTTP/1.0\r\n\r\n");
  EXPECT_EQ(r.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << r;
  EXPECT_NE(r.find("application/json"), std::string::npos);
  EXPECT_EQ(r.substr(r.size() - 11), "{\"ok\":true}");
  EXPECT_EQ(status_calls.load(), 1);

  r = http_exchange(http.port(), "HEAD /metrics HTTP/1.1\r\n\r\n");
  EXPECT_EQ(r.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << r;
  EXPECT_NE(r.find("Content-Length: 9\r\n"), std::string::npos) << r;
  EXPECT_EQ(r.substr(r.size() - 4), "\r\n\r\n") << "no body for HEAD";

  r = http_exchange(http.port(), "GET /nope HTTP/1.1\r\n\r\n");
  EXPECT_EQ(r.rfind("HTTP/1.1 404 ", 0), 0u) << r;
  r = http_exchange(http.port(), "POST /metrics HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc");
  EXPECT_EQ(r.rfind("HTTP/1.1 405 ", 0), 0u) << r;
  r = http_exchange(http.port(), std::string("\x00\x01\xff garbage\r\n\r\n", 15));
  EXPECT_EQ(r.rfind("HTTP/1.1 400 ", 0), 0u) << r;
  r = http_exchange(http.port(), "GET /metrics HTTP/1.1\r\nX: " + std::string(10000, 'a') + "\r\n\r\n");
  EXPECT_EQ(r.rfind("HTTP/1.1 431 ", 0), 0u) << r;
  // A client that connects and says nothing is dropped after the read timeout...
  const auto t0 = steady_clock::now();
  r = http_exchange(http.port(), "", false);
  EXPECT_EQ(r.rfind("HTTP/1.1 408 ", 0), 0u) << r;
  EXPECT_LT(steady_clock::now() - t0, milliseconds(2000));
  // ... and one that hangs up at once costs nothing.
  r = http_exchange(http.port(), "");
  EXPECT_EQ(r, "");
  r = http_exchange(http.port(), "GET /metrics HTTP/1.1\r\n\r\n");
  EXPECT_EQ(r.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << r;

  const auto t1 = steady_clock::now();
  http.stop();
  EXPECT_LT(steady_clock::now() - t1, milliseconds(500));
}

TEST(MetricsHttp, CallbackExceptionIs500) {
  MetricsHttpServer::Options opts;
  opts.listen = "127.0.0.1:0";
  MetricsHttpServer http(
      opts, []() -> std::string { throw std::runtime_error("boom"); }, [] { return std::string("{}"); });
  http.start();
  const auto r = http_exchange(http.port(), "GET /metrics HTTP/1.1\r\n\r\n");
  EXPECT_EQ(r.rfind("HTTP/1.1 500 ", 0), 0u) << r;
  EXPECT_NE(r.find("boom"), std::string::npos);
}

TEST(MetricsHttp, RefusesNonLoopbackWithoutAllowRemote) {
  MetricsHttpServer::Options opts;
  opts.listen = "0.0.0.0:0";
  MetricsHttpServer http(
      opts, [] { return std::string(); }, [] { return std::string(); });
  try {
    http.start();
    FAIL() << "expected a refusal";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("loopback"), std::string::npos) << e.what();
  }
  opts.listen = "unix:///tmp/x.sock";
  MetricsHttpServer unix_http(
      opts, [] { return std::string(); }, [] { return std::string(); });
  EXPECT_THROW(unix_http.start(), std::invalid_argument);
}

TEST_F(GrpcServiceTest, StatusJsonIsWellFormed) {
  const std::string j = service_->status_json();
  EXPECT_EQ(j.front(), '{');
  EXPECT_EQ(j.back(), '}');
  EXPECT_NE(j.find("\"version\":\"9.9.9-test\""), std::string::npos) << j;
  EXPECT_NE(j.find("\"queues\":[{\"proof_kind\":\"generic\",\"priority\":\"high\",\"pending\":2,\"in_progress\":1,"
                   "\"pending_partitions\":5,\"in_progress_partitions\":3}]"),
            std::string::npos)
      << j;
  EXPECT_NE(j.find("\"stage_queues\":[{\"proof_kind\":\"generic\",\"priority\":\"high\",\"stage\":\"synthesis\","
                   "\"pending\":4,\"in_progress\":1}]"),
            std::string::npos)
      << j;
  EXPECT_NE(j.find("\"circuits\":[\"chain:2^10\",\"filecoin-like:2^16\"]"), std::string::npos) << j;
  EXPECT_NE(j.find("\"busy_seconds\":1.500"), std::string::npos) << j;
  // A TEST-ONLY key says so, and where it lives.
  EXPECT_NE(j.find("\"srs\":[{\"circuit_id\":\"chain:2^10\",\"tier\":\"warm\",\"size_bytes\":4096,\"ref_count\":2,"
                   "\"test_only\":true,\"storage\":\"memory\"}]"),
            std::string::npos)
      << j;
  EXPECT_NE(j.find("\"operations\":[{\"what\":\"test_keys\",\"circuit_id\":\"porep:32GiB\",\"unit\":\"points\","
                   "\"done\":250,\"total\":1000,\"fraction\":0.250,\"elapsed_seconds\":12.500}]"),
            std::string::npos)
      << j;
}

// ---- logging ----

TEST(Logging, EscapingAndLevels) {
  using cuzk::logging::json_escape;
  using cuzk::logging::text_value;
  EXPECT_EQ(json_escape("a\"b\\c\n\x01"), "a\\\"b\\\\c\\n\\u0001");
  EXPECT_EQ(json_escape("\xc3\xa9"), "\xc3\xa9");                   // valid UTF-8 kept
  EXPECT_EQ(json_escape("x\xff\xc3"), "x\\ufffd\\ufffd");           // invalid bytes replaced
  EXPECT_EQ(json_escape("\xed\xa0\x80"), "\\ufffd\\ufffd\\ufffd");  // a UTF-16 surrogate
  EXPECT_EQ(text_value("plain/path:1"), "plain/path:1");
  EXPECT_EQ(text_value(""), "\"\"");
  EXPECT_EQ(text_value("a b=\"c\"\n"), "\"a b=\\\"c\\\"\\n\"");
  cuzk::logging::Level level{};
  EXPECT_TRUE(cuzk::logging::parse_level("warn", level));
  EXPECT_EQ(level, cuzk::logging::Level::warn);
  EXPECT_FALSE(cuzk::logging::parse_level("loud", level));
  EXPECT_THROW(cuzk::logging::init_logging("loud", "text"), std::invalid_argument);
  EXPECT_THROW(cuzk::logging::init_logging("info", "xml"), std::invalid_argument);
}

TEST(Logging, JsonAndTextLines) {
  ::unsetenv("CUZK_LOG");
  cuzk::logging::init_logging("info", "json");
  testing::internal::CaptureStderr();
  cuzk::logging::log_event(cuzk::logging::Level::info, "ready", {{"listen", "unix:///a b"}, {"q", "\"x\""}});
  cuzk::logging::log_event(cuzk::logging::Level::debug, "hidden", {});
  spdlog::warn("plain {}", "message\n");
  const std::string json = testing::internal::GetCapturedStderr();
  EXPECT_NE(json.find("\",\"level\":\"info\",\"msg\":\"ready\",\"listen\":\"unix:///a b\",\"q\":\"\\\"x\\\"\"}\n"),
            std::string::npos)
      << json;
  EXPECT_EQ(json.rfind("{\"ts\":\"20", 0), 0u) << json;
  EXPECT_EQ(json.find("hidden"), std::string::npos);
  EXPECT_NE(json.find("\"level\":\"warning\",\"msg\":\"plain message\\n\"}\n"), std::string::npos) << json;

  ::setenv("CUZK_LOG", "debug", 1);
  cuzk::logging::init_logging("error", "text");
  ::unsetenv("CUZK_LOG");
  testing::internal::CaptureStderr();
  cuzk::logging::log_event(cuzk::logging::Level::debug, "ready", {{"listen", "unix:///a b"}, {"n", "1"}});
  const std::string text = testing::internal::GetCapturedStderr();
  EXPECT_NE(text.find("Z debug ready listen=\"unix:///a b\" n=1\n"), std::string::npos) << text;
  cuzk::logging::init_logging("warn", "text");
}

// ---- the Python client (tests/daemon_client.py) against this server ----

std::string run_capture(const std::string& command, int& exit_code) {
  std::string out;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) {
    exit_code = -1;
    return out;
  }
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, pipe)) > 0) out.append(buf, n);
  const int status = ::pclose(pipe);
  exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return out;
}

TEST_F(GrpcServiceTest, PythonClientTalksToTheServer) {
  int rc = 0;
  run_capture("/usr/bin/python3 -c 'import grpc, google.protobuf' 2>/dev/null", rc);
  if (rc != 0) GTEST_SKIP() << "python3 with grpcio and protobuf is not installed";
  const std::string client = (fs::path(CUZK_VECTORS_DIR).parent_path() / "daemon_client.py").string();
  const std::string base = "/usr/bin/python3 " + client + " --address " + server_->address() + " ";

  std::string out = run_capture(base +
                                    "prove --circuit chain:2^10 --input seed-0 --input-hex 00ff --priority high "
                                    "--request-id py-1 2>&1",
                                rc);
  EXPECT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("\"status\": \"COMPLETED\""), std::string::npos) << out;
  EXPECT_NE(out.find("\"job_id\": \"py-1\""), std::string::npos) << out;
  EXPECT_NE(out.find("\"proof\": \"5a5a5a5a"), std::string::npos) << out;
  {
    std::lock_guard lock(engine_.mu_);
    ASSERT_FALSE(engine_.submits.empty());
    const auto& s = engine_.submits.back();
    EXPECT_EQ(s.partition_inputs, (std::vector<std::string>{"seed-0", std::string("\x00\xff", 2)}));
    EXPECT_EQ(s.wire_priority, 3);
    EXPECT_EQ(s.kind, eng::ProofKind::Generic);
  }

  out = run_capture(base + "await no-such-job 2>&1", rc);
  EXPECT_EQ(rc, 1) << out;
  EXPECT_NE(out.find("\"code\": \"NOT_FOUND\""), std::string::npos) << out;

  out = run_capture(base + "status 2>&1", rc);
  EXPECT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("\"version\": \"9.9.9-test\""), std::string::npos) << out;
  EXPECT_NE(out.find("\"priority\": \"HIGH\""), std::string::npos) << out;

  out = run_capture(base + "vk chain:2^10 2>&1", rc);
  EXPECT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("\"vk\": \"0102766b\""), std::string::npos) << out;

  out = run_capture(base + "--deadline 0.2 prove --circuit hang 2>&1", rc);
  EXPECT_EQ(rc, 1) << out;
  EXPECT_NE(out.find("DEADLINE_EXCEEDED"), std::string::npos) << out;
}

}  // namespace
