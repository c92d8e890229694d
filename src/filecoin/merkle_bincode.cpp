#include "filecoin/merkle_bincode.hpp"

#include <vector>

namespace cuzk::filecoin {
namespace {

constexpr size_t kPathElementMin = 8 + 8;  // no hashes, index
constexpr const char* kVariants[] = {"Single", "Sub", "Top"};

template <class F>
auto at_field(const JsonPath& p, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const BincodeError& e) {
    throw BincodeFieldError(p.str(), e.what());
  }
}

// An InclusionPath: a struct whose one field is `path`.
std::vector<PathElement> read_path(BincodeReader& r, const JsonPath& inclusion_path) {
  const JsonPath p = inclusion_path.field("path");
  const size_t n = read_seq_len(r, p, kPathElementMin);
  std::vector<PathElement> out(n);
  for (size_t i = 0; i < n; ++i) {
    const JsonPath e = p.at(i);
    const JsonPath hp = e.field("hashes");
    const size_t m = read_seq_len(r, hp, kBincodeDomainBytes);
    out[i].hashes.reserve(m);
    for (size_t j = 0; j < m; ++j) out[i].hashes.push_back(read_domain(r, hp.at(j)));
    out[i].index = at_field(e.field("index"), [&] { return r.u64(); });
  }
  return out;
}

void write_path(BincodeWriter& w, const std::vector<PathElement>& path) {
  w.seq_len(path.size());
  for (const PathElement& e : path) {
    w.seq_len(e.hashes.size());
    for (const Bytes32& h : e.hashes) w.bytes32(h);
    w.u64(e.index);
  }
}

}  // namespace

Bytes32 read_domain(BincodeReader& r, const JsonPath& at) {
  return at_field(at, [&] { return r.bytes32(); });
}

size_t read_seq_len(BincodeReader& r, const JsonPath& at, size_t min_element_bytes) {
  return at_field(at, [&] { return r.seq_len(min_element_bytes); });
}

MerkleProof read_merkle_proof(BincodeReader& r, const JsonPath& at) {
  const JsonPath data = at.field("data");
  const uint32_t tag = at_field(data, [&] { return r.u32(); });
  if (tag > 2) {
    throw BincodeFieldError(data.str(),
                            "unknown MerkleProof variant " + std::to_string(tag) + " (0 Single, 1 Sub, 2 Top)");
  }
  const JsonPath d = data.field(kVariants[tag]);
  MerkleProof mp;
  if (tag == 0) {
    mp.shape = MerkleShape::kSingle;
    mp.root = read_domain(r, d.field("root"));
    mp.leaf = read_domain(r, d.field("leaf"));
    mp.base = read_path(r, d.field("path"));
    return mp;
  }
  mp.shape = tag == 1 ? MerkleShape::kSub : MerkleShape::kTop;
  mp.base = read_path(r, d.field("base_proof"));
  mp.sub = read_path(r, d.field("sub_proof"));
  if (tag == 2) mp.top = read_path(r, d.field("top_proof"));
  mp.root = read_domain(r, d.field("root"));
  mp.leaf = read_domain(r, d.field("leaf"));
  return mp;
}

void write_merkle_proof(BincodeWriter& w, const MerkleProof& mp) {
  switch (mp.shape) {
    case MerkleShape::kSingle:
      w.u32(0);
      w.bytes32(mp.root);
      w.bytes32(mp.leaf);
      write_path(w, mp.base);
      return;
    case MerkleShape::kSub:
    case MerkleShape::kTop:
      w.u32(mp.shape == MerkleShape::kSub ? 1 : 2);
      write_path(w, mp.base);
      write_path(w, mp.sub);
      if (mp.shape == MerkleShape::kTop) write_path(w, mp.top);
      w.bytes32(mp.root);
      w.bytes32(mp.leaf);
      return;
  }
}

}  // namespace cuzk::filecoin
