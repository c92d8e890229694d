#include "groth16/setup_file.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <functional>
#include <future>
#include <limits>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "ec/encoding.hpp"
#include "groth16/params_file.hpp"
#include "poly/domain.hpp"
#include "util/atomic_file.hpp"

namespace cuzk::groth16 {

namespace {

using Clock = std::chrono::steady_clock;
constexpr size_t kG1Bytes = ec::G1_UNCOMPRESSED, kG2Bytes = ec::G2_UNCOMPRESSED;
constexpr uint8_t kInfinityFlag = 0x40;

double since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

ThreadPool& pool_of(ThreadPool* p) {
  return p ? *p : ThreadPool::global();
}

class CpuMultiplier final : public FixedBaseMultiplier {
 public:
  explicit CpuMultiplier(ThreadPool* pool) : pool_(pool_of(pool)) {}
  std::string describe() const override { return "cpu (" + std::to_string(pool_.size()) + " threads)"; }
  void prepare(uint64_t g1_count, uint64_t g2_count) override {
    n1_ = g1_count;
    n2_ = g2_count;
  }
  void g1(std::span<const Fr> sc, std::span<uint8_t> out) override {
    if (!t1_) t1_.emplace(ec::g1_generator(), 0, n1_, &pool_);
    run(*t1_, sc, out, kG1Bytes, [](const G1Affine& p, uint8_t* o) {
      const auto b = ec::g1_to_uncompressed(p);
      std::memcpy(o, b.data(), b.size());
    });
  }
  void g2(std::span<const Fr> sc, std::span<uint8_t> out) override {
    if (!t2_) t2_.emplace(ec::g2_generator(), 0, n2_, &pool_);
    run(*t2_, sc, out, kG2Bytes, [](const G2Affine& p, uint8_t* o) {
      const auto b = ec::g2_to_uncompressed(p);
      std::memcpy(o, b.data(), b.size());
    });
  }
  size_t chunk_points() const override { return size_t{1} << 20; }

 private:
  template <class T, class Enc>
  void run(const T& table, std::span<const Fr> sc, std::span<uint8_t> out, size_t pb, Enc enc) {
    if (out.size() != sc.size() * pb) throw std::invalid_argument("FixedBaseMultiplier: output size mismatch");
    std::vector<typename T::Affine> pts(sc.size());
    table.mul_many(sc, pts, &pool_);
    pool_.parallel_chunks(sc.size(), 4096, [&](size_t b, size_t e) {
      for (size_t i = b; i < e; ++i) enc(pts[i], out.data() + i * pb);
    });
  }

  ThreadPool& pool_;
  uint64_t n1_ = 0, n2_ = 0;
  std::optional<FixedBaseTable<ec::G1Config>> t1_;
  std::optional<FixedBaseTable<ec::G2Config>> t2_;
};

std::span<const std::byte> bytes_of(const uint8_t* p, size_t n) {
  return {reinterpret_cast<const std::byte*>(p), n};
}

// The key's sections, in file order.
enum class Part { h, l, a, b_g1, b_g2 };

// One section of the key: its points are scalars * G produced chunk by chunk.
struct Section {
  Part part;
  const char* name;
  uint64_t count;
  bool g2;
  // Fills out with the scalars [start, start + out.size()); called with increasing start.
  std::function<void(uint64_t start, std::span<Fr> out)> fill;
};

// Thrown when SetupStreamOptions::cancelled says stop.
struct Interrupted : std::runtime_error {
  Interrupted() : std::runtime_error("setup interrupted") {}
};

// Where the points go: a .params file, or a ProvingKey in memory.
class PointSink {
 public:
  virtual ~PointSink() = default;
  // The section's u32 count lies at byte `offset` of the .params layout.
  virtual void begin(const Section& s, uint64_t offset) = 0;
  // Points [start, start + n) of the section, encoded, at byte `offset` of the layout. Called on the
  // writer's thread, one call at a time, in order; `encoded` is valid until the call returns.
  virtual void put(const Section& s, uint64_t start, std::span<const uint8_t> encoded, uint64_t offset) = 0;
};

// The writer of the points: multiplies, checks and hands on chunk after chunk, one hand-off in
// flight (the sink writes or decodes one chunk while the next is multiplied).
class SectionWriter {
 public:
  SectionWriter(PointSink& sink, FixedBaseMultiplier& mul, size_t chunk, SetupFileStats& stats,
                const SetupStreamOptions& options, uint64_t total_points)
      : sink_(sink),
        mul_(mul),
        chunk_(chunk),
        stats_(stats),
        progress_(options.progress),
        cancelled_(options.cancelled),
        total_(total_points) {}

  // The section (its u32 count at `offset`, its points after it) to the sink; returns the offset
  // past the section.
  uint64_t write(const Section& s, uint64_t offset) {
    sink_.begin(s, offset);
    offset += 4;
    const size_t pb = s.g2 ? kG2Bytes : kG1Bytes;
    const FixedBaseTable<ec::G1Config>& ref1 = reference_g1();
    for (uint64_t start = 0; start < s.count; start += chunk_) {
      const size_t n = static_cast<size_t>(std::min<uint64_t>(chunk_, s.count - start));
      if (cancelled_ && cancelled_()) throw Interrupted();
      const auto t0 = Clock::now();
      scalars_.resize(n);
      s.fill(start, scalars_);
      std::vector<uint8_t>& buf = bufs_[cur_];
      buf.resize(n * pb);
      if (s.g2) {
        mul_.g2(scalars_, buf);
      } else {
        mul_.g1(scalars_, buf);
      }
      check(s, start, buf, pb, ref1);
      stats_.multiply_s += since(t0);
      const auto t1 = Clock::now();
      if (writing_.valid()) writing_.get();  // rethrows the sink's error (I/O, a bad point)
      stats_.write_wait_s += since(t1);
      writing_ = std::async(std::launch::async, [this, &s, start, data = buf.data(), len = buf.size(), off = offset] {
        sink_.put(s, start, std::span<const uint8_t>(data, len), off);
      });
      cur_ ^= 1;
      offset += n * pb;
      done_ += n;
      if (progress_) progress_(done_, total_);
    }
    return offset;
  }

  void finish() {
    const auto t1 = Clock::now();
    if (writing_.valid()) writing_.get();
    stats_.write_wait_s += since(t1);
  }

 private:
  // The point at infinity cannot be stored; and the first and last point of every chunk are
  // recomputed on the CPU, so a wrong multiplier (a GPU kernel bug) cannot produce a key silently.
  void check(const Section& s, uint64_t start, std::span<const uint8_t> buf, size_t pb,
             const FixedBaseTable<ec::G1Config>& ref1) {
    const size_t n = buf.size() / pb;
    for (size_t i = 0; i < n; ++i) {
      if (buf[i * pb] & kInfinityFlag) {
        throw std::runtime_error("setup: '" + std::string(s.name) + "' point " + std::to_string(start + i) +
                                 " is the point at infinity (its scalar is zero: a variable in no constraint?); "
                                 "bellperson's reader rejects it");
      }
    }
    for (const size_t i : {size_t{0}, n - 1}) {
      bool same;
      if (s.g2) {
        const auto want = ec::g2_to_uncompressed(reference_g2().mul(scalars_[i]).to_affine());
        same = std::memcmp(want.data(), buf.data() + i * pb, pb) == 0;
      } else {
        const auto want = ec::g1_to_uncompressed(ref1.mul(scalars_[i]).to_affine());
        same = std::memcmp(want.data(), buf.data() + i * pb, pb) == 0;
      }
      if (!same) {
        throw std::runtime_error("setup: the multiplier (" + mul_.describe() + ") computed a wrong point: '" +
                                 std::string(s.name) + "' point " + std::to_string(start + i) +
                                 " differs from the CPU's");
      }
    }
  }
  const FixedBaseTable<ec::G1Config>& reference_g1() {
    if (!ref1_) ref1_.emplace(ec::g1_generator(), 8);
    return *ref1_;
  }
  const FixedBaseTable<ec::G2Config>& reference_g2() {
    if (!ref2_) ref2_.emplace(ec::g2_generator(), 8);
    return *ref2_;
  }

  PointSink& sink_;
  FixedBaseMultiplier& mul_;
  size_t chunk_;
  SetupFileStats& stats_;
  const SetupProgressFn& progress_;
  const std::function<bool()>& cancelled_;
  uint64_t total_, done_ = 0;
  std::optional<FixedBaseTable<ec::G1Config>> ref1_;
  std::optional<FixedBaseTable<ec::G2Config>> ref2_;
  std::vector<Fr> scalars_;
  std::vector<uint8_t> bufs_[2];
  int cur_ = 0;
  std::future<void> writing_;  // declared after bufs_: destroyed (joined) first
};

// The non-zero entries of `vals`, in order, chunk by chunk (the a and b queries skip the columns
// that a matrix never uses).
struct NonZeroCursor {
  const std::vector<Fr>* vals;
  uint64_t col = 0;
  void fill(uint64_t start, std::span<Fr> out) {
    if (start == 0) col = 0;
    size_t k = 0;
    while (k < out.size()) {
      if (col >= vals->size()) throw std::logic_error("setup: fewer non-zero values than the density count");
      const Fr& v = (*vals)[col++];
      if (!v.is_zero()) out[k++] = v;
    }
  }
};

}  // namespace

std::unique_ptr<FixedBaseMultiplier> cpu_fixed_base_multiplier(ThreadPool* pool) {
  return std::make_unique<CpuMultiplier>(pool);
}

KeySizes setup_key_sizes(const pce::Pce& pce) {
  const uint64_t m = poly::Domain::size_for(pce.num_constraints());
  if (m == 0) {
    throw std::invalid_argument("setup: " + std::to_string(pce.num_constraints()) +
                                " constraints need a domain larger than 2^28");
  }
  KeySizes k;
  k.ic = pce.num_inputs();
  k.h = m - 1;
  k.l = pce.num_aux();
  k.a = pce.num_inputs() + pce.a_aux_density().count();
  k.b_g1 = k.b_g2 = pce.b_input_density().count() + pce.b_aux_density().count();
  return k;
}

uint64_t setup_working_bytes(const pce::Pce& pce, size_t chunk_points) {
  const KeySizes k = setup_key_sizes(pce);
  // evaluate_qap holds the Lagrange basis (h + 1 values) while it fills u, v, w (3 per column).
  const uint64_t qap = (k.h + 1 + 3 * pce.num_columns()) * sizeof(Fr);
  // SectionWriter: two buffers of encoded points (G2 at most) and the chunk's scalars; a chunk is
  // never longer than the longest section.
  const uint64_t chunk = std::min<uint64_t>(chunk_points, std::max({k.h, k.l, k.a, k.b_g1}));
  return qap + chunk * (2 * kG2Bytes + sizeof(Fr));
}

namespace {

// The setup up to the sink, shared by both destinations: the QAP values at tau, the verifying key,
// then every section's points multiplied chunk by chunk. `open` is called once the key's sizes and
// verifying key are known and before any section is multiplied (a full disk fails there, before
// the work); it returns the sink. Throws on every error.
using OpenSink = std::function<PointSink&(const VerifyingKey& vk, std::span<const uint8_t> vk_bytes,
                                          const KeySizes& sizes, uint64_t file_bytes)>;

SetupFileStats stream_setup(const pce::Pce& pce, const ToxicWaste& tw, FixedBaseMultiplier& mul,
                            const SetupStreamOptions& options, const OpenSink& open) {
  const auto t_start = Clock::now();
  ThreadPool& pool = pool_of(options.pool);
  SetupFileStats st;
  check_toxic_waste(tw);
  const uint64_t ni = pce.num_inputs(), naux = pce.num_aux();
  QapAtTau q = checked_qap(pce, tw.tau, &pool);
  st.qap_s = since(t_start);
  const Fr gamma_inv = tw.gamma.inverse(), delta_inv = tw.delta.inverse();
  const uint64_t n_a = ni + pce.a_aux_density().count();
  const uint64_t n_b = pce.b_input_density().count() + pce.b_aux_density().count();
  const uint64_t n_h = q.domain_size - 1;
  for (const auto& [what, n] : {std::pair{"h", n_h}, {"l", naux}, {"a", n_a}, {"b", n_b}, {"ic", ni}}) {
    if (n > std::numeric_limits<uint32_t>::max()) {
      throw std::runtime_error(std::string("cannot make '") + what + "': " + std::to_string(n) +
                               " points do not fit a u32 count");
    }
  }
  mul.prepare(3 + ni + n_h + naux + n_a + n_b, 3 + n_b);

  // (beta u + alpha v + w)(tau), over gamma for inputs (ic) and over delta for aux (l).
  auto ic_l = [&](uint64_t c) {
    return (tw.beta * q.u[c] + tw.alpha * q.v[c] + q.w[c]) * (c < ni ? gamma_inv : delta_inv);
  };

  // The verifying key: alpha, beta, delta (G1), beta, gamma, delta (G2), ic.
  std::vector<Fr> vk_sc = {tw.alpha, tw.beta, tw.delta};
  for (uint64_t i = 0; i < ni; ++i) vk_sc.push_back(ic_l(i));
  std::vector<uint8_t> vk_g1(vk_sc.size() * kG1Bytes), vk_g2(3 * kG2Bytes);
  mul.g1(vk_sc, vk_g1);
  const Fr g2_sc[3] = {tw.beta, tw.gamma, tw.delta};
  mul.g2(g2_sc, vk_g2);
  // Decoded (on the curve, in the subgroup, not at infinity) into the key, which vk_bytes lays out
  // as every .vk and .params file starts.
  auto point = [](auto decoded, const char* what) {
    if (!decoded.ok())
      throw std::runtime_error("setup: the verifying key's " + std::string(what) + ": " + decoded.error());
    if (decoded->is_identity())
      throw std::runtime_error("setup: the verifying key's " + std::string(what) + " is the point at infinity");
    return *decoded;
  };
  auto g1_at = [&](size_t i, const char* what) {
    return point(ec::g1_from_uncompressed(std::span(vk_g1).subspan(i * kG1Bytes, kG1Bytes)), what);
  };
  auto g2_at = [&](size_t i, const char* what) {
    return point(ec::g2_from_uncompressed(std::span(vk_g2).subspan(i * kG2Bytes, kG2Bytes)), what);
  };
  VerifyingKey vkey;
  vkey.alpha_g1 = g1_at(0, "alpha_g1");
  vkey.beta_g1 = g1_at(1, "beta_g1");
  vkey.delta_g1 = g1_at(2, "delta_g1");
  vkey.beta_g2 = g2_at(0, "beta_g2");
  vkey.gamma_g2 = g2_at(1, "gamma_g2");
  vkey.delta_g2 = g2_at(2, "delta_g2");
  for (uint64_t i = 0; i < ni; ++i) vkey.ic.push_back(g1_at(3 + i, "ic"));
  const std::vector<uint8_t> vk = vk_bytes(vkey);

  const Fr h0 = q.z * delta_inv;
  NonZeroCursor a_cur{&q.u}, b_cur{&q.v};
  const Section sections[] = {
      {Part::h, "h", n_h, false,
       [&](uint64_t start, std::span<Fr> out) {
         pool.parallel_chunks(out.size(), 4096, [&](size_t b, size_t e) {
           Fr t = tw.tau.pow(start + b) * h0;  // tau^i z / delta
           for (size_t i = b; i < e; ++i) {
             out[i] = t;
             t *= tw.tau;
           }
         });
       }},
      {Part::l, "l", naux, false,
       [&](uint64_t start, std::span<Fr> out) {
         pool.parallel_chunks(out.size(), 4096, [&](size_t b, size_t e) {
           for (size_t i = b; i < e; ++i) out[i] = ic_l(ni + start + i);
         });
       }},
      {Part::a, "a", n_a, false, [&](uint64_t s, std::span<Fr> out) { a_cur.fill(s, out); }},
      {Part::b_g1, "b_g1", n_b, false, [&](uint64_t s, std::span<Fr> out) { b_cur.fill(s, out); }},
      {Part::b_g2, "b_g2", n_b, true, [&](uint64_t s, std::span<Fr> out) { b_cur.fill(s, out); }},
  };
  uint64_t total_bytes = vk.size(), g1_points = 0, g2_points = 0;
  for (const Section& s : sections) {
    total_bytes += 4 + s.count * (s.g2 ? kG2Bytes : kG1Bytes);
    (s.g2 ? g2_points : g1_points) += s.count;
  }
  const KeySizes sizes{ni, n_h, naux, n_a, n_b, n_b};
  PointSink& sink = open(vkey, vk, sizes, total_bytes);
  const size_t chunk = options.chunk_points ? options.chunk_points : mul.chunk_points();
  {
    SectionWriter w(sink, mul, chunk, st, options, g1_points + g2_points);
    uint64_t off = vk.size();
    for (const Section& s : sections) off = w.write(s, off);
    w.finish();
    if (off != total_bytes)
      throw std::logic_error("setup: wrote " + std::to_string(off) + " of " + std::to_string(total_bytes) + " bytes");
  }
  st.file_bytes = total_bytes;
  st.g1_points = g1_points;
  st.g2_points = g2_points;
  st.total_s = since(t_start);
  return st;
}

// Each chunk at its offset of the file.
class FileSink final : public PointSink {
 public:
  explicit FileSink(AtomicFile& file) : file_(file) {}
  void begin(const Section& s, uint64_t offset) override {
    const auto cnt = section_count_bytes(static_cast<uint32_t>(s.count));
    file_.pwrite(bytes_of(cnt.data(), cnt.size()), offset);
  }
  void put(const Section&, uint64_t, std::span<const uint8_t> encoded, uint64_t offset) override {
    file_.pwrite(bytes_of(encoded.data(), encoded.size()), offset);
  }

 private:
  AtomicFile& file_;
};

// Each chunk decoded into its place in the key, by the .params reader's decoder.
class MemorySink final : public PointSink {
 public:
  MemorySink(ProvingKey& pk, bool subgroup_checks, ThreadPool* pool)
      : pk_(pk), subgroup_checks_(subgroup_checks), pool_(pool) {}
  void begin(const Section&, uint64_t) override {}
  void put(const Section& s, uint64_t start, std::span<const uint8_t> encoded, uint64_t offset) override {
    const size_t n = encoded.size() / (s.g2 ? kG2Bytes : kG1Bytes);
    Result<bool> r = s.g2 ? decode_params_points(encoded, std::span(pk_.b_g2).subspan(start, n), offset, kName, s.name,
                                                 start, subgroup_checks_, pool_)
                          : decode_params_points(encoded, g1(s.part).subspan(start, n), offset, kName, s.name, start,
                                                 subgroup_checks_, pool_);
    if (!r.ok()) throw std::runtime_error(r.error());
  }

 private:
  static constexpr const char* kName = "the in-memory key";
  std::span<G1Affine> g1(Part p) {
    switch (p) {
      case Part::h:
        return pk_.h;
      case Part::l:
        return pk_.l;
      case Part::a:
        return pk_.a;
      case Part::b_g1:
        return pk_.b_g1;
      case Part::b_g2:
        break;
    }
    throw std::logic_error("setup: b_g2 is not a G1 section");
  }

  ProvingKey& pk_;
  bool subgroup_checks_;
  ThreadPool* pool_;
};

}  // namespace

Result<SetupFileStats> setup_to_file(const pce::Pce& pce, const ToxicWaste& tw, const std::string& params_path,
                                     FixedBaseMultiplier& mul, const SetupFileOptions& options) {
  try {
    std::optional<AtomicFile> file, vk_file;
    std::optional<FileSink> sink;
    SetupFileStats st = stream_setup(
        pce, tw, mul, options,
        [&](const VerifyingKey&, std::span<const uint8_t> vk, const KeySizes&, uint64_t file_bytes) -> PointSink& {
          file.emplace(params_path);
          file->allocate(file_bytes);  // a full disk fails here, before any multiplication
          if (!options.vk_path.empty()) {
            vk_file.emplace(options.vk_path);
            vk_file->write(bytes_of(vk.data(), vk.size()));
          }
          file->pwrite(bytes_of(vk.data(), vk.size()), 0);
          return sink.emplace(*file);
        });
    file->commit();
    if (vk_file) vk_file->commit();
    return st;
  } catch (const Interrupted& e) {
    return make_error(params_path + ": " + e.what() + "; no file was written");
  } catch (const std::exception& e) {
    // AtomicFile's errors (a full disk) name the file already.
    const std::string what = e.what();
    return make_error(what.rfind(params_path + ":", 0) == 0 ? what : params_path + ": " + what);
  }
}

Result<ProvingKey> setup_to_memory(const pce::Pce& pce, const ToxicWaste& tw, FixedBaseMultiplier& mul,
                                   const SetupMemoryOptions& options, SetupFileStats* stats) {
  try {
    ProvingKey pk;
    std::optional<MemorySink> sink;
    SetupFileStats st =
        stream_setup(pce, tw, mul, options,
                     [&](const VerifyingKey& vk, std::span<const uint8_t>, const KeySizes& n, uint64_t) -> PointSink& {
                       // Every point's place up front: the chunks are decoded straight into them.
                       pk.vk = vk;
                       pk.h.resize(n.h);
                       pk.l.resize(n.l);
                       pk.a.resize(n.a);
                       pk.b_g1.resize(n.b_g1);
                       pk.b_g2.resize(n.b_g2);
                       return sink.emplace(pk, options.subgroup_checks, options.pool);
                     });
    if (stats) *stats = st;
    return pk;
  } catch (const std::bad_alloc&) {
    return make_error("test-only setup in memory: out of memory");
  } catch (const std::exception& e) {
    return make_error(std::string("test-only setup in memory: ") + e.what());
  }
}

}  // namespace cuzk::groth16
