#include "backend/batch_prover.hpp"

#include <algorithm>
#include <exception>
#include <stdexcept>
#include <thread>

#include "util/log.hpp"

namespace cuzk::backend {

BatchProver::BatchProver(const groth16::ProvingKey& pk, const pce::Pce& pce, const PlacementOptions& options,
                         PlacementSetup setup)
    : pk_(&pk),
      pce_(&pce),
      source_(std::make_unique<groth16::MemoryKeySource>(pk)),
      finalize_key_(&pk.vk),
      placement_(options, std::move(setup)) {
  groth16::validate_key(pk, pce);  // a key that does not fit is an error on every backend, not a GPU problem
  key_ = {"proof", PceKey{source_.get(), &pce}};
  warm();
}

BatchProver::BatchProver(const groth16::Zkey& zkey, const PlacementOptions& options, PlacementSetup setup)
    : zkey_(&zkey), finalize_key_(&zkey), placement_(options, std::move(setup)) {
  key_ = {"proof", ZkeyKey{&zkey}};
  warm();
}

BatchProver::~BatchProver() = default;

void BatchProver::warm() {
  logging::log_event(logging::Level::debug, "backend_selected", {{"backend", name()}, {"reason", placement_.reason()}});
  if (!placement_.enabled()) return;
  try {
    placement_.warm(key_);  // the uploads now, not in the first proof's time
  } catch (const DeviceFailure& e) {
    if (!placement_.options().retry) throw;
    // The proofs meet it again, under the retry policy.
    logging::log_event(logging::Level::warn, "gpu_prover_not_warmed", {{"error", e.what()}});
  }
}

std::string BatchProver::name() const {
  if (!placement_.enabled()) return "cpu";
  std::string n;
  for (int d : placement_.devices()) n += (n.empty() ? "gpu:" : "+gpu:") + std::to_string(d);
  return n;
}

StageMsms BatchProver::on_cpu(const WitnessRef& w, groth16::ProveTimings* timings) {
  const std::lock_guard lock(cpu_mu_);
  if (!cpu_) cpu_ = zkey_ ? make_cpu_prover(*zkey_) : make_cpu_prover(*pk_, *pce_, placement_.options().fit.pool);
  return cpu_->stage1(w, timings);
}

std::vector<groth16::Proof> BatchProver::prove_many(std::span<const WitnessRef> ws, std::span<const Fr> r,
                                                    std::span<const Fr> s, groth16::ProveTimings* timings,
                                                    std::vector<StageReport>* reports) {
  if (r.size() != ws.size() || s.size() != ws.size()) {
    throw std::invalid_argument("prove_many: " + std::to_string(ws.size()) + " witnesses but " +
                                std::to_string(r.size()) + " r and " + std::to_string(s.size()) + " s values");
  }
  const size_t k = std::max<size_t>(placement_.devices().size(), 1);
  std::vector<StageMsms> msms(ws.size());
  std::vector<StageReport> where(ws.size());
  std::vector<groth16::ProveTimings> times(k);
  std::vector<std::exception_ptr> errors(k);
  auto share = [&](size_t p) {
    try {
      for (size_t i = p; i < ws.size(); i += k) {
        msms[i] = stage_with_retry(
            placement_, p, key_, ws[i], [&, i, p] { return on_cpu(ws[i], &times[p]); }, &where[i], &times[p]);
      }
    } catch (...) {
      errors[p] = std::current_exception();
    }
  };
  if (k == 1 || ws.size() <= 1) {
    share(0);
  } else {
    std::vector<std::jthread> threads;
    for (size_t p = 0; p < k; ++p) threads.emplace_back(share, p);
  }
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
  if (timings) {
    const auto slowest = std::max_element(times.begin(), times.end(),
                                          [](const auto& a, const auto& b) { return a.total_s() < b.total_s(); });
    for (double groth16::ProveTimings::*f :
         {&groth16::ProveTimings::matvec_s, &groth16::ProveTimings::h_poly_s, &groth16::ProveTimings::msm_h_s,
          &groth16::ProveTimings::msm_l_s, &groth16::ProveTimings::msm_a_s, &groth16::ProveTimings::msm_b_g1_s,
          &groth16::ProveTimings::msm_b_g2_s})
      timings->*f += (*slowest).*f;
  }
  std::vector<groth16::Proof> proofs;
  proofs.reserve(ws.size());
  for (size_t i = 0; i < ws.size(); ++i) proofs.push_back(finalize(finalize_key_, msms[i], r[i], s[i], timings));
  if (reports) *reports = std::move(where);
  return proofs;
}

std::vector<groth16::Proof> BatchProver::prove_many(std::span<const groth16::Witness> ws, std::span<const Fr> r,
                                                    std::span<const Fr> s, groth16::ProveTimings* timings,
                                                    std::vector<StageReport>* reports) {
  const std::vector<WitnessRef> refs(ws.begin(), ws.end());
  return prove_many(std::span<const WitnessRef>(refs), r, s, timings, reports);
}

}  // namespace cuzk::backend
