#pragma once
// Packing bits into field elements (bellperson src/gadgets/multipack.rs, and pack_bits as
// storage-proofs-core uses it): little-endian chunks of Fr's capacity (254 bits), so every chunk
// fits in one element whatever its bits.
#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "gadgets/num.hpp"

namespace cuzk::gadgets {

// For each chunk i of up to 254 bits: the public input "input i" is allocated first, then
// "packing constraint i": (sum 2^j bit_j) * ONE = input.
template <ConstraintSystem CS>
void pack_into_inputs(CS& cs, std::span<const Boolean> bits) {
  for (size_t start = 0, i = 0; start < bits.size(); start += kFrCapacity, ++i) {
    const size_t end = std::min(bits.size(), start + kFrCapacity);
    Num num;
    Fr coeff = Fr::one();
    for (size_t j = start; j < end; ++j) {
      num.add_bool_with_coeff(CS::one(), bits[j], coeff);
      coeff = coeff + coeff;
    }
    Variable input = cs.alloc_input([&] { return "input " + std::to_string(i); }, [&] { return num.value(); });
    cs.enforce([&] { return "packing constraint " + std::to_string(i); }, [&](LC) { return num.lc(); },
               [](LC lc) { return lc + CS::one(); }, [&](LC lc) { return lc + input; });
  }
}

// The first 254 bits (the rest are ignored) as one aux number: "input/num" is allocated, then
// "packing constraint": (sum 2^j bit_j) * ONE = num.
template <ConstraintSystem CS>
AllocatedNum pack_bits(CS& cs, std::span<const Boolean> bits) {
  Num num;
  Fr coeff = Fr::one();
  for (size_t j = 0; j < bits.size() && j < kFrCapacity; ++j) {
    num.add_bool_with_coeff(CS::one(), bits[j], coeff);
    coeff = coeff + coeff;
  }
  AllocatedNum packed;
  {
    auto ns = cs.namespace_([] { return "input"; });
    packed = AllocatedNum::alloc(cs, num.value());
  }
  cs.enforce([] { return "packing constraint"; }, [&](LC) { return num.lc(); }, [](LC lc) { return lc + CS::one(); },
             [&](LC lc) { return lc + packed.var(); });
  return packed;
}

// The verifier's side of pack_into_inputs: the public inputs the bits become.
inline std::vector<Fr> compute_multipacking(const std::vector<bool>& bits) {
  std::vector<Fr> out;
  for (size_t start = 0; start < bits.size(); start += kFrCapacity) {
    const size_t end = std::min(bits.size(), start + kFrCapacity);
    Fr cur = Fr::zero(), coeff = Fr::one();
    for (size_t j = start; j < end; ++j) {
      if (bits[j]) cur += coeff;
      coeff = coeff + coeff;
    }
    out.push_back(cur);
  }
  return out;
}

// Bytes to bits, most significant bit of each byte first (bellperson's bytes_to_bits; the order
// SHA-256 consumes) or least significant first (bytes_to_bits_le).
inline std::vector<bool> bytes_to_bits(std::span<const uint8_t> bytes) {
  std::vector<bool> out;
  out.reserve(bytes.size() * 8);
  for (uint8_t b : bytes)
    for (int i = 7; i >= 0; --i) out.push_back((b >> i) & 1);
  return out;
}
inline std::vector<bool> bytes_to_bits_le(std::span<const uint8_t> bytes) {
  std::vector<bool> out;
  out.reserve(bytes.size() * 8);
  for (uint8_t b : bytes)
    for (int i = 0; i < 8; ++i) out.push_back((b >> i) & 1);
  return out;
}

}  // namespace cuzk::gadgets
