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
//
// Bounds (p < 2^(64N-1), the spare top bit; a, b < p): if t < 2p then t + a*b[i] + m*p <
// 2p + 2*(2^64-1)*p < 2^64 * 2p <= 2^(64(N+1)), so every row fits in N+1 words and the next t is
// again < 2p. Hence one conditional subtraction of p at the end gives the result in [0, p), exactly
// what Fp::mont_mul_portable computes; and the top word never overflows, so no carry leaves a row.
// Each half row still starts with a flag-clearing xor: it is not needed for the value, but it cuts
// the flag dependency on the previous half row's last carry, which lets consecutive half rows
// overlap (without it Fr mul latency is about 9% worse on Zen 4).
//
// Squaring: for N=4 a dedicated routine forms a^2 (6 off-diagonal products doubled plus 4 squares:
// 10 mulx instead of 16) and reduces its low half, REDC(lo) + hi, which is 12% faster than
// mul(a, a) on Zen 4. For N=6 the 12-word square does not fit the 14 registers next to lo, hi, rdx
// and the pointers, and the spills needed (the stack is not usable under ASan, see below) would eat
// the gain, so mont_sqr<6> is mont_mul<6>(a, a).
//
// Operands: a, b and p are pointers in registers, addressed as 8*j(%reg); the "memory" clobber
// tells the compiler the asm reads through them. (Whole-array "m" operands would let a constant
// modulus be RIP-relative, but "8*j+%[m]" assembles with warnings when the operand prints as
// "(%reg)", and at -O0 every "m" operand takes a base register of its own.) The asm writes only
// registers and C++ stores the result after it, so r may alias a or b. Register budget, which must
// fit every build (-O0 and the sanitizers keep rbp as frame pointer, leaving 14): N=6 uses 7
// accumulator words + lo + hi + rdx + 3 pointers = 13; inv is "rm"; the zero that closes the carry
// chains is a global in memory (RIP-relative, no register). No operand may be a stack "m" operand:
// ASan addresses those through a base register of its own.
#include <cstddef>
#include <cstdint>

#if !defined(__x86_64__)
#error "ff/mont_x86.hpp is x86-64 only; configure with -DCUZK_X86_ADX=OFF"
#endif

namespace cuzk::ff::x86 {

// One multiply-accumulate column: (hi:lo) = rdx * src[j]; t_lo += lo on the OF chain, t_hi += hi
// on the CF chain.
#define CUZK_X86_MADD(src, j, tl, th) \
  "mulxq " #j "*8(%[" #src            \
  "]), %[lo], %[hi]\n\t"              \
  "adoxq %[lo], %[" #tl               \
  "]\n\t"                             \
  "adcxq %[hi], %[" #th "]\n\t"

// The last column of a product row: the high half goes straight into the new top word, then both
// chains close into it (neither can carry out, see the bounds above).
#define CUZK_X86_MADD_TOP(j, tl, top)    \
  "mulxq " #j "*8(%[a]), %[lo], %[" #top \
  "]\n\t"                                \
  "adoxq %[lo], %[" #tl                  \
  "]\n\t"                                \
  "adcxq %[zero], %[" #top               \
  "]\n\t"                                \
  "adoxq %[zero], %[" #top "]\n\t"

// The last column of a reduction row.
#define CUZK_X86_MADD_REDTOP(j, tl, top) \
  "mulxq " #j                            \
  "*8(%[p]), %[lo], %[hi]\n\t"           \
  "adoxq %[lo], %[" #tl                  \
  "]\n\t"                                \
  "adcxq %[hi], %[" #top                 \
  "]\n\t"                                \
  "adoxq %[zero], %[" #top "]\n\t"

// rdx = m = T0 * inv mod 2^64, the multiplier that makes t + m*p divisible by 2^64; then clear
// both flags for the reduction row's chains.
#define CUZK_X86_M(T0)      \
  "movq %[" #T0             \
  "], %%rdx\n\t"            \
  "imulq %[inv], %%rdx\n\t" \
  "xorl %k[lo], %k[lo]\n\t"

// ---------------------------------------------------------------------------------------------
// N = 4
// ---------------------------------------------------------------------------------------------

// t(T0..T4) = (t + m*p) / 2^64: afterwards T0 is dead and the row's result is T1..T4.
#define CUZK_X86_REDUCE4(T0, T1, T2, T3, T4) \
  CUZK_X86_M(T0)                             \
  CUZK_X86_MADD(p, 0, T0, T1)                \
  CUZK_X86_MADD(p, 1, T1, T2)                \
  CUZK_X86_MADD(p, 2, T2, T3)                \
  CUZK_X86_MADD_REDTOP(3, T3, T4)

// First row: t = a*b[0] (t starts at zero, so one plain add chain), then reduce.
#define CUZK_X86_FIRST4(T0, T1, T2, T3, T4) \
  "movq 0(%[b]), %%rdx\n\t"                 \
  "mulxq 0(%[a]), %[" #T0 "], %[" #T1       \
  "]\n\t"                                   \
  "mulxq 8(%[a]), %[lo], %[" #T2            \
  "]\n\t"                                   \
  "addq %[lo], %[" #T1                      \
  "]\n\t"                                   \
  "mulxq 16(%[a]), %[lo], %[" #T3           \
  "]\n\t"                                   \
  "adcq %[lo], %[" #T2                      \
  "]\n\t"                                   \
  "mulxq 24(%[a]), %[lo], %[" #T4           \
  "]\n\t"                                   \
  "adcq %[lo], %[" #T3                      \
  "]\n\t"                                   \
  "adcq $0, %[" #T4 "]\n\t" CUZK_X86_REDUCE4(T0, T1, T2, T3, T4)

// Row i >= 1: t(T0..T3) += a*b[i] with T4 the new top word, then reduce. The xor clears both
// flags (see the top on why).
#define CUZK_X86_ROW4(i, T0, T1, T2, T3, T4)                                                                    \
  "movq " #i                                                                                                    \
  "*8(%[b]), %%rdx\n\t"                                                                                         \
  "xorl %k[lo], %k[lo]\n\t" CUZK_X86_MADD(a, 0, T0, T1) CUZK_X86_MADD(a, 1, T1, T2) CUZK_X86_MADD(a, 2, T2, T3) \
      CUZK_X86_MADD_TOP(3, T3, T4) CUZK_X86_REDUCE4(T0, T1, T2, T3, T4)

// Reduction row for squaring: like CUZK_X86_REDUCE4, but the top word T4 starts at zero (its xor
// also clears the flags that imul set).
#define CUZK_X86_REDUCE4Z(T0, T1, T2, T3, T4)                                                 \
  "movq %[" #T0                                                                               \
  "], %%rdx\n\t"                                                                              \
  "imulq %[inv], %%rdx\n\t"                                                                   \
  "xorl %k[" #T4 "], %k[" #T4 "]\n\t" CUZK_X86_MADD(p, 0, T0, T1) CUZK_X86_MADD(p, 1, T1, T2) \
      CUZK_X86_MADD(p, 2, T2, T3) CUZK_X86_MADD_REDTOP(3, T3, T4)

// ---------------------------------------------------------------------------------------------
// N = 6
// ---------------------------------------------------------------------------------------------

#define CUZK_X86_REDUCE6(T0, T1, T2, T3, T4, T5, T6) \
  CUZK_X86_M(T0)                                     \
  CUZK_X86_MADD(p, 0, T0, T1)                        \
  CUZK_X86_MADD(p, 1, T1, T2)                        \
  CUZK_X86_MADD(p, 2, T2, T3)                        \
  CUZK_X86_MADD(p, 3, T3, T4)                        \
  CUZK_X86_MADD(p, 4, T4, T5)                        \
  CUZK_X86_MADD_REDTOP(5, T5, T6)

#define CUZK_X86_FIRST6(T0, T1, T2, T3, T4, T5, T6) \
  "movq 0(%[b]), %%rdx\n\t"                         \
  "mulxq 0(%[a]), %[" #T0 "], %[" #T1               \
  "]\n\t"                                           \
  "mulxq 8(%[a]), %[lo], %[" #T2                    \
  "]\n\t"                                           \
  "addq %[lo], %[" #T1                              \
  "]\n\t"                                           \
  "mulxq 16(%[a]), %[lo], %[" #T3                   \
  "]\n\t"                                           \
  "adcq %[lo], %[" #T2                              \
  "]\n\t"                                           \
  "mulxq 24(%[a]), %[lo], %[" #T4                   \
  "]\n\t"                                           \
  "adcq %[lo], %[" #T3                              \
  "]\n\t"                                           \
  "mulxq 32(%[a]), %[lo], %[" #T5                   \
  "]\n\t"                                           \
  "adcq %[lo], %[" #T4                              \
  "]\n\t"                                           \
  "mulxq 40(%[a]), %[lo], %[" #T6                   \
  "]\n\t"                                           \
  "adcq %[lo], %[" #T5                              \
  "]\n\t"                                           \
  "adcq $0, %[" #T6 "]\n\t" CUZK_X86_REDUCE6(T0, T1, T2, T3, T4, T5, T6)

#define CUZK_X86_ROW6(i, T0, T1, T2, T3, T4, T5, T6)                                                            \
  "movq " #i                                                                                                    \
  "*8(%[b]), %%rdx\n\t"                                                                                         \
  "xorl %k[lo], %k[lo]\n\t" CUZK_X86_MADD(a, 0, T0, T1) CUZK_X86_MADD(a, 1, T1, T2) CUZK_X86_MADD(a, 2, T2, T3) \
      CUZK_X86_MADD(a, 3, T3, T4) CUZK_X86_MADD(a, 4, T4, T5) CUZK_X86_MADD_TOP(5, T5, T6)                      \
          CUZK_X86_REDUCE6(T0, T1, T2, T3, T4, T5, T6)

namespace detail {

// A zero in memory for the adcx/adox that close the carry chains (a register for it would be the
// 15th). Hidden visibility keeps it a RIP-relative operand even with -fPIC, where a default-
// visibility variable would be reached through the GOT and cost a base register.
__attribute__((visibility("hidden"))) inline constexpr uint64_t kZero = 0;

// r = t - p if t >= p else t, for t < 2p held in registers; stores into r.
__attribute__((always_inline)) inline void final_sub4(uint64_t* r, uint64_t t0, uint64_t t1, uint64_t t2, uint64_t t3,
                                                      const uint64_t* p) {
  uint64_t s0, s1, s2, s3;
  __asm__(
      "movq %[t0], %[s0]\n\t"
      "movq %[t1], %[s1]\n\t"
      "movq %[t2], %[s2]\n\t"
      "movq %[t3], %[s3]\n\t"
      "subq 0(%[p]), %[s0]\n\t"
      "sbbq 8(%[p]), %[s1]\n\t"
      "sbbq 16(%[p]), %[s2]\n\t"
      "sbbq 24(%[p]), %[s3]\n\t"
      "cmovncq %[s0], %[t0]\n\t"
      "cmovncq %[s1], %[t1]\n\t"
      "cmovncq %[s2], %[t2]\n\t"
      "cmovncq %[s3], %[t3]\n\t"
      : [t0] "+r"(t0), [t1] "+r"(t1), [t2] "+r"(t2), [t3] "+r"(t3),  //
        [s0] "=&r"(s0), [s1] "=&r"(s1), [s2] "=&r"(s2), [s3] "=&r"(s3)
      : [p] "r"(p)
      : "cc", "memory");
  r[0] = t0;
  r[1] = t1;
  r[2] = t2;
  r[3] = t3;
}

__attribute__((always_inline)) inline void final_sub6(uint64_t* r, uint64_t t0, uint64_t t1, uint64_t t2, uint64_t t3,
                                                      uint64_t t4, uint64_t t5, const uint64_t* p) {
  uint64_t s0, s1, s2, s3, s4, s5;
  __asm__(
      "movq %[t0], %[s0]\n\t"
      "movq %[t1], %[s1]\n\t"
      "movq %[t2], %[s2]\n\t"
      "movq %[t3], %[s3]\n\t"
      "movq %[t4], %[s4]\n\t"
      "movq %[t5], %[s5]\n\t"
      "subq 0(%[p]), %[s0]\n\t"
      "sbbq 8(%[p]), %[s1]\n\t"
      "sbbq 16(%[p]), %[s2]\n\t"
      "sbbq 24(%[p]), %[s3]\n\t"
      "sbbq 32(%[p]), %[s4]\n\t"
      "sbbq 40(%[p]), %[s5]\n\t"
      "cmovncq %[s0], %[t0]\n\t"
      "cmovncq %[s1], %[t1]\n\t"
      "cmovncq %[s2], %[t2]\n\t"
      "cmovncq %[s3], %[t3]\n\t"
      "cmovncq %[s4], %[t4]\n\t"
      "cmovncq %[s5], %[t5]\n\t"
      : [t0] "+r"(t0), [t1] "+r"(t1), [t2] "+r"(t2), [t3] "+r"(t3), [t4] "+r"(t4), [t5] "+r"(t5),  //
        [s0] "=&r"(s0), [s1] "=&r"(s1), [s2] "=&r"(s2), [s3] "=&r"(s3), [s4] "=&r"(s4), [s5] "=&r"(s5)
      : [p] "r"(p)
      : "cc", "memory");
  r[0] = t0;
  r[1] = t1;
  r[2] = t2;
  r[3] = t3;
  r[4] = t4;
  r[5] = t5;
}

__attribute__((always_inline)) inline void mont_mul4(uint64_t* r, const uint64_t* a, const uint64_t* b,
                                                     const uint64_t* p, uint64_t inv) {
  uint64_t t0, t1, t2, t3, t4, lo, hi, rdx;
  __asm__(CUZK_X86_FIRST4(t0, t1, t2, t3, t4)   //
          CUZK_X86_ROW4(1, t1, t2, t3, t4, t0)  //
          CUZK_X86_ROW4(2, t2, t3, t4, t0, t1)  //
          CUZK_X86_ROW4(3, t3, t4, t0, t1, t2)  // result (< 2p): t4, t0, t1, t2
          : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4),  //
            [lo] "=&r"(lo), [hi] "=&r"(hi), "=&d"(rdx)
          : [a] "r"(a), [b] "r"(b), [p] "r"(p), [inv] "rm"(inv), [zero] "m"(detail::kZero)
          : "cc", "memory");
  final_sub4(r, t4, t0, t1, t2, p);
}

__attribute__((always_inline)) inline void mont_mul6(uint64_t* r, const uint64_t* a, const uint64_t* b,
                                                     const uint64_t* p, uint64_t inv) {
  uint64_t t0, t1, t2, t3, t4, t5, t6, lo, hi, rdx;
  __asm__(CUZK_X86_FIRST6(t0, t1, t2, t3, t4, t5, t6)   //
          CUZK_X86_ROW6(1, t1, t2, t3, t4, t5, t6, t0)  //
          CUZK_X86_ROW6(2, t2, t3, t4, t5, t6, t0, t1)  //
          CUZK_X86_ROW6(3, t3, t4, t5, t6, t0, t1, t2)  //
          CUZK_X86_ROW6(4, t4, t5, t6, t0, t1, t2, t3)  //
          CUZK_X86_ROW6(5, t5, t6, t0, t1, t2, t3, t4)  // result (< 2p): t6, t0, t1, t2, t3, t4
          : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4), [t5] "=&r"(t5),
            [t6] "=&r"(t6), [lo] "=&r"(lo), [hi] "=&r"(hi), "=&d"(rdx)
          : [a] "r"(a), [b] "r"(b), [p] "r"(p), [inv] "rm"(inv), [zero] "m"(detail::kZero)
          : "cc", "memory");
  final_sub6(r, t6, t0, t1, t2, t3, t4, p);
}

// a^2 for N=4: the 8-word square, then REDC of its low half plus its high half (see the top).
__attribute__((always_inline)) inline void mont_sqr4(uint64_t* r, const uint64_t* a, const uint64_t* p, uint64_t inv) {
  uint64_t w0, w1, w2, w3, w4, w5, w6, w7, lo, hi, rdx;
  // x holds the address of a while the square is formed, then serves as the fifth word of the
  // reduction window (a register of its own would be the 15th).
  uint64_t x = reinterpret_cast<uintptr_t>(a);
  __asm__(
      // Off-diagonal products a_i*a_j (i < j) into w1..w6.
      "movq 0(%[x]), %%rdx\n\t"
      "mulxq 8(%[x]), %[w1], %[w2]\n\t"
      "mulxq 16(%[x]), %[lo], %[w3]\n\t"
      "addq %[lo], %[w2]\n\t"
      "mulxq 24(%[x]), %[lo], %[w4]\n\t"
      "adcq %[lo], %[w3]\n\t"
      "adcq $0, %[w4]\n\t"
      "movq 8(%[x]), %%rdx\n\t"
      "xorl %k[lo], %k[lo]\n\t"
      "mulxq 16(%[x]), %[lo], %[hi]\n\t"
      "adoxq %[lo], %[w3]\n\t"
      "adcxq %[hi], %[w4]\n\t"
      "mulxq 24(%[x]), %[lo], %[w5]\n\t"
      "adoxq %[lo], %[w4]\n\t"
      "adcxq %[zero], %[w5]\n\t"
      "adoxq %[zero], %[w5]\n\t"
      "movq 16(%[x]), %%rdx\n\t"
      "mulxq 24(%[x]), %[lo], %[w6]\n\t"
      "addq %[lo], %[w5]\n\t"
      "adcq $0, %[w6]\n\t"
      // Double them (CF chain) and add the squares a_i^2 (OF chain).
      "movq 0(%[x]), %%rdx\n\t"
      "xorl %k[w7], %k[w7]\n\t"
      "mulxq %%rdx, %[w0], %[hi]\n\t"
      "adcxq %[w1], %[w1]\n\t"
      "adoxq %[hi], %[w1]\n\t"
      "movq 8(%[x]), %%rdx\n\t"
      "mulxq %%rdx, %[lo], %[hi]\n\t"
      "adcxq %[w2], %[w2]\n\t"
      "adoxq %[lo], %[w2]\n\t"
      "adcxq %[w3], %[w3]\n\t"
      "adoxq %[hi], %[w3]\n\t"
      "movq 16(%[x]), %%rdx\n\t"
      "mulxq %%rdx, %[lo], %[hi]\n\t"
      "adcxq %[w4], %[w4]\n\t"
      "adoxq %[lo], %[w4]\n\t"
      "adcxq %[w5], %[w5]\n\t"
      "adoxq %[hi], %[w5]\n\t"
      "movq 24(%[x]), %%rdx\n\t"
      "mulxq %%rdx, %[lo], %[hi]\n\t"
      "adcxq %[w6], %[w6]\n\t"
      "adoxq %[lo], %[w6]\n\t"
      "adcxq %[w7], %[w7]\n\t"
      "adoxq %[hi], %[w7]\n\t"
      // Montgomery-reduce the low half: t = (w0..w3 + m*p)/2^64 four times.
      CUZK_X86_REDUCE4Z(w0, w1, w2, w3, x)  //
      CUZK_X86_REDUCE4Z(w1, w2, w3, x, w0)  //
      CUZK_X86_REDUCE4Z(w2, w3, x, w0, w1)  //
      CUZK_X86_REDUCE4Z(w3, x, w0, w1, w2)  // (x, w0, w1, w2) <= p
      // Add the high half (< p): the sum is < 2p.
      "addq %[w4], %[x]\n\t"
      "adcq %[w5], %[w0]\n\t"
      "adcq %[w6], %[w1]\n\t"
      "adcq %[w7], %[w2]\n\t"
      : [w0] "=&r"(w0), [w1] "=&r"(w1), [w2] "=&r"(w2), [w3] "=&r"(w3), [w4] "=&r"(w4), [w5] "=&r"(w5), [w6] "=&r"(w6),
        [w7] "=&r"(w7), [lo] "=&r"(lo), [hi] "=&r"(hi), "=&d"(rdx), [x] "+&r"(x)
      : [p] "r"(p), [inv] "rm"(inv), [zero] "m"(kZero)
      : "cc", "memory");
  final_sub4(r, x, w0, w1, w2, p);
}
}  // namespace detail

#undef CUZK_X86_MADD
#undef CUZK_X86_MADD_TOP
#undef CUZK_X86_MADD_REDTOP
#undef CUZK_X86_M
#undef CUZK_X86_REDUCE4
#undef CUZK_X86_FIRST4
#undef CUZK_X86_ROW4
#undef CUZK_X86_REDUCE4Z
#undef CUZK_X86_REDUCE6
#undef CUZK_X86_FIRST6
#undef CUZK_X86_ROW6

// r = a*b*2^(-64N) mod p, fully reduced; a, b < p; p odd with p < 2^(64N-1); inv = -p^{-1} mod
// 2^64. r may alias a or b.
template <size_t N>
__attribute__((always_inline)) inline void mont_mul(uint64_t* r, const uint64_t* a, const uint64_t* b,
                                                    const uint64_t* p, uint64_t inv) {
  static_assert(N == 4 || N == 6, "x86::mont_mul is implemented for 4 and 6 limbs");
  if constexpr (N == 4) {
    detail::mont_mul4(r, a, b, p, inv);
  } else {
    detail::mont_mul6(r, a, b, p, inv);
  }
}

// r = a^2 * 2^(-64N) mod p.
template <size_t N>
__attribute__((always_inline)) inline void mont_sqr(uint64_t* r, const uint64_t* a, const uint64_t* p, uint64_t inv) {
  if constexpr (N == 4) {
    detail::mont_sqr4(r, a, p, inv);
  } else {
    mont_mul<N>(r, a, a, p, inv);
  }
}

}  // namespace cuzk::ff::x86
