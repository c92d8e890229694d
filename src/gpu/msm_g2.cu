// G2 instantiation of the GPU MSM (msm_impl.cuh).
#include "gpu/msm_impl.cuh"

namespace cuzk::gpu {
template class DeviceBases<ec::G2Config>;
template class Msm<ec::G2Config>;
}  // namespace cuzk::gpu
