// The Filecoin gadgets (src/gadgets/): values, satisfaction, rejection of corrupted witnesses, and
// the exact constraint counts that bellperson's and rust-fil-proofs' tests assert (the counts are
// part of what makes our R1CS the one Filecoin's parameters were generated for).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gadgets/boolean.hpp"
#include "gadgets/multieq.hpp"
#include "gadgets/multipack.hpp"
#include "gadgets/num.hpp"
#include "gadgets/sha256.hpp"
#include "gadgets/sha256_hasher.hpp"
#include "gadgets/sha256_native.hpp"
#include "gadgets/uint32.hpp"
#include "r1cs/r1cs.hpp"
#include "r1cs/sparse_matrix.hpp"
#include "util/rng.hpp"

namespace {

using cuzk::Xoshiro256;
using cuzk::r1cs::Fr;
using cuzk::r1cs::ProvingCS;
using cuzk::r1cs::RecordingCS;
using cuzk::r1cs::SynthesisError;
using cuzk::r1cs::TestCS;
using cuzk::r1cs::Variable;
using cuzk::r1cs::WitnessCS;
using namespace cuzk::gadgets;

enum class K { Const, Is, Not };
constexpr std::array<K, 3> kKinds = {K::Const, K::Is, K::Not};

// A Boolean of the given kind whose value is v (a Not view allocates !v).
template <class CS>
Boolean make_bool(CS& cs, K kind, bool v, const std::string& name) {
  if (kind == K::Const) return Boolean::constant(v);
  auto ns = cs.namespace_([&] { return name; });
  AllocatedBit b = AllocatedBit::alloc(cs, kind == K::Is ? v : !v);
  return kind == K::Is ? Boolean::is(b) : Boolean::not_of(b);
}

// Flips a 0/1 aux value.
void flip(TestCS& cs, Variable v) {
  cs.set_value(v, cs.value_of(v).is_zero() ? Fr::one() : Fr::zero());
}

std::vector<Boolean> alloc_bits(TestCS& cs, const std::vector<bool>& bits, const std::string& prefix) {
  std::vector<Boolean> out;
  for (size_t i = 0; i < bits.size(); ++i) {
    auto ns = cs.namespace_([&] { return prefix + std::to_string(i); });
    out.push_back(AllocatedBit::alloc(cs, bits[i]));
  }
  return out;
}

std::vector<bool> values_of(const std::vector<Boolean>& bits) {
  std::vector<bool> out;
  for (const Boolean& b : bits) out.push_back(b.value().value());
  return out;
}

std::vector<bool> random_bits(Xoshiro256& rng, size_t n) {
  std::vector<bool> out(n);
  for (size_t i = 0; i < n; ++i) out[i] = rng() & 1;
  return out;
}

TEST(Gadgets, AllocatedBitOperations) {
  for (bool a : {false, true}) {
    for (bool b : {false, true}) {
      struct Op {
        const char* name;
        bool expected;
        AllocatedBit (*fn)(TestCS&, const AllocatedBit&, const AllocatedBit&);
      };
      const Op ops[] = {
          {"xor", a != b,
           [](TestCS& cs, const AllocatedBit& x, const AllocatedBit& y) { return AllocatedBit::xor_(cs, x, y); }},
          {"and", a && b,
           [](TestCS& cs, const AllocatedBit& x, const AllocatedBit& y) { return AllocatedBit::and_(cs, x, y); }},
          {"and_not", a && !b,
           [](TestCS& cs, const AllocatedBit& x, const AllocatedBit& y) { return AllocatedBit::and_not(cs, x, y); }},
          {"nor", !a && !b,
           [](TestCS& cs, const AllocatedBit& x, const AllocatedBit& y) { return AllocatedBit::nor(cs, x, y); }},
      };
      for (const Op& op : ops) {
        TestCS cs;
        const AllocatedBit x = make_bool(cs, K::Is, a, "a").bit();
        const AllocatedBit y = make_bool(cs, K::Is, b, "b").bit();
        const AllocatedBit r = op.fn(cs, x, y);
        EXPECT_EQ(r.value, op.expected) << op.name;
        EXPECT_EQ(cs.num_constraints(), 3u);
        EXPECT_EQ(cs.num_aux(), 3u);
        EXPECT_TRUE(cs.is_satisfied()) << op.name;
        flip(cs, r.var);
        EXPECT_FALSE(cs.is_satisfied()) << op.name;
      }
    }
  }
  // A non-boolean value breaks the booleanity constraint.
  TestCS cs;
  const AllocatedBit x = AllocatedBit::alloc(cs, true);
  cs.set_value(x.var, Fr::from_u64(2));
  EXPECT_EQ(cs.which_is_unsatisfied(), std::optional<std::string>("boolean constraint"));
}

TEST(Gadgets, AllocConditionally) {
  for (bool cond : {false, true}) {
    for (bool v : {false, true}) {
      TestCS cs;
      AllocatedBit must_be_false;
      {
        auto ns = cs.namespace_([] { return "cond"; });
        must_be_false = AllocatedBit::alloc(cs, cond);
      }
      AllocatedBit::alloc_conditionally(cs, v, must_be_false);
      EXPECT_EQ(cs.is_satisfied(), !(cond && v));
    }
  }
}

// xor / and / or over every kind pair: values, satisfaction, and that constants allocate nothing.
TEST(Gadgets, BooleanConstantFolding) {
  for (K ka : kKinds) {
    for (K kb : kKinds) {
      for (bool a : {false, true}) {
        for (bool b : {false, true}) {
          const bool any_const = ka == K::Const || kb == K::Const;
          TestCS cs;
          const Boolean x = make_bool(cs, ka, a, "a"), y = make_bool(cs, kb, b, "b");
          const size_t base = cs.num_constraints();
          Boolean r;
          {
            auto ns = cs.namespace_([] { return "xor"; });
            r = Boolean::xor_(cs, x, y);
          }
          EXPECT_EQ(r.value(), a != b);
          EXPECT_EQ(cs.num_constraints() - base, any_const ? 0u : 1u);
          {
            auto ns = cs.namespace_([] { return "and"; });
            r = Boolean::and_(cs, x, y);
          }
          EXPECT_EQ(r.value(), a && b);
          EXPECT_EQ(cs.num_constraints() - base, any_const ? 0u : 2u);
          {
            auto ns = cs.namespace_([] { return "or"; });
            r = Boolean::or_(cs, x, y);
          }
          EXPECT_EQ(r.value(), a || b);
          EXPECT_EQ(cs.num_constraints() - base, any_const ? 0u : 3u);
          EXPECT_TRUE(cs.is_satisfied());
        }
      }
    }
  }
}

TEST(Gadgets, Sha256ChMaj) {
  for (K ka : kKinds) {
    for (K kb : kKinds) {
      for (K kc : kKinds) {
        for (unsigned m = 0; m < 8; ++m) {
          const bool a = m & 1, b = m & 2, c = m & 4;
          const int n_const = (ka == K::Const) + (kb == K::Const) + (kc == K::Const);
          TestCS cs;
          const Boolean x = make_bool(cs, ka, a, "a"), y = make_bool(cs, kb, b, "b"), z = make_bool(cs, kc, c, "c");
          const size_t base = cs.num_constraints();
          Boolean ch, maj;
          {
            auto ns = cs.namespace_([] { return "ch"; });
            ch = Boolean::sha256_ch(cs, x, y, z);
          }
          const size_t ch_cost = cs.num_constraints() - base;
          {
            auto ns = cs.namespace_([] { return "maj"; });
            maj = Boolean::sha256_maj(cs, x, y, z);
          }
          const size_t maj_cost = cs.num_constraints() - base - ch_cost;
          EXPECT_EQ(ch.value(), (a && b) != (!a && c));
          EXPECT_EQ(maj.value(), ((a && b) != (a && c)) != (b && c));
          EXPECT_TRUE(cs.is_satisfied());
          // bellpepper's costs: the general forms take 1 (ch) and 2 (maj) constraints, any constant
          // folds to at most one and/nor, all constants to nothing.
          if (n_const == 0) {
            EXPECT_EQ(ch_cost, 1u);
            EXPECT_EQ(maj_cost, 2u);
          } else if (n_const == 3) {
            EXPECT_EQ(ch_cost + maj_cost, 0u);
          } else {
            EXPECT_LE(ch_cost, 1u);
            EXPECT_LE(maj_cost, 1u);
          }
          if (n_const == 0) {
            flip(cs, ch.bit().var);
            EXPECT_FALSE(cs.is_satisfied());
          }
        }
      }
    }
  }
}

TEST(Gadgets, EnforceEqual) {
  for (K ka : kKinds) {
    for (K kb : kKinds) {
      for (bool a : {false, true}) {
        for (bool b : {false, true}) {
          TestCS cs;
          const Boolean x = make_bool(cs, ka, a, "a"), y = make_bool(cs, kb, b, "b");
          if (ka == K::Const && kb == K::Const) {
            if (a == b) {
              EXPECT_NO_THROW(Boolean::enforce_equal(cs, x, y));
            } else {
              EXPECT_THROW(Boolean::enforce_equal(cs, x, y), SynthesisError);
            }
            continue;
          }
          Boolean::enforce_equal(cs, x, y);
          EXPECT_EQ(cs.is_satisfied(), a == b);
        }
      }
    }
  }
}

TEST(Gadgets, AllocatedNum) {
  Xoshiro256 rng(11);
  for (int iter = 0; iter < 4; ++iter) {
    const Fr v = Fr::random(rng), w = Fr::random(rng);
    TestCS cs;
    AllocatedNum x, y;
    {
      auto ns = cs.namespace_([] { return "x"; });
      x = AllocatedNum::alloc(cs, v);
    }
    {
      auto ns = cs.namespace_([] { return "y"; });
      y = AllocatedNum::alloc(cs, w);
    }
    std::vector<Boolean> bits;
    {
      auto ns = cs.namespace_([] { return "bits"; });
      bits = x.to_bits_le(cs);
    }
    // 255 bits, 255 booleanity constraints and the unpacking constraint.
    ASSERT_EQ(bits.size(), 255u);
    EXPECT_EQ(cs.num_aux(), 2u + 255u);
    EXPECT_EQ(cs.num_constraints(), 256u);
    EXPECT_EQ(values_of(bits), fr_to_bits_le(v));
    {
      auto ns = cs.namespace_([] { return "mul"; });
      EXPECT_EQ(x.mul(cs, y).value(), v * w);
    }
    {
      auto ns = cs.namespace_([] { return "square"; });
      EXPECT_EQ(x.square(cs).value(), v.square());
    }
    {
      auto ns = cs.namespace_([] { return "add"; });
      EXPECT_EQ(x.add(cs, y).value(), v + w);
    }
    {
      auto ns = cs.namespace_([] { return "inputize"; });
      x.inputize(cs);
    }
    EXPECT_EQ(cs.num_inputs(), 2u);
    EXPECT_EQ(cs.inputs()[1], v);
    EXPECT_EQ(cs.num_constraints(), 260u);
    EXPECT_TRUE(cs.is_satisfied());
    // A flipped bit breaks the unpacking constraint.
    flip(cs, bits[17].bit().var);
    EXPECT_EQ(cs.which_is_unsatisfied(), std::optional<std::string>("bits/unpacking constraint"));
  }
}

TEST(Gadgets, UInt32Rewiring) {
  Xoshiro256 rng(12);
  for (int iter = 0; iter < 200; ++iter) {
    const uint32_t v = static_cast<uint32_t>(rng());
    const UInt32 c = UInt32::constant(v);
    for (size_t by : {0u, 1u, 7u, 13u, 31u, 32u, 45u}) {
      const uint32_t r = by % 32 == 0 ? v : (v >> (by % 32)) | (v << (32 - by % 32));
      EXPECT_EQ(c.rotr(by).value(), r);
      EXPECT_EQ(UInt32::from_bits(c.rotr(by).into_bits()).value(), r);
      EXPECT_EQ(c.shr(by).value(), v >> (by % 32));
      EXPECT_EQ(UInt32::from_bits(c.shr(by).into_bits()).value(), v >> (by % 32));
    }
    EXPECT_EQ(UInt32::from_bits_be(c.into_bits_be()).value(), v);
    // Big-endian bit 0 is the most significant bit.
    EXPECT_EQ(c.into_bits_be()[0].value(), bool(v >> 31));
  }
}

TEST(Gadgets, UInt32XorAndAddmany) {
  Xoshiro256 rng(13);
  for (int iter = 0; iter < 40; ++iter) {
    const size_t n = 2 + iter % 9;
    TestCS cs;
    std::vector<UInt32> ops;
    uint32_t expected = 0;
    for (size_t k = 0; k < n; ++k) {
      const uint32_t v = static_cast<uint32_t>(rng());
      expected += v;
      if (rng() % 3 == 0) {
        ops.push_back(UInt32::constant(v));
      } else {
        auto ns = cs.namespace_([&] { return "op " + std::to_string(k); });
        ops.push_back(UInt32::alloc(cs, v));
      }
    }
    const size_t before = cs.num_constraints();
    UInt32 sum, x;
    {
      MultiEq<TestCS> meq(cs);
      {
        auto ns = meq.namespace_([] { return "addmany"; });
        sum = UInt32::addmany(meq, std::span<const UInt32>(ops));
      }
      {
        auto ns = meq.namespace_([] { return "xor"; });
        x = ops[0].xor_(meq, ops[1]);
      }
    }  // MultiEq flushes here
    EXPECT_EQ(sum.value(), expected);
    EXPECT_EQ(x.value(), *ops[0].value() ^ *ops[1].value());
    EXPECT_EQ(values_of(sum.into_bits()), values_of(UInt32::constant(expected).into_bits()));
    EXPECT_TRUE(cs.is_satisfied());
    const bool all_const =
        std::all_of(ops.begin(), ops.end(), [](const UInt32& u) { return u.bits()[0].is_constant(); });
    const size_t result_bits = std::bit_width(uint64_t{n} * 0xFFFFFFFFu);
    const size_t xor_cost = ops[0].bits()[0].is_constant() || ops[1].bits()[0].is_constant() ? 0 : 32;
    EXPECT_EQ(cs.num_constraints() - before, (all_const ? 0 : result_bits + 1) + xor_cost);
    if (!all_const) {
      flip(cs, sum.bits()[5].bit().var);
      EXPECT_FALSE(cs.is_satisfied());
    }
  }
}

// MultiEq packs equalities until their widths would reach 254 bits: seven 33-bit additions fit
// (231 bits), the eighth starts a new batch.
TEST(Gadgets, MultiEqBatching) {
  TestCS cs;
  std::vector<UInt32> words;
  for (size_t k = 0; k < 16; ++k) {
    auto ns = cs.namespace_([&] { return "w " + std::to_string(k); });
    words.push_back(UInt32::alloc(cs, static_cast<uint32_t>(k * 0x9e3779b9u)));
  }
  const size_t before = cs.num_constraints();
  size_t flushed = 0;
  {
    MultiEq<TestCS> meq(cs);
    for (size_t k = 0; k < 8; ++k) {
      const std::array<UInt32, 2> ops = {words[2 * k], words[2 * k + 1]};
      auto ns = meq.namespace_([&] { return "add " + std::to_string(k); });
      UInt32::addmany(meq, std::span<const UInt32>(ops));
      if (k == 6) {
        EXPECT_EQ(meq.num_flushed(), 0u);
      }
      if (k == 7) {
        EXPECT_EQ(meq.num_flushed(), 1u);
      }
    }
    meq.finish();
    flushed = meq.num_flushed();
  }
  EXPECT_EQ(flushed, 2u);
  EXPECT_EQ(cs.num_constraints() - before, 8 * 33 + 2u);
  EXPECT_TRUE(cs.is_satisfied());
}

TEST(Gadgets, Multipack) {
  Xoshiro256 rng(14);
  for (size_t n : {0u, 1u, 253u, 254u, 255u, 508u, 509u, 700u}) {
    TestCS cs;
    const std::vector<bool> bits = random_bits(rng, n);
    const std::vector<Boolean> cbits = alloc_bits(cs, bits, "bit ");
    {
      auto ns = cs.namespace_([] { return "pack"; });
      pack_into_inputs(cs, std::span<const Boolean>(cbits));
    }
    const std::vector<Fr> expected = compute_multipacking(bits);
    ASSERT_EQ(cs.num_inputs(), 1 + expected.size());
    EXPECT_EQ(expected.size(), (n + 253) / 254);
    EXPECT_EQ(cs.num_constraints(), n + expected.size());
    for (size_t i = 0; i < expected.size(); ++i) EXPECT_EQ(cs.inputs()[1 + i], expected[i]);
    EXPECT_TRUE(cs.is_satisfied());
    if (n > 0) {
      // pack_bits keeps the first 254 bits.
      AllocatedNum packed;
      {
        auto ns = cs.namespace_([] { return "pack_bits"; });
        packed = pack_bits(cs, std::span<const Boolean>(cbits));
      }
      EXPECT_EQ(packed.value(), expected[0]);
      EXPECT_TRUE(cs.is_satisfied());
      cs.set_value(cuzk::r1cs::Variable::input(1), expected[0] + Fr::one());
      EXPECT_FALSE(cs.is_satisfied());
    }
  }
}

// bellperson sha256.rs test_blank_hash: the padded empty message as a constant block compresses
// to SHA-256("") with no constraint at all.
TEST(Gadgets, Sha256BlankHashIsFree) {
  TestCS cs;
  std::vector<Boolean> block(512, Boolean::constant(false));
  block[0] = Boolean::constant(true);
  const std::vector<UInt32> out = sha256_compression_function(cs, std::span<const Boolean>(block), sha256_iv());
  EXPECT_EQ(cs.num_constraints(), 0u);
  EXPECT_EQ(cs.num_aux(), 0u);
  const Sha256Digest expected = sha256_native({});
  const std::vector<Boolean> bits = sha256_words_to_bits_be(out);
  EXPECT_EQ(values_of(bits), bytes_to_bits(expected));
  EXPECT_TRUE(bits[0].is_constant());
}

// bellperson sha256.rs test_full_block: one compression of 512 allocated bits = 25,840
// constraints besides the 512 booleanity constraints.
TEST(Gadgets, Sha256FullBlockCount) {
  Xoshiro256 rng(15);
  TestCS cs;
  const std::vector<bool> msg = random_bits(rng, 512);
  const std::vector<Boolean> in = alloc_bits(cs, msg, "input bit ");
  std::vector<Boolean> out;
  {
    auto ns = cs.namespace_([] { return "sha256"; });
    out = sha256_block_no_padding(cs, std::span<const Boolean>(in));
  }
  EXPECT_EQ(cs.num_constraints() - 512, 25840u);
  EXPECT_TRUE(cs.is_satisfied());
  std::array<uint8_t, 64> block{};
  for (size_t i = 0; i < 512; ++i) block[i / 8] |= uint8_t(msg[i]) << (7 - i % 8);
  Sha256State st = sha256_native_iv();
  sha256_native_compress(st, block);
  EXPECT_EQ(values_of(out), bytes_to_bits(sha256_native_state_bytes(st)));
}

// The 512-bit hash with padding (bellperson's sha256.rs count, 44,874 besides the input bits) and
// rust-fil-proofs' hash_leaf_bits_circuit (the same plus pack_bits of the digest: 45,387 with the
// 512 input bits).
TEST(Gadgets, Sha256TwoBlockCounts) {
  Xoshiro256 rng(16);
  TestCS cs;
  const std::vector<bool> msg = random_bits(rng, 512);
  const std::vector<Boolean> in = alloc_bits(cs, msg, "input bit ");
  std::vector<Boolean> out;
  {
    auto ns = cs.namespace_([] { return "sha256"; });
    out = sha256(cs, std::span<const Boolean>(in));
  }
  EXPECT_EQ(cs.num_constraints() - 512, 44874u);
  {
    auto ns = cs.namespace_([] { return "pack"; });
    pack_bits(cs, std::span<const Boolean>(out));
  }
  EXPECT_EQ(cs.num_constraints(), 45387u);
  EXPECT_TRUE(cs.is_satisfied());
}

// Digests of random messages of many lengths (one to four blocks, every padding boundary) against
// the native SHA-256. WitnessCS for the sweep (values only), TestCS for satisfaction at the edges.
TEST(Gadgets, Sha256AgainstNative) {
  Xoshiro256 rng(17);
  for (size_t len = 0; len <= 200; ++len) {
    std::vector<uint8_t> data(len);
    for (uint8_t& b : data) b = static_cast<uint8_t>(rng());
    const std::vector<bool> bits = bytes_to_bits(data);
    const std::vector<bool> expected = bytes_to_bits(sha256_native(data));
    const bool edge = len < 3 || len == 55 || len == 56 || len == 63 || len == 64 || len == 119 || len == 120;
    if (edge) {
      TestCS cs;
      const std::vector<Boolean> in = alloc_bits(cs, bits, "in ");
      const std::vector<Boolean> out = sha256(cs, std::span<const Boolean>(in));
      EXPECT_EQ(values_of(out), expected) << len;
      EXPECT_TRUE(cs.is_satisfied()) << len;
    } else {
      WitnessCS cs;
      std::vector<Boolean> in;
      for (bool b : bits) in.push_back(AllocatedBit::alloc(cs, b));
      EXPECT_EQ(values_of(sha256(cs, std::span<const Boolean>(in))), expected) << len;
    }
  }
}

// Bits of random kinds (constant, Is, Not) with the given values; each allocated one in its own
// namespace so that TestCS accepts the names.
template <class CS>
std::vector<Boolean> mixed_bits(CS& cs, Xoshiro256& rng, const std::vector<bool>& values, bool allow_constants) {
  std::vector<Boolean> out;
  for (size_t i = 0; i < values.size(); ++i) {
    const K kind = allow_constants ? kKinds[rng() % 3] : kKinds[1 + rng() % 2];
    out.push_back(make_bool(cs, kind, values[i], "m" + std::to_string(i)));
  }
  return out;
}

// UInt32's xor_, sha256_ch, sha256_maj and addmany take a values-only path under WitnessCS (no
// LCs, words instead of Boolean recursion). It must allocate what the bit-by-bit path allocates
// under TestCS: the same aux, in the same order, with the same values, for any mix of kinds.
template <class CS>
std::vector<uint32_t> uint32_ops(CS& cs, uint64_t seed, bool allow_constants) {
  Xoshiro256 rng(seed);
  std::array<UInt32, 3> w;
  for (size_t k = 0; k < 3; ++k) {
    auto ns = cs.namespace_([&] { return "word " + std::to_string(k); });
    w[k] = UInt32::from_bits(mixed_bits(cs, rng, random_bits(rng, 32), allow_constants));
  }
  std::vector<uint32_t> out;
  {
    auto ns = cs.namespace_([] { return "xor"; });
    out.push_back(*w[0].xor_(cs, w[1].rotr(7)).value());
  }
  {
    auto ns = cs.namespace_([] { return "ch"; });
    out.push_back(*UInt32::sha256_ch(cs, w[0], w[1], w[2]).value());
  }
  {
    auto ns = cs.namespace_([] { return "maj"; });
    out.push_back(*UInt32::sha256_maj(cs, w[0], w[1].shr(5), w[2]).value());
  }
  MultiEq<CS> meq(cs);
  {
    auto ns = meq.namespace_([] { return "addmany"; });
    out.push_back(*UInt32::addmany(meq, std::span<const UInt32>(w)).value());
  }
  meq.finish();
  return out;
}

TEST(Gadgets, UInt32WitnessPathMatchesTestCS) {
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    const bool allow_constants = seed % 4 != 0;
    TestCS tcs;
    const std::vector<uint32_t> expected = uint32_ops(tcs, seed, allow_constants);
    ASSERT_TRUE(tcs.is_satisfied()) << seed;
    WitnessCS wcs;
    EXPECT_EQ(uint32_ops(wcs, seed, allow_constants), expected) << seed;
    EXPECT_EQ(wcs.num_aux(), tcs.num_aux()) << seed;
    EXPECT_EQ(wcs.aux(), tcs.aux()) << seed;
  }
}

// The whole SHA-256 assignment under WitnessCS equals TestCS's, variable by variable, for random
// messages (input bits of random kinds, so Not views and constants reach the word operations too)
// of one and two blocks.
TEST(Gadgets, Sha256WitnessAssignmentMatchesTestCS) {
  Xoshiro256 rng(21);
  for (size_t len : {size_t{0}, size_t{1}, size_t{32}, size_t{55}, size_t{64}, size_t{100}}) {
    for (bool allow_constants : {false, true}) {
      std::vector<uint8_t> data(len);
      for (uint8_t& b : data) b = static_cast<uint8_t>(rng());
      const std::vector<bool> bits = bytes_to_bits(data);
      const uint64_t seed = rng();
      TestCS tcs;
      Xoshiro256 r1(seed);
      const std::vector<Boolean> tin = mixed_bits(tcs, r1, bits, allow_constants);
      const std::vector<Boolean> tout = sha256(tcs, std::span<const Boolean>(tin));
      ASSERT_TRUE(tcs.is_satisfied()) << len;
      WitnessCS wcs;
      Xoshiro256 r2(seed);
      const std::vector<Boolean> win = mixed_bits(wcs, r2, bits, allow_constants);
      const std::vector<Boolean> wout = sha256(wcs, std::span<const Boolean>(win));
      EXPECT_EQ(values_of(wout), values_of(tout)) << len;
      EXPECT_EQ(values_of(wout), bytes_to_bits(sha256_native(data))) << len;
      EXPECT_EQ(wcs.num_aux(), tcs.num_aux()) << len;
      EXPECT_EQ(wcs.aux(), tcs.aux()) << len;
      // The digest bits name the same variables (a caller constrains them next).
      ASSERT_EQ(wout.size(), tout.size());
      for (size_t i = 0; i < wout.size(); ++i) {
        ASSERT_EQ(wout[i].kind(), tout[i].kind()) << len << " bit " << i;
        if (!tout[i].is_constant()) {
          EXPECT_EQ(wout[i].bit().var, tout[i].bit().var) << len << " bit " << i;
        }
      }
    }
  }
}

// The chaining state as a mix of constant, Is and Not bits (the IV only ever gives constants
// in ch/maj's b and c): the values-only compression's per-bit ch/maj folding must match
// Boolean's for every case, including a constant `a` next to variable b and c.
TEST(Gadgets, Sha256WitnessMixedStateMatchesTestCS) {
  Xoshiro256 rng(22);
  for (int round = 0; round < 6; ++round) {
    const std::vector<bool> msg = random_bits(rng, 512);
    Sha256State st;
    std::vector<bool> state_bits;  // word k's bit i (LSB first) at 32 k + i
    for (uint32_t& w : st) {
      w = static_cast<uint32_t>(rng());
      for (size_t i = 0; i < 32; ++i) state_bits.push_back(((w >> i) & 1) != 0);
    }
    const uint64_t seed = rng();
    auto run = [&](auto& cs) {
      Xoshiro256 r(seed);
      std::vector<Boolean> in, sb;
      {
        auto ns = cs.namespace_([] { return "message"; });
        in = mixed_bits(cs, r, msg, /*allow_constants=*/true);
      }
      {
        auto ns = cs.namespace_([] { return "state"; });
        sb = mixed_bits(cs, r, state_bits, /*allow_constants=*/true);
      }
      std::vector<UInt32> cur;
      for (size_t k = 0; k < 8; ++k) {
        cur.push_back(UInt32::from_bits(std::span<const Boolean>(sb).subspan(32 * k, 32)));
      }
      return sha256_compression_function(cs, std::span<const Boolean>(in), std::span<const UInt32>(cur));
    };
    TestCS tcs;
    const std::vector<UInt32> tout = run(tcs);
    ASSERT_TRUE(tcs.is_satisfied()) << round;
    WitnessCS wcs;
    const std::vector<UInt32> wout = run(wcs);
    std::array<uint8_t, 64> block{};
    for (size_t i = 0; i < 512; ++i) block[i / 8] |= uint8_t(msg[i]) << (7 - i % 8);
    sha256_native_compress(st, block);
    EXPECT_EQ(wcs.num_aux(), tcs.num_aux()) << round;
    EXPECT_EQ(wcs.aux(), tcs.aux()) << round;
    ASSERT_EQ(wout.size(), 8u);
    ASSERT_EQ(tout.size(), 8u);
    for (size_t k = 0; k < 8; ++k) {
      EXPECT_EQ(*wout[k].value(), st[k]) << round << " word " << k;
      EXPECT_EQ(*tout[k].value(), st[k]) << round << " word " << k;
      for (size_t i = 0; i < 32; ++i) {
        const Boolean& wb = wout[k].bits()[i];
        const Boolean& tb = tout[k].bits()[i];
        ASSERT_EQ(wb.kind(), tb.kind()) << round << " word " << k << " bit " << i;
        EXPECT_EQ(wb.value(), tb.value()) << round << " word " << k << " bit " << i;
        if (!tb.is_constant()) {
          EXPECT_EQ(wb.bit().var, tb.bit().var) << round << " word " << k << " bit " << i;
        }
      }
    }
  }
}

TEST(Gadgets, Sha256RejectsCorruptedWitness) {
  Xoshiro256 rng(18);
  TestCS cs;
  const std::vector<Boolean> in = alloc_bits(cs, random_bits(rng, 256), "in ");
  sha256(cs, std::span<const Boolean>(in));
  ASSERT_TRUE(cs.is_satisfied());
  // Every kind of aux in the middle of the circuit: xor results, ch/maj bits, addmany result bits.
  for (size_t k : {size_t{600}, size_t{5000}, size_t{12345}, size_t{20000}, cs.num_aux() - 1}) {
    flip(cs, Variable::aux(static_cast<uint32_t>(k)));
    EXPECT_FALSE(cs.is_satisfied()) << k;
    flip(cs, Variable::aux(static_cast<uint32_t>(k)));
  }
  EXPECT_TRUE(cs.is_satisfied());
}

// Two allocated numbers and filecoin-hashers' Sha256 hash2_circuit of them (gadgets/sha256_hasher.hpp:
// each to_bits_le, bit numbering reversed, SHA-256, digest reversed back, first 254 bits packed).
template <class CS>
AllocatedNum sha256_hash2(CS& cs, std::optional<Fr> l, std::optional<Fr> r) {
  AllocatedNum a, b;
  {
    auto ns = cs.namespace_([] { return "left"; });
    a = AllocatedNum::alloc(cs, l);
  }
  {
    auto ns = cs.namespace_([] { return "right"; });
    b = AllocatedNum::alloc(cs, r);
  }
  return Sha256Hasher::hash2_circuit(cs, a, b);
}

// filecoin-circuits.md 2.3: hash of two AllocatedNums = 2 x 256 (to_bits_le) + 44,866 (SHA-256
// with the two constant pad bits) + 1 (pack_bits) = 45,379 constraints and 45,331 aux (besides
// the two inputs' own variables); the value is the vanilla trimmed digest.
TEST(Gadgets, Sha256Hash2OfNums) {
  Xoshiro256 rng(19);
  const Fr l = Fr::random(rng), r = Fr::random(rng);
  TestCS cs;
  const AllocatedNum h = sha256_hash2(cs, l, r);
  EXPECT_EQ(cs.num_constraints(), 45379u);
  EXPECT_EQ(cs.num_aux(), 2u + 45331u);
  EXPECT_TRUE(cs.is_satisfied());

  std::array<uint8_t, 64> bytes{};
  const auto put = [&](const Fr& x, size_t off) {
    const auto limbs = x.to_canonical();
    for (size_t i = 0; i < 32; ++i) bytes[off + i] = static_cast<uint8_t>(limbs[i / 8] >> (8 * (i % 8)));
  };
  put(l, 0);
  put(r, 32);
  Sha256Digest d = sha256_native(bytes);
  d[31] &= 0x3f;  // the vanilla trim: the top two bits of the last byte
  EXPECT_EQ(h.value(), Fr::from_bytes_le(d).value());
}

// The four backends see the same circuit: the same variables, RecordingCS's matrices are
// satisfied by WitnessCS's assignment, and ProvingCS's A·z, B·z, C·z equal the matrices' products.
// RecordingCS runs without any value, as it will when the circuit is compiled once.
TEST(Gadgets, BackendsAgree) {
  Xoshiro256 rng(20);
  const Fr l = Fr::random(rng), r = Fr::random(rng);
  TestCS tcs;
  sha256_hash2(tcs, l, r);
  RecordingCS rcs;
  sha256_hash2(rcs, std::nullopt, std::nullopt);
  WitnessCS wcs;
  sha256_hash2(wcs, l, r);
  ProvingCS pcs;
  sha256_hash2(pcs, l, r);

  EXPECT_EQ(rcs.num_aux(), tcs.num_aux());
  EXPECT_EQ(rcs.num_inputs(), tcs.num_inputs());
  EXPECT_EQ(rcs.num_constraints(), tcs.num_constraints());
  EXPECT_EQ(wcs.num_aux(), tcs.num_aux());
  EXPECT_EQ(wcs.num_inputs(), tcs.num_inputs());
  EXPECT_EQ(wcs.aux(), tcs.aux());
  EXPECT_EQ(pcs.num_constraints(), tcs.num_constraints());

  rcs.finalize();
  pcs.finalize();
  const cuzk::r1cs::R1cs m = rcs.r1cs();
  const std::vector<Fr> z = wcs.z();
  const std::vector<Fr> az = cuzk::r1cs::mul_vec(m.a, z), bz = cuzk::r1cs::mul_vec(m.b, z),
                        cz = cuzk::r1cs::mul_vec(m.c, z);
  size_t bad = 0;
  for (size_t i = 0; i < az.size(); ++i) bad += az[i] * bz[i] != cz[i];
  EXPECT_EQ(bad, 0u);
  EXPECT_EQ(az, pcs.a());
  EXPECT_EQ(bz, pcs.b());
  EXPECT_EQ(cz, pcs.c());
}

}  // namespace
