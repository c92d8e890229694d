#include "engine/request_digest.hpp"

#include <span>
#include <string_view>
#include <vector>

#include "gadgets/sha256_native.hpp"

namespace cuzk::engine {

namespace {

// SHA-256 over a stream of fields, compressing whole blocks as they fill (a 32 GiB PoRep's C1 is
// ~50 MB: hashed in place, never copied).
class Hasher {
 public:
  void field(uint8_t tag, std::string_view bytes) {
    uint8_t head[9] = {tag};
    const uint64_t n = bytes.size();
    for (int i = 0; i < 8; ++i) head[1 + i] = static_cast<uint8_t>(n >> (8 * i));
    append({head, sizeof head});
    append({reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()});
  }
  void field(uint8_t tag, uint64_t v) {
    uint8_t le[8];
    for (int i = 0; i < 8; ++i) le[i] = static_cast<uint8_t>(v >> (8 * i));
    field(tag, std::string_view(reinterpret_cast<const char*>(le), sizeof le));
  }
  void list(uint8_t tag, const std::vector<std::string>& items) {
    field(tag, static_cast<uint64_t>(items.size()));
    for (const std::string& s : items) field(tag, s);
  }

  RequestDigest finish() {
    const uint64_t bits = total_ * 8;
    const uint8_t one = 0x80;
    append({&one, 1});
    const uint8_t zero[64] = {};
    const size_t pad = (fill_ <= 56 ? 56 - fill_ : 120 - fill_);
    append({zero, pad});
    uint8_t len[8];
    for (int i = 0; i < 8; ++i) len[i] = static_cast<uint8_t>(bits >> (56 - 8 * i));
    append({len, sizeof len});
    return gadgets::sha256_native_state_bytes(state_);
  }

 private:
  void append(std::span<const uint8_t> data) {
    total_ += data.size();
    if (fill_ > 0) {
      const size_t take = std::min(data.size(), block_.size() - fill_);
      std::copy_n(data.begin(), take, block_.begin() + static_cast<std::ptrdiff_t>(fill_));
      fill_ += take;
      data = data.subspan(take);
      if (fill_ < block_.size()) return;
      gadgets::sha256_native_compress(state_, block_);
      fill_ = 0;
    }
    const size_t whole = data.size() / 64 * 64;
    if (whole > 0) gadgets::sha256_native_compress_blocks(state_, data.first(whole));
    data = data.subspan(whole);
    std::copy(data.begin(), data.end(), block_.begin());
    fill_ = data.size();
  }

  gadgets::Sha256State state_ = gadgets::sha256_native_iv();
  std::array<uint8_t, 64> block_{};
  size_t fill_ = 0;
  uint64_t total_ = 0;  // bytes appended (finish reads it before appending the padding)
};

}  // namespace

RequestDigest request_digest(const ProofRequest& r) {
  Hasher h;
  h.field(1, static_cast<uint64_t>(r.kind));
  h.field(2, r.circuit_id);
  h.field(3, r.sector_size);
  h.field(4, r.registered_proof);
  h.field(5, r.sector_number);
  h.field(6, r.miner_id);
  h.field(7, r.vanilla_proof);
  h.list(8, r.vanilla_proofs);
  h.field(9, r.randomness);
  h.field(10, static_cast<uint64_t>(r.partition_index));
  h.field(11, r.comm_r_old);
  h.field(12, r.comm_r_new);
  h.field(13, r.comm_d_new);
  h.list(14, r.witnesses);
  h.list(15, r.partition_inputs);
  return h.finish();
}

std::string digest_prefix(const RequestDigest& digest) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < 8; ++i) {
    out += kHex[digest[i] >> 4];
    out += kHex[digest[i] & 15];
  }
  return out;
}

}  // namespace cuzk::engine
