#include "groth16/zkey.hpp"

#include <algorithm>
#include <array>
#include <mutex>
#include <type_traits>

#include "ec/encoding.hpp"
#include "r1cs/binfile.hpp"
#include "util/thread_pool.hpp"

namespace cuzk::groth16 {

namespace {

using circom::ByteReader;

constexpr uint32_t kVersion = 1;
constexpr uint32_t kProtocolGroth16 = 1;
constexpr uint32_t kSecProtocol = 1, kSecHeader = 2, kSecIc = 3, kSecCoefs = 4, kSecA = 5, kSecB1 = 6, kSecB2 = 7,
                   kSecC = 8, kSecH = 9;
constexpr uint64_t kG1 = ec::G1_SNARKJS, kG2 = ec::G2_SNARKJS;
constexpr uint64_t kFrBytes = 32;
constexpr uint64_t kCoefBytes = 12 + kFrBytes;

std::string section_name(uint32_t id) {
  switch (id) {
    case kSecProtocol:
      return "protocol section (1)";
    case kSecHeader:
      return "Groth16 header section (2)";
    case kSecIc:
      return "IC section (3)";
    case kSecCoefs:
      return "coefficients section (4)";
    case kSecA:
      return "A points section (5)";
    case kSecB1:
      return "B1 points section (6)";
    case kSecB2:
      return "B2 points section (7)";
    case kSecC:
      return "C points section (8)";
    case kSecH:
      return "H points section (9)";
    default:
      return "section " + std::to_string(id);
  }
}

std::string protocol_name(uint32_t p) {
  switch (p) {
    case 1:
      return "Groth16";
    case 2:
      return "PLONK";
    case 10:
      return "FFLONK";
    default:
      return "unknown";
  }
}

template <class F>
std::array<uint8_t, F::NUM_BYTES> modulus_le() {
  std::array<uint8_t, F::NUM_BYTES> out{};
  for (size_t i = 0; i < F::NUM_BYTES; ++i) out[i] = static_cast<uint8_t>(F::MOD[i / 8] >> (8 * (i % 8)));
  return out;
}

// `u32 n8q` and the n8q-byte prime q: must be BLS12-381's base field (n8q = 48).
Result<uint32_t> read_fq_prime(ByteReader& r, const std::string& where) {
  uint32_t n8 = 0;
  if (!r.u32(n8)) return make_error(where + ": truncated before the base field size n8q");
  if (n8 > r.remaining()) {
    return make_error(where + ": base field size n8q = " + std::to_string(n8) + " exceeds the " +
                      std::to_string(r.remaining()) + " bytes left in the section");
  }
  std::span<const uint8_t> prime;
  (void)r.bytes(n8, prime);
  static const auto q_le = modulus_le<Fq>();
  if (n8 == Fq::NUM_BYTES && std::equal(prime.begin(), prime.end(), q_le.begin())) return n8;
  static constexpr std::string_view kBn254Q =
      "21888242871839275222246405745257275088696311157297823662689037894645226208583";
  const std::string found = n8 <= 64 ? circom::le_bytes_to_decimal(prime) : "a " + std::to_string(n8) + "-byte value";
  std::string msg = where + ": unsupported base field prime q = " + found + " (n8q = " + std::to_string(n8) +
                    "); only BLS12-381 (q = " + circom::le_bytes_to_decimal(q_le) + ", n8q = 48) is supported";
  if (found == kBn254Q) msg += "; the key is for BN254 (snarkjs bn128)";
  return make_error(msg);
}

// Where a point sits, turned into text only on error.
struct PointPos {
  const std::string* section;
  const char* label;  // "alpha1", or nullptr for "point i of n"
  uint64_t index;
  uint64_t count;
  uint64_t file_offset;
  std::string str() const {
    std::string s = *section + ": ";
    if (label != nullptr) {
      s += label;
    } else {
      s += "point " + std::to_string(index) + " of " + std::to_string(count);
    }
    return s + " (file offset " + std::to_string(file_offset) + ")";
  }
};

template <class P>
Result<P> decode_point(std::span<const uint8_t> b, const PointPos& at, bool subgroup) {
  const auto check = subgroup ? ec::SubgroupCheck::Yes : ec::SubgroupCheck::No;
  Result<P> p = [&]() -> Result<P> {
    if constexpr (std::is_same_v<P, G1Affine>) {
      return ec::g1_from_snarkjs(b, check);
    } else {
      return ec::g2_from_snarkjs(b, check);
    }
  }();
  if (!p) return make_error(at.str() + ": " + p.error());
  return p;
}

// Decodes `count` consecutive points of `section` (whose length has been checked).
template <class P>
Result<std::vector<P>> decode_points(const circom::BinFile& bf, const circom::BinSection& sec, uint64_t count,
                                     const std::string& where, bool subgroup) {
  constexpr uint64_t len = std::is_same_v<P, G1Affine> ? kG1 : kG2;
  std::vector<P> out(count);
  const auto body = bf.body(sec);
  // Decoding (Montgomery conversion, on-curve checks) is per point: spread it over the pool. The
  // error reported is the lowest-indexed bad point, whatever the thread timing.
  std::mutex mu;
  uint64_t bad_index = count;
  std::string bad_message;
  ThreadPool::global().parallel_chunks(count, 4096, [&](size_t lo, size_t hi) {
    for (uint64_t i = lo; i < hi; ++i) {
      auto p = decode_point<P>(body.subspan(i * len, len), PointPos{&where, nullptr, i, count, sec.offset + i * len},
                               subgroup);
      if (!p) {
        std::lock_guard lock(mu);
        if (i < bad_index) {
          bad_index = i;
          bad_message = p.error();
        }
        return;
      }
      out[i] = *p;
    }
  });
  if (bad_index < count) return make_error(bad_message);
  return out;
}

Result<bool> check_section_size(const circom::BinSection& sec, uint64_t expect, const std::string& where,
                                const std::string& formula) {
  if (sec.size != expect) {
    return make_error(where + ": " + std::to_string(sec.size) + " bytes, expected " + formula + " = " +
                      std::to_string(expect) + " (header and section disagree: truncated or corrupt)");
  }
  return true;
}

Result<bool> parse_header(const circom::BinFile& bf, const circom::BinSection& sec, const std::string& where,
                          const ZkeyOptions& opt, Zkey& z) {
  ByteReader r(bf.body(sec));
  auto n8q = read_fq_prime(r, where);
  if (!n8q) return make_error(n8q.error());
  z.n8q = *n8q;
  auto n8r = circom::read_bls12_381_fr_prime(r, where);
  if (!n8r) return make_error(n8r.error());
  z.n8r = *n8r;
  constexpr uint64_t expect = 4 + 48 + 4 + 32 + 12 + 3 * kG1 + 3 * kG2;
  if (!r.u32(z.n_vars) || !r.u32(z.n_public) || !r.u32(z.domain_size)) {
    return make_error(where + ": truncated before nVars, nPublic, domainSize (" + std::to_string(sec.size) +
                      " bytes, expected " + std::to_string(expect) + ")");
  }
  if (sec.size != expect) {
    return make_error(where + ": " + std::to_string(sec.size) + " bytes, expected " + std::to_string(expect) +
                      " (primes, counts, 3 G1 and 3 G2 points)");
  }
  if (z.n_vars == 0) return make_error(where + ": nVars is 0 (signal 0 is the constant 1)");
  if (uint64_t{z.n_public} + 1 > z.n_vars) {
    return make_error(where + ": nPublic + 1 = " + std::to_string(uint64_t{z.n_public} + 1) +
                      " exceeds nVars = " + std::to_string(z.n_vars));
  }
  if (z.domain_size == 0 || (z.domain_size & (z.domain_size - 1)) != 0) {
    return make_error(where + ": domainSize " + std::to_string(z.domain_size) + " is not a power of two");
  }
  while ((uint64_t{1} << z.log2_domain_size) < z.domain_size) ++z.log2_domain_size;
  // The domain holds the constraints plus one extra row per public signal (and the constant).
  if (z.domain_size <= z.n_public) {
    return make_error(where + ": domainSize " + std::to_string(z.domain_size) +
                      " is too small for nPublic + 1 = " + std::to_string(uint64_t{z.n_public} + 1) + " input rows");
  }
  const auto body = bf.body(sec);
  uint64_t pos = r.pos();
  auto g1 = [&](const char* label, G1Affine& out) -> Result<bool> {
    auto p = decode_point<G1Affine>(body.subspan(pos, kG1), PointPos{&where, label, 0, 0, sec.offset + pos},
                                    opt.check_vk_subgroup);
    if (!p) return make_error(p.error());
    if (p->infinity)
      return make_error(PointPos{&where, label, 0, 0, sec.offset + pos}.str() + ": is the point at infinity");
    out = *p;
    pos += kG1;
    return true;
  };
  auto g2 = [&](const char* label, G2Affine& out) -> Result<bool> {
    auto p = decode_point<G2Affine>(body.subspan(pos, kG2), PointPos{&where, label, 0, 0, sec.offset + pos},
                                    opt.check_vk_subgroup);
    if (!p) return make_error(p.error());
    if (p->infinity)
      return make_error(PointPos{&where, label, 0, 0, sec.offset + pos}.str() + ": is the point at infinity");
    out = *p;
    pos += kG2;
    return true;
  };
  if (auto ok = g1("alpha1", z.alpha1); !ok) return ok;
  if (auto ok = g1("beta1", z.beta1); !ok) return ok;
  if (auto ok = g2("beta2", z.beta2); !ok) return ok;
  if (auto ok = g2("gamma2", z.gamma2); !ok) return ok;
  if (auto ok = g1("delta1", z.delta1); !ok) return ok;
  if (auto ok = g2("delta2", z.delta2); !ok) return ok;
  return true;
}

Result<bool> parse_coefs(const circom::BinFile& bf, const circom::BinSection& sec, const std::string& where, Zkey& z) {
  ByteReader r(bf.body(sec));
  uint32_t n = 0;
  if (!r.u32(n)) return make_error(where + ": truncated before the coefficient count (section is empty)");
  const uint64_t expect = 4 + uint64_t{n} * kCoefBytes;  // < 2^32 * 2^6: no overflow
  if (sec.size != expect) {
    return make_error(where + ": " + std::to_string(sec.size) + " bytes, expected 4 + n * " +
                      std::to_string(kCoefBytes) + " = " + std::to_string(expect) + " for n = " + std::to_string(n) +
                      " coefficients (count and section length disagree: truncated or corrupt)");
  }
  z.coefs.reserve(n);
  for (uint32_t i = 0; i < n; ++i) {
    ZkeyCoef c;
    std::span<const uint8_t> v;
    (void)r.u32(c.matrix);
    (void)r.u32(c.constraint);
    (void)r.u32(c.signal);
    (void)r.bytes(kFrBytes, v);
    auto at = [&] {
      return where + ": entry " + std::to_string(i) + " of " + std::to_string(n) + " (file offset " +
             std::to_string(sec.offset + 4 + uint64_t{i} * kCoefBytes) + ")";
    };
    if (c.matrix > 1) {
      return make_error(at() + ": matrix id " + std::to_string(c.matrix) + " (expected 0 = A or 1 = B)");
    }
    if (c.constraint >= z.domain_size) {
      return make_error(at() + ": constraint " + std::to_string(c.constraint) +
                        " out of range (domainSize = " + std::to_string(z.domain_size) + ")");
    }
    if (c.signal >= z.n_vars) {
      return make_error(at() + ": signal " + std::to_string(c.signal) +
                        " out of range (nVars = " + std::to_string(z.n_vars) + ")");
    }
    ff::Limbs<4> l{};
    for (size_t k = 0; k < kFrBytes; ++k) l[k / 8] |= static_cast<uint64_t>(v[k]) << (8 * (k % 8));
    if (!ff::less_than(l, Fr::MOD)) return make_error(at() + ": value is not a canonical field element (>= r)");
    // The stored integer is coef * R^2: as Montgomery limbs it is the element coef * R, whose
    // canonical integer, read back as Montgomery limbs, is the element coef.
    c.value = Fr::from_raw(Fr::from_raw(l).to_canonical());
    z.coefs.push_back(c);
  }
  return true;
}

}  // namespace

Result<Zkey> parse_zkey(std::span<const uint8_t> bytes, std::string_view name, const ZkeyOptions& opt) {
  const std::string pre(name);
  auto bf = circom::parse_binfile(bytes, "zkey", name);
  if (!bf) return make_error(bf.error());
  if (bf->version != kVersion) {
    return make_error(pre + ": file header: version " + std::to_string(bf->version) + ", only version " +
                      std::to_string(kVersion) + " is supported");
  }
  const circom::BinSection* sec[10] = {};
  for (uint32_t id = kSecProtocol; id <= kSecH; ++id) {
    sec[id] = bf->find(id);
    if (sec[id] == nullptr) return make_error(pre + ": missing " + section_name(id));
  }
  auto where = [&](uint32_t id) { return pre + ": " + section_name(id); };

  // Section 1: the protocol.
  {
    ByteReader r(bf->body(*sec[kSecProtocol]));
    uint32_t protocol = 0;
    if (sec[kSecProtocol]->size != 4 || !r.u32(protocol)) {
      return make_error(where(kSecProtocol) + ": " + std::to_string(sec[kSecProtocol]->size) +
                        " bytes, expected 4 (u32 protocol id)");
    }
    if (protocol != kProtocolGroth16) {
      return make_error(where(kSecProtocol) + ": protocol " + std::to_string(protocol) + " (" +
                        protocol_name(protocol) + "); only Groth16 (1) proving keys are supported");
    }
  }

  Zkey z;
  if (auto ok = parse_header(*bf, *sec[kSecHeader], where(kSecHeader), opt, z); !ok) return make_error(ok.error());

  // Every point section's length follows from the header: check them all before allocating.
  const uint64_t n_vars = z.n_vars, n_pub1 = uint64_t{z.n_public} + 1, n_c = n_vars - n_pub1;
  struct Expect {
    uint32_t id;
    uint64_t bytes;
    std::string formula;
  };
  const Expect expects[] = {
      {kSecIc, n_pub1 * kG1, "(nPublic + 1) * 96"},
      {kSecA, n_vars * kG1, "nVars * 96"},
      {kSecB1, n_vars * kG1, "nVars * 96"},
      {kSecB2, n_vars * kG2, "nVars * 192"},
      {kSecC, n_c * kG1, "(nVars - nPublic - 1) * 96"},
      {kSecH, uint64_t{z.domain_size} * kG1, "domainSize * 96"},
  };
  for (const auto& e : expects) {
    const std::string counts = " (nVars = " + std::to_string(z.n_vars) + ", nPublic = " + std::to_string(z.n_public) +
                               ", domainSize = " + std::to_string(z.domain_size) + ")";
    if (auto ok = check_section_size(*sec[e.id], e.bytes, where(e.id), e.formula + counts); !ok) {
      return make_error(ok.error());
    }
  }

  auto ic = decode_points<G1Affine>(*bf, *sec[kSecIc], n_pub1, where(kSecIc), opt.check_vk_subgroup);
  if (!ic) return make_error(ic.error());
  z.ic = std::move(*ic);

  if (auto ok = parse_coefs(*bf, *sec[kSecCoefs], where(kSecCoefs), z); !ok) return make_error(ok.error());

  const bool all = opt.check_all_subgroups;
  auto a = decode_points<G1Affine>(*bf, *sec[kSecA], n_vars, where(kSecA), all);
  if (!a) return make_error(a.error());
  z.a = std::move(*a);
  auto b1 = decode_points<G1Affine>(*bf, *sec[kSecB1], n_vars, where(kSecB1), all);
  if (!b1) return make_error(b1.error());
  z.b1 = std::move(*b1);
  auto b2 = decode_points<G2Affine>(*bf, *sec[kSecB2], n_vars, where(kSecB2), all);
  if (!b2) return make_error(b2.error());
  z.b2 = std::move(*b2);
  auto c = decode_points<G1Affine>(*bf, *sec[kSecC], n_c, where(kSecC), all);
  if (!c) return make_error(c.error());
  z.c = std::move(*c);
  auto h = decode_points<G1Affine>(*bf, *sec[kSecH], z.domain_size, where(kSecH), all);
  if (!h) return make_error(h.error());
  z.h = std::move(*h);
  return z;
}

Result<Zkey> load_zkey(const std::string& path, const ZkeyOptions& opt) {
  auto bytes = circom::read_file_bytes(path);
  if (!bytes) return make_error(bytes.error());
  return parse_zkey(*bytes, path, opt);
}

}  // namespace cuzk::groth16
