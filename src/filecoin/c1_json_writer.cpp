// serde_json's compact serialization of the C1 output: struct fields in declaration order, enums
// externally tagged, [u8; 32] and hash domains as arrays of integers, PhantomData as null.
#include <string>

#include "filecoin/base64.hpp"
#include "filecoin/c1_output.hpp"

namespace cuzk::filecoin {
namespace {

class Writer {
 public:
  std::string out;

  void raw(std::string_view s) { out += s; }
  void key(std::string_view k) {
    out += '"';
    out += k;
    out += "\":";
  }
  void u64(uint64_t x) { out += std::to_string(x); }
  void bytes(const Bytes32& b) {
    out += '[';
    for (size_t i = 0; i < b.size(); ++i) {
      if (i) out += ',';
      out += std::to_string(b[i]);
    }
    out += ']';
  }
  template <class T, class F>
  void list(const std::vector<T>& v, F&& each) {
    out += '[';
    for (size_t i = 0; i < v.size(); ++i) {
      if (i) out += ',';
      each(v[i]);
    }
    out += ']';
  }
  void bytes_list(const std::vector<Bytes32>& v) {
    list(v, [&](const Bytes32& b) { bytes(b); });
  }
  void inclusion_path(const std::vector<PathElement>& path) {
    raw("{");
    key("path");
    list(path, [&](const PathElement& e) {
      raw("{");
      key("hashes");
      bytes_list(e.hashes);
      raw(",");
      key("index");
      u64(e.index);
      raw("}");
    });
    raw("}");
  }
  void merkle(const MerkleProof& mp) {
    raw("{\"data\":{");
    if (mp.shape == MerkleShape::kSingle) {
      raw("\"Single\":{");
      key("root");
      bytes(mp.root);
      raw(",");
      key("leaf");
      bytes(mp.leaf);
      raw(",");
      key("path");
      inclusion_path(mp.base);
    } else {
      raw(mp.shape == MerkleShape::kSub ? "\"Sub\":{" : "\"Top\":{");
      key("base_proof");
      inclusion_path(mp.base);
      raw(",");
      key("sub_proof");
      inclusion_path(mp.sub);
      if (mp.shape == MerkleShape::kTop) {
        raw(",");
        key("top_proof");
        inclusion_path(mp.top);
      }
      raw(",");
      key("root");
      bytes(mp.root);
      raw(",");
      key("leaf");
      bytes(mp.leaf);
    }
    raw("}}}");
  }
  void column_proof(const ColumnProof& cp) {
    raw("{\"column\":{");
    key("index");
    u64(cp.column.index);
    raw(",");
    key("rows");
    bytes_list(cp.column.rows);
    raw(",\"_h\":null},");
    key("inclusion_proof");
    merkle(cp.inclusion_proof);
    raw("}");
  }
  void labeling(const LabelingProof& lp) {
    raw("{");
    key("parents");
    bytes_list(lp.parents);
    raw(",");
    key("layer_index");
    u64(lp.layer_index);
    raw(",");
    key("node");
    u64(lp.node);
    raw("}");
  }
  void vanilla(const VanillaProof& vp) {
    raw("{");
    key("comm_d_proofs");
    merkle(vp.comm_d_proofs);
    raw(",");
    key("comm_r_last_proof");
    merkle(vp.comm_r_last_proof);
    raw(",");
    key("replica_column_proofs");
    raw("{");
    key("c_x");
    column_proof(vp.replica_column_proofs.c_x);
    raw(",");
    key("drg_parents");
    list(vp.replica_column_proofs.drg_parents, [&](const ColumnProof& cp) { column_proof(cp); });
    raw(",");
    key("exp_parents");
    list(vp.replica_column_proofs.exp_parents, [&](const ColumnProof& cp) { column_proof(cp); });
    raw("},");
    key("labeling_proofs");
    list(vp.labeling_proofs, [&](const LabelingProof& lp) { labeling(lp); });
    raw(",");
    key("encoding_proof");
    labeling(vp.encoding_proof);
    raw("}");
  }
};

}  // namespace

std::string to_json(const SealCommitPhase1Output& c1) {
  Writer w;
  w.raw("{");
  w.key("registered_proof");
  w.raw("\"");
  w.raw(c1.registered_proof ? c1.registered_proof->name : std::string_view());
  w.raw("\",");
  w.key("vanilla_proofs");
  w.raw("{");
  w.key(c1.registered_proof ? c1.registered_proof->vanilla_proof_variant() : std::string_view());
  w.list(c1.vanilla_proofs,
         [&](const std::vector<VanillaProof>& part) { w.list(part, [&](const VanillaProof& vp) { w.vanilla(vp); }); });
  w.raw("},");
  w.key("comm_r");
  w.bytes(c1.comm_r);
  w.raw(",");
  w.key("comm_d");
  w.bytes(c1.comm_d);
  w.raw(",");
  w.key("replica_id");
  w.bytes(c1.replica_id);
  w.raw(",");
  w.key("seed");
  w.bytes(c1.seed);
  w.raw(",");
  w.key("ticket");
  w.bytes(c1.ticket);
  w.raw("}");
  return std::move(w.out);
}

std::string to_wrapper_json(const SealCommitPhase1Output& c1, uint64_t sector_num) {
  const std::string inner = to_json(c1);
  const uint64_t size = c1.registered_proof ? c1.registered_proof->shape.sector_size : 0;
  return "{\"SectorNum\":" + std::to_string(sector_num) + ",\"Phase1Out\":\"" +
         base64_encode(reinterpret_cast<const uint8_t*>(inner.data()), inner.size()) +
         "\",\"SectorSize\":" + std::to_string(size) + "}";
}

}  // namespace cuzk::filecoin
