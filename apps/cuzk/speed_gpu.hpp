#pragma once
// GPU kernel rows of `cuzk speed --gpu` (W1.5 item 9): device-resident data, CUDA-event times,
// median of a few runs after a warm-up. Available in CUDA builds only (speed_gpu.cpp).
#include <string>

namespace cuzk::cli {

// G1 (g2 = false) or G2 MSM of 2^log_n random scalars over test bases resident on the device:
// compute time, scalars already on the device (GpuMsmStats::compute_ms), as the peers report.
double gpu_msm_ms(bool g2, unsigned log_n);
// Forward NTT (natural -> bit-reversed, Zcash roots) of 2^log_n device-resident elements.
double gpu_ntt_ms(unsigned log_n);
// H (bellperson convention: 6 transforms + 2 element-wise passes) from a, b, c of 2^log_n.
double gpu_h_ms(unsigned log_n);
// Witness upload (pinned) + a, b, c = A·z, B·z, C·z from the device-resident PCE of a built-in
// circuit (e.g. "filecoin-like:2^20").
double gpu_matvec_ms(const std::string& circuit);

}  // namespace cuzk::cli
