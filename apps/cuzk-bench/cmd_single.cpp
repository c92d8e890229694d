// cuzk-bench single: one Prove call, its server timings and client wall time, and the proof
// verified against the circuit's verifying key.
#include <chrono>
#include <cstdio>
#include <iostream>

#include "commands.hpp"
#include "interrupt.hpp"
#include "post_request.hpp"
#include "proof_checker.hpp"
#include "report.hpp"
#include "request.hpp"
#include "snap_request.hpp"
#include "util/atomic_file.hpp"

namespace cuzk::bench {

namespace {

// The request, or a usage error (exit code 2).
Result<v1::ProveRequest> build_request(const SingleOptions& o, const PorepC1* porep, const PostRequest* post,
                                       std::string& request_id) {
  v1::ProveRequest req;
  auto* s = req.mutable_submit();
  s->set_proof_kind(v1::GENERIC);
  s->set_circuit_id(o.circuit);
  auto prio = parse_priority(o.priority);
  if (!prio) return make_error(prio.error());
  s->set_priority(*prio);
  request_id = o.request_id.empty() ? new_request_id() : o.request_id;
  s->set_request_id(request_id);
  if (post) {
    if (!o.wtns.empty() || !o.inputs.empty() || o.partitions) {
      return make_error("--post/--snap take no --wtns, --input or --partitions (the request file has them)");
    }
    const v1::Priority priority = s->priority();
    *s = post->fields;
    s->set_priority(priority);
    s->set_request_id(request_id);
    return req;
  }
  if (porep) {
    if (!o.wtns.empty() || !o.inputs.empty() || o.partitions) {
      return make_error("--c1 takes no --wtns, --input or --partitions (the C1 output has them)");
    }
    s->clear_circuit_id();
    set_porep_request(*s, *porep);
    return req;
  }

  if (!o.wtns.empty()) {
    if (o.partitions && *o.partitions != o.wtns.size()) {
      return make_error("--partitions " + std::to_string(*o.partitions) + " but " + std::to_string(o.wtns.size()) +
                        " --wtns files (one per partition)");
    }
    for (const auto& path : o.wtns) {
      auto bytes = read_file(path);
      if (!bytes) return make_error(bytes.error());
      s->add_witnesses(std::move(*bytes));
    }
    return req;
  }
  if (!o.inputs.empty()) {
    if (o.partitions && *o.partitions != o.inputs.size()) {
      return make_error("--partitions " + std::to_string(*o.partitions) + " but " + std::to_string(o.inputs.size()) +
                        " --input values (one per partition)");
    }
    for (const auto& hex : o.inputs) {
      auto bytes = parse_hex_input(hex);
      if (!bytes) return make_error(bytes.error());
      s->add_partition_inputs(std::move(*bytes));
    }
    return req;
  }
  const uint32_t k = o.partitions.value_or(1);
  for (uint32_t i = 0; i < k; ++i) {
    s->add_partition_inputs(o.seed ? seeded_partition_input(*o.seed, i) : random_partition_input());
  }
  return req;
}

// One Prove call, interruptible (Ctrl-C cancels the wait), with its client wall time.
struct ProveCall {
  v1::ProveResponse resp;
  grpc::Status status;
  double wall_ms = 0;
};

ProveCall call_prove(Client& client, const GlobalOptions& g, const v1::ProveRequest& req, uint64_t timeout_ms,
                     const std::string& what) {
  ProveCall c;
  InflightCalls calls;
  InterruptWatcher watcher(calls);
  grpc::ClientContext ctx;
  set_deadline(ctx, std::chrono::milliseconds(timeout_ms));
  client.prepare(ctx);
  InflightGuard guard(calls, &ctx);
  auto stub = client.new_stub();
  if (g.verbose) std::cerr << "proving " << what << " ...\n";
  const auto t0 = std::chrono::steady_clock::now();
  c.status = stub->Prove(&ctx, req, &c.resp);
  c.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return c;
}

// A failed call: the job is cancelled when we gave up on it (deadline, interrupt), since it would
// keep running otherwise. Returns the exit code.
int rpc_failure(Client& client, const grpc::Status& st, const std::string& request_id, nlohmann::json& json) {
  std::string err = describe_rpc_error("Prove", st, client.address());
  const bool gave_up = st.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED || interrupted();
  if (gave_up) {
    auto c = client.cancel(request_id, std::chrono::seconds(5));
    err += c ? (c->cancelled() ? "; cancelled job " + request_id : "; job " + request_id + " was not cancelled")
             : "; could not cancel job " + request_id + ": " + c.error();
    if (interrupted()) err = "interrupted; " + err;
  }
  json["status"] = "RPC_ERROR";
  json["error"] = err;
  json["verified"] = nullptr;
  std::cerr << "cuzk-bench: " << err << "\n";
  return 1;
}

struct Verdict {
  std::optional<CheckOutcome> check;
  std::string error;
  bool valid() const { return check && check->valid; }
};

// PoRep, PoSt, SnapDeals: checked against the inputs derived here (from C1, from the vanilla proofs
// or the commitments), not the ones the daemon reports.
Verdict verify_answer(Client& client, const std::string& circuit, const v1::AwaitProofResponse& r, const PorepC1* porep,
                      const PostRequest* post, uint32_t partitions) {
  Verdict v;
  auto checker = ProofChecker::fetch(client, circuit);
  if (!checker) {
    v.error = checker.error();
    return v;
  }
  const std::vector<std::string> inputs =
      porep  ? porep->public_inputs
      : post ? post->public_inputs
             : std::vector<std::string>(r.public_inputs().begin(), r.public_inputs().end());
  v.check = checker->check(r.proof(), inputs, partitions);
  if (!v.check->valid) v.error = v.check->detail;
  return v;
}

void answer_json(const v1::AwaitProofResponse& r, bool completed, nlohmann::json& json) {
  json["status"] = status_name(r.status());
  json["job_id"] = r.job_id();
  json["timings_ms"] = {{"queue_wait", r.queue_wait_ms()}, {"srs_load", r.srs_load_ms()},
                        {"synthesis", r.synthesis_ms()},   {"prove", r.gpu_compute_ms()},
                        {"finalize", r.finalize_ms()},     {"total", r.total_ms()}};
  json["proof_bytes"] = r.proof().size();
  json["error"] = r.error_message().empty() ? nlohmann::json(nullptr) : nlohmann::json(r.error_message());
  if (completed) {
    json["proof_hex"] = to_hex(r.proof());
    auto& pi = json["public_inputs_hex"] = nlohmann::json::array();
    for (const auto& p : r.public_inputs()) pi.push_back(to_hex(p));
  }
}

void print_answer(const GlobalOptions& g, const SingleOptions& o, const std::string& circuit, uint32_t partitions,
                  const v1::AwaitProofResponse& r, double wall_ms, const Verdict& v) {
  const bool completed = r.status() == v1::AwaitProofResponse::COMPLETED;
  KeyValues kv;
  kv.add("circuit", circuit + " (" + std::to_string(partitions) + (partitions == 1 ? " partition)" : " partitions)"));
  kv.add("job id", r.job_id());
  kv.add("status", status_name(r.status()));
  if (!r.error_message().empty()) kv.add("error", r.error_message());
  if (completed) {
    kv.add("proof", std::to_string(r.proof().size()) + " bytes");
    kv.add("server total", std::to_string(r.total_ms()) + " ms");
  }
  kv.add("client wall", fmt_fixed(wall_ms, 1) + " ms");
  if (completed) {
    if (o.no_verify) {
      kv.add("verified", "skipped (--no-verify)");
    } else if (v.valid()) {
      kv.add("verified", "yes (" + fmt_fixed(v.check->ms, 1) + " ms)");
    } else {
      kv.add("verified", "NO: " + v.error);
    }
  }
  std::cout << kv.render();
  if (!completed) return;
  Table t({"stage", "ms"});
  t.add({"queue_wait", std::to_string(r.queue_wait_ms())});
  t.add({"srs_load", std::to_string(r.srs_load_ms())});
  t.add({"synthesis", std::to_string(r.synthesis_ms())});
  t.add({"prove", std::to_string(r.gpu_compute_ms())});
  t.add({"  finalize", std::to_string(r.finalize_ms())});
  t.add({"total", std::to_string(r.total_ms())});
  std::cout << "\nserver timings (summed over partitions):\n" << t.render(2);
  if (o.show_proof || g.verbose) std::cout << "\nproof " << to_hex(r.proof()) << "\n";
}

}  // namespace

int run_single(Client& client, const GlobalOptions& g, const SingleOptions& o, nlohmann::json& json) {
  std::optional<PorepC1> porep;
  if (!load_porep_option(o.c1, porep)) return 2;
  if (porep) porep->miner_id = o.miner_id;
  std::optional<PostRequest> post;
  if (!load_request_option(load_post_request, o.post, !o.no_verify, post)) return 2;
  if (!load_request_option(load_snap_request, o.snap, !o.no_verify, post)) return 2;
  const std::string circuit = porep ? porep->circuit_id : post ? post->circuit_id : o.circuit;
  std::string request_id;
  auto req = build_request(o, porep ? &*porep : nullptr, post ? &*post : nullptr, request_id);
  if (!req) {
    std::cerr << "cuzk-bench: " << req.error() << "\n";
    return 2;
  }
  const auto& submit = req->submit();
  const uint32_t partitions = porep ? porep->partitions
                              : post
                                  ? post->partitions
                                  : static_cast<uint32_t>(submit.witnesses_size() > 0 ? submit.witnesses_size()
                                                                                      : submit.partition_inputs_size());
  const ProveCall call =
      call_prove(client, g, *req, o.timeout_ms, circuit + " (" + std::to_string(partitions) + " partitions)");
  json["command"] = "single";
  json["circuit"] = circuit;
  json["request_id"] = request_id;
  json["partitions"] = partitions;
  json["priority"] = o.priority;
  json["client_wall_ms"] = rounded(call.wall_ms, 1);
  if (!call.status.ok()) return rpc_failure(client, call.status, request_id, json);

  const auto& r = call.resp.result();
  const bool completed = r.status() == v1::AwaitProofResponse::COMPLETED;
  answer_json(r, completed, json);
  if (completed && !o.proof_out.empty()) {
    AtomicFile f(o.proof_out);
    f.write(std::as_bytes(std::span(r.proof().data(), r.proof().size())));
    f.commit();
  }
  Verdict v;
  if (completed && !o.no_verify) {
    v = verify_answer(client, circuit, r, porep ? &*porep : nullptr, post ? &*post : nullptr, partitions);
  }
  json["verified"] = o.no_verify || !completed ? nlohmann::json(nullptr) : nlohmann::json(v.valid());
  json["verify_ms"] = v.check ? json_number(v.check->ms, 2) : nlohmann::json(nullptr);
  if (!v.error.empty()) json["verify_error"] = v.error;
  if (!g.json) print_answer(g, o, circuit, partitions, r, call.wall_ms, v);
  if (!completed) {
    std::cerr << "cuzk-bench: proof " << status_name(r.status())
              << (r.error_message().empty() ? "" : ": " + r.error_message()) << "\n";
    return 1;
  }
  if (!o.no_verify && !v.valid()) {
    std::cerr << "cuzk-bench: verification failed: " << v.error << "\n";
    return 1;
  }
  return 0;
}

}  // namespace cuzk::bench
