#pragma once
// What the engine tests share (test_engine.cpp, test_engine_gpu_pool.cpp): a small test
// configuration, requests of built-in and circom circuits, a proof checker, fake GPU devices that
// prove on the CPU, and the engine's figures as status() and the metrics report them.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <thread>

#include "backend/placement.hpp"
#include "circuits/builtin.hpp"
#include "engine/engine.hpp"
#include "engine/partition_work.hpp"
#include "filecoin/c1_output.hpp"
#include "filecoin/replica_id.hpp"
#include "filecoin/seal.hpp"
#include "groth16/params_file.hpp"
#include "groth16/proof_codec.hpp"
#include "groth16/prover_zkey.hpp"
#include "groth16/setup_file.hpp"
#include "groth16/verifier.hpp"
#include "pce/build.hpp"
#include "poly/domain.hpp"
#include "test_helpers.hpp"
#include "util/tuning.hpp"

namespace cuzk::engine_test {

using cuzk::test::TempDir;
using namespace cuzk;
using namespace cuzk::engine;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

inline Config test_config(const std::string& dir, unsigned synth_workers = 1) {
  Config c;
  c.daemon.data_dir = dir;
  c.memory.total_budget = 2ull << 30;
  c.memory.eviction_min_idle_s = 0;
  c.synthesis.workers = synth_workers;
  c.synthesis.threads = 1;
  c.synthesis.lookahead = 1;
  c.prover.workers = 1;
  c.prover.finalize_workers = 1;
  c.scheduler.completed_retention_s = 600;
  c.srs.allow_test_keys = true;  // the PoRep cases prove with test-only keys
  EXPECT_TRUE(c.finalize().ok());
  return c;
}

inline ProofRequest builtin_request(const std::string& circuit, size_t partitions, const std::string& request_id = "",
                                    int priority = 0, uint64_t salt = 0) {
  ProofRequest r;
  r.kind = ProofKind::Generic;
  r.circuit_id = circuit;
  r.request_id = request_id;
  r.wire_priority = priority;
  for (size_t i = 0; i < partitions; ++i)
    r.partition_inputs.push_back("input-" + std::to_string(salt) + "-" + std::to_string(i));
  return r;
}

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// The checkout: CUZK_SOURCE_DIR in the environment on a device machine (where the build's own source
// path does not exist), else the build's.
inline std::string source_dir() {
  const char* env = std::getenv("CUZK_SOURCE_DIR");
  return env != nullptr && *env != '\0' ? env : CUZK_SOURCE_DIR;
}

// Registers tests/zkey/<name>.zkey as circuit `id` (the config is finalized again).
inline void add_zkey_circuit(Config& cfg, const std::string& id, const std::string& name) {
  CircuitSection z;
  z.id = id;
  z.zkey = source_dir() + "/tests/zkey/" + name + ".zkey";
  cfg.circuits.push_back(z);
  ASSERT_TRUE(cfg.finalize().ok());
}

// Registers tests/circom/<name>.r1cs as circuit `id` with test-only keys (the config is finalized again).
inline void add_r1cs_circuit(Config& cfg, const std::string& id, const std::string& name) {
  CircuitSection c;
  c.id = id;
  c.r1cs = source_dir() + "/tests/circom/" + name + ".r1cs";
  c.test_setup = true;
  cfg.circuits.push_back(c);
  ASSERT_TRUE(cfg.finalize().ok());
}

// `count` copies of tests/circom/<name>.wtns for circuit `id`.
inline ProofRequest wtns_request(const std::string& id, const std::string& name, size_t count) {
  ProofRequest w;
  w.kind = ProofKind::Generic;
  w.circuit_id = id;
  const std::string root = source_dir();
  const std::string wtns = read_file(root + "/tests/circom/" + name + ".wtns");
  if (wtns.empty()) ADD_FAILURE() << root << "/tests/circom/" << name << ".wtns is missing or empty";
  w.witnesses.assign(count, wtns);
  return w;
}

// Decodes the job's proofs and public inputs and checks them with the circuit's verifying key.
inline void expect_valid(Engine& engine, const JobResult& r, const std::string& circuit) {
  ASSERT_EQ(r.status, JobStatus::Completed) << r.error_message;
  ASSERT_EQ(r.proof.size(), 192u * r.partitions);
  ASSERT_EQ(r.public_inputs.size(), r.partitions);
  auto vk_info = engine.verifying_key(circuit);
  ASSERT_TRUE(vk_info.ok()) << vk_info.error.message;
  const std::string& vkb = vk_info.value->vk_bytes;
  auto vk = groth16::parse_vk(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(vkb.data()), vkb.size()), "vk");
  ASSERT_TRUE(vk.ok()) << vk.error();
  auto proofs = groth16::decode_proofs(
      std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(r.proof.data()), r.proof.size()));
  ASSERT_TRUE(proofs.ok()) << proofs.error();
  const auto pvk = groth16::prepare(*vk);
  for (uint32_t i = 0; i < r.partitions; ++i) {
    const std::string& pub = r.public_inputs[i];
    ASSERT_EQ(pub.size(), 32u * vk_info.value->num_public_inputs);
    std::vector<ec::Fr> xs;
    for (size_t k = 0; k < pub.size(); k += 32) {
      xs.push_back(ec::Fr::from_bytes_le(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(pub.data()) + k, 32))
                       .value());
    }
    auto ok = groth16::verify(pvk, (*proofs)[i], xs);
    ASSERT_TRUE(ok.ok()) << ok.error();
    EXPECT_TRUE(*ok) << "partition " << i;
  }
}

// A hostile 100 MiB request is refused in well under a second in Release; under the sanitizers
// every byte access is instrumented and CI's two cores are shared, so the bound only rules out a hang.
#if defined(CUZK_SANITIZE_BUILD)
constexpr double kRefuseBoundS = 60.0;
#else
constexpr double kRefuseBoundS = 5.0;
#endif

// A "device" that proves on the CPU, holds `bytes` of pretend device memory, and fails its calls
// while `fail_calls` (shared per device) is positive (or always, when it is negative).
struct FakeDevice {
  std::atomic<int> fail_calls{0};
  // Or, set before the engine starts: fails the calls for which this says so (numbered from 1 in
  // the order they reach the device), e.g. one in the middle of a batch.
  std::function<bool(int)> fail_call;
  std::atomic<int> calls{0};
  std::atomic<int> resident{0};
  int capacity = 8;  // provers that fit at once
  std::atomic<int> built{0};
  std::chrono::milliseconds delay{0};  // each device stage takes at least this long
  // As a GPU prover with two witness slots: calls at once, each first "waiting for the other's
  // kernels" this long (reported as ProveTimings::device_wait_s).
  unsigned concurrency = 1;
  std::chrono::milliseconds wait{0};
  std::optional<backend::FitOptions> fit;  // what its last prover was built with
};

// Both conventions: a bellperson key's points collected from the source (the daemon's GPUs stream
// them from the file), or the zkey; the stage computed on the CPU.
class FakeDeviceProver final : public backend::DeviceProver {
 public:
  FakeDeviceProver(int ordinal, FakeDevice& dev, const backend::ProverKey& key) : ordinal_(ordinal), dev_(dev) {
    if (const auto* k = std::get_if<backend::PceKey>(&key)) {
      pk_ = groth16::collect_key(*k->key);
      cpu_ = backend::make_cpu_prover(pk_, *k->pce);
    } else {
      cpu_ = backend::make_cpu_prover(*std::get<backend::ZkeyKey>(key).zkey);
    }
    ++dev_.resident;
  }
  ~FakeDeviceProver() override { --dev_.resident; }
  std::string name() const override { return "gpu:" + std::to_string(ordinal_); }
  uint64_t device_bytes() const override { return 1000; }
  unsigned concurrency() const override { return dev_.concurrency; }
  backend::StageMsms stage1(const backend::WitnessRef& w, groth16::ProveTimings* t) override {
    if (dev_.wait.count() > 0) {
      std::this_thread::sleep_for(dev_.wait);
      if (t) t->device_wait_s += std::chrono::duration<double>(dev_.wait).count();
    }
    const int call = ++dev_.calls;
    int f = dev_.fail_calls.load();
    if (f < 0 || (f > 0 && dev_.fail_calls.fetch_sub(1) > 0) || (dev_.fail_call && dev_.fail_call(call))) {
      throw DeviceFailure(name() + ": injected launch failure (call " + std::to_string(call) + ")");
    }
    std::this_thread::sleep_for(dev_.delay);
    return cpu_->stage1(w, t);
  }

 private:
  int ordinal_;
  FakeDevice& dev_;
  groth16::ProvingKey pk_;
  std::unique_ptr<backend::DeviceProver> cpu_;
};

inline backend::PlacementSetup fake_devices(std::vector<int> ordinals, std::map<int, FakeDevice>& devs) {
  for (int d : ordinals) devs[d];
  return {ordinals, [&devs](int d, const backend::ProverKey& key, const backend::FitOptions& fit) {
            FakeDevice& dev = devs.at(d);
            if (dev.resident.load() >= dev.capacity) {
              throw DeviceMemoryShort("gpu:" + std::to_string(d) + ": injected: device memory full");
            }
            ++dev.built;
            dev.fit = fit;
            return std::unique_ptr<backend::DeviceProver>(std::make_unique<FakeDeviceProver>(d, dev, key));
          }};
}

// The value of one metric line in an exposition text (0 when absent): to compare two metrics of
// one scrape.
inline double metric_in(const std::string& text, const std::string& line_prefix) {
  const size_t at = text.find("\n" + line_prefix + " ");
  if (at == std::string::npos) return 0;
  return std::stod(text.substr(at + line_prefix.size() + 2));
}

// The value of one metric line in a fresh scrape of the engine (0 when absent).
inline double metric(Engine& engine, const std::string& line_prefix) {
  return metric_in(engine.metrics_text(), line_prefix);
}

// The job's result; a job still running after a minute (a stuck pipeline) fails the test.
inline JobResult prove_now(Engine& engine, const std::string& circuit, size_t partitions, uint64_t salt) {
  auto s = engine.submit(builtin_request(circuit, partitions, "", 0, salt));
  EXPECT_TRUE(s.ok()) << s.error.message;
  JobResult r = *engine.await(s.value->job_id, 60s);
  if (r.status == JobStatus::Timeout) {
    ADD_FAILURE() << circuit << ": the job did not finish within 60 s";
    engine.cancel(s.value->job_id);
  }
  return r;
}

// The key files in the parameter directory (none when it was never made).
inline std::vector<std::string> key_files(const std::string& data_dir) {
  std::vector<std::string> out;
  const fs::path params = fs::path(data_dir) / "params";
  if (!fs::exists(params)) return out;
  for (const auto& e : fs::directory_iterator(params)) out.push_back(e.path().filename().string());
  return out;
}

// The circuit's loaded key as status() describes it; fails the test when absent.
inline SrsInfo srs_info(Engine& engine, const std::string& circuit) {
  for (const SrsInfo& i : engine.status().srs) {
    if (i.circuit_id == circuit) return i;
  }
  ADD_FAILURE() << circuit << " is not loaded";
  return {};
}

inline std::string vk_of(Engine& engine, const std::string& circuit) {
  auto vk = engine.verifying_key(circuit);
  EXPECT_TRUE(vk.ok()) << vk.error.message;
  return vk.ok() ? vk.value->vk_bytes : std::string();
}

// Two fake devices, with both prover workers kept busy (two synthesis workers, lookahead 4) so
// that device 0 takes partitions too.
struct TwoBusyDevices {
  TempDir dir;
  std::map<int, FakeDevice> devs;
  Engine engine{config(dir.str()), fake_devices({0, 1}, devs)};

  static Config config(const std::string& dir) {
    Config cfg = test_config(dir, 2);
    cfg.synthesis.lookahead = 4;
    return cfg;
  }
  // Starts the engine (a test sets its faults on `devs` first), makes the keys and PCE before the
  // job (the GPU path from its first partition) and proves; the proof must verify.
  void start_and_prove(const std::string& circuit, size_t partitions, uint64_t salt) {
    engine.start();
    ASSERT_TRUE(engine.preload_srs(circuit).ok());
    expect_valid(engine, prove_now(engine, circuit, partitions, salt), circuit);
  }
};

// Host memory of a circuit's keys (status().srs size_bytes), 0 when absent.
inline uint64_t srs_host_bytes(Engine& engine, const std::string& circuit) {
  for (const SrsInfo& i : engine.status().srs) {
    if (i.circuit_id == circuit) return i.size_bytes;
  }
  return 0;
}

// The largest host bytes of one circuit's keys + PCE, as the engine counts them.
inline uint64_t largest_keys_and_pce(const std::string& dir, std::initializer_list<const char*> ids) {
  Engine probe(test_config(dir));
  probe.start();
  for (const char* c : ids) EXPECT_TRUE(probe.preload_srs(c).ok());
  const EngineStatus st = probe.status();
  std::map<std::string, uint64_t> per;
  for (const auto& x : st.srs) per[x.circuit_id] += x.size_bytes;
  for (const auto& x : st.pce) per[x.circuit_id] += x.size_bytes;
  EXPECT_EQ(per.size(), ids.size());
  uint64_t largest = 0;
  for (const auto& [id, b] : per) largest = std::max(largest, b);
  return largest;
}

}  // namespace cuzk::engine_test
