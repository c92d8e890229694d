#include "pce/from_circom.hpp"

#include <algorithm>
#include <exception>
#include <filesystem>
#include <utility>
#include <vector>

namespace cuzk::pce {

namespace {

void append_row(r1cs::CompactMatrix& m, std::vector<std::pair<uint32_t, Fr>>& terms, r1cs::CoeffInterner& interner) {
  std::sort(terms.begin(), terms.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  size_t i = 0;
  while (i < terms.size()) {
    const uint32_t wire = terms[i].first;
    Fr sum = terms[i].second;
    for (++i; i < terms.size() && terms[i].first == wire; ++i) sum += terms[i].second;
    if (sum.is_zero()) continue;
    m.col.push_back(wire);
    m.coeff.push_back(interner.intern(sum));
  }
  m.row_ptr.push_back(m.col.size());
}

}  // namespace

r1cs::CompactR1cs compact_from_circom(const circom::CircomR1cs& in) {
  r1cs::CompactR1cs out;
  out.num_inputs = 1 + in.n_public();
  out.num_aux = in.n_wires - out.num_inputs;
  out.num_constraints = in.constraints.size() + out.num_inputs;
  r1cs::CoeffInterner interner;
  std::vector<std::pair<uint32_t, Fr>> terms;
  for (const circom::Constraint& con : in.constraints) {
    terms = con.a;
    append_row(out.a, terms, interner);
    terms = con.b;
    append_row(out.b, terms, interner);
    terms = con.c;
    append_row(out.c, terms, interner);
  }
  for (uint32_t i = 0; i < out.num_inputs; ++i) {
    terms.assign(1, {i, Fr::one()});
    append_row(out.a, terms, interner);
    terms.clear();
    append_row(out.b, terms, interner);
    append_row(out.c, terms, interner);
  }
  out.coeffs = std::move(interner).take();
  return out;
}

Result<Pce> pce_from_circom_file(const std::string& r1cs_path, BuildOptions options) {
  Result<circom::CircomR1cs> r = circom::load_r1cs(r1cs_path);
  if (!r) return make_error(r.error());
  if (options.circuit_id.empty()) {
    options.circuit_id = "circom:" + std::filesystem::path(r1cs_path).stem().string();
    if (options.circuit_id.size() > 127) options.circuit_id.resize(127);
  }
  try {
    return build_pce(compact_from_circom(*r), options);
  } catch (const std::exception& e) {
    return make_error(r1cs_path + ": " + e.what());
  }
}

}  // namespace cuzk::pce
