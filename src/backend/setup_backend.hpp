#pragma once
// Where the TEST-ONLY setup's fixed-base multiplications run (groth16/setup_file.hpp): the CPU
// tables, or one GPU (groth16/gpu/fixed_base.hpp, CUDA builds). Selection as for provers (select_backend):
// cpu always; gpu the first listed (or first usable) device, an error when there is none; auto the
// GPU when there is one.
#include <memory>
#include <vector>

#include "backend/selection.hpp"
#include "groth16/setup_file.hpp"
#include "util/thread_pool.hpp"

namespace cuzk::backend {

std::unique_ptr<groth16::FixedBaseMultiplier> make_setup_multiplier(BackendKind kind,
                                                                    const std::vector<unsigned>& devices = {},
                                                                    ThreadPool* pool = nullptr);

}  // namespace cuzk::backend
