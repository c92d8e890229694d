#include "r1cs/circom_r1cs.hpp"

#include <algorithm>

#include "r1cs/binfile.hpp"

namespace cuzk::circom {

namespace {

constexpr uint32_t kR1csVersion = 1;
constexpr uint32_t kR1csHeader = 1;
constexpr uint32_t kR1csConstraints = 2;
constexpr uint32_t kR1csWireMap = 3;

std::string section_name(uint32_t id) {
  switch (id) {
    case kR1csHeader:
      return "header section (1)";
    case kR1csConstraints:
      return "constraints section (2)";
    case kR1csWireMap:
      return "wire-to-label section (3)";
    default:
      return "section " + std::to_string(id);
  }
}

Result<bool> parse_header(std::span<const uint8_t> body, const std::string& where, CircomR1cs& out) {
  ByteReader r(body);
  auto n8 = read_bls12_381_fr_prime(r, where);
  if (!n8) return make_error(n8.error());
  out.n8 = *n8;
  if (!r.u32(out.n_wires) || !r.u32(out.n_pub_out) || !r.u32(out.n_pub_in) || !r.u32(out.n_prv_in) ||
      !r.u64(out.n_labels) || !r.u32(out.n_constraints)) {
    return make_error(where + ": truncated (" + std::to_string(body.size()) + " bytes, expected " +
                      std::to_string(out.n8 + 32) + ")");
  }
  if (r.remaining() != 0) {
    return make_error(where + ": " + std::to_string(r.remaining()) + " unexpected bytes after the counts (" +
                      std::to_string(body.size()) + " bytes, expected " + std::to_string(out.n8 + 32) + ")");
  }
  if (out.n_wires == 0) return make_error(where + ": nWires is 0 (wire 0 is the constant 1)");
  const uint64_t named = uint64_t{1} + out.n_pub_out + out.n_pub_in + out.n_prv_in;
  if (named > out.n_wires) {
    return make_error(where + ": 1 + nPubOut + nPubIn + nPrvIn = " + std::to_string(named) +
                      " exceeds nWires = " + std::to_string(out.n_wires));
  }
  return true;
}

// Where a linear combination sits, turned into text only when there is an error to report (the
// success path builds no strings: large circuits have millions of constraints).
struct LcPos {
  const std::string* section;
  uint32_t constraint;
  uint32_t n_constraints;
  char which;  // 'A', 'B' or 'C'
  std::string str() const {
    return *section + ": constraint " + std::to_string(constraint) + " of " + std::to_string(n_constraints) + ", " +
           which;
  }
};

Result<bool> parse_lc(ByteReader& r, const CircomR1cs& h, const LcPos& at, std::vector<std::pair<uint32_t, Fr>>& lc) {
  uint32_t n_terms = 0;
  if (!r.u32(n_terms)) return make_error(at.str() + ": truncated before the term count");
  const uint64_t term_bytes = 4 + uint64_t{h.n8};
  const uint64_t need = n_terms * term_bytes;  // < 2^32 * 2^33: no overflow
  if (need > r.remaining()) {
    return make_error(at.str() + ": " + std::to_string(n_terms) + " terms need " + std::to_string(need) +
                      " bytes, only " + std::to_string(r.remaining()) + " left in the section");
  }
  lc.reserve(n_terms);
  for (uint32_t t = 0; t < n_terms; ++t) {
    uint32_t wire = 0;
    std::span<const uint8_t> coef;
    (void)r.u32(wire);
    (void)r.bytes(h.n8, coef);
    if (wire >= h.n_wires) {
      return make_error(at.str() + " term " + std::to_string(t) + ": wire id " + std::to_string(wire) +
                        " out of range (nWires = " + std::to_string(h.n_wires) + ")");
    }
    auto v = Fr::from_bytes_le(coef);
    if (!v) {
      return make_error(at.str() + " term " + std::to_string(t) + " (wire " + std::to_string(wire) +
                        "): coefficient is not a canonical field element (>= r)");
    }
    lc.emplace_back(wire, *v);
  }
  return true;
}

Result<bool> parse_constraints(std::span<const uint8_t> body, const std::string& where, CircomR1cs& out) {
  ByteReader r(body);
  // Each constraint takes at least 12 bytes (three term counts): never reserve more than the bytes allow.
  out.constraints.reserve(std::min<uint64_t>(out.n_constraints, body.size() / 12));
  for (uint32_t i = 0; i < out.n_constraints; ++i) {
    Constraint c;
    if (auto ok = parse_lc(r, out, LcPos{&where, i, out.n_constraints, 'A'}, c.a); !ok) return ok;
    if (auto ok = parse_lc(r, out, LcPos{&where, i, out.n_constraints, 'B'}, c.b); !ok) return ok;
    if (auto ok = parse_lc(r, out, LcPos{&where, i, out.n_constraints, 'C'}, c.c); !ok) return ok;
    out.constraints.push_back(std::move(c));
  }
  if (r.remaining() != 0) {
    return make_error(where + ": " + std::to_string(r.remaining()) + " trailing bytes after the " +
                      std::to_string(out.n_constraints) + " constraints the header announces");
  }
  return true;
}

Result<bool> parse_wire_map(std::span<const uint8_t> body, const std::string& where, CircomR1cs& out) {
  const uint64_t expect = uint64_t{out.n_wires} * 8;
  if (body.size() != expect) {
    return make_error(where + ": " + std::to_string(body.size()) +
                      " bytes, expected nWires * 8 = " + std::to_string(expect));
  }
  ByteReader r(body);
  out.wire_to_label.resize(out.n_wires);
  for (auto& l : out.wire_to_label) (void)r.u64(l);
  return true;
}

}  // namespace

Result<CircomR1cs> parse_r1cs(std::span<const uint8_t> bytes, std::string_view name) {
  const std::string pre(name);
  auto bf = parse_binfile(bytes, "r1cs", name);
  if (!bf) return make_error(bf.error());
  if (bf->version != kR1csVersion) {
    return make_error(pre + ": file header: version " + std::to_string(bf->version) + ", only version " +
                      std::to_string(kR1csVersion) + " is supported");
  }
  for (const auto& s : bf->sections) {
    if (s.id == 4 || s.id == 5) {
      return make_error(pre + ": section " + std::to_string(s.id) +
                        ": custom gates (PLONK only) are not supported for Groth16");
    }
  }
  for (uint32_t id : {kR1csHeader, kR1csConstraints, kR1csWireMap}) {
    if (bf->find(id) == nullptr) return make_error(pre + ": missing " + section_name(id));
  }
  CircomR1cs out;
  if (auto ok = parse_header(bf->body(*bf->find(kR1csHeader)), pre + ": " + section_name(kR1csHeader), out); !ok) {
    return make_error(ok.error());
  }
  if (auto ok =
          parse_constraints(bf->body(*bf->find(kR1csConstraints)), pre + ": " + section_name(kR1csConstraints), out);
      !ok) {
    return make_error(ok.error());
  }
  if (auto ok = parse_wire_map(bf->body(*bf->find(kR1csWireMap)), pre + ": " + section_name(kR1csWireMap), out); !ok) {
    return make_error(ok.error());
  }
  return out;
}

Result<CircomR1cs> load_r1cs(const std::string& path) {
  auto bytes = read_file_bytes(path);
  if (!bytes) return make_error(bytes.error());
  return parse_r1cs(*bytes, path);
}

Result<uint64_t> check_witness(const CircomR1cs& r1cs, std::span<const Fr> w) {
  if (w.size() != r1cs.n_wires) {
    return make_error("witness has " + std::to_string(w.size()) + " values, the r1cs has " +
                      std::to_string(r1cs.n_wires) + " wires");
  }
  if (w.empty() || !w[0].is_one()) return make_error("witness value 0 (the constant wire) is not 1");
  auto eval = [&](const std::vector<std::pair<uint32_t, Fr>>& lc) {
    Fr s = Fr::zero();
    for (const auto& [wire, coef] : lc) s += coef * w[wire];
    return s;
  };
  auto in_range = [&](const std::vector<std::pair<uint32_t, Fr>>& lc) {
    for (const auto& term : lc)
      if (term.first >= w.size()) return false;
    return true;
  };
  for (size_t i = 0; i < r1cs.constraints.size(); ++i) {
    const auto& c = r1cs.constraints[i];
    if (!in_range(c.a) || !in_range(c.b) || !in_range(c.c)) {
      return make_error("constraint " + std::to_string(i) + " uses a wire id >= " + std::to_string(w.size()));
    }
    if (eval(c.a) * eval(c.b) != eval(c.c)) {
      return make_error("constraint " + std::to_string(i) + " is not satisfied: <A,w> * <B,w> != <C,w>");
    }
  }
  return uint64_t{r1cs.constraints.size()};
}

}  // namespace cuzk::circom
