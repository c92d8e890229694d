#include "gadgets/sha256_hash_witness.hpp"

#include <array>
#include <stdexcept>
#include <string>
#include <vector>

#include "gadgets/fr32.hpp"
#include "gadgets/sha256.hpp"

namespace cuzk::gadgets {
namespace {

// What sha256_witness::compression_function needs of a constraint system (alloc, alloc_aux_bits),
// appending to a preallocated span. The variables it hands back are positions in the span: the
// compression only uses them to tell its own bits apart, and nothing reads them as circuit
// variables.
class SpanSink {
 public:
  SpanSink(Fr* begin, Fr* end) : base_(begin), o_(begin), end_(end) {}

  template <class NameFn, class ValueFn>
  r1cs::Variable alloc(NameFn&&, ValueFn&& value) {
    room(1);
    *o_ = value();
    return r1cs::Variable::aux(index(o_++));
  }
  uint32_t alloc_aux_bits(uint64_t bits, size_t n) {
    room(n);
    const uint32_t first = index(o_);
    for (size_t k = 0; k < n; ++k) o_[k] = kBit[(bits >> k) & 1];
    o_ += n;
    return first;
  }
  size_t used() const { return static_cast<size_t>(o_ - base_); }

 private:
  static constexpr std::array<Fr, 2> kBit = {Fr::zero(), Fr::one()};
  // The layout is fixed (sha256_hash2_witness_len counts it with the same code), so running out
  // of room is a bug here, not bad input.
  void room(size_t n) const {
    if (n > static_cast<size_t>(end_ - o_)) throw std::logic_error("SHA-256 witness: more values than counted");
  }
  uint32_t index(const Fr* p) const { return static_cast<uint32_t>(p - base_); }
  Fr* base_;
  Fr* o_;
  Fr* end_;
};

// The same allocations, only counted.
class CountSink {
 public:
  template <class NameFn, class ValueFn>
  r1cs::Variable alloc(NameFn&&, ValueFn&&) {
    return r1cs::Variable::aux(n_++);
  }
  uint32_t alloc_aux_bits(uint64_t, size_t n) {
    const uint32_t first = n_;
    n_ += static_cast<uint32_t>(n);
    return first;
  }
  size_t used() const { return n_; }

 private:
  uint32_t n_ = 0;
};

// The padding block of a 64-byte message: a one bit, zeros, the bit length 512 big-endian in the
// last 64 bits (sha256() in sha256.hpp, all constants).
const std::array<Boolean, 512>& padding_block() {
  static const std::array<Boolean, 512> pad = [] {
    std::array<Boolean, 512> p;  // constant false
    p[0] = Boolean::constant(true);
    for (size_t i = 0; i < 64; ++i) p[448 + i] = Boolean::constant(((uint64_t{512} >> (63 - i)) & 1) != 0);
    return p;
  }();
  return pad;
}

// hash2_circuit's allocations in order (see the header), into `sink`.
template <class Sink>
Fr hash2_values(const Fr& a, const Fr& b, Sink& sink) {
  std::array<Boolean, 512> block;  // constant false where reverse_bit_numbering pads
  const Fr children[2] = {a, b};
  for (size_t c = 0; c < 2; ++c) {
    const auto limbs = children[c].to_canonical();
    uint32_t first = 0;
    for (size_t l = 0; l < 4; ++l) {
      const uint32_t v = sink.alloc_aux_bits(limbs[l], l == 3 ? kFrNumBits - 192 : 64);
      if (l == 0) first = v;
    }
    // to_bits_le's bit i (at first + i); reverse_bit_numbering moves bit 8j + t to 8j + 7 − t, so
    // SHA-256 reads the element's little-endian bytes most significant bit first.
    for (size_t i = 0; i < kFrNumBits; ++i) {
      const bool v = ((limbs[i / 64] >> (i % 64)) & 1) != 0;
      block[256 * c + (i & ~size_t{7}) + 7 - (i & 7)] =
          Boolean::is(AllocatedBit{r1cs::Variable::aux(first + static_cast<uint32_t>(i)), v});
    }
  }
  const std::vector<UInt32> iv = sha256_iv();
  std::vector<UInt32> state =
      sha256_witness::compression_function(sink, std::span<const Boolean>(block), iv, sha256_detail::kRoundConstants);
  state = sha256_witness::compression_function(sink, std::span<const Boolean>(padding_block()), state,
                                               sha256_detail::kRoundConstants);
  // The digest's bits reversed per byte and the first 254 packed: its bytes (each word big-endian)
  // read as a little-endian number with the top two bits cleared, i.e. the trimmed digest.
  NodeBytes bytes;
  for (size_t w = 0; w < 8; ++w) {
    for (size_t j = 0; j < 4; ++j) bytes[4 * w + j] = static_cast<uint8_t>(*state[w].value() >> (24 - 8 * j));
  }
  trim_to_fr32(bytes);
  const Fr node = node_bytes_to_fr(bytes);
  sink.alloc([] { return "packed digest"; }, [&node] { return node; });
  return node;
}

}  // namespace

size_t sha256_hash2_witness_len() {
  static const size_t n = [] {
    CountSink c;
    hash2_values(Fr::zero(), Fr::zero(), c);
    return c.used();
  }();
  return n;
}

Fr sha256_hash2_witness(const Fr& a, const Fr& b, std::span<Fr> out) {
  if (out.size() != sha256_hash2_witness_len()) {
    throw std::invalid_argument("SHA-256 node witness: " + std::to_string(out.size()) + " values, needs " +
                                std::to_string(sha256_hash2_witness_len()));
  }
  SpanSink sink(out.data(), out.data() + out.size());
  const Fr node = hash2_values(a, b, sink);
  if (sink.used() != out.size()) throw std::logic_error("SHA-256 witness: fewer values than counted");
  return node;
}

size_t sha256_insert_hash_witness_len() {
  return 2 + sha256_hash2_witness_len();
}

Fr sha256_insert_hash_witness(const Fr& cur, const Fr& sibling, bool bit, std::span<Fr> out) {
  if (out.size() != sha256_insert_hash_witness_len()) {
    throw std::invalid_argument("SHA-256 PoR level witness: " + std::to_string(out.size()) + " values, needs " +
                                std::to_string(sha256_insert_hash_witness_len()));
  }
  // insert_2: [pick(bit, sibling, cur), pick(bit, cur, sibling)].
  out[0] = bit ? sibling : cur;
  out[1] = bit ? cur : sibling;
  return sha256_hash2_witness(out[0], out[1], out.subspan(2));
}

}  // namespace cuzk::gadgets
