#include "groth16/zkey.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cerrno>
#include <cstring>
#include <optional>
#include <type_traits>

#include "ec/encoding.hpp"
#include "ec/on_curve.hpp"
#include "r1cs/binfile.hpp"
#include "util/mapped_file.hpp"
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

// The fast path of decode_point for the bulk sections: snarkjs stores each coordinate as the
// little-endian words of its Montgomery form with R = 2^384, which is exactly Fq's own raw
// representation, so a point is copied as is; what remains is the validation (every coordinate
// reduced, all-zero bytes = infinity, and the point on its curve, checked in batches by the caller).
// Returns false on a bad coordinate; the caller re-decodes a bad point with decode_point() for
// the detailed error message.
static_assert(std::endian::native == std::endian::little, "the zkey loader copies little-endian words");
inline bool load_fq(const uint8_t* in, Fq& out) {
  ff::Limbs<6> l;
  std::memcpy(l.data(), in, sizeof(l));
  if (!ff::less_than(l, Fq::MOD)) return false;
  out = Fq::from_raw(l);
  return true;
}
inline bool all_zero(const uint8_t* in, size_t len) {
  uint64_t acc = 0;
  for (size_t i = 0; i < len; i += 8) {
    uint64_t w;
    std::memcpy(&w, in + i, 8);
    acc |= w;
  }
  return acc == 0;
}
inline bool fast_decode(const uint8_t* in, G1Affine& out) {
  if (all_zero(in, kG1)) {
    out = G1Affine();
    return true;
  }
  Fq x, y;
  if (!load_fq(in, x) || !load_fq(in + 48, y)) return false;
  out = G1Affine(x, y);
  return true;
}
inline bool fast_decode(const uint8_t* in, G2Affine& out) {
  if (all_zero(in, kG2)) {
    out = G2Affine();
    return true;
  }
  Fq x0, x1, y0, y1;
  if (!load_fq(in, x0) || !load_fq(in + 48, x1) || !load_fq(in + 96, y0) || !load_fq(in + 144, y1)) return false;
  out = G2Affine(ff::Fq2(x0, x1), ff::Fq2(y0, y1));
  return true;
}

// Decodes `count` consecutive points of `section` (whose length has been checked) into out[0..count),
// on the pool. Without subgroup checks every point takes the fast path above; the error reported is
// the lowest-indexed bad point, whatever the thread timing.
template <class P>
Result<bool> decode_points_into(std::span<const uint8_t> body, uint64_t offset, P* out, uint64_t count,
                                const std::string& where, bool subgroup) {
  constexpr uint64_t len = std::is_same_v<P, G1Affine> ? kG1 : kG2;
  std::atomic<uint64_t> bad_index{count};
  auto report = [&](uint64_t i) {
    uint64_t cur = bad_index.load();
    while (i < cur && !bad_index.compare_exchange_weak(cur, i)) {
    }
  };
  ThreadPool::global().parallel_chunks(count, 4096, [&](size_t lo, size_t hi) {
    if (subgroup) {
      for (uint64_t i = lo; i < hi; ++i) {
        auto p =
            decode_point<P>(body.subspan(i * len, len), PointPos{&where, nullptr, i, count, offset + i * len}, true);
        if (!p) return report(i);
        out[i] = *p;
      }
      return;
    }
    size_t end = hi;  // the first point with a bad coordinate, if any
    for (uint64_t i = lo; i < hi; ++i) {
      if (!fast_decode(body.data() + i * len, out[i])) {
        end = i;
        break;
      }
    }
    const size_t off = ec::first_off_curve(std::span<const P>(out + lo, end - lo));
    if (off < end - lo) {
      report(lo + off);
    } else if (end < hi) {
      report(end);
    }
  });
  const uint64_t bad = bad_index.load();
  if (bad < count) {
    auto p = decode_point<P>(body.subspan(bad * len, len), PointPos{&where, nullptr, bad, count, offset + bad * len},
                             subgroup);
    return make_error(p ? where + ": point " + std::to_string(bad) + " could not be decoded" : p.error());
  }
  return true;
}

// `count` points, on transparent huge pages where the kernel allows (fewer page faults while they
// are filled, fewer TLB misses when the MSMs read them at random).
template <class P>
void allocate_points(std::vector<P>& out, uint64_t count) {
  out.clear();
  out.reserve(count);
  advise_huge_pages(out.data(), count * sizeof(P));
  out.resize(count);
}

template <class P>
Result<bool> decode_points_into(const circom::BinFile& bf, const circom::BinSection& sec, std::vector<P>& out,
                                const std::string& where, bool subgroup) {
  return decode_points_into<P>(bf.body(sec), sec.offset, out.data(), out.size(), where, subgroup);
}

template <class P>
Result<std::vector<P>> decode_points(const circom::BinFile& bf, const circom::BinSection& sec, uint64_t count,
                                     const std::string& where, bool subgroup) {
  std::vector<P> out;
  allocate_points(out, count);
  auto ok = decode_points_into(bf, sec, out, where, subgroup);
  if (!ok) return make_error(ok.error());
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

// Entry i of the coefficient section (44 bytes at e) into out; on a bad entry, what is wrong.
std::optional<std::string> decode_coef(const uint8_t* e, const Zkey& z, ZkeyCoef& out) {
  uint32_t w[3];
  std::memcpy(w, e, sizeof(w));
  out.matrix = w[0];
  out.constraint = w[1];
  out.signal = w[2];
  if (out.matrix > 1) return "matrix id " + std::to_string(out.matrix) + " (expected 0 = A or 1 = B)";
  if (out.constraint >= z.domain_size) {
    return "constraint " + std::to_string(out.constraint) +
           " out of range (domainSize = " + std::to_string(z.domain_size) + ")";
  }
  if (out.signal >= z.n_vars) {
    return "signal " + std::to_string(out.signal) + " out of range (nVars = " + std::to_string(z.n_vars) + ")";
  }
  ff::Limbs<4> l;
  std::memcpy(l.data(), e + 12, kFrBytes);
  if (!ff::less_than(l, Fr::MOD)) return std::string("value is not a canonical field element (>= r)");
  // The stored integer is coef * R^2: as Montgomery limbs it is the element coef * R, whose
  // canonical integer, read back as Montgomery limbs, is the element coef.
  out.value = Fr::from_raw(Fr::from_raw(l).to_canonical());
  return std::nullopt;
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
  // Decoded in parallel (a big key has millions of entries); the error reported is the
  // lowest-indexed bad entry.
  z.coefs.resize(n);
  const uint8_t* entries = bf.body(sec).data() + 4;
  std::atomic<uint64_t> bad_index{n};
  ThreadPool::global().parallel_chunks(n, 16384, [&](size_t lo, size_t hi) {
    for (size_t i = lo; i < hi; ++i) {
      if (decode_coef(entries + i * kCoefBytes, z, z.coefs[i])) {
        uint64_t cur = bad_index.load();
        while (i < cur && !bad_index.compare_exchange_weak(cur, i)) {
        }
        return;
      }
    }
  });
  const uint64_t i = bad_index.load();
  if (i < n) {
    ZkeyCoef c;
    return make_error(where + ": entry " + std::to_string(i) + " of " + std::to_string(n) + " (file offset " +
                      std::to_string(sec.offset + 4 + i * kCoefBytes) +
                      "): " + decode_coef(entries + i * kCoefBytes, z, c).value_or("bad entry"));
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

  // The five point arrays are allocated (and so value-initialised, every page written once)
  // concurrently, then each is decoded on the whole pool.
  ThreadPool::global().parallel_for(5, [&](size_t i) {
    switch (i) {
      case 0:
        return allocate_points(z.a, n_vars);
      case 1:
        return allocate_points(z.b1, n_vars);
      case 2:
        return allocate_points(z.b2, n_vars);
      case 3:
        return allocate_points(z.c, n_c);
      default:
        return allocate_points(z.h, uint64_t{z.domain_size});
    }
  });
  const bool all = opt.check_all_subgroups;
  if (auto ok = decode_points_into(*bf, *sec[kSecA], z.a, where(kSecA), all); !ok) return make_error(ok.error());
  if (auto ok = decode_points_into(*bf, *sec[kSecB1], z.b1, where(kSecB1), all); !ok) return make_error(ok.error());
  if (auto ok = decode_points_into(*bf, *sec[kSecB2], z.b2, where(kSecB2), all); !ok) return make_error(ok.error());
  if (auto ok = decode_points_into(*bf, *sec[kSecC], z.c, where(kSecC), all); !ok) return make_error(ok.error());
  if (auto ok = decode_points_into(*bf, *sec[kSecH], z.h, where(kSecH), all); !ok) return make_error(ok.error());
  return z;
}

Result<Zkey> load_zkey(const std::string& path, const ZkeyOptions& opt) {
  // Mapped, not read: the points are copied once, from the page cache straight into the point
  // arrays, instead of first into a buffer of the whole file (tens of MB written and faulted in by
  // one thread).
  MappedFile map;
  try {
    const UniqueFd fd = open_read_only(path);
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0) return make_error(path + ": cannot stat: " + std::strerror(errno));
    if (!S_ISREG(st.st_mode)) return make_error(path + ": not a regular file");
    map = MappedFile(fd.get(), static_cast<size_t>(st.st_size), MapOptions{}, path);
  } catch (const std::exception& e) {
    return make_error(e.what());
  }
  const auto bytes = std::span(reinterpret_cast<const uint8_t*>(map.data()), map.size());
  return parse_zkey(bytes, path, opt);
}

}  // namespace cuzk::groth16
