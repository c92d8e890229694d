#include "groth16/params_file.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <exception>
#include <functional>
#include <limits>
#include <mutex>
#include <new>
#include <optional>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include "ec/encoding.hpp"
#include "util/atomic_file.hpp"
#include "util/mapped_file.hpp"
#include "util/thread_pool.hpp"

namespace cuzk::groth16 {

namespace {

constexpr uint64_t G1_BYTES = ec::G1_UNCOMPRESSED, G2_BYTES = ec::G2_UNCOMPRESSED;
// Points per parallel work item when decoding (also the progress granularity).
constexpr uint64_t DECODE_CHUNK = 4096;
// Bytes encoded per window when writing (then written with one write call).
constexpr uint64_t WRITE_WINDOW = uint64_t{64} << 20;

// The six fixed vk points, in file order.
struct FixedPoint {
  const char* name;
  bool g2;
};
constexpr FixedPoint VK_FIXED[] = {{"vk.alpha_g1", false}, {"vk.beta_g1", false},  {"vk.beta_g2", true},
                                   {"vk.gamma_g2", true},  {"vk.delta_g1", false}, {"vk.delta_g2", true}};

std::string quote(std::string_view section) {
  return "section '" + std::string(section) + "'";
}

uint32_t load_be32(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | uint32_t{p[3]};
}

void put_be32(uint32_t v, uint8_t* p) {
  p[0] = static_cast<uint8_t>(v >> 24);
  p[1] = static_cast<uint8_t>(v >> 16);
  p[2] = static_cast<uint8_t>(v >> 8);
  p[3] = static_cast<uint8_t>(v);
}

// ---- layout ----

// Reads the u32 at a file offset; false when past the end of the data.
using ReadU32 = std::function<bool(uint64_t offset, uint32_t& out)>;

// Walks the counts from the start of the data (`size` bytes). vk_only: the data is a .vk (ends
// after ic). Every section is checked to fit in the data before the next count is read, so a
// hostile count never leads to a read (or an allocation) past the end.
Result<ParamsLayout> scan_layout(uint64_t size, const ReadU32& read_u32, std::string_view name, bool vk_only) {
  const std::string n(name);
  ParamsLayout L;
  L.file_size = size;
  if (size < VK_FIXED_BYTES + 4) {
    return make_error(n + ": truncated: " + std::to_string(size) + " bytes is too short for a verifying key (" +
                      std::to_string(VK_FIXED_BYTES + 4) + " bytes at least)");
  }
  uint64_t pos = VK_FIXED_BYTES;
  struct Spec {
    ParamsSection* s;
    const char* name;
    uint64_t point_bytes;
  };
  const Spec specs[] = {{&L.ic, "vk.ic", G1_BYTES}, {&L.h, "h", G1_BYTES},       {&L.l, "l", G1_BYTES},
                        {&L.a, "a", G1_BYTES},      {&L.b_g1, "b_g1", G1_BYTES}, {&L.b_g2, "b_g2", G2_BYTES}};
  const size_t nspecs = vk_only ? 1 : std::size(specs);
  for (size_t k = 0; k < nspecs; ++k) {
    const Spec& sp = specs[k];
    uint32_t count = 0;
    if (pos + 4 > size || !read_u32(pos, count)) {
      return make_error(n + ": truncated: the count of " + quote(sp.name) + " at offset " + std::to_string(pos) +
                        " lies past the end of the file (" + std::to_string(size) + " bytes)");
    }
    ParamsSection& s = *sp.s;
    s.count_offset = pos;
    s.offset = pos + 4;
    s.count = count;
    s.point_bytes = sp.point_bytes;
    if (s.bytes() > size - s.offset) {
      return make_error(n + ": " + quote(sp.name) + " count " + std::to_string(count) + " (" +
                        std::to_string(s.bytes()) + " bytes from offset " + std::to_string(s.offset) +
                        ") exceeds the file size " + std::to_string(size) + " (truncated file or corrupt count)");
    }
    pos = s.end();
  }
  if (pos != size) {
    return make_error(n + ": " + std::to_string(size - pos) + " trailing bytes after " +
                      quote(vk_only ? "vk.ic" : "b_g2") + " (expected the file to end at offset " +
                      std::to_string(pos) + ", its size is " + std::to_string(size) + ")");
  }
  return L;
}

Result<ParamsLayout> scan_bytes(std::span<const uint8_t> bytes, std::string_view name, bool vk_only) {
  return scan_layout(
      bytes.size(),
      [&](uint64_t off, uint32_t& out) {
        if (off + 4 > bytes.size()) return false;
        out = load_be32(bytes.data() + off);
        return true;
      },
      name, vk_only);
}

// ---- progress ----

class ProgressSink {
 public:
  ProgressSink(const ParamsProgress& cb, uint64_t total) : cb_(cb), total_(total) {}
  void add(uint64_t bytes) {
    if (!cb_) return;
    std::lock_guard<std::mutex> lock(mu_);
    done_ = std::min(total_, done_ + bytes);
    cb_(done_, total_);
  }
  void finish() {
    if (!cb_) return;
    std::lock_guard<std::mutex> lock(mu_);
    done_ = total_;
    cb_(done_, total_);
  }

 private:
  const ParamsProgress& cb_;
  uint64_t total_;
  uint64_t done_ = 0;
  std::mutex mu_;
};

// ---- decoding ----

Result<G1Affine> decode_point(std::span<const uint8_t> b, ec::SubgroupCheck c, G1Affine*) {
  return ec::g1_from_uncompressed(b, c);
}
Result<G2Affine> decode_point(std::span<const uint8_t> b, ec::SubgroupCheck c, G2Affine*) {
  return ec::g2_from_uncompressed(b, c);
}

std::string point_error(std::string_view name, std::string_view section, std::optional<uint64_t> index, uint64_t offset,
                        const std::string& reason) {
  std::string m = std::string(name) + ": " + quote(section);
  if (index) m += " point " + std::to_string(*index);
  m += " (offset " + std::to_string(offset) + "): " + reason;
  return m;
}

// Decodes one point; on failure returns the reason.
template <class A>
std::optional<std::string> decode_one(const uint8_t* p, ec::SubgroupCheck check, A& out) {
  constexpr size_t len = std::is_same_v<A, G1Affine> ? G1_BYTES : G2_BYTES;
  auto r = decode_point(std::span<const uint8_t>(p, len), check, static_cast<A*>(nullptr));
  if (!r) return r.error();
  if (r->infinity) return std::string("the point at infinity is not allowed (bellperson rejects it)");
  out = *r;
  return std::nullopt;
}

// Decodes out.size() consecutive points in parallel: `points` holds the encoding of point `first`
// of a section, which lies at byte `offset` (for messages) of the file. The error reported is the
// one of the lowest bad index: a chunk is skipped only when it starts after an index already known
// to be bad.
template <class A>
Result<bool> decode_points_at(const uint8_t* points, uint64_t offset, uint64_t first, std::span<A> out,
                              std::string_view name, std::string_view section, ec::SubgroupCheck check,
                              ProgressSink* progress, const MappedFile* map, ThreadPool& pool) {
  constexpr uint64_t pb = std::is_same_v<A, G1Affine> ? G1_BYTES : G2_BYTES;
  const uint64_t count = out.size();
  const uint64_t chunks = (count + DECODE_CHUNK - 1) / DECODE_CHUNK;
  std::atomic<uint64_t> first_bad{std::numeric_limits<uint64_t>::max()};
  std::mutex mu;
  std::string error;
  pool.parallel_for(chunks, [&](size_t c) {
    const uint64_t b = c * DECODE_CHUNK, e = std::min<uint64_t>(count, b + DECODE_CHUNK);
    if (b > first_bad.load(std::memory_order_relaxed)) return;
    for (uint64_t i = b; i < e; ++i) {
      if (auto why = decode_one(points + i * pb, check, out[i])) {
        std::lock_guard<std::mutex> lock(mu);
        if (i < first_bad.load(std::memory_order_relaxed)) {
          first_bad.store(i, std::memory_order_relaxed);
          error = point_error(name, section, first + i, offset + i * pb, *why);
        }
        return;
      }
    }
    // Decoded: the mapping's pages of this chunk leave the resident set (read once).
    if (map) map->release_pages(points + b * pb, (e - b) * pb);
    if (progress) progress->add((e - b) * pb);
  });
  if (first_bad.load() != std::numeric_limits<uint64_t>::max()) return make_error(error);
  return true;
}

// Points [first, first + out.size()) of a section of the data at `base`.
template <class A>
Result<bool> decode_range(const uint8_t* base, const ParamsSection& s, uint64_t first, std::span<A> out,
                          std::string_view name, std::string_view section, ec::SubgroupCheck check,
                          ProgressSink* progress, const MappedFile* map = nullptr) {
  const uint64_t offset = s.offset + first * s.point_bytes;
  return decode_points_at<A>(base + offset, offset, first, out, name, section, check, progress, map,
                             ThreadPool::global());
}

template <class A>
Result<std::vector<A>> decode_section(const uint8_t* base, const ParamsSection& s, std::string_view name,
                                      std::string_view section, ec::SubgroupCheck check, ProgressSink* progress,
                                      const MappedFile* map = nullptr) {
  std::vector<A> out(s.count);
  auto r = decode_range<A>(base, s, 0, std::span<A>(out), name, section, check, progress, map);
  if (!r) return make_error(r.error());
  return out;
}

// The vk from data whose layout has been scanned (a .vk or the prefix of a .params).
Result<VerifyingKey> decode_vk(const uint8_t* base, const ParamsLayout& L, std::string_view name,
                               ProgressSink* progress) {
  VerifyingKey vk;
  G1Affine* g1[] = {&vk.alpha_g1, &vk.beta_g1, &vk.delta_g1};
  G2Affine* g2[] = {&vk.beta_g2, &vk.gamma_g2, &vk.delta_g2};
  uint64_t off = 0;
  size_t i1 = 0, i2 = 0;
  for (const FixedPoint& f : VK_FIXED) {
    std::optional<std::string> why = f.g2 ? decode_one(base + off, ec::SubgroupCheck::Yes, *g2[i2++])
                                          : decode_one(base + off, ec::SubgroupCheck::Yes, *g1[i1++]);
    if (why) return make_error(point_error(name, f.name, std::nullopt, off, *why));
    off += f.g2 ? G2_BYTES : G1_BYTES;
  }
  if (progress) progress->add(VK_FIXED_BYTES);
  auto ic = decode_section<G1Affine>(base, L.ic, name, "vk.ic", ec::SubgroupCheck::Yes, progress);
  if (!ic) return make_error(ic.error());
  vk.ic = std::move(*ic);
  return vk;
}

// Runs f, turning exceptions (I/O errors, out of memory) into errors that name the file.
template <class T, class F>
Result<T> guarded(const std::string& path, F&& f) {
  try {
    return f();
  } catch (const std::bad_alloc&) {
    return make_error(path + ": out of memory");
  } catch (const std::exception& e) {
    std::string m = e.what();
    // Messages from util/ already start with the path.
    if (m.rfind(path, 0) != 0) m = path + ": " + m;
    return make_error(m);
  }
}

// ---- encoding ----

void encode_point(const G1Affine& p, uint8_t* out) {
  auto b = ec::g1_to_uncompressed(p);
  std::memcpy(out, b.data(), b.size());
}
void encode_point(const G2Affine& p, uint8_t* out) {
  auto b = ec::g2_to_uncompressed(p);
  std::memcpy(out, b.data(), b.size());
}

std::span<const std::byte> as_bytes(const uint8_t* p, size_t n) {
  return {reinterpret_cast<const std::byte*>(p), n};
}

// Writes the u32 count and the points of one section, encoding window by window in parallel.
template <class A>
Result<bool> write_section(AtomicFile& f, const std::vector<A>& pts, std::string_view section, ProgressSink& progress) {
  constexpr uint64_t ps = std::is_same_v<A, G1Affine> ? G1_BYTES : G2_BYTES;
  uint8_t cnt[4];
  put_be32(static_cast<uint32_t>(pts.size()), cnt);
  f.write(as_bytes(cnt, 4));
  const uint64_t per_window = std::max<uint64_t>(1, WRITE_WINDOW / ps);
  std::vector<uint8_t> buf(std::min<uint64_t>(pts.size(), per_window) * ps);
  for (uint64_t w = 0; w < pts.size(); w += per_window) {
    const uint64_t n = std::min<uint64_t>(pts.size() - w, per_window);
    std::atomic<uint64_t> first_bad{std::numeric_limits<uint64_t>::max()};
    ThreadPool::global().parallel_chunks(n, 1024, [&](size_t b, size_t e) {
      for (size_t i = b; i < e; ++i) {
        const A& p = pts[w + i];
        if (p.infinity) {
          uint64_t cur = first_bad.load();
          while (w + i < cur && !first_bad.compare_exchange_weak(cur, w + i)) {
          }
          return;
        }
        encode_point(p, buf.data() + i * ps);
      }
    });
    if (const uint64_t bad = first_bad.load(); bad != std::numeric_limits<uint64_t>::max()) {
      return make_error(f.path() + ": cannot write " + quote(section) + " point " + std::to_string(bad) +
                        ": the point at infinity cannot be stored (bellperson's reader rejects it)");
    }
    f.write(as_bytes(buf.data(), n * ps));
    progress.add(n * ps);
  }
  return true;
}

Result<bool> check_vk_writable(const VerifyingKey& vk, const std::string& path) {
  const bool inf[] = {vk.alpha_g1.infinity, vk.beta_g1.infinity,  vk.beta_g2.infinity,
                      vk.gamma_g2.infinity, vk.delta_g1.infinity, vk.delta_g2.infinity};
  for (size_t k = 0; k < std::size(VK_FIXED); ++k) {
    if (inf[k]) {
      return make_error(path + ": cannot write " + quote(VK_FIXED[k].name) +
                        ": the point at infinity cannot be stored (bellperson's reader rejects it)");
    }
  }
  if (vk.ic.size() > std::numeric_limits<uint32_t>::max())
    return make_error(path + ": cannot write: " + std::to_string(vk.ic.size()) + " ic points do not fit a u32 count");
  for (size_t i = 0; i < vk.ic.size(); ++i) {
    if (vk.ic[i].infinity) {
      return make_error(path + ": cannot write " + quote("vk.ic") + " point " + std::to_string(i) +
                        ": the point at infinity cannot be stored (bellperson's reader rejects it)");
    }
  }
  return true;
}

}  // namespace

// ---- public API ----

std::vector<uint8_t> vk_bytes(const VerifyingKey& vk) {
  std::vector<uint8_t> out(VK_FIXED_BYTES + 4 + vk.ic.size() * G1_BYTES);
  uint8_t* p = out.data();
  auto g1 = [&](const G1Affine& a) {
    encode_point(a, p);
    p += G1_BYTES;
  };
  auto g2 = [&](const G2Affine& a) {
    encode_point(a, p);
    p += G2_BYTES;
  };
  g1(vk.alpha_g1);
  g1(vk.beta_g1);
  g2(vk.beta_g2);
  g2(vk.gamma_g2);
  g1(vk.delta_g1);
  g2(vk.delta_g2);
  put_be32(static_cast<uint32_t>(vk.ic.size()), p);
  p += 4;
  for (const G1Affine& a : vk.ic) g1(a);
  return out;
}

Result<VerifyingKey> parse_vk(std::span<const uint8_t> bytes, std::string_view name) {
  auto L = scan_bytes(bytes, name, /*vk_only=*/true);
  if (!L) return make_error(L.error());
  return guarded<VerifyingKey>(std::string(name), [&] { return decode_vk(bytes.data(), *L, name, nullptr); });
}

Result<VerifyingKey> read_vk(const std::string& path) {
  return guarded<VerifyingKey>(path, [&]() -> Result<VerifyingKey> {
    MappedFile map = MappedFile::open(path);
    auto b = map.bytes();
    return parse_vk(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(b.data()), b.size()), path);
  });
}

std::array<uint8_t, 4> section_count_bytes(uint32_t count) {
  std::array<uint8_t, 4> b{};
  put_be32(count, b.data());
  return b;
}

Result<bool> write_vk(const VerifyingKey& vk, const std::string& path) {
  if (auto ok = check_vk_writable(vk, path); !ok) return ok;
  return guarded<bool>(path, [&]() -> Result<bool> {
    const std::vector<uint8_t> bytes = vk_bytes(vk);
    AtomicFile f(path);
    f.write(as_bytes(bytes.data(), bytes.size()));
    f.commit();
    return true;
  });
}

Result<ParamsLayout> scan_params(const std::string& path) {
  return guarded<ParamsLayout>(path, [&]() -> Result<ParamsLayout> {
    UniqueFd fd = open_read_only(path);
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0) return make_error(path + ": cannot stat: " + std::strerror(errno));
    if (!S_ISREG(st.st_mode)) return make_error(path + ": not a regular file");
    const uint64_t size = static_cast<uint64_t>(st.st_size);
    return scan_layout(
        size,
        [&](uint64_t off, uint32_t& out) {
          uint8_t b[4];
          if (pread_full(fd.get(), std::as_writable_bytes(std::span<uint8_t>(b, 4)), off, path) != 4) return false;
          out = load_be32(b);
          return true;
        },
        path, /*vk_only=*/false);
  });
}

Result<bool> check_params_expect(const ParamsLayout& L, const ParamsExpect& e, std::string_view name) {
  std::string bad;
  auto check = [&](const char* what, uint64_t file, uint64_t want, const char* how) {
    if (file == want) return;
    if (!bad.empty()) bad += "; ";
    bad += std::string(what) + ": the file has " + std::to_string(file) + ", the circuit needs " +
           std::to_string(want) + " (" + how + ")";
  };
  check("num_inputs", L.ic.count, e.num_inputs, "'vk.ic' count");
  check("num_aux", L.l.count, e.num_aux, "'l' count");
  if (e.domain_size == 0) {
    if (!bad.empty()) bad += "; ";
    bad += "domain_size: the circuit's domain size is 0";
  } else {
    check("domain_size", L.h.count + 1, e.domain_size, "'h' count + 1");
  }
  check("a count", L.a.count, e.num_inputs + e.a_aux_density, "'a' count = num_inputs + a_aux_density");
  check("b_g1 count", L.b_g1.count, e.b_input_density + e.b_aux_density,
        "'b_g1' count = b_input_density + b_aux_density");
  check("b_g2 count", L.b_g2.count, e.b_input_density + e.b_aux_density,
        "'b_g2' count = b_input_density + b_aux_density");
  if (bad.empty()) return true;
  return make_error(std::string(name) + ": parameters do not match the circuit: " + bad);
}

Result<ProvingKey> read_params(const std::string& path, const ParamsReadOptions& options) {
  return guarded<ProvingKey>(path, [&]() -> Result<ProvingKey> {
    MappedFile map = MappedFile::open(path);
    const auto raw = map.bytes();
    const std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(raw.data()), raw.size());
    auto L = scan_bytes(bytes, path, /*vk_only=*/false);
    if (!L) return make_error(L.error());
    if (options.expect) {
      if (auto ok = check_params_expect(*L, *options.expect, path); !ok) return make_error(ok.error());
    }
    ProgressSink progress(options.progress, L->file_size);
    ProvingKey pk;
    auto vk = decode_vk(bytes.data(), *L, path, &progress);
    if (!vk) return make_error(vk.error());
    pk.vk = std::move(*vk);
    const ec::SubgroupCheck check = options.subgroup_checks ? ec::SubgroupCheck::Yes : ec::SubgroupCheck::No;
    auto g1 = [&](const ParamsSection& s, const char* section, std::vector<G1Affine>& out) -> Result<bool> {
      auto r = decode_section<G1Affine>(bytes.data(), s, path, section, check, &progress, &map);
      if (!r) return make_error(r.error());
      out = std::move(*r);
      return true;
    };
    if (auto r = g1(L->h, "h", pk.h); !r) return make_error(r.error());
    if (auto r = g1(L->l, "l", pk.l); !r) return make_error(r.error());
    if (auto r = g1(L->a, "a", pk.a); !r) return make_error(r.error());
    if (auto r = g1(L->b_g1, "b_g1", pk.b_g1); !r) return make_error(r.error());
    auto b2 = decode_section<G2Affine>(bytes.data(), L->b_g2, path, "b_g2", check, &progress, &map);
    if (!b2) return make_error(b2.error());
    pk.b_g2 = std::move(*b2);
    progress.finish();
    return pk;
  });
}

Result<bool> write_params(const ProvingKey& pk, const std::string& path, const ParamsProgress& progress_cb) {
  if (auto ok = check_vk_writable(pk.vk, path); !ok) return ok;
  struct Sec {
    const char* name;
    size_t count;
    uint64_t point_bytes;
  };
  const Sec secs[] = {{"h", pk.h.size(), G1_BYTES},
                      {"l", pk.l.size(), G1_BYTES},
                      {"a", pk.a.size(), G1_BYTES},
                      {"b_g1", pk.b_g1.size(), G1_BYTES},
                      {"b_g2", pk.b_g2.size(), G2_BYTES}};
  uint64_t total = VK_FIXED_BYTES + 4 + pk.vk.ic.size() * G1_BYTES;
  for (const Sec& s : secs) {
    if (s.count > std::numeric_limits<uint32_t>::max()) {
      return make_error(path + ": cannot write " + quote(s.name) + ": " + std::to_string(s.count) +
                        " points do not fit a u32 count");
    }
    total += 4 + s.count * s.point_bytes;
  }
  return guarded<bool>(path, [&]() -> Result<bool> {
    ProgressSink progress(progress_cb, total);
    AtomicFile f(path);
    f.allocate(total);
    const std::vector<uint8_t> vkb = vk_bytes(pk.vk);
    f.write(as_bytes(vkb.data(), vkb.size()));
    progress.add(vkb.size());
    if (auto r = write_section(f, pk.h, "h", progress); !r) return r;
    if (auto r = write_section(f, pk.l, "l", progress); !r) return r;
    if (auto r = write_section(f, pk.a, "a", progress); !r) return r;
    if (auto r = write_section(f, pk.b_g1, "b_g1", progress); !r) return r;
    if (auto r = write_section(f, pk.b_g2, "b_g2", progress); !r) return r;
    f.commit();
    progress.finish();
    return true;
  });
}

namespace {

template <class A>
Result<bool> decode_params_points_impl(std::span<const uint8_t> bytes, std::span<A> out, uint64_t offset,
                                       std::string_view name, std::string_view section, uint64_t first,
                                       bool subgroup_checks, ThreadPool* pool) {
  constexpr uint64_t pb = std::is_same_v<A, G1Affine> ? G1_BYTES : G2_BYTES;
  if (bytes.size() != out.size() * pb) {
    return make_error(std::string(name) + ": " + quote(section) + ": " + std::to_string(bytes.size()) +
                      " bytes do not hold " + std::to_string(out.size()) + " points of " + std::to_string(pb) +
                      " bytes");
  }
  return guarded<bool>(std::string(name), [&] {
    return decode_points_at<A>(bytes.data(), offset, first, out, name, section,
                               subgroup_checks ? ec::SubgroupCheck::Yes : ec::SubgroupCheck::No, nullptr, nullptr,
                               pool ? *pool : ThreadPool::global());
  });
}

}  // namespace

Result<bool> decode_params_points(std::span<const uint8_t> bytes, std::span<G1Affine> out, uint64_t offset,
                                  std::string_view name, std::string_view section, uint64_t first, bool subgroup_checks,
                                  ThreadPool* pool) {
  return decode_params_points_impl(bytes, out, offset, name, section, first, subgroup_checks, pool);
}

Result<bool> decode_params_points(std::span<const uint8_t> bytes, std::span<G2Affine> out, uint64_t offset,
                                  std::string_view name, std::string_view section, uint64_t first, bool subgroup_checks,
                                  ThreadPool* pool) {
  return decode_params_points_impl(bytes, out, offset, name, section, first, subgroup_checks, pool);
}

// ---- streaming ----

namespace {

// Maps the file again and checks that it is the one scanned at open (a replaced file would
// otherwise be read with the old layout).
MappedFile map_unchanged(const std::string& path, const ParamsLayout& L) {
  MappedFile map = MappedFile::open(path);
  if (map.size() != L.file_size) {
    throw std::runtime_error(path + ": the file changed since it was opened (" + std::to_string(L.file_size) +
                             " bytes then, " + std::to_string(map.size()) + " now)");
  }
  return map;
}

template <class A, class Sink>
void stream_section(const std::string& path, const ParamsLayout& L, const ParamsSection& s, std::string_view section,
                    ec::SubgroupCheck check, uint64_t window_points, const Sink& sink) {
  if (s.count == 0) return;
  const MappedFile map = map_unchanged(path, L);
  const auto* base = reinterpret_cast<const uint8_t*>(map.data());
  std::vector<A> window(std::min(window_points, s.count));
  for (uint64_t first = 0; first < s.count; first += window_points) {
    const uint64_t k = std::min(window_points, s.count - first);
    const std::span<A> w(window.data(), k);
    auto r = decode_range<A>(base, s, first, w, path, section, check, nullptr, &map);
    if (!r) throw std::runtime_error(r.error());
    sink(first, std::span<const A>(w));
  }
}

}  // namespace

Result<ParamsKeySource> ParamsKeySource::open(const std::string& path, const ParamsReadOptions& options,
                                              uint64_t window) {
  if (window == 0) return make_error(path + ": ParamsKeySource window must be at least 1 point");
  auto L = scan_params(path);
  if (!L) return make_error(L.error());
  if (options.expect) {
    if (auto ok = check_params_expect(*L, *options.expect, path); !ok) return make_error(ok.error());
  }
  return guarded<ParamsKeySource>(path, [&]() -> Result<ParamsKeySource> {
    // The vk is the file's prefix: decoded from a read of those bytes alone.
    const MappedFile map = map_unchanged(path, *L);
    const auto* base = reinterpret_cast<const uint8_t*>(map.data());
    auto vk = decode_vk(base, *L, path, nullptr);
    if (!vk) return make_error(vk.error());
    ParamsKeySource src;
    src.path_ = path;
    src.layout_ = *L;
    src.vk_ = std::move(*vk);
    src.subgroup_checks_ = options.subgroup_checks;
    src.window_ = window;
    return src;
  });
}

KeySizes KeySizes::of(const ParamsLayout& L) {
  return {L.ic.count, L.h.count, L.l.count, L.a.count, L.b_g1.count, L.b_g2.count};
}

KeySizes ParamsKeySource::sizes() const {
  return KeySizes::of(layout_);
}

void ParamsKeySource::read_g1(G1Section section, const G1Sink& sink) const {
  const ParamsSection& s = section == G1Section::h   ? layout_.h
                           : section == G1Section::l ? layout_.l
                           : section == G1Section::a ? layout_.a
                                                     : layout_.b_g1;
  const auto check = subgroup_checks_ ? ec::SubgroupCheck::Yes : ec::SubgroupCheck::No;
  stream_section<G1Affine>(path_, layout_, s, section_name(section), check, window_, sink);
}

void ParamsKeySource::read_b_g2(const G2Sink& sink) const {
  const auto check = subgroup_checks_ ? ec::SubgroupCheck::Yes : ec::SubgroupCheck::No;
  stream_section<G2Affine>(path_, layout_, layout_.b_g2, "b_g2", check, window_, sink);
}

}  // namespace cuzk::groth16
