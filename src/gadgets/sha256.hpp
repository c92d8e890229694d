#pragma once
// SHA-256 in a circuit, with the R1CS of bellperson's src/gadgets/sha256.rs (FIPS 180-4 over
// UInt32 words; message words are read big-endian from the bit stream, the digest is written back
// big-endian).
//
// Order of the R1CS within one compression (it is what the parameters were generated from):
// message schedule w16..w63 (two xors each for s0 and s1, then a 4-operand addmany), then 64
// rounds, then h0..h7. Additions are deferred: a round does not add up its new e and a; the next
// round does, in one addmany (6 operands for e, 7 for a), and h0 / h4 fold the last round's into
// their 8- / 7-operand sums. All additions of one compression share one MultiEq, whose last batch
// is emitted after h7.
#include <array>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "gadgets/sha256_witness.hpp"
#include "gadgets/uint32.hpp"

namespace cuzk::gadgets {

namespace sha256_detail {

// FIPS 180-4 section 4.2.2 (first 32 bits of the fractional parts of the cube roots of the first
// 64 primes) and 5.3.3 (square roots of the first 8 primes).
inline constexpr std::array<uint32_t, 64> kRoundConstants = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};
inline constexpr std::array<uint32_t, 8> kIv = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                                0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

// The round constants as UInt32 words, built once: building a constant word bit by bit in every
// round cost as much as a tenth of the values-only witness (its Booleans are written narrowly and
// read back whole straight away, which stalls store forwarding); copying a built one does not.
inline const std::array<UInt32, 64>& round_constant_words() {
  static const std::array<UInt32, 64> words = [] {
    std::array<UInt32, 64> w;
    for (size_t i = 0; i < 64; ++i) w[i] = UInt32::constant(kRoundConstants[i]);
    return w;
  }();
  return words;
}

// A working variable whose value is either known (concrete) or still a list of addends whose
// addmany is deferred until the variable is used (bellperson's Maybe).
struct Deferred {
  std::vector<UInt32> addends;  // empty: concrete
  UInt32 concrete;

  template <ConstraintSystem CS>
  UInt32 compute(MultiEq<CS>& cs, std::span<const UInt32> others) const {
    if (addends.empty()) return concrete;
    std::vector<UInt32> all(addends);
    all.insert(all.end(), others.begin(), others.end());
    return UInt32::addmany(cs, std::span<const UInt32>(all));
  }
};

}  // namespace sha256_detail

inline std::vector<UInt32> sha256_iv() {
  std::vector<UInt32> iv;
  for (uint32_t v : sha256_detail::kIv) iv.push_back(UInt32::constant(v));
  return iv;
}

// One compression of a 512-bit block into the 8-word state `current`.
template <ConstraintSystem CS>
std::vector<UInt32> sha256_compression_function(CS& outer, std::span<const Boolean> input,
                                                std::span<const UInt32> current) {
  using sha256_detail::Deferred;
  if (input.size() != 512) throw std::invalid_argument("sha256_compression_function: need 512 bits");
  if (current.size() != 8) throw std::invalid_argument("sha256_compression_function: need 8 state words");
  // A backend that only records values gets the same assignment from packed words (~10x faster
  // than going through the bit-level gadgets, see sha256_witness.hpp).
  if constexpr (!r1cs::kCsReadsLinearCombinations<CS>) {
    if (sha256_witness::all_values_known(input, current)) {
      return sha256_witness::compression_function(outer, input, current, sha256_detail::kRoundConstants);
    }
  }

  std::vector<UInt32> w;
  w.reserve(64);
  for (size_t i = 0; i < 16; ++i) w.push_back(UInt32::from_bits_be(input.subspan(32 * i, 32)));

  MultiEq<CS> cs(outer);
  auto ns_name = [](const char* what, size_t i) { return std::string(what) + std::to_string(i); };

  for (size_t i = 16; i < 64; ++i) {
    auto ns = cs.namespace_([&] { return ns_name("w extension ", i); });
    UInt32 s0 = w[i - 15].rotr(7);
    {
      auto n = cs.namespace_([] { return "first xor for s0"; });
      s0 = s0.xor_(cs, w[i - 15].rotr(18));
    }
    {
      auto n = cs.namespace_([] { return "second xor for s0"; });
      s0 = s0.xor_(cs, w[i - 15].shr(3));
    }
    UInt32 s1 = w[i - 2].rotr(17);
    {
      auto n = cs.namespace_([] { return "first xor for s1"; });
      s1 = s1.xor_(cs, w[i - 2].rotr(19));
    }
    {
      auto n = cs.namespace_([] { return "second xor for s1"; });
      s1 = s1.xor_(cs, w[i - 2].shr(10));
    }
    const std::array<UInt32, 4> ops = {w[i - 16], s0, w[i - 7], s1};
    auto n = cs.namespace_([] { return "computation of w[i]"; });
    w.push_back(UInt32::addmany(cs, std::span<const UInt32>(ops)));
  }

  Deferred a{{}, current[0]};
  UInt32 b = current[1], c = current[2], d = current[3];
  Deferred e{{}, current[4]};
  UInt32 f = current[5], g = current[6], h = current[7];

  for (size_t i = 0; i < 64; ++i) {
    auto ns = cs.namespace_([&] { return ns_name("compression round ", i); });
    UInt32 new_e;
    {
      auto n = cs.namespace_([] { return "deferred e computation"; });
      new_e = e.compute(cs, {});
    }
    UInt32 s1 = new_e.rotr(6);
    {
      auto n = cs.namespace_([] { return "first xor for s1"; });
      s1 = s1.xor_(cs, new_e.rotr(11));
    }
    {
      auto n = cs.namespace_([] { return "second xor for s1"; });
      s1 = s1.xor_(cs, new_e.rotr(25));
    }
    UInt32 ch;
    {
      auto n = cs.namespace_([] { return "ch"; });
      ch = UInt32::sha256_ch(cs, new_e, f, g);
    }
    // temp1 = h + S1 + ch + k[i] + w[i]
    std::vector<UInt32> temp1 = {h, s1, ch, sha256_detail::round_constant_words()[i], w[i]};

    UInt32 new_a;
    {
      auto n = cs.namespace_([] { return "deferred a computation"; });
      new_a = a.compute(cs, {});
    }
    UInt32 s0 = new_a.rotr(2);
    {
      auto n = cs.namespace_([] { return "first xor for s0"; });
      s0 = s0.xor_(cs, new_a.rotr(13));
    }
    {
      auto n = cs.namespace_([] { return "second xor for s0"; });
      s0 = s0.xor_(cs, new_a.rotr(22));
    }
    UInt32 maj;
    {
      auto n = cs.namespace_([] { return "maj"; });
      maj = UInt32::sha256_maj(cs, new_a, b, c);
    }

    h = g;
    g = f;
    f = new_e;
    e.addends = temp1;  // e = d + temp1
    e.addends.push_back(d);
    d = c;
    c = b;
    b = new_a;
    a.addends = std::move(temp1);  // a = temp1 + S0 + maj
    a.addends.push_back(s0);
    a.addends.push_back(maj);
  }

  std::vector<UInt32> out;
  out.reserve(8);
  auto add2 = [&](const char* name, const UInt32& x, const UInt32& y) {
    const std::array<UInt32, 2> ops = {x, y};
    auto n = cs.namespace_([&] { return name; });
    return UInt32::addmany(cs, std::span<const UInt32>(ops));
  };
  {
    auto n = cs.namespace_([] { return "deferred h0 computation"; });
    out.push_back(a.compute(cs, current.subspan(0, 1)));
  }
  out.push_back(add2("new h1", current[1], b));
  out.push_back(add2("new h2", current[2], c));
  out.push_back(add2("new h3", current[3], d));
  {
    auto n = cs.namespace_([] { return "deferred h4 computation"; });
    out.push_back(e.compute(cs, current.subspan(4, 1)));
  }
  out.push_back(add2("new h5", current[5], f));
  out.push_back(add2("new h6", current[6], g));
  out.push_back(add2("new h7", current[7], h));
  cs.finish();  // bellperson's MultiEq is dropped here, after h7
  return out;
}

inline std::vector<Boolean> sha256_words_to_bits_be(std::span<const UInt32> words) {
  std::vector<Boolean> out;
  out.reserve(32 * words.size());
  for (const UInt32& wd : words) {
    const std::vector<Boolean> bits = wd.into_bits_be();
    out.insert(out.end(), bits.begin(), bits.end());
  }
  return out;
}

// One compression of exactly 512 bits from the IV, without padding; the 256 state bits out.
template <ConstraintSystem CS>
std::vector<Boolean> sha256_block_no_padding(CS& cs, std::span<const Boolean> input) {
  if (input.size() != 512) throw std::invalid_argument("sha256_block_no_padding: need 512 bits");
  const std::vector<UInt32> iv = sha256_iv();
  return sha256_words_to_bits_be(sha256_compression_function(cs, input, iv));
}

// SHA-256 of a whole number of bytes (bits MSB first within each byte). The padding (a 1, zeros,
// the 64-bit big-endian bit length) is made of constant bits, so it costs only what constant
// folding leaves; block i is compressed in namespace "block i".
template <ConstraintSystem CS>
std::vector<Boolean> sha256(CS& cs, std::span<const Boolean> input) {
  if (input.size() % 8 != 0) throw std::invalid_argument("sha256: input must be whole bytes");
  std::vector<Boolean> padded(input.begin(), input.end());
  const uint64_t len = input.size();
  padded.push_back(Boolean::constant(true));
  while ((padded.size() + 64) % 512 != 0) padded.push_back(Boolean::constant(false));
  for (int i = 63; i >= 0; --i) padded.push_back(Boolean::constant((len >> i) & 1));

  std::vector<UInt32> cur = sha256_iv();
  const std::span<const Boolean> all(padded);
  for (size_t blk = 0; blk * 512 < padded.size(); ++blk) {
    auto ns = cs.namespace_([&] { return "block " + std::to_string(blk); });
    cur = sha256_compression_function(cs, all.subspan(512 * blk, 512), cur);
  }
  return sha256_words_to_bits_be(cur);
}

}  // namespace cuzk::gadgets
