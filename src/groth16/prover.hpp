#pragma once
// The Groth16 prover over a Pce and bellperson-form keys (keys.hpp), in two stages:
//
//   stage 1 ("device" stage, what a GPU would do): H = (A·B - C)/Z on the zcash domain
//     (shared/reference/gpu-prover.md section 3: a, b, c zero-padded to m, ifft, coset_fft with
//     shift 7, a·b - c, divide by Z = 7^m - 1 on the coset, coset_ifft, first m - 1 coefficients),
//     then the five MSMs: h (m - 1 points), l (aux), a (inputs dense, aux through the A aux
//     density), b_g1 and b_g2 (inputs and aux through the B densities). Zero scalars are skipped
//     (and ones summed directly) by ec::msm;
//   stage 2 ("finalize"): with the randomizers r, s
//     A  = alpha_g1 + sum a-query + r delta_g1
//     B  = beta_g2  + sum b_g2-query + s delta_g2        (G2)
//     B1 = beta_g1  + sum b_g1-query + s delta_g1        (G1)
//     C  = sum h + sum l + s A + r B1 - r s delta_g1.
//
// Sizes are validated (key against the Pce, witness and a/b/c against the Pce) and mismatches
// throw std::invalid_argument naming the offending count.
#include <cstdint>
#include <span>
#include <vector>

#include "ec/bls12_381.hpp"
#include "groth16/key_source.hpp"
#include "groth16/keys.hpp"
#include "groth16/prove_timings.hpp"
#include "pce/pce.hpp"
#include "util/thread_pool.hpp"

namespace cuzk::groth16 {

using ec::G1;
using ec::G2;

struct ProverOptions {
  ThreadPool* pool = nullptr;  // null: ThreadPool::global()
};

// One circuit's witness and its constraint evaluations.
struct ProverInput {
  std::span<const Fr> inputs;  // num_inputs, ONE first (must be 1)
  std::span<const Fr> aux;     // num_aux
  // a = A·z, b = B·z, c = C·z, num_constraints each (pce::matvec, or r1cs::ProvingCS::a/b/c after
  // finalize()). Stage 1 consumes them: they are resized to the domain and used as H's scratch.
  std::vector<Fr> a, b, c;
};

// What stage 1 hands to stage 2: the MSM sums (Jacobian).
struct ProofMsms {
  G1 h, l, a, b_g1;
  G2 b_g2;
};

// What the prover needs of a circuit's structure: its sizes and density bitmaps (bellperson
// semantics, see pce.hpp). A Pce gives one; so does full synthesis (r1cs::ProvingCS with density
// tracking) while no Pce exists yet.
struct CircuitShape {
  uint64_t num_inputs = 0;  // ONE included
  uint64_t num_aux = 0;
  uint64_t num_constraints = 0;                                         // input constraints included
  std::vector<uint64_t> a_aux_density, b_input_density, b_aux_density;  // 64-bit words

  static CircuitShape of(const pce::Pce& pce);
  uint64_t a_aux_count() const;
  uint64_t b_input_count() const;
  uint64_t b_aux_count() const;
};

// Throws std::invalid_argument unless the key fits the shape: ic = num_inputs, l = num_aux,
// h = m - 1, a = num_inputs + |A aux density|, b_g1 = b_g2 = |B input density| + |B aux density|.
void validate_key(const ProvingKey& pk, const CircuitShape& shape);
void validate_key(const KeySizes& key, const CircuitShape& shape);

// Throws std::invalid_argument unless the key fits the Pce: ic = num_inputs, l = num_aux,
// h = m - 1, a = num_inputs + |A aux density|, b_g1 = b_g2 = |B input density| + |B aux density|.
void validate_key(const ProvingKey& pk, const pce::Pce& pce);

// Runs MatVec: the ProverInput for (inputs, aux). Validates the witness sizes.
ProverInput make_prover_input(const pce::Pce& pce, std::span<const Fr> inputs, std::span<const Fr> aux,
                              ProveTimings* timings = nullptr, const ProverOptions& options = {});

// H's m - 1 coefficients (bellperson convention) from a, b, c (each at most m = domain size long;
// consumed). m must be a power of two >= 2 and >= every input's size.
std::vector<Fr> compute_h(size_t m, std::vector<Fr> a, std::vector<Fr> b, std::vector<Fr> c,
                          ThreadPool* pool = nullptr);

// Stage 1. The key must fit the Pce (validate_key) and `input` must have the Pce's sizes.
ProofMsms prove_stage1(const ProvingKey& pk, const pce::Pce& pce, ProverInput input, ProveTimings* timings = nullptr,
                       const ProverOptions& options = {});
// The same over a shape (validate_key(pk, shape) must hold).
ProofMsms prove_stage1(const ProvingKey& pk, const CircuitShape& shape, ProverInput input,
                       ProveTimings* timings = nullptr, const ProverOptions& options = {});

// Stage 2: cheap (a handful of scalar multiplications).
Proof prove_finalize(const VerifyingKey& vk, const ProofMsms& msms, const Fr& r, const Fr& s,
                     ProveTimings* timings = nullptr);

// MatVec + stage 1 + stage 2.
Proof prove(const ProvingKey& pk, const pce::Pce& pce, std::span<const Fr> inputs, std::span<const Fr> aux, const Fr& r,
            const Fr& s, ProveTimings* timings = nullptr, const ProverOptions& options = {});
// The same with r, s drawn from SystemRng (the kernel's CSPRNG).
Proof prove(const ProvingKey& pk, const pce::Pce& pce, std::span<const Fr> inputs, std::span<const Fr> aux,
            ProveTimings* timings = nullptr, const ProverOptions& options = {});

// Several witnesses of the same circuit (e.g. the partitions of a PoRep proof); proofs in order.
struct Witness {
  std::span<const Fr> inputs;
  std::span<const Fr> aux;
};
// r.size() and s.size() must equal witnesses.size().
std::vector<Proof> prove_many(const ProvingKey& pk, const pce::Pce& pce, std::span<const Witness> witnesses,
                              std::span<const Fr> r, std::span<const Fr> s, ProveTimings* timings = nullptr,
                              const ProverOptions& options = {});
// The same with every r, s drawn from SystemRng.
std::vector<Proof> prove_many(const ProvingKey& pk, const pce::Pce& pce, std::span<const Witness> witnesses,
                              ProveTimings* timings = nullptr, const ProverOptions& options = {});

}  // namespace cuzk::groth16
