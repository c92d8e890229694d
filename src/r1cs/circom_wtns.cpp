#include "r1cs/circom_wtns.hpp"

#include "r1cs/binfile.hpp"

namespace cuzk::circom {

namespace {
constexpr uint32_t kWtnsVersion = 2;
constexpr uint32_t kWtnsHeader = 1;
constexpr uint32_t kWtnsValues = 2;
}  // namespace

Result<std::vector<ff::Fr>> parse_wtns(std::span<const uint8_t> bytes, std::string_view name) {
  using Fr = ff::Fr;
  const std::string pre(name);
  auto bf = parse_binfile(bytes, "wtns", name);
  if (!bf) return make_error(bf.error());
  if (bf->version != kWtnsVersion) {
    return make_error(pre + ": file header: version " + std::to_string(bf->version) + ", only version " +
                      std::to_string(kWtnsVersion) + " is supported");
  }
  const BinSection* hs = bf->find(kWtnsHeader);
  if (hs == nullptr) return make_error(pre + ": missing header section (1)");
  const BinSection* vs = bf->find(kWtnsValues);
  if (vs == nullptr) return make_error(pre + ": missing values section (2)");

  const std::string hwhere = pre + ": header section (1)";
  ByteReader hr(bf->body(*hs));
  auto n8 = read_bls12_381_fr_prime(hr, hwhere);
  if (!n8) return make_error(n8.error());
  uint32_t n_witness = 0;
  if (!hr.u32(n_witness)) return make_error(hwhere + ": truncated before the witness count");
  if (hr.remaining() != 0) {
    return make_error(hwhere + ": " + std::to_string(hr.remaining()) + " unexpected bytes after the witness count");
  }

  const std::string vwhere = pre + ": values section (2)";
  const uint64_t expect = uint64_t{n_witness} * *n8;
  if (vs->size != expect) {
    return make_error(vwhere + ": " + std::to_string(vs->size) + " bytes, expected nWitness * n8 = " +
                      std::to_string(n_witness) + " * " + std::to_string(*n8) + " = " + std::to_string(expect));
  }
  ByteReader vr(bf->body(*vs));
  std::vector<Fr> out;
  out.reserve(n_witness);
  for (uint32_t i = 0; i < n_witness; ++i) {
    std::span<const uint8_t> b;
    (void)vr.bytes(*n8, b);
    auto v = Fr::from_bytes_le(b);
    if (!v) return make_error(vwhere + ": value " + std::to_string(i) + " is not a canonical field element (>= r)");
    out.push_back(*v);
  }
  return out;
}

Result<std::vector<ff::Fr>> load_wtns(const std::string& path) {
  auto bytes = read_file_bytes(path);
  if (!bytes) return make_error(bytes.error());
  return parse_wtns(*bytes, path);
}

}  // namespace cuzk::circom
