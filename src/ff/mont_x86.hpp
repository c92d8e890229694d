#pragma once
// x86-64 Montgomery multiplication for 4- and 6-limb moduli (BLS12-381 Fr and Fq) with BMI2 mulx
// and ADX adcx/adox. Only compiled when CUZK_X86_ADX is defined (CMake adds -mbmi2 -madx and the
// binary checks the CPU at start-up, see util/cpu_features.hpp).
//
// Algorithm: CIOS (coarsely integrated operand scanning), one row per limb b[i]:
//   t += a * b[i]                  (N mulx; low halves on the OF chain, high halves on the CF chain)
//   m  = t[0] * inv mod 2^64       (inv = -p^{-1} mod 2^64)
//   t  = (t + m * p) / 2^64        (N mulx, same two chains; the shift is a register rename)
// The accumulator t lives in N+1 registers that rotate by one position per row, so no data moves.
// With a spare top bit in p (p < 2^(64N-1)) and a, b < p, every intermediate fits in N+1 words and
// the result after the last row is < 2p, so one conditional subtraction reduces it into [0, p):
// exactly what Fp::mont_mul_portable computes.
//
// Operands: a, b and p are read through "m" operands ("8*j+%[a]" addresses limb j), so a constant
// modulus becomes a RIP-relative operand and costs no register; the asm writes only registers and
// the result is stored by C++ after the asm, so r may alias a or b. Register budget (it must also
// fit at -O0 where every "m" operand needs a base register, with rbp taken by the frame pointer):
// N=6 multiplication: 7 accumulator + lo + hi + rdx + 3 bases = 13 of the 14 allocatable.
#include <cstddef>
#include <cstdint>

#if !defined(__x86_64__)
#error "ff/mont_x86.hpp is x86-64 only; configure with -DCUZK_X86_ADX=OFF"
#endif

namespace cuzk::ff::x86 {

// One multiply-accumulate column: (hi:lo) = rdx * src[j]; t_lo += lo on the OF chain, t_hi += hi
// on the CF chain.
#define CUZK_X86_MADD(src, j, tl, th)             \
  "mulxq " #j "*8+%[" #src "], %[lo], %[hi]\n\t" \
  "adoxq %[lo], %[" #tl "]\n\t"                   \
  "adcxq %[hi], %[" #th "]\n\t"

// Closes the OF chain into the top accumulator word (mov leaves the flags alone).
#define CUZK_X86_CLOSE_OF(top) \
  "movl $0, %k[lo]\n\t"        \
  "adoxq %[lo], %[" #top "]\n\t"

// ---------------------------------------------------------------------------------------------
// N = 4
// ---------------------------------------------------------------------------------------------

// t(T0..T4) += m*p with m = T0*inv; afterwards T0 = 0 and the row's result is T1..T4.
#define CUZK_X86_REDUCE4(T0, T1, T2, T3, T4) \
  "movq %[" #T0 "], %%rdx\n\t"               \
  "imulq %[inv], %%rdx\n\t"                  \
  "xorl %k[lo], %k[lo]\n\t"                  \
  CUZK_X86_MADD(p, 0, T0, T1)                \
  CUZK_X86_MADD(p, 1, T1, T2)                \
  CUZK_X86_MADD(p, 2, T2, T3)                \
  CUZK_X86_MADD(p, 3, T3, T4)                \
  CUZK_X86_CLOSE_OF(T4)

// First row: t = a*b[0] (t starts at zero, so one plain add chain), then reduce.
#define CUZK_X86_FIRST4(T0, T1, T2, T3, T4)                                          \
  "movq 0*8+%[b], %%rdx\n\t"                                                        \
  "mulxq 0*8+%[a], %[" #T0 "], %[" #T1 "]\n\t"                                      \
  "mulxq 1*8+%[a], %[lo], %[" #T2 "]\n\t"                                           \
  "addq %[lo], %[" #T1 "]\n\t"                                                      \
  "mulxq 2*8+%[a], %[lo], %[" #T3 "]\n\t"                                           \
  "adcq %[lo], %[" #T2 "]\n\t"                                                      \
  "mulxq 3*8+%[a], %[lo], %[" #T4 "]\n\t"                                           \
  "adcq %[lo], %[" #T3 "]\n\t"                                                      \
  "adcq $0, %[" #T4 "]\n\t"                                                         \
  CUZK_X86_REDUCE4(T0, T1, T2, T3, T4)

// Row i >= 1: t(T0..T3) += a*b[i] with T4 the new top word, then reduce.
#define CUZK_X86_ROW4(i, T0, T1, T2, T3, T4) \
  "movq " #i "*8+%[b], %%rdx\n\t"            \
  "xorl %k[" #T4 "], %k[" #T4 "]\n\t"        \
  CUZK_X86_MADD(a, 0, T0, T1)                \
  CUZK_X86_MADD(a, 1, T1, T2)                \
  CUZK_X86_MADD(a, 2, T2, T3)                \
  CUZK_X86_MADD(a, 3, T3, T4)                \
  CUZK_X86_CLOSE_OF(T4)                      \
  CUZK_X86_REDUCE4(T0, T1, T2, T3, T4)

// ---------------------------------------------------------------------------------------------
// N = 6
// ---------------------------------------------------------------------------------------------

#define CUZK_X86_REDUCE6(T0, T1, T2, T3, T4, T5, T6) \
  "movq %[" #T0 "], %%rdx\n\t"                       \
  "imulq %[inv], %%rdx\n\t"                          \
  "xorl %k[lo], %k[lo]\n\t"                          \
  CUZK_X86_MADD(p, 0, T0, T1)                        \
  CUZK_X86_MADD(p, 1, T1, T2)                        \
  CUZK_X86_MADD(p, 2, T2, T3)                        \
  CUZK_X86_MADD(p, 3, T3, T4)                        \
  CUZK_X86_MADD(p, 4, T4, T5)                        \
  CUZK_X86_MADD(p, 5, T5, T6)                        \
  CUZK_X86_CLOSE_OF(T6)

#define CUZK_X86_FIRST6(T0, T1, T2, T3, T4, T5, T6) \
  "movq 0*8+%[b], %%rdx\n\t"                       \
  "mulxq 0*8+%[a], %[" #T0 "], %[" #T1 "]\n\t"     \
  "mulxq 1*8+%[a], %[lo], %[" #T2 "]\n\t"          \
  "addq %[lo], %[" #T1 "]\n\t"                     \
  "mulxq 2*8+%[a], %[lo], %[" #T3 "]\n\t"          \
  "adcq %[lo], %[" #T2 "]\n\t"                     \
  "mulxq 3*8+%[a], %[lo], %[" #T4 "]\n\t"          \
  "adcq %[lo], %[" #T3 "]\n\t"                     \
  "mulxq 4*8+%[a], %[lo], %[" #T5 "]\n\t"          \
  "adcq %[lo], %[" #T4 "]\n\t"                     \
  "mulxq 5*8+%[a], %[lo], %[" #T6 "]\n\t"          \
  "adcq %[lo], %[" #T5 "]\n\t"                     \
  "adcq $0, %[" #T6 "]\n\t"                        \
  CUZK_X86_REDUCE6(T0, T1, T2, T3, T4, T5, T6)

#define CUZK_X86_ROW6(i, T0, T1, T2, T3, T4, T5, T6) \
  "movq " #i "*8+%[b], %%rdx\n\t"                    \
  "xorl %k[" #T6 "], %k[" #T6 "]\n\t"                \
  CUZK_X86_MADD(a, 0, T0, T1)                        \
  CUZK_X86_MADD(a, 1, T1, T2)                        \
  CUZK_X86_MADD(a, 2, T2, T3)                        \
  CUZK_X86_MADD(a, 3, T3, T4)                        \
  CUZK_X86_MADD(a, 4, T4, T5)                        \
  CUZK_X86_MADD(a, 5, T5, T6)                        \
  CUZK_X86_CLOSE_OF(T6)                              \
  CUZK_X86_REDUCE6(T0, T1, T2, T3, T4, T5, T6)

namespace detail {

template <size_t N>
using LimbArray = uint64_t[N];

// Reinterprets a limb pointer as an array lvalue so that an "m" operand covers all N limbs (the
// compiler then knows exactly which memory the asm reads).
template <size_t N>
inline const LimbArray<N>& as_array(const uint64_t* x) {
  return *reinterpret_cast<const LimbArray<N>*>(x);
}

// r = t - p if t >= p else t, for t < 2p held in registers; stores into r.
inline void final_sub4(uint64_t* r, uint64_t t0, uint64_t t1, uint64_t t2, uint64_t t3, const uint64_t* p) {
  uint64_t s0, s1, s2, s3;
  __asm__(
      "movq %[t0], %[s0]\n\t"
      "movq %[t1], %[s1]\n\t"
      "movq %[t2], %[s2]\n\t"
      "movq %[t3], %[s3]\n\t"
      "subq 0*8+%[p], %[s0]\n\t"
      "sbbq 1*8+%[p], %[s1]\n\t"
      "sbbq 2*8+%[p], %[s2]\n\t"
      "sbbq 3*8+%[p], %[s3]\n\t"
      "cmovncq %[s0], %[t0]\n\t"
      "cmovncq %[s1], %[t1]\n\t"
      "cmovncq %[s2], %[t2]\n\t"
      "cmovncq %[s3], %[t3]\n\t"
      : [t0] "+r"(t0), [t1] "+r"(t1), [t2] "+r"(t2), [t3] "+r"(t3),  //
        [s0] "=&r"(s0), [s1] "=&r"(s1), [s2] "=&r"(s2), [s3] "=&r"(s3)
      : [p] "m"(as_array<4>(p))
      : "cc");
  r[0] = t0;
  r[1] = t1;
  r[2] = t2;
  r[3] = t3;
}

inline void final_sub6(uint64_t* r, uint64_t t0, uint64_t t1, uint64_t t2, uint64_t t3, uint64_t t4, uint64_t t5,
                       const uint64_t* p) {
  uint64_t s0, s1, s2, s3, s4, s5;
  __asm__(
      "movq %[t0], %[s0]\n\t"
      "movq %[t1], %[s1]\n\t"
      "movq %[t2], %[s2]\n\t"
      "movq %[t3], %[s3]\n\t"
      "movq %[t4], %[s4]\n\t"
      "movq %[t5], %[s5]\n\t"
      "subq 0*8+%[p], %[s0]\n\t"
      "sbbq 1*8+%[p], %[s1]\n\t"
      "sbbq 2*8+%[p], %[s2]\n\t"
      "sbbq 3*8+%[p], %[s3]\n\t"
      "sbbq 4*8+%[p], %[s4]\n\t"
      "sbbq 5*8+%[p], %[s5]\n\t"
      "cmovncq %[s0], %[t0]\n\t"
      "cmovncq %[s1], %[t1]\n\t"
      "cmovncq %[s2], %[t2]\n\t"
      "cmovncq %[s3], %[t3]\n\t"
      "cmovncq %[s4], %[t4]\n\t"
      "cmovncq %[s5], %[t5]\n\t"
      : [t0] "+r"(t0), [t1] "+r"(t1), [t2] "+r"(t2), [t3] "+r"(t3), [t4] "+r"(t4), [t5] "+r"(t5),  //
        [s0] "=&r"(s0), [s1] "=&r"(s1), [s2] "=&r"(s2), [s3] "=&r"(s3), [s4] "=&r"(s4), [s5] "=&r"(s5)
      : [p] "m"(as_array<6>(p))
      : "cc");
  r[0] = t0;
  r[1] = t1;
  r[2] = t2;
  r[3] = t3;
  r[4] = t4;
  r[5] = t5;
}

inline void mont_mul4(uint64_t* r, const uint64_t* a, const uint64_t* b, const uint64_t* p, uint64_t inv) {
  uint64_t t0, t1, t2, t3, t4, lo, hi, rdx;
  __asm__(
      CUZK_X86_FIRST4(t0, t1, t2, t3, t4)         //
      CUZK_X86_ROW4(1, t1, t2, t3, t4, t0)        //
      CUZK_X86_ROW4(2, t2, t3, t4, t0, t1)        //
      CUZK_X86_ROW4(3, t3, t4, t0, t1, t2)        // result (< 2p): t4, t0, t1, t2
      : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4),  //
        [lo] "=&r"(lo), [hi] "=&r"(hi), "=&d"(rdx)
      : [a] "m"(as_array<4>(a)), [b] "m"(as_array<4>(b)), [p] "m"(as_array<4>(p)), [inv] "rm"(inv)
      : "cc");
  final_sub4(r, t4, t0, t1, t2, p);
}

inline void mont_mul6(uint64_t* r, const uint64_t* a, const uint64_t* b, const uint64_t* p, uint64_t inv) {
  uint64_t t0, t1, t2, t3, t4, t5, t6, lo, hi, rdx;
  __asm__(
      CUZK_X86_FIRST6(t0, t1, t2, t3, t4, t5, t6)      //
      CUZK_X86_ROW6(1, t1, t2, t3, t4, t5, t6, t0)     //
      CUZK_X86_ROW6(2, t2, t3, t4, t5, t6, t0, t1)     //
      CUZK_X86_ROW6(3, t3, t4, t5, t6, t0, t1, t2)     //
      CUZK_X86_ROW6(4, t4, t5, t6, t0, t1, t2, t3)     //
      CUZK_X86_ROW6(5, t5, t6, t0, t1, t2, t3, t4)     // result (< 2p): t6, t0, t1, t2, t3, t4
      : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4), [t5] "=&r"(t5),
        [t6] "=&r"(t6), [lo] "=&r"(lo), [hi] "=&r"(hi), "=&d"(rdx)
      : [a] "m"(as_array<6>(a)), [b] "m"(as_array<6>(b)), [p] "m"(as_array<6>(p)), [inv] "rm"(inv)
      : "cc");
  final_sub6(r, t6, t0, t1, t2, t3, t4, p);
}

}  // namespace detail

#undef CUZK_X86_MADD
#undef CUZK_X86_CLOSE_OF
#undef CUZK_X86_REDUCE4
#undef CUZK_X86_FIRST4
#undef CUZK_X86_ROW4
#undef CUZK_X86_REDUCE6
#undef CUZK_X86_FIRST6
#undef CUZK_X86_ROW6

// r = a*b*2^(-64N) mod p, fully reduced; a, b < p; p odd with p < 2^(64N-1); inv = -p^{-1} mod
// 2^64. r may alias a or b.
template <size_t N>
inline void mont_mul(uint64_t* r, const uint64_t* a, const uint64_t* b, const uint64_t* p, uint64_t inv) {
  static_assert(N == 4 || N == 6, "x86::mont_mul is implemented for 4 and 6 limbs");
  if constexpr (N == 4) {
    detail::mont_mul4(r, a, b, p, inv);
  } else {
    detail::mont_mul6(r, a, b, p, inv);
  }
}

// r = a^2 * 2^(-64N) mod p.
template <size_t N>
inline void mont_sqr(uint64_t* r, const uint64_t* a, const uint64_t* p, uint64_t inv) {
  mont_mul<N>(r, a, a, p, inv);
}

}  // namespace cuzk::ff::x86
