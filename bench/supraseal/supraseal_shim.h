#pragma once
// A C interface to supraseal's C2 prover (supranational/supra_seal, c2/cuda/groth16_cuda.cu), for
// bench/bench_vs_supraseal.cpp. The implementation, supraseal_shim.cu, is our glue: it includes
// their sources (fetched into the git-ignored .devbuild/ by bench/device-vs-supraseal.sh, never
// committed) and is compiled with their flags; this header is all that our C++20 code sees of it.
//
// Scalars are BLS12-381 Fr in Montgomery form, 4 little-endian 64-bit limbs (32 bytes): the layout
// of sppark's host fr_t, of bellperson/blstrs' Scalar (which supraseal's Rust side passes through
// unchanged) and of cuzk::ff::Fr. Points cross this interface only as bytes in the zcash encoding
// (compressed 48/96 bytes, or uncompressed as a .params file stores them).
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// One circuit, field for field supraseal's Assignment<fr_t> (c2/src/lib.rs, groth16_cuda.cu): the
// density bitmaps are 64 variables per little-endian u64 word (bellperson's DensityTracker).
typedef struct supra_assignment {
  const uint64_t* a_aux_density;
  size_t a_aux_bit_len;
  size_t a_aux_popcount;

  const uint64_t* b_inp_density;
  size_t b_inp_bit_len;
  size_t b_inp_popcount;

  const uint64_t* b_aux_density;
  size_t b_aux_bit_len;
  size_t b_aux_popcount;

  const void* a;  // A·z, B·z, C·z: abc_size scalars each (zero-padded to the domain by supraseal)
  const void* b;
  const void* c;
  size_t abc_size;

  const void* inp_assignment_data;  // num_inputs scalars, ONE first
  size_t inp_assignment_size;

  const void* aux_assignment_data;  // num_aux scalars
  size_t aux_assignment_size;
} supra_assignment;

// Error convention: functions returning int give 0 on success, otherwise an error code with a
// message written to err (err_len bytes, NUL-terminated, may be truncated).

// sppark's count of usable GPUs (ngpus()); 0 without a driver or device.
size_t supra_gpu_count(void);
// 1 when the shim (and so supraseal's code in it) was compiled with assert() active, as their
// Cargo build compiles it (cc-rs does not define NDEBUG).
int supra_asserts_enabled(void);

// supraseal's SRS loader (SRS{path}, not the cache): maps the .params file, deserializes every
// point with blst into one pinned host allocation (cudaHostAlloc). Returns after the whole key is
// loaded; NULL on failure. Needs a GPU (their loader refuses to run without one).
void* supra_srs_load(const char* path, char* err, size_t err_len);
// Point counts of the loaded key: h, l, a, b_g1, b_g2.
void supra_srs_sizes(const void* srs, uint64_t sizes[5]);
// The pinned host bytes the loader holds (its sections rounded up to 4 KiB, as it allocates them).
uint64_t supra_srs_pinned_bytes(const void* srs);
void supra_srs_free(void* srs);

// generate_groth16_proofs_c on n circuits in one call, with the caller's randomizers r[i], s[i]
// (n scalars each). proofs receives n * 192 bytes: A (48) || B (96) || C (48), each compressed
// with blst (the bellperson proof encoding).
int supra_prove(const void* srs, const supra_assignment* circuits, size_t n, const void* r, const void* s,
                uint8_t* proofs, char* err, size_t err_len);

// supraseal's H stage alone for one circuit, on GPU 0, as generate_groth16_proofs_c runs it
// (ntt_msm_h::execute_ntt_msm_h: a, b, c to the domain and coset, (a·b - c)/Z, coset iNTT, the h
// MSM): the h MSM's sum, compressed (48 bytes), and the call's wall seconds.
int supra_h(const void* srs, const supra_assignment* circuit, uint8_t h_out[48], double* seconds, char* err,
            size_t err_len);

// ---- their host code, usable without a GPU (the CPU-side checks) ----

// out[i] = x[i] * y[i] in sppark's host fr_t (blst's Montgomery multiplication).
void supra_cpu_fr_mul(const void* x, const void* y, void* out, size_t n);
// kind[i] = 0 when x[i] is zero, 1 when one, 2 otherwise (fr_t::is_zero / is_one, what their
// preprocessing uses to split the 0/1 scalars from the tail MSMs).
void supra_cpu_fr_classify(const void* x, size_t n, uint8_t* kind);
// sum_i scalars[i] * P_i on the CPU with their host Pippenger (mult_pippenger, which runs
// supraseal's b_g2 tail), the points decoded from uncompressed bytes with blst_p1_deserialize /
// blst_p2_deserialize as their SRS loader does; the sum compressed with blst.
int supra_cpu_g1_msm(const uint8_t* bases96, size_t n, const void* scalars, uint8_t out48[48], char* err,
                     size_t err_len);
int supra_cpu_g2_msm(const uint8_t* bases192, size_t n, const void* scalars, uint8_t out96[96], char* err,
                     size_t err_len);

#ifdef __cplusplus
}
#endif
