// Our glue around supraseal's C2 prover (supraseal_shim.h). This file is ours; it includes
// supranational/supra_seal's c2/cuda/groth16_cuda.cu (which includes groth16_ntt_h.cu,
// groth16_split_msm.cu and groth16_srs.cuh) and through it sppark's and blst's headers, all fetched
// into the git-ignored .devbuild/ by bench/device-vs-supraseal.sh. It is compiled as their Cargo
// build compiles groth16_cuda.cu (c2/build.rs: nvcc, -DTAKE_RESPONSIBILITY_FOR_ERROR_MESSAGE
// -DFEATURE_BLS12_381, -D__ADX__ on x86-64 hosts with ADX, -Xcompiler -Wno-subobject-linkage,
// -Wno-unused-function; C++17, no NDEBUG) with our GPU architecture instead of their sm_80/sm_70.
// Nothing of theirs is changed: the functions below call their entry points (create_SRS's SRS,
// generate_groth16_proofs_c, ntt_msm_h::execute_ntt_msm_h, mult_pippenger) as their Rust side does.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>

#include "groth16_cuda.cu"
#include "supraseal_shim.h"

#ifndef __CUDA_ARCH__

// blst's compression (blst.h declares it over blst_p1_affine / blst_p2_affine, which sppark's host
// affine points match bit for bit: two Montgomery coordinates, no flag; supraseal's loader relies
// on the same when it declares blst_p1_deserialize over its affine_t, in groth16_srs.cuh). sppark
// 0.1.5 has distinct affine types for Jacobian and XYZZ points, later versions one: hence void*.
extern "C" {
void blst_p1_affine_compress(unsigned char out[48], const void* in);
void blst_p2_affine_compress(unsigned char out[96], const void* in);
}

namespace {

static_assert(sizeof(supra_assignment) == sizeof(Assignment<fr_t>), "supra_assignment layout");
static_assert(offsetof(supra_assignment, a) == offsetof(Assignment<fr_t>, a), "supra_assignment layout");
static_assert(offsetof(supra_assignment, aux_assignment_size) == offsetof(Assignment<fr_t>, aux_assignment_size),
              "supra_assignment layout");
static_assert(sizeof(fr_t) == 32, "fr_t is 32 bytes");
static_assert(sizeof(affine_t) == 96 && sizeof(affine_fp2_t) == 192, "affine layouts");
static_assert(sizeof(point_t::affine_t) == 96 && sizeof(point_fp2_t::affine_t) == 192, "affine layouts");
static_assert(sizeof(groth16_proof) == 96 + 192 + 96, "groth16_proof layout");

void set_err(char* err, size_t err_len, const std::string& what) {
  if (err == nullptr || err_len == 0) return;
  std::snprintf(err, err_len, "%s", what.c_str());
}

// Their RustError carries a strdup'ed message (TAKE_RESPONSIBILITY_FOR_ERROR_MESSAGE).
int take_rust_error(RustError::by_value e, char* err, size_t err_len) {
  if (e.code != 0) {
    set_err(err, err_len,
            "supraseal error " + std::to_string(e.code) + ": " + (e.message ? e.message : "(no message)"));
  }
  if (e.message) free(e.message);
  return e.code;
}

template <class F>
int guarded(char* err, size_t err_len, F&& f) {
  try {
    return f();
  } catch (const sppark_error& e) {  // cuda_error is the same type (sppark's util/exception.cuh)
    set_err(err, err_len, std::string("sppark/CUDA error: ") + e.what());
    return e.code() != 0 ? e.code() : -1;
  } catch (const std::exception& e) {
    set_err(err, err_len, e.what());
    return -1;
  }
}

uint64_t round_up_4k(uint64_t sz) {
  return (sz + 4095) & ~uint64_t{4095};
}

}  // namespace

extern "C" {

size_t supra_gpu_count(void) {
  return ngpus();
}

int supra_asserts_enabled(void) {
#ifdef NDEBUG
  return 0;
#else
  return 1;
#endif
}

void* supra_srs_load(const char* path, char* err, size_t err_len) {
  SRS* srs = nullptr;
  int rc = guarded(err, err_len, [&] {
    srs = new SRS(path);
    (void)srs->get_vk();  // takes the loader's lock: returns once its read thread is done
    return 0;
  });
  if (rc != 0) {
    delete srs;
    return nullptr;
  }
  return srs;
}

void supra_srs_sizes(const void* srs, uint64_t sizes[5]) {
  const SRS& s = *static_cast<const SRS*>(srs);
  sizes[0] = s.get_h_slice().size();
  sizes[1] = s.get_l_slice().size();
  sizes[2] = s.get_a_slice().size();
  sizes[3] = s.get_b_g1_slice().size();
  sizes[4] = s.get_b_g2_slice().size();
}

uint64_t supra_srs_pinned_bytes(const void* srs) {
  uint64_t n[5];
  supra_srs_sizes(srs, n);
  return round_up_4k(n[0] * sizeof(affine_t)) + round_up_4k(n[1] * sizeof(affine_t)) +
         round_up_4k(n[2] * sizeof(affine_t)) + round_up_4k(n[3] * sizeof(affine_t)) +
         round_up_4k(n[4] * sizeof(affine_fp2_t));
}

void supra_srs_free(void* srs) {
  delete static_cast<SRS*>(srs);
}

int supra_prove(const void* srs, const supra_assignment* circuits, size_t n, const void* r, const void* s,
                uint8_t* proofs, char* err, size_t err_len) {
  return guarded(err, err_len, [&] {
    std::vector<groth16_proof> out(n);
    int rc = take_rust_error(generate_groth16_proofs_c(reinterpret_cast<const Assignment<fr_t>*>(circuits), n,
                                                       static_cast<const fr_t*>(r), static_cast<const fr_t*>(s),
                                                       out.data(), *const_cast<SRS*>(static_cast<const SRS*>(srs))),
                             err, err_len);
    if (rc != 0) return rc;
    for (size_t i = 0; i < n; ++i) {
      uint8_t* p = proofs + 192 * i;
      blst_p1_affine_compress(p, &out[i].a);
      blst_p2_affine_compress(p + 48, &out[i].b);
      blst_p1_affine_compress(p + 144, &out[i].c);
    }
    return 0;
  });
}

int supra_h(const void* srs, const supra_assignment* circuit, uint8_t h_out[48], double* seconds, char* err,
            size_t err_len) {
  return guarded(err, err_len, [&] {
    const SRS& key = *static_cast<const SRS*>(srs);
    auto points_h = key.get_h_slice();
    const gpu_t& gpu = select_gpu(0);
    // The domain buffer as generate_groth16_proofs_c allocates it for each GPU.
    size_t d_a_sz = sizeof(fr_t) << (lg2(points_h.size() - 1) + 1);
    gpu_ptr_t<fr_t> d_a{(scalar_t*)gpu.Dmalloc(d_a_sz)};
    gpu.sync();
    point_t h;
    auto t0 = std::chrono::steady_clock::now();
    ntt_msm_h::execute_ntt_msm_h(gpu, d_a, *reinterpret_cast<const Assignment<fr_t>*>(circuit), points_h, h);
    gpu.sync();
    *seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    point_t::affine_t ha = h;
    blst_p1_affine_compress(h_out, &ha);
    return 0;
  });
}

void supra_cpu_fr_mul(const void* x, const void* y, void* out, size_t n) {
  const fr_t* a = static_cast<const fr_t*>(x);
  const fr_t* b = static_cast<const fr_t*>(y);
  fr_t* o = static_cast<fr_t*>(out);
  for (size_t i = 0; i < n; ++i) o[i] = a[i] * b[i];
}

void supra_cpu_fr_classify(const void* x, size_t n, uint8_t* kind) {
  const fr_t* a = static_cast<const fr_t*>(x);
  for (size_t i = 0; i < n; ++i) kind[i] = a[i].is_zero() ? 0 : a[i].is_one() ? 1 : 2;
}

int supra_cpu_g1_msm(const uint8_t* bases96, size_t n, const void* scalars, uint8_t out48[48], char* err,
                     size_t err_len) {
  return guarded(err, err_len, [&] {
    std::vector<affine_t> bases(n);
    for (size_t i = 0; i < n; ++i) {
      int rc = blst_p1_deserialize(&bases[i], bases96 + 96 * i);
      if (rc != 0) {
        set_err(err, err_len, "blst_p1_deserialize of point " + std::to_string(i) + ": error " + std::to_string(rc));
        return rc;
      }
    }
    point_t sum;
    mult_pippenger<bucket_t>(sum, bases.data(), n, static_cast<const fr_t*>(scalars), true, &groth16_pool);
    point_t::affine_t a = sum;
    blst_p1_affine_compress(out48, &a);
    return 0;
  });
}

int supra_cpu_g2_msm(const uint8_t* bases192, size_t n, const void* scalars, uint8_t out96[96], char* err,
                     size_t err_len) {
  return guarded(err, err_len, [&] {
    std::vector<affine_fp2_t> bases(n);
    for (size_t i = 0; i < n; ++i) {
      int rc = blst_p2_deserialize(&bases[i], bases192 + 192 * i);
      if (rc != 0) {
        set_err(err, err_len, "blst_p2_deserialize of point " + std::to_string(i) + ": error " + std::to_string(rc));
        return rc;
      }
    }
    point_fp2_t sum;
    mult_pippenger<bucket_fp2_t>(sum, bases.data(), n, static_cast<const fr_t*>(scalars), true, &groth16_pool);
    point_fp2_t::affine_t a = sum;
    blst_p2_affine_compress(out96, &a);
    return 0;
  });
}

}  // extern "C"

#endif  // __CUDA_ARCH__
