#pragma once
// Where the device stage of a bellperson-convention Groth16 proof runs (MatVec, H, the five MSMs):
// the CPU (groth16::prove_stage1) or one or more GPUs (gpu::GpuProver, CUDA builds only), with
// finalize (groth16::prove_finalize) always on the CPU. Layering: groth16 <- backend -> gpu; the
// groth16 library knows nothing of the GPU.
//
// Selection (select_backend, pure logic, tested without a device):
//   cpu   always the CPU;
//   gpu   every usable device (or the listed ones); an error when there is none;
//   auto  the GPU when scan_devices() finds one (and the prover fits its memory), else the CPU.
// A device error during a proof (gpu::CudaError, surfaced as DeviceFailure) is logged and that
// proof is retried on the CPU (with_cpu_fallback); with several devices, witnesses are spread
// round-robin, one host thread per device.
#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "groth16/keys.hpp"
#include "groth16/prover.hpp"
#include "groth16/prover_zkey.hpp"
#include "groth16/zkey.hpp"
#include "pce/pce.hpp"
#include "util/thread_pool.hpp"

namespace cuzk::backend {

using groth16::Fr;

enum class BackendKind { Cpu, Gpu, Auto };

// "cpu", "gpu" or "auto"; anything else throws std::invalid_argument naming the three.
BackendKind parse_backend_kind(std::string_view text);
const char* to_string(BackendKind kind);

// True when this build has the CUDA backend (CUZK_CUDA found nvcc).
bool built_with_cuda();

// The devices a backend may use, as scan_devices() reports them (or as a test states them).
struct DeviceList {
  std::vector<int> ordinals;
  std::vector<std::string> names;  // one per ordinal
  std::string unavailable_reason;  // why there is none (no driver, no device, built without CUDA)
};

// scan_devices() restricted to `only` (empty: all); never throws for a missing driver or device.
// Listed ordinals that do not exist throw std::invalid_argument.
DeviceList available_devices(const std::vector<unsigned>& only = {});

struct Selection {
  BackendKind kind = BackendKind::Cpu;  // Cpu or Gpu
  std::vector<int> devices;             // Gpu: the ordinals to use
  std::string reason;                   // why (for logs and `--verbose`)
};

// The decision for `requested` given `devices`. requested = Gpu without devices throws
// std::runtime_error carrying devices.unavailable_reason.
Selection select_backend(BackendKind requested, const DeviceList& devices);

// A device error in the middle of a proof: the proof may be retried elsewhere.
class DeviceFailure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A device has too little free memory for a prover (nothing was uploaded): free other residents
// and try again, or prove elsewhere.
class DeviceMemoryShort : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class ProverBackend {
 public:
  virtual ~ProverBackend() = default;
  virtual std::string name() const = 0;  // "cpu", "gpu:0", "gpu:0,1"
  // Device memory the backend keeps resident (bases, PCE, buffers); 0 on the CPU.
  virtual uint64_t device_bytes() const { return 0; }
  // The device stage of one witness (validated against the circuit).
  virtual groth16::ProofMsms stage1(const groth16::Witness& w, groth16::ProveTimings* timings = nullptr) = 0;
  // Several witnesses of the circuit, results in order. Default: stage1 on each in turn.
  virtual std::vector<groth16::ProofMsms> stage1_many(std::span<const groth16::Witness> ws,
                                                      groth16::ProveTimings* timings = nullptr);
  // stage1_many then prove_finalize on the CPU; r.size() == s.size() == ws.size().
  std::vector<groth16::Proof> prove_many(std::span<const groth16::Witness> ws, std::span<const Fr> r,
                                         std::span<const Fr> s, groth16::ProveTimings* timings = nullptr);
  const groth16::VerifyingKey& vk() const { return *vk_; }

 protected:
  explicit ProverBackend(const groth16::VerifyingKey& vk) : vk_(&vk) {}

 private:
  const groth16::VerifyingKey* vk_;
};

struct BackendOptions {
  BackendKind kind = BackendKind::Auto;
  std::vector<unsigned> devices{};    // empty: every device (config `gpus.devices`)
  bool b_g2_on_gpu = true;            // false: the G2 MSM on the CPU, overlapping the GPU's G1 MSMs
  bool cpu_fallback = true;           // retry a proof on the CPU after a device error
  ThreadPool* pool = nullptr;         // CPU work; null: ThreadPool::global()
  unsigned msm_table_bits = 0;        // GPU: precomputed MSM window tables (gpu::GpuProverOptions)
  unsigned test_inject_failures = 0;  // test hook: each GPU prover fails its first N proofs (CUDA error)
};

// The key and the Pce must outlive every backend made from them.
std::unique_ptr<ProverBackend> make_cpu_backend(const groth16::ProvingKey& pk, const pce::Pce& pce,
                                                ThreadPool* pool = nullptr);
// The prover of one device (no fallback, no selection): the key's bases and the Pce uploaded now.
// When they do not fit with the G2 MSM on the device, the G2 MSM goes to the CPU (options.pool).
// Throws DeviceMemoryShort when the device's free memory is too small even so, DeviceFailure on a CUDA
// error while building it, std::runtime_error in a build without CUDA. options.kind, devices and
// cpu_fallback are ignored.
std::unique_ptr<ProverBackend> make_device_backend(const groth16::ProvingKey& pk, const pce::Pce& pce, int device,
                                                   const BackendOptions& options = {});
// The same with the bases read from `key` while building (a ParamsKeySource: streamed from the
// file, never all on the host); key.vk() must outlive the backend, the rest of the source need not.
std::unique_ptr<ProverBackend> make_device_backend(const groth16::KeySource& key, const pce::Pce& pce, int device,
                                                   const BackendOptions& options = {});

// The snarkjs-convention device stage of one GPU with the zkey's points resident (gpu::GpuZkeyProver):
// the five sums for groth16::zkey_finalize. CUDA errors surface as DeviceFailure.
class ZkeyDeviceProver {
 public:
  virtual ~ZkeyDeviceProver() = default;
  virtual std::string name() const = 0;  // "gpu:0"
  virtual uint64_t device_bytes() const = 0;
  virtual groth16::ZkeyMsms stage1(std::span<const Fr> witness) = 0;
};
// As make_device_backend, for a zkey (the G2 MSM moves to the CPU when the points do not fit).
std::unique_ptr<ZkeyDeviceProver> make_zkey_device_prover(const groth16::Zkey& zkey, int device,
                                                          const BackendOptions& options = {});

// Runs `primary`; a DeviceFailure is logged (warn, event "device_stage_failed") and the witness is
// proven by `fallback` instead. Other exceptions (bad witness, ...) propagate. `fallback` may be
// shared by several wrappers (calls into it are serialized).
std::unique_ptr<ProverBackend> with_cpu_fallback(std::unique_ptr<ProverBackend> primary,
                                                 std::shared_ptr<ProverBackend> fallback);
// Witnesses spread round-robin over `parts` (one host thread each; witness i goes to part
// i % parts.size()). stage1 alone rotates through the parts.
std::unique_ptr<ProverBackend> spread_round_robin(std::vector<std::unique_ptr<ProverBackend>> parts);

// The backend options.kind selects on this machine (available_devices(options.devices)). With
// auto, a GPU prover that cannot be built (too little device memory, a CUDA error) is logged and
// the CPU is used; with gpu that error propagates.
std::unique_ptr<ProverBackend> make_backend(const groth16::ProvingKey& pk, const pce::Pce& pce,
                                            const BackendOptions& options = {});

// One snarkjs-convention proof (.zkey) on the backend options.kind selects (its first device),
// with the same fallback: a device error is logged and the proof is redone on the CPU (when
// options.cpu_fallback); with auto, a GPU prover that cannot be built falls back too. `used`, when
// given, receives the backend that made the proof ("cpu" or "gpu:<ordinal>").
groth16::Proof prove_zkey(const groth16::Zkey& zkey, std::span<const Fr> witness, const Fr& r, const Fr& s,
                          const BackendOptions& options, groth16::ProveTimings* timings = nullptr,
                          std::string* used = nullptr);

}  // namespace cuzk::backend
