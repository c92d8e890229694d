#include "gadgets/sha256_hasher.hpp"

#include "gadgets/sha256_native.hpp"

namespace cuzk::gadgets {

Fr Sha256Hasher::hash_bytes(std::span<const uint8_t> bytes) {
  Sha256Digest d = sha256_native(bytes);
  trim_to_fr32(d);
  return node_bytes_to_fr(d);
}

Fr Sha256Hasher::hash_children(std::span<const Fr> children, size_t /*height*/) {
  std::vector<uint8_t> buf;
  buf.reserve(children.size() * 32);
  for (const Fr& c : children) {
    const NodeBytes b = fr_to_node_bytes(c);
    buf.insert(buf.end(), b.begin(), b.end());
  }
  return hash_bytes(buf);
}

Fr Sha256Hasher::hash2(const Fr& a, const Fr& b) {
  const Fr both[2] = {a, b};
  return hash_children(both);
}

}  // namespace cuzk::gadgets
