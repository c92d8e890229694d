// Parsing of the C1 output and its wrapper with simdjson's On-Demand API: one forward pass over
// the text, values decoded straight into the structures (no DOM; a 32 GiB C1 file is ~51 MB).
// Fields may come in any order, unknown fields are rejected (serde's field names are fixed, so
// an unknown one means a wrong or corrupted producer), "_h" (a serialized PhantomData) is skipped.
#include <simdjson.h>

#include <initializer_list>
#include <limits>
#include <stdexcept>
#include <vector>

#include "filecoin/base64.hpp"
#include "filecoin/c1_error.hpp"
#include "filecoin/c1_output.hpp"
#include "util/quote.hpp"

namespace cuzk::filecoin {
namespace {

namespace od = simdjson::ondemand;

std::string describe(simdjson::error_code e) {
  return simdjson::error_message(e);
}

// Visits an object's fields: `keys` are the field names allowed (all required); `on_field(i, v, p)`
// gets the index of the key, its value and its path. Rejects unknown and duplicate fields and
// names the first missing one.
template <class F>
void for_fields(od::object obj, const JsonPath& p, std::initializer_list<const char*> keys, F&& on_field,
                bool all_required = true) {
  uint32_t seen = 0;
  for (auto res : obj) {
    od::field field;
    if (auto e = std::move(res).get(field)) p.fail("malformed object (" + describe(e) + ")");
    std::string_view key;
    if (auto e = field.unescaped_key().get(key)) p.fail("malformed field name (" + describe(e) + ")");
    size_t i = 0;
    for (const char* k : keys) {
      if (key == k) break;
      ++i;
    }
    if (i == keys.size()) {
      if (key == "_h") continue;  // PhantomData, serialized as null; its value is skipped
      std::string known;
      for (const char* k : keys) known += std::string(known.empty() ? "" : ", ") + k;
      p.fail("unknown field " + short_quote(key) + " (expected " + known + ")");
    }
    const char* k = keys.begin()[i];
    if (seen & (1u << i)) p.fail("duplicate field \"" + std::string(k) + "\"");
    seen |= 1u << i;
    on_field(i, field.value(), p.field(k));
  }
  if (!all_required) return;
  size_t i = 0;
  for (const char* k : keys) {
    if (!(seen & (1u << i))) p.fail("missing field \"" + std::string(k) + "\"");
    ++i;
  }
}

od::object get_object(od::value& v, const JsonPath& p) {
  od::object obj;
  if (auto e = v.get_object().get(obj)) p.fail("expected an object (" + describe(e) + ")");
  return obj;
}

od::array get_array(od::value& v, const JsonPath& p) {
  od::array arr;
  if (auto e = v.get_array().get(arr)) p.fail("expected an array (" + describe(e) + ")");
  return arr;
}

// Calls on_element(value, path) for each element of an array.
template <class F>
void for_elements(od::value& v, const JsonPath& p, F&& on_element) {
  size_t i = 0;
  for (auto res : get_array(v, p)) {
    od::value el;
    const JsonPath ep = p.at(i);
    if (auto e = std::move(res).get(el)) ep.fail("malformed array element (" + describe(e) + ")");
    on_element(el, ep);
    ++i;
  }
}

uint64_t get_u64(od::value& v, const JsonPath& p, uint64_t max = std::numeric_limits<uint64_t>::max()) {
  uint64_t x;
  if (auto e = v.get_uint64().get(x)) p.fail("expected an unsigned integer (" + describe(e) + ")");
  if (x > max) p.fail(std::to_string(x) + " is out of range (max " + std::to_string(max) + ")");
  return x;
}

std::string_view get_string(od::value& v, const JsonPath& p) {
  std::string_view s;
  if (auto e = v.get_string().get(s)) p.fail("expected a string (" + describe(e) + ")");
  return s;
}

// serde writes [u8; 32] and the hash domains as arrays of 32 integers.
Bytes32 get_bytes32(od::value& v, const JsonPath& p) {
  Bytes32 b{};
  size_t n = 0;
  for_elements(v, p, [&](od::value& el, const JsonPath& ep) {
    const auto x = get_u64(el, ep, 255);
    if (n < b.size()) b[n] = static_cast<uint8_t>(x);
    ++n;
  });
  if (n != b.size()) p.fail("expected 32 bytes, got " + std::to_string(n));
  return b;
}

std::vector<Bytes32> get_bytes32_list(od::value& v, const JsonPath& p) {
  std::vector<Bytes32> out;
  for_elements(v, p, [&](od::value& el, const JsonPath& ep) { out.push_back(get_bytes32(el, ep)); });
  return out;
}

// InclusionPath: {"path": [{"hashes": [D...], "index": n}, ...]}
std::vector<PathElement> get_inclusion_path(od::value& v, const JsonPath& p) {
  std::vector<PathElement> path;
  for_fields(get_object(v, p), p, {"path"}, [&](size_t, od::value& pv, const JsonPath& pp) {
    for_elements(pv, pp, [&](od::value& el, const JsonPath& ep) {
      PathElement pe;
      for_fields(get_object(el, ep), ep, {"hashes", "index"}, [&](size_t i, od::value& fv, const JsonPath& fp) {
        if (i == 0)
          pe.hashes = get_bytes32_list(fv, fp);
        else
          pe.index = get_u64(fv, fp);
      });
      path.push_back(std::move(pe));
    });
  });
  return path;
}

// MerkleProof: {"data": {"Single": {root, leaf, path} | "Sub": {base_proof, sub_proof, root, leaf}
//                        | "Top": {base_proof, sub_proof, top_proof, root, leaf}}}
MerkleProof get_merkle_proof(od::value& v, const JsonPath& p) {
  MerkleProof mp;
  for_fields(get_object(v, p), p, {"data"}, [&](size_t, od::value& dv, const JsonPath& dp) {
    size_t variants = 0;
    for_fields(
        get_object(dv, dp), dp, {"Single", "Sub", "Top"},
        [&](size_t i, od::value& sv, const JsonPath& sp) {
          if (++variants > 1) dp.fail("expected exactly one of Single, Sub, Top");
          od::object obj = get_object(sv, sp);
          if (i == 0) {
            mp.shape = MerkleShape::kSingle;
            for_fields(obj, sp, {"root", "leaf", "path"}, [&](size_t f, od::value& fv, const JsonPath& fp) {
              if (f == 0)
                mp.root = get_bytes32(fv, fp);
              else if (f == 1)
                mp.leaf = get_bytes32(fv, fp);
              else
                mp.base = get_inclusion_path(fv, fp);
            });
          } else if (i == 1) {
            mp.shape = MerkleShape::kSub;
            for_fields(obj, sp, {"base_proof", "sub_proof", "root", "leaf"},
                       [&](size_t f, od::value& fv, const JsonPath& fp) {
                         if (f == 0)
                           mp.base = get_inclusion_path(fv, fp);
                         else if (f == 1)
                           mp.sub = get_inclusion_path(fv, fp);
                         else if (f == 2)
                           mp.root = get_bytes32(fv, fp);
                         else
                           mp.leaf = get_bytes32(fv, fp);
                       });
          } else {
            mp.shape = MerkleShape::kTop;
            for_fields(obj, sp, {"base_proof", "sub_proof", "top_proof", "root", "leaf"},
                       [&](size_t f, od::value& fv, const JsonPath& fp) {
                         if (f == 0)
                           mp.base = get_inclusion_path(fv, fp);
                         else if (f == 1)
                           mp.sub = get_inclusion_path(fv, fp);
                         else if (f == 2)
                           mp.top = get_inclusion_path(fv, fp);
                         else if (f == 3)
                           mp.root = get_bytes32(fv, fp);
                         else
                           mp.leaf = get_bytes32(fv, fp);
                       });
          }
        },
        /*all_required=*/false);
    if (variants == 0) dp.fail("expected one of Single, Sub, Top");
  });
  return mp;
}

// LabelingProof / EncodingProof: {"parents": [D...], "layer_index": u32, "node": u64}
LabelingProof get_labeling_proof(od::value& v, const JsonPath& p) {
  LabelingProof lp;
  for_fields(get_object(v, p), p, {"parents", "layer_index", "node"}, [&](size_t i, od::value& fv, const JsonPath& fp) {
    if (i == 0)
      lp.parents = get_bytes32_list(fv, fp);
    else if (i == 1)
      lp.layer_index = static_cast<uint32_t>(get_u64(fv, fp, std::numeric_limits<uint32_t>::max()));
    else
      lp.node = get_u64(fv, fp);
  });
  return lp;
}

// ColumnProof: {"column": {"index": u32, "rows": [D...], "_h": null}, "inclusion_proof": MerkleProof}
ColumnProof get_column_proof(od::value& v, const JsonPath& p) {
  ColumnProof cp;
  for_fields(get_object(v, p), p, {"column", "inclusion_proof"}, [&](size_t i, od::value& fv, const JsonPath& fp) {
    if (i == 1) {
      cp.inclusion_proof = get_merkle_proof(fv, fp);
      return;
    }
    for_fields(get_object(fv, fp), fp, {"index", "rows"}, [&](size_t f, od::value& cv, const JsonPath& cpath) {
      if (f == 0)
        cp.column.index = static_cast<uint32_t>(get_u64(cv, cpath, std::numeric_limits<uint32_t>::max()));
      else
        cp.column.rows = get_bytes32_list(cv, cpath);
    });
  });
  return cp;
}

std::vector<ColumnProof> get_column_proofs(od::value& v, const JsonPath& p) {
  std::vector<ColumnProof> out;
  for_elements(v, p, [&](od::value& el, const JsonPath& ep) { out.push_back(get_column_proof(el, ep)); });
  return out;
}

VanillaProof get_vanilla_proof(od::value& v, const JsonPath& p) {
  VanillaProof vp;
  for_fields(get_object(v, p), p,
             {"comm_d_proofs", "comm_r_last_proof", "replica_column_proofs", "labeling_proofs", "encoding_proof"},
             [&](size_t i, od::value& fv, const JsonPath& fp) {
               switch (i) {
                 case 0:
                   vp.comm_d_proofs = get_merkle_proof(fv, fp);
                   break;
                 case 1:
                   vp.comm_r_last_proof = get_merkle_proof(fv, fp);
                   break;
                 case 2:
                   for_fields(get_object(fv, fp), fp, {"c_x", "drg_parents", "exp_parents"},
                              [&](size_t f, od::value& cv, const JsonPath& cpath) {
                                auto& rcp = vp.replica_column_proofs;
                                if (f == 0)
                                  rcp.c_x = get_column_proof(cv, cpath);
                                else if (f == 1)
                                  rcp.drg_parents = get_column_proofs(cv, cpath);
                                else
                                  rcp.exp_parents = get_column_proofs(cv, cpath);
                              });
                   break;
                 case 3:
                   for_elements(fv, fp, [&](od::value& el, const JsonPath& ep) {
                     vp.labeling_proofs.push_back(get_labeling_proof(el, ep));
                   });
                   break;
                 default:
                   vp.encoding_proof = get_labeling_proof(fv, fp);
                   break;
               }
             });
  return vp;
}

// vanilla_proofs: {"<VanillaSealProof variant>": [[Proof...]...]}. The variant is checked against
// registered_proof in validation (the key may come before registered_proof in the text).
void get_vanilla_proofs(od::value& v, const JsonPath& p, std::string& variant,
                        std::vector<std::vector<VanillaProof>>& out) {
  size_t n = 0;
  for (auto res : get_object(v, p)) {
    od::field field;
    if (auto e = std::move(res).get(field)) p.fail("malformed object (" + describe(e) + ")");
    std::string_view key;
    if (auto e = field.unescaped_key().get(key)) p.fail("malformed field name (" + describe(e) + ")");
    if (++n > 1) p.fail("expected exactly one VanillaSealProof variant, got a second one " + short_quote(key));
    variant = std::string(key);
    // The path names the variant; it must outlive the JsonPath that points at it.
    const JsonPath vp = p.field(variant.c_str());
    for_elements(field.value(), vp, [&](od::value& part, const JsonPath& pp) {
      std::vector<VanillaProof> proofs;
      for_elements(part, pp, [&](od::value& el, const JsonPath& ep) { proofs.push_back(get_vanilla_proof(el, ep)); });
      out.push_back(std::move(proofs));
    });
  }
  if (n == 0) p.fail("expected one VanillaSealProof variant (e.g. \"StackedDrg32GiBV1\"), got an empty object");
}

// Fails unless the document has been consumed to its end.
void expect_end(od::document& doc) {
  const char* loc = nullptr;
  if (!doc.current_location().get(loc)) JsonPath().fail("unexpected content after the top-level object");
}

od::document iterate(od::parser& parser, const simdjson::padded_string_view& json) {
  od::document doc;
  if (auto e = parser.iterate(json).get(doc)) JsonPath().fail("not a JSON document (" + describe(e) + ")");
  return doc;
}

od::object root_object(od::document& doc) {
  od::object obj;
  if (auto e = doc.get_object().get(obj)) JsonPath().fail("expected a JSON object (" + describe(e) + ")");
  return obj;
}

SealCommitPhase1Output parse_c1_padded(const simdjson::padded_string_view& json, const C1ValidateOptions& options) {
  od::parser parser;
  od::document doc = iterate(parser, json);
  SealCommitPhase1Output c1;
  std::string variant;
  const JsonPath root;
  for_fields(root_object(doc), root,
             {"registered_proof", "vanilla_proofs", "comm_r", "comm_d", "replica_id", "seed", "ticket"},
             [&](size_t i, od::value& v, const JsonPath& p) {
               switch (i) {
                 case 0:
                   try {
                     c1.registered_proof = &registered_seal_proof(get_string(v, p));
                   } catch (const std::invalid_argument& e) {
                     p.fail(e.what());
                   }
                   break;
                 case 1:
                   get_vanilla_proofs(v, p, variant, c1.vanilla_proofs);
                   break;
                 case 2:
                   c1.comm_r = get_bytes32(v, p);
                   break;
                 case 3:
                   c1.comm_d = get_bytes32(v, p);
                   break;
                 case 4:
                   c1.replica_id = get_bytes32(v, p);
                   break;
                 case 5:
                   c1.seed = get_bytes32(v, p);
                   break;
                 default:
                   c1.ticket = get_bytes32(v, p);
                   break;
               }
             });
  expect_end(doc);
  const std::string_view expected = c1.registered_proof->vanilla_proof_variant();
  if (variant != expected) {
    JsonPath()
        .field("vanilla_proofs")
        .fail("variant " + short_quote(variant) + " does not match registered_proof " +
              std::string(c1.registered_proof->name) + " (expected \"" + std::string(expected) + "\")");
  }
  validate_c1_output(c1, options);
  return c1;
}

// A copy of `bytes` followed by simdjson's required padding.
simdjson::padded_string pad(std::string_view bytes) {
  return simdjson::padded_string(bytes.data(), bytes.size());
}

C1Wrapper parse_wrapper_padded(const simdjson::padded_string_view& json, const C1ValidateOptions& options) {
  od::parser parser;
  od::document doc = iterate(parser, json);
  C1Wrapper w;
  w.wrapped = true;
  std::vector<uint8_t> inner;
  const JsonPath root;
  for_fields(root_object(doc), root, {"SectorNum", "Phase1Out", "SectorSize"},
             [&](size_t i, od::value& v, const JsonPath& p) {
               if (i == 0) {
                 w.sector_num = get_u64(v, p, std::numeric_limits<int64_t>::max());
               } else if (i == 1) {
                 const std::string_view b64 = get_string(v, p);
                 try {
                   inner.reserve(b64.size() / 4 * 3 + simdjson::SIMDJSON_PADDING);
                   base64_decode(b64, inner);
                 } catch (const std::invalid_argument& e) {
                   p.fail(e.what());
                 }
               } else {
                 w.sector_size = get_u64(v, p);
               }
             });
  expect_end(doc);
  const size_t len = inner.size();
  inner.resize(len + simdjson::SIMDJSON_PADDING, 0);
  try {
    w.c1 = parse_c1_padded(simdjson::padded_string_view(reinterpret_cast<const char*>(inner.data()), len, inner.size()),
                           options);
  } catch (const C1Error& e) {
    // Name where the problem is: inside the decoded Phase1Out document.
    throw C1Error(e.path().empty() ? "Phase1Out" : "Phase1Out/" + e.path(), e.problem());
  }
  if (w.sector_size != w.c1.registered_proof->shape.sector_size) {
    root.field("SectorSize")
        .fail(std::to_string(w.sector_size) + " does not match registered_proof " +
              std::string(w.c1.registered_proof->name) + " (" +
              std::to_string(w.c1.registered_proof->shape.sector_size) + " bytes)");
  }
  return w;
}

// True when the first key of the top-level object is one of the wrapper's.
bool looks_like_wrapper(std::string_view json) {
  const size_t brace = json.find_first_not_of(" \t\r\n");
  if (brace == std::string_view::npos || json[brace] != '{') return false;
  const size_t q = json.find_first_not_of(" \t\r\n", brace + 1);
  if (q == std::string_view::npos || json[q] != '"') return false;
  const std::string_view rest = json.substr(q + 1);
  for (std::string_view k : {"SectorNum\"", "Phase1Out\"", "SectorSize\""}) {
    if (rest.substr(0, k.size()) == k) return true;
  }
  return false;
}

C1Wrapper parse_any_padded(const simdjson::padded_string_view& json, const C1ValidateOptions& options) {
  if (looks_like_wrapper(std::string_view(json.data(), json.size()))) return parse_wrapper_padded(json, options);
  C1Wrapper w;
  w.c1 = parse_c1_padded(json, options);
  w.sector_size = w.c1.registered_proof->shape.sector_size;
  return w;
}

}  // namespace

uint64_t MerkleProof::path_index(uint32_t base_arity, uint32_t sub_arity, uint32_t top_arity) const {
  // Digits from the root down: top, then sub, then the base levels from the last to the first.
  uint64_t index = 0;
  for (const auto& e : top) index = index * top_arity + e.index;
  for (const auto& e : sub) index = index * sub_arity + e.index;
  for (size_t i = base.size(); i-- > 0;) index = index * base_arity + base[i].index;
  return index;
}

SealCommitPhase1Output parse_c1_output(std::string_view json, const C1ValidateOptions& options) {
  const auto padded = pad(json);
  return parse_c1_padded(padded, options);
}

C1Wrapper parse_c1_wrapper(std::string_view json, const C1ValidateOptions& options) {
  const auto padded = pad(json);
  return parse_wrapper_padded(padded, options);
}

C1Wrapper parse_c1_any(std::string_view json, const C1ValidateOptions& options) {
  const auto padded = pad(json);
  return parse_any_padded(padded, options);
}

C1Wrapper parse_c1_file(const std::string& path, const C1ValidateOptions& options) {
  simdjson::padded_string text;
  if (auto e = simdjson::padded_string::load(path).get(text)) {
    throw std::runtime_error("cannot read C1 file " + path + ": " + describe(e));
  }
  return parse_any_padded(text, options);
}

}  // namespace cuzk::filecoin
