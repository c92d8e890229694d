#pragma once
// Seconds per step of one Groth16 proof, for both conventions (bellperson keys over a Pce, and
// snarkjs .zkey): the steps are the same, only the MSM over the private witness is called L in
// one and C in the other. Every function that takes a ProveTimings* ADDS its times to the fields
// (so a batch reports totals over its proofs); start from a zero-initialised struct.
namespace cuzk::groth16 {

struct ProveTimings {
  double upload_s = 0;  // GPU: the witness into pinned memory and queued for the device (host time)
  double matvec_s = 0;  // a, b, c = A·z, B·z, C·z (snarkjs: A·w, B·w, a∘b), with the witness checks
  double h_poly_s = 0;  // the NTTs and pointwise work that give H's coefficients (GPU: device time,
                        // beside the l, a, b_g1 MSMs with GpuProverOptions::overlap_h)
  double msm_h_s = 0;   // the five MSMs (snarkjs on the CPU: C and H as one MSM, counted here)
  double msm_l_s = 0;   // snarkjs: the C query
  double msm_a_s = 0;
  double msm_b_g1_s = 0;
  double msm_b_g2_s = 0;  // with the G2 MSM concurrent, it overlaps the G1 MSMs
  double finalize_s = 0;  // the randomizers and the proof's assembly
  // Two witnesses on one device (gpu::GpuProverOptions::witness_slots): the time this one, already
  // uploaded, waited for the other's kernels. Not work: outside total_s.
  double device_wait_s = 0;
  double msm_s() const { return msm_h_s + msm_l_s + msm_a_s + msm_b_g1_s + msm_b_g2_s; }
  double stage1_s() const { return h_poly_s + msm_s(); }
  double total_s() const { return upload_s + matvec_s + stage1_s() + finalize_s; }
};

}  // namespace cuzk::groth16
