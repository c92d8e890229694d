#pragma once
// The two prime fields of BLS12-381: Fr (scalar field, 255 bits) and Fq (base field, 381 bits).
// Moduli: the BLS12-381 definition (zkcrypto/bls12_381 and draft-irtf-cfrg-pairing-friendly-curves).
#include "ff/fp.hpp"

namespace cuzk::ff {

struct Bls12381FrParams {
  static constexpr size_t N = 4;
  static constexpr Limbs<4> MODULUS =
      limbs_from_hex<4>("73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001");
  static constexpr const char* NAME = "Fr";
};

struct Bls12381FqParams {
  static constexpr size_t N = 6;
  static constexpr Limbs<6> MODULUS = limbs_from_hex<6>(
      "1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab");
  static constexpr const char* NAME = "Fq";
};

using Fr = Fp<Bls12381FrParams>;
using Fq = Fp<Bls12381FqParams>;

}  // namespace cuzk::ff

#include "ff/fp2.hpp"

namespace cuzk::ff {
using Fq2 = Fp2<Fq>;
}  // namespace cuzk::ff

#include "ff/fp12.hpp"

namespace cuzk::ff {
// The pairing tower: Fq6 = Fq2[v]/(v^3 - (1 + u)), Fq12 = Fq6[w]/(w^2 - v).
using Fq6 = Fp6<Fq2>;
using Fq12 = Fp12<Fq6>;
}  // namespace cuzk::ff
