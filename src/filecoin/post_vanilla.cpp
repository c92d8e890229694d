#include "filecoin/post_vanilla.hpp"

#include <optional>
#include <string>

#include "filecoin/bincode.hpp"
#include "filecoin/c1_error.hpp"
#include "filecoin/post_error.hpp"

namespace cuzk::filecoin {
namespace {

// Smallest encodings, for seq_len's bound on a length prefix.
constexpr size_t kDomainBytes = 32;
constexpr size_t kPathElementMin = 8 + 8;                     // no hashes, index
constexpr size_t kMerkleProofMin = 4 + 8 + 2 * kDomainBytes;  // Single with an empty path
constexpr size_t kSectorProofMin = 8 + 2 * kDomainBytes;      // no inclusion proofs

constexpr const char* kVariants[] = {"Single", "Sub", "Top"};

class Parser {
 public:
  Parser(std::span<const uint8_t> bytes, size_t index) : r_(bytes), index_(index) {}

  FallbackPostSectorProof proof() {
    const JsonPath root;
    FallbackPostSectorProof out;
    out.sector_id = read(root.field("sector_id"), [&] { return r_.u64(); });
    sector_id_ = out.sector_id;
    out.comm_r = read(root.field("comm_r"), [&] { return r_.bytes32(); });
    const JsonPath vp = root.field("vanilla_proof");
    const JsonPath sectors = vp.field("sectors");
    const size_t n = read(sectors, [&] { return r_.seq_len(kSectorProofMin); });
    out.sectors.reserve(n);
    for (size_t i = 0; i < n; ++i) out.sectors.push_back(sector_proof(sectors.at(i)));
    read(root, [&] {
      r_.finish();
      return 0;
    });
    return out;
  }

 private:
  template <class F>
  auto read(const JsonPath& p, F&& f) -> decltype(f()) {
    try {
      return f();
    } catch (const BincodeError& e) {
      throw PostVanillaError(index_, sector_id_, p.str(), e.what());
    }
  }

  PostSectorProof sector_proof(const JsonPath& p) {
    PostSectorProof out;
    const JsonPath ips = p.field("inclusion_proofs");
    const size_t n = read(ips, [&] { return r_.seq_len(kMerkleProofMin); });
    out.inclusion_proofs.reserve(n);
    for (size_t i = 0; i < n; ++i) out.inclusion_proofs.push_back(merkle_proof(ips.at(i)));
    out.comm_c = read(p.field("comm_c"), [&] { return r_.bytes32(); });
    out.comm_r_last = read(p.field("comm_r_last"), [&] { return r_.bytes32(); });
    return out;
  }

  MerkleProof merkle_proof(const JsonPath& p) {
    const JsonPath data = p.field("data");
    const uint32_t tag = read(data, [&] { return r_.u32(); });
    if (tag > 2) {
      throw PostVanillaError(index_, sector_id_, data.str(),
                             "unknown MerkleProof variant " + std::to_string(tag) + " (0 Single, 1 Sub, 2 Top)");
    }
    const JsonPath d = data.field(kVariants[tag]);
    MerkleProof mp;
    if (tag == 0) {
      mp.shape = MerkleShape::kSingle;
      mp.root = read(d.field("root"), [&] { return r_.bytes32(); });
      mp.leaf = read(d.field("leaf"), [&] { return r_.bytes32(); });
      mp.base = path(d.field("path"));
      return mp;
    }
    mp.shape = tag == 1 ? MerkleShape::kSub : MerkleShape::kTop;
    mp.base = path(d.field("base_proof"));
    mp.sub = path(d.field("sub_proof"));
    if (tag == 2) mp.top = path(d.field("top_proof"));
    mp.root = read(d.field("root"), [&] { return r_.bytes32(); });
    mp.leaf = read(d.field("leaf"), [&] { return r_.bytes32(); });
    return mp;
  }

  // An InclusionPath: a struct whose one field is `path`.
  std::vector<PathElement> path(const JsonPath& inclusion_path) {
    const JsonPath p = inclusion_path.field("path");
    const size_t n = read(p, [&] { return r_.seq_len(kPathElementMin); });
    std::vector<PathElement> out(n);
    for (size_t i = 0; i < n; ++i) {
      const JsonPath e = p.at(i);
      const JsonPath hp = e.field("hashes");
      const size_t m = read(hp, [&] { return r_.seq_len(kDomainBytes); });
      out[i].hashes.reserve(m);
      for (size_t j = 0; j < m; ++j) out[i].hashes.push_back(read(hp.at(j), [&] { return r_.bytes32(); }));
      out[i].index = read(e.field("index"), [&] { return r_.u64(); });
    }
    return out;
  }

  BincodeReader r_;
  size_t index_;
  std::optional<uint64_t> sector_id_;
};

void write_path(BincodeWriter& w, const std::vector<PathElement>& path) {
  w.seq_len(path.size());
  for (const PathElement& e : path) {
    w.seq_len(e.hashes.size());
    for (const Bytes32& h : e.hashes) w.bytes32(h);
    w.u64(e.index);
  }
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

}  // namespace

FallbackPostSectorProof parse_post_sector_proof(std::span<const uint8_t> bytes, size_t index) {
  return Parser(bytes, index).proof();
}

std::vector<uint8_t> to_bincode(const FallbackPostSectorProof& proof) {
  BincodeWriter w;
  w.u64(proof.sector_id);
  w.bytes32(proof.comm_r);
  w.seq_len(proof.sectors.size());
  for (const PostSectorProof& s : proof.sectors) {
    w.seq_len(s.inclusion_proofs.size());
    for (const MerkleProof& mp : s.inclusion_proofs) write_merkle_proof(w, mp);
    w.bytes32(s.comm_c);
    w.bytes32(s.comm_r_last);
  }
  return std::move(w).take();
}

}  // namespace cuzk::filecoin
