// G1 instantiation of the GPU MSM (msm_impl.cuh).
#include "gpu/msm_impl.cuh"

namespace cuzk::gpu {
template class DeviceBases<ec::G1Config>;
template class Msm<ec::G1Config>;
}  // namespace cuzk::gpu
