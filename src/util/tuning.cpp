#include "util/tuning.hpp"

#include <cstdlib>
#include <stdexcept>

namespace cuzk {

namespace {

std::optional<bool> env_bool(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return std::nullopt;
  const std::string s(v);
  if (s == "0") return false;
  if (s == "1") return true;
  throw std::invalid_argument(std::string(name) + "=" + s.substr(0, 32) + ": expected 0 or 1");
}

std::optional<unsigned> env_unsigned(const char* name, unsigned lo, unsigned hi) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return std::nullopt;
  char* end = nullptr;
  const unsigned long x = std::strtoul(v, &end, 10);
  if (*end != '\0' || x < lo || x > hi) {
    throw std::invalid_argument(std::string(name) + "=" + std::string(v).substr(0, 32) + ": expected an integer " +
                                std::to_string(lo) + ".." + std::to_string(hi));
  }
  return static_cast<unsigned>(x);
}

Tuning& current() {
  // The defaults plus the environment; a malformed variable falls back to the default here (the
  // daemon reports it at start-up through apply_env_tuning).
  static Tuning t = [] {
    Tuning d;
    try {
      apply_env_tuning(d);
    } catch (const std::invalid_argument&) {
      d = Tuning{};
    }
    return d;
  }();
  return t;
}

const char* yes_no(bool b) {
  return b ? "true" : "false";
}

}  // namespace

const Tuning& tuning() {
  return current();
}

void set_tuning(const Tuning& t) {
  current() = t;
}

std::vector<TuningValue> apply_env_tuning(Tuning& t) {
  std::vector<TuningValue> out;
  auto flag = [&](const char* var, const char* key, bool& field) {
    if (auto v = env_bool(var)) {
      field = *v;
      out.push_back({key, yes_no(*v), var});
    }
  };
  flag("CUZK_MSM_SIMD", "msm_simd", t.msm_simd);
  flag("CUZK_MSM_GLV", "msm_glv", t.msm_glv);
  flag("CUZK_MATVEC_STREAM", "matvec_stream", t.matvec_stream);
  if (auto v = env_unsigned("CUZK_GPU_MSM_REDUCE_THREADS", 32, 4096)) {
    t.gpu_msm_reduce_threads = *v;
    out.push_back({"gpu_msm_reduce_threads", std::to_string(*v), "CUZK_GPU_MSM_REDUCE_THREADS"});
  }
  if (auto v = env_bool("CUZK_GPU_MSM_PREFETCH")) {
    t.gpu_msm_prefetch = *v;
    out.push_back({"gpu_msm_prefetch", yes_no(*v), "CUZK_GPU_MSM_PREFETCH"});
  }
  if (auto v = env_bool("CUZK_GPU_MSM_AFFINE")) {
    t.gpu_msm_affine = *v;
    out.push_back({"gpu_msm_affine", yes_no(*v), "CUZK_GPU_MSM_AFFINE"});
  }
  return out;
}

std::vector<TuningValue> describe_tuning(const Tuning& t, const std::vector<TuningValue>& overridden,
                                         const std::string& base) {
  std::vector<TuningValue> out = {
      {"msm_simd", yes_no(t.msm_simd), base},
      {"msm_glv", yes_no(t.msm_glv), base},
      {"matvec_stream", yes_no(t.matvec_stream), base},
      {"gpu_msm_reduce_threads", t.gpu_msm_reduce_threads ? std::to_string(*t.gpu_msm_reduce_threads) : "auto", base},
      {"gpu_msm_prefetch", t.gpu_msm_prefetch ? yes_no(*t.gpu_msm_prefetch) : "auto", base},
      {"gpu_msm_affine", t.gpu_msm_affine ? yes_no(*t.gpu_msm_affine) : "auto", base},
  };
  for (auto& v : out) {
    for (const auto& o : overridden) {
      if (o.key == v.key) v.source = o.source;
    }
  }
  return out;
}

}  // namespace cuzk
