#include "pce/pce_file.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <vector>

#include "util/atomic_file.hpp"
#include "util/checksum.hpp"
#include "util/mapped_file.hpp"
#include "util/thread_pool.hpp"

namespace cuzk::pce {

namespace {

static_assert(std::endian::native == std::endian::little, ".pce files are little-endian and used in place");
static_assert(sizeof(Fr) == 32, "Fr values are stored as 4 u64 limbs");

// Header field offsets (docs/pce-format.md, "Header").
namespace hdr {
constexpr size_t kMagic = 0;             // u8[8]
constexpr size_t kVersion = 8;           // u32
constexpr size_t kHeaderBytes = 12;      // u32
constexpr size_t kFileBytes = 16;        // u64
constexpr size_t kHeaderChecksum = 24;   // u64
constexpr size_t kFieldName = 32;        // char[16]
constexpr size_t kFieldModulus = 48;     // u8[32]
constexpr size_t kFrRepr = 80;           // u32
constexpr size_t kChunkBytes = 84;       // u32
constexpr size_t kSectionCount = 88;     // u32
constexpr size_t kReserved0 = 92;        // u32
constexpr size_t kCircuitId = 96;        // char[128]
constexpr size_t kNumInputs = 224;       // u64
constexpr size_t kNumAux = 232;          // u64
constexpr size_t kNumConstraints = 240;  // u64
constexpr size_t kNnz = 248;             // u64[3]
constexpr size_t kDictSize = 272;        // u64
constexpr size_t kEncoding = 280;        // u8
constexpr size_t kRowPtrWidth = 281;     // u8[3]
constexpr size_t kReserved1 = 284;       // u32
constexpr size_t kStructuralHash = 288;  // u64
constexpr size_t kReserved2 = 296;       // u8[24]
constexpr size_t kSectionTable = 320;    // 13 entries of 32 bytes
constexpr size_t kEntryBytes = 32;       // u32 kind, u32 reserved, u64 offset, u64 length, u64 checksum
constexpr size_t kTableEnd = kSectionTable + kNumSections * kEntryBytes;  // 736; reserved to 4096
}  // namespace hdr

// Commit marker field offsets (docs/pce-format.md, "Commit marker").
namespace trl {
constexpr size_t kMagic = 0;            // u8[16]
constexpr size_t kFileBytes = 16;       // u64
constexpr size_t kHeaderChecksum = 24;  // u64
constexpr size_t kStructuralHash = 32;  // u64
constexpr size_t kVersion = 40;         // u32
constexpr size_t kReserved = 44;        // u8[12]
constexpr size_t kChecksum = 56;        // u64: XXH3-64 of bytes [0, 56)
}  // namespace trl

constexpr char kMagic[8] = {'C', 'U', 'Z', 'K', 'P', 'C', 'E', '\0'};
constexpr char kTrailerMagic[16] = "CUZKPCE-END";  // NUL padded
constexpr char kFieldName[16] = "bls12-381/fr";    // NUL padded
constexpr uint32_t kFrReprMontgomery = 1;          // Montgomery form, R = 2^256, 4 LE u64 limbs
constexpr uint64_t kMaxCount = uint64_t{1} << 48;  // keeps every length formula far from overflow
constexpr size_t kMinFileBytes = kPceHeaderBytes + kPceTrailerBytes;

using HeaderBytes = std::array<std::byte, kPceHeaderBytes>;
using TrailerBytes = std::array<std::byte, kPceTrailerBytes>;

template <class T, size_t N>
T get(const std::array<std::byte, N>& b, size_t off) {
  T v;
  std::memcpy(&v, b.data() + off, sizeof(T));
  return v;
}
template <class T, size_t N>
void put(std::array<std::byte, N>& b, size_t off, T v) {
  std::memcpy(b.data() + off, &v, sizeof(T));
}
template <size_t N>
bool all_zero(const std::array<std::byte, N>& b, size_t begin, size_t end) {
  return std::all_of(b.begin() + begin, b.begin() + end, [](std::byte x) { return x == std::byte{0}; });
}

std::string hex(uint64_t v) {
  char s[24];
  std::snprintf(s, sizeof(s), "0x%016llx", static_cast<unsigned long long>(v));
  return s;
}

std::array<std::byte, 32> modulus_bytes() {
  std::array<std::byte, 32> m;
  std::memcpy(m.data(), Fr::MOD.data(), 32);  // limbs are little-endian u64s: the LE byte string
  return m;
}

// The header with its checksum field zeroed, hashed.
uint64_t header_checksum(HeaderBytes b) {
  put<uint64_t>(b, hdr::kHeaderChecksum, 0);
  return checksum::xxh3_64(b.data(), b.size());
}

uint64_t align_up(uint64_t x, uint64_t a) {
  return (x + a - 1) / a * a;
}

// --- chunk plan: every section cut into checksum chunks, the unit of parallel work ------------

struct Chunk {
  uint32_t section;  // index 0..12
  uint64_t pos;      // within the section
  uint64_t len;
};

struct ChunkPlan {
  std::vector<Chunk> chunks;
  std::array<size_t, kNumSections + 1> first{};  // chunks of section i: [first[i], first[i+1])

  explicit ChunkPlan(const std::array<uint64_t, kNumSections>& lengths) {
    for (size_t s = 0; s < kNumSections; ++s) {
      first[s] = chunks.size();
      for (uint64_t pos = 0; pos < lengths[s]; pos += checksum::kChunkBytes)
        chunks.push_back({static_cast<uint32_t>(s), pos, std::min(checksum::kChunkBytes, lengths[s] - pos)});
    }
    first[kNumSections] = chunks.size();
  }

  std::array<uint64_t, kNumSections> combine(const std::vector<uint64_t>& digests) const {
    std::array<uint64_t, kNumSections> out;
    for (size_t s = 0; s < kNumSections; ++s)
      out[s] = checksum::combine(std::span(digests.data() + first[s], first[s + 1] - first[s]));
    return out;
  }
};

std::array<uint64_t, kNumSections> section_lengths(const std::array<SectionEntry, kNumSections>& t) {
  std::array<uint64_t, kNumSections> l;
  for (size_t i = 0; i < kNumSections; ++i) l[i] = t[i].length;
  return l;
}

std::array<uint64_t, kNumSections> checksums_of(const std::array<std::span<const std::byte>, kNumSections>& secs) {
  std::array<uint64_t, kNumSections> lengths;
  for (size_t i = 0; i < kNumSections; ++i) lengths[i] = secs[i].size();
  ChunkPlan plan(lengths);
  std::vector<uint64_t> digests(plan.chunks.size());
  ThreadPool::global().parallel_for(plan.chunks.size(), [&](size_t k) {
    const Chunk& c = plan.chunks[k];
    digests[k] = checksum::xxh3_64(secs[c.section].data() + c.pos, c.len);
  });
  return plan.combine(digests);
}

// --- header and commit marker ------------------------------------------------------------------

HeaderBytes encode_header(PceFileHeader& h) {
  HeaderBytes b{};
  std::memcpy(b.data() + hdr::kMagic, kMagic, sizeof(kMagic));
  put<uint32_t>(b, hdr::kVersion, kPceFormatVersion);
  put<uint32_t>(b, hdr::kHeaderBytes, kPceHeaderBytes);
  put<uint64_t>(b, hdr::kFileBytes, h.file_bytes);
  std::memcpy(b.data() + hdr::kFieldName, kFieldName, sizeof(kFieldName));
  const auto mod = modulus_bytes();
  std::memcpy(b.data() + hdr::kFieldModulus, mod.data(), mod.size());
  put<uint32_t>(b, hdr::kFrRepr, kFrReprMontgomery);
  put<uint32_t>(b, hdr::kChunkBytes, static_cast<uint32_t>(checksum::kChunkBytes));
  put<uint32_t>(b, hdr::kSectionCount, kNumSections);
  std::memcpy(b.data() + hdr::kCircuitId, h.info.circuit_id.data(), h.info.circuit_id.size());
  put<uint64_t>(b, hdr::kNumInputs, h.info.num_inputs);
  put<uint64_t>(b, hdr::kNumAux, h.info.num_aux);
  put<uint64_t>(b, hdr::kNumConstraints, h.info.num_constraints);
  for (size_t m = 0; m < 3; ++m) put<uint64_t>(b, hdr::kNnz + 8 * m, h.info.nnz[m]);
  put<uint64_t>(b, hdr::kDictSize, h.info.dict_size);
  put<uint8_t>(b, hdr::kEncoding, static_cast<uint8_t>(h.info.encoding));
  for (size_t m = 0; m < 3; ++m) put<uint8_t>(b, hdr::kRowPtrWidth + m, h.info.row_ptr_width[m]);
  put<uint64_t>(b, hdr::kStructuralHash, h.structural_hash);
  for (size_t i = 0; i < kNumSections; ++i) {
    const size_t e = hdr::kSectionTable + i * hdr::kEntryBytes;
    put<uint32_t>(b, e, static_cast<uint32_t>(i + 1));
    put<uint64_t>(b, e + 8, h.sections[i].offset);
    put<uint64_t>(b, e + 16, h.sections[i].length);
    put<uint64_t>(b, e + 24, h.sections[i].checksum);
  }
  h.header_checksum = header_checksum(b);
  put<uint64_t>(b, hdr::kHeaderChecksum, h.header_checksum);
  return b;
}

TrailerBytes encode_trailer(const PceFileHeader& h) {
  TrailerBytes t{};
  std::memcpy(t.data() + trl::kMagic, kTrailerMagic, sizeof(kTrailerMagic));
  put<uint64_t>(t, trl::kFileBytes, h.file_bytes);
  put<uint64_t>(t, trl::kHeaderChecksum, h.header_checksum);
  put<uint64_t>(t, trl::kStructuralHash, h.structural_hash);
  put<uint32_t>(t, trl::kVersion, kPceFormatVersion);
  put<uint64_t>(t, trl::kChecksum, checksum::xxh3_64(t.data(), trl::kChecksum));
  return t;
}

// Printable form of a fixed-size, NUL-padded text field from an untrusted file.
std::string text_field(const std::byte* p, size_t n) {
  std::string s;
  for (size_t i = 0; i < n && p[i] != std::byte{0}; ++i) {
    const char c = static_cast<char>(p[i]);
    s += (c >= 0x20 && c < 0x7f) ? c : '?';
  }
  return s;
}

// Every check of the header bytes alone, after magic and version (see read_header for the order).
// Returns the error text without the path, or "".
std::string check_header_fields(const HeaderBytes& b, const std::string& expected_circuit_id, PceFileHeader& h) {
  // Field: a foreign file is one for another curve or in another representation.
  const auto mod = modulus_bytes();
  if (std::memcmp(b.data() + hdr::kFieldName, kFieldName, sizeof(kFieldName)) != 0 ||
      std::memcmp(b.data() + hdr::kFieldModulus, mod.data(), mod.size()) != 0) {
    std::string m;
    for (size_t i = 32; i-- > 0;) {
      char x[3];
      std::snprintf(x, sizeof(x), "%02x", static_cast<unsigned>(b[hdr::kFieldModulus + i]));
      m += x;
    }
    return "field mismatch: file is for " + text_field(b.data() + hdr::kFieldName, 16) + " (modulus 0x" + m +
           "), this build proves " + kFieldName;
  }
  if (get<uint32_t>(b, hdr::kFrRepr) != kFrReprMontgomery)
    return "unsupported field element representation " + std::to_string(get<uint32_t>(b, hdr::kFrRepr)) +
           " (this build reads 1, Montgomery form)";
  if (get<uint32_t>(b, hdr::kHeaderBytes) != kPceHeaderBytes)
    return "bad header: header size " + std::to_string(get<uint32_t>(b, hdr::kHeaderBytes)) + ", expected 4096";
  if (get<uint32_t>(b, hdr::kChunkBytes) != checksum::kChunkBytes)
    return "bad header: checksum chunk size " + std::to_string(get<uint32_t>(b, hdr::kChunkBytes)) + ", expected " +
           std::to_string(checksum::kChunkBytes);
  if (get<uint32_t>(b, hdr::kSectionCount) != kNumSections)
    return "bad header: " + std::to_string(get<uint32_t>(b, hdr::kSectionCount)) + " sections, expected 13";
  if (get<uint32_t>(b, hdr::kReserved0) != 0 || get<uint32_t>(b, hdr::kReserved1) != 0 ||
      !all_zero(b, hdr::kReserved2, hdr::kSectionTable) || !all_zero(b, hdr::kTableEnd, kPceHeaderBytes))
    return "bad header: reserved bytes are not zero";

  // Circuit id: NUL-terminated within its 128 bytes, zero-padded after.
  const std::byte* id = b.data() + hdr::kCircuitId;
  const size_t id_len = std::find(id, id + 128, std::byte{0}) - id;
  if (id_len > kPceMaxCircuitIdBytes || !all_zero(b, hdr::kCircuitId + id_len, hdr::kCircuitId + 128))
    return "bad header: the circuit id is not a NUL-terminated string of at most 127 bytes";
  PceInfo& info = h.info;
  info.circuit_id.assign(reinterpret_cast<const char*>(id), id_len);

  info.num_inputs = get<uint64_t>(b, hdr::kNumInputs);
  info.num_aux = get<uint64_t>(b, hdr::kNumAux);
  info.num_constraints = get<uint64_t>(b, hdr::kNumConstraints);
  for (size_t m = 0; m < 3; ++m) info.nnz[m] = get<uint64_t>(b, hdr::kNnz + 8 * m);
  info.dict_size = get<uint64_t>(b, hdr::kDictSize);
  const uint8_t enc = get<uint8_t>(b, hdr::kEncoding);
  for (size_t m = 0; m < 3; ++m) info.row_ptr_width[m] = get<uint8_t>(b, hdr::kRowPtrWidth + m);
  h.format_version = get<uint32_t>(b, hdr::kVersion);
  h.file_bytes = get<uint64_t>(b, hdr::kFileBytes);
  h.header_checksum = get<uint64_t>(b, hdr::kHeaderChecksum);
  h.structural_hash = get<uint64_t>(b, hdr::kStructuralHash);

  // Counts: columns are u32; everything else is bounded so that no length formula can overflow.
  if (info.num_inputs == 0) return "bad header: no inputs (the constant ONE is input 0)";
  if (info.num_inputs > (uint64_t{1} << 32) || info.num_aux > (uint64_t{1} << 32) ||
      info.num_columns() > (uint64_t{1} << 32))
    return "bad header: " + std::to_string(info.num_inputs) + " inputs + " + std::to_string(info.num_aux) +
           " aux variables exceed the 2^32 columns of u32 column indices";
  for (uint64_t c : {info.num_constraints, info.nnz[0], info.nnz[1], info.nnz[2], info.dict_size})
    if (c > kMaxCount) return "bad header: implausible count " + std::to_string(c);
  if (enc < static_cast<uint8_t>(CoeffEncoding::Dict8) || enc > static_cast<uint8_t>(CoeffEncoding::Full))
    return "bad header: unknown coefficient encoding " + std::to_string(enc);
  info.encoding = static_cast<CoeffEncoding>(enc);
  // Dictionary encodings hold +1 and -1 at least; Full has no dictionary.
  const uint64_t min_dict = info.encoding == CoeffEncoding::Full ? 0 : 2;
  const uint64_t max_dict = info.encoding == CoeffEncoding::Dict8    ? 256
                            : info.encoding == CoeffEncoding::Dict16 ? 65536
                                                                     : 0;
  if (info.dict_size < min_dict || info.dict_size > max_dict)
    return "bad header: a dictionary of " + std::to_string(info.dict_size) + " entries does not fit encoding " +
           to_string(info.encoding);
  for (size_t m = 0; m < 3; ++m) {
    const uint8_t w = info.row_ptr_width[m];
    const char* name = section_name(row_ptr_section(static_cast<MatrixId>(m)));
    if (w != 4 && w != 8)
      return std::string("bad header: ") + name + " width " + std::to_string(w) + ", expected 4 or 8";
    if (w == 4 && info.nnz[m] > UINT32_MAX)
      return std::string("bad header: ") + name + " is u32 but the matrix has " + std::to_string(info.nnz[m]) +
             " non-zeros";
  }
  if (h.file_bytes < kMinFileBytes) return "bad header: file size " + std::to_string(h.file_bytes) + " is too small";

  if (!expected_circuit_id.empty() && info.circuit_id != expected_circuit_id)
    return "circuit mismatch: file holds '" + info.circuit_id + "', expected '" + expected_circuit_id + "'";
  return "";
}

// The section table: kinds in order, 4096-aligned, inside [header end, commit marker), in file
// order without overlap, lengths as the counts imply.
std::string check_section_table(const HeaderBytes& b, PceFileHeader& h) {
  const uint64_t data_end = h.file_bytes - kPceTrailerBytes;  // file_bytes >= kMinFileBytes here
  const auto expected = h.info.section_bytes();
  uint64_t prev_end = kPceHeaderBytes;
  const char* prev_name = "the header";
  for (size_t i = 0; i < kNumSections; ++i) {
    const size_t e = hdr::kSectionTable + i * hdr::kEntryBytes;
    const char* name = section_name(static_cast<Section>(i + 1));
    const std::string where = std::string("section table: ") + name + ": ";
    if (get<uint32_t>(b, e) != i + 1 || get<uint32_t>(b, e + 4) != 0)
      return where + "entry " + std::to_string(i) + " has kind " + std::to_string(get<uint32_t>(b, e)) + ", expected " +
             std::to_string(i + 1);
    SectionEntry& s = h.sections[i];
    s.offset = get<uint64_t>(b, e + 8);
    s.length = get<uint64_t>(b, e + 16);
    s.checksum = get<uint64_t>(b, e + 24);
    if (s.offset % kPceAlignment != 0)
      return where + "offset " + std::to_string(s.offset) + " is not a multiple of 4096";
    // Written so that nothing overflows: offset + length is only formed once both are bounded.
    if (s.offset < kPceHeaderBytes || s.offset > data_end || s.length > data_end - s.offset)
      return where + "out of bounds: offset " + std::to_string(s.offset) + ", length " + std::to_string(s.length) +
             ", sections must lie in [4096, " + std::to_string(data_end) + ")";
    if (s.offset < prev_end)
      return where + "overlaps " + prev_name + " (starts at " + std::to_string(s.offset) + ", " + prev_name +
             " ends at " + std::to_string(prev_end) + ")";
    if (s.length != expected[i])
      return where + "length " + std::to_string(s.length) + ", expected " + std::to_string(expected[i]) +
             " from the header counts";
    if (s.length > 0) {
      prev_end = s.offset + s.length;
      prev_name = name;
    }
  }
  // Beyond that, the layout must be the one the writer makes (each section at the next multiple of
  // 4096 after the previous one, the commit marker right after the last): then the only bytes no
  // checksum covers are the padding before each 4096 boundary, which load() requires to be zero.
  uint64_t cursor = kPceHeaderBytes;
  for (size_t i = 0; i < kNumSections; ++i) {
    const SectionEntry& s = h.sections[i];
    if (s.offset != cursor)
      return std::string("section table: ") + section_name(static_cast<Section>(i + 1)) + ": offset " +
             std::to_string(s.offset) + ", expected " + std::to_string(cursor) +
             " (sections lie in order, each at the next multiple of 4096)";
    cursor = align_up(cursor + s.length, kPceAlignment);
  }
  if (cursor != data_end)
    return "section table: the commit marker is at " + std::to_string(data_end) + ", expected " +
           std::to_string(cursor) + " (right after the last section)";
  std::array<uint64_t, kNumSections> sums;
  for (size_t i = 0; i < kNumSections; ++i) sums[i] = h.sections[i].checksum;
  const uint64_t sh = structural_hash(h.info, sums);
  if (sh != h.structural_hash)
    return "structural hash mismatch (stored " + hex(h.structural_hash) + ", computed " + hex(sh) +
           " from the section table): the file was written by a faulty tool; re-extract it";
  return "";
}

std::string check_trailer(const TrailerBytes& t, const PceFileHeader& h) {
  if (std::memcmp(t.data() + trl::kMagic, kTrailerMagic, sizeof(kTrailerMagic)) != 0)
    return "commit marker missing (no end magic at offset " + std::to_string(h.file_bytes - kPceTrailerBytes) +
           "): the file was not completely written; re-extract it";
  const uint64_t stored = get<uint64_t>(t, trl::kChecksum);
  const uint64_t computed = checksum::xxh3_64(t.data(), trl::kChecksum);
  if (stored != computed)
    return "commit marker checksum mismatch (stored " + hex(stored) + ", computed " + hex(computed) +
           "): the file is corrupt; re-extract it";
  if (get<uint64_t>(t, trl::kFileBytes) != h.file_bytes ||
      get<uint64_t>(t, trl::kHeaderChecksum) != h.header_checksum ||
      get<uint64_t>(t, trl::kStructuralHash) != h.structural_hash ||
      get<uint32_t>(t, trl::kVersion) != h.format_version || !all_zero(t, trl::kReserved, trl::kChecksum))
    return "commit marker does not match the header: the file is a mix of two writes or corrupt; re-extract it";
  return "";
}

Error fail(const std::string& path, const std::string& msg) {
  return make_error(path + ": " + msg);
}

// The whole header validation on an open file (read_pce_header's contract, in that order).
Result<PceFileHeader> read_header(int fd, const std::string& path, const std::string& expected_circuit_id) {
  struct stat st;
  if (::fstat(fd, &st) != 0) return fail(path, std::string("cannot stat: ") + std::strerror(errno));
  // A FIFO or a device could block or never end; a .pce file is always a regular file.
  if (!S_ISREG(st.st_mode)) return fail(path, "not a regular file");
  const uint64_t size = static_cast<uint64_t>(st.st_size);

  HeaderBytes b{};
  const size_t got = pread_full(fd, b, 0, path);
  if (got >= sizeof(kMagic) && std::memcmp(b.data(), kMagic, sizeof(kMagic)) != 0)
    return fail(path, "bad magic (not a .pce file)");
  if (got < kPceHeaderBytes)
    return fail(path, "truncated: " + std::to_string(got) + " bytes, smaller than the 4096-byte header");
  // The version comes before the checksum: a newer version may define its header differently.
  const uint32_t version = get<uint32_t>(b, hdr::kVersion);
  if (version != kPceFormatVersion)
    return fail(path, "unsupported .pce format version " + std::to_string(version) +
                          " (this build reads version 1); re-extract the PCE or upgrade cuzk");
  const uint64_t stored = get<uint64_t>(b, hdr::kHeaderChecksum);
  const uint64_t computed = header_checksum(b);
  if (stored != computed)
    return fail(path, "header checksum mismatch (stored " + hex(stored) + ", computed " + hex(computed) +
                          "): the header is corrupt; re-extract the file");

  PceFileHeader h;
  if (std::string e = check_header_fields(b, expected_circuit_id, h); !e.empty()) return fail(path, e);
  if (size < h.file_bytes)
    return fail(path, "truncated: " + std::to_string(size) + " bytes, header says " + std::to_string(h.file_bytes));
  if (size > h.file_bytes)
    return fail(path, "size mismatch: " + std::to_string(size) + " bytes, header says " + std::to_string(h.file_bytes) +
                          " (data after the commit marker)");
  if (std::string e = check_section_table(b, h); !e.empty()) return fail(path, e);

  TrailerBytes t{};
  if (pread_full(fd, t, h.file_bytes - kPceTrailerBytes, path) != kPceTrailerBytes)
    return fail(path, "truncated while reading the commit marker (was the file changed?)");
  if (std::string e = check_trailer(t, h); !e.empty()) return fail(path, e);
  return h;
}

// The padding after each section up to the next 4096 boundary (at most 4095 bytes each; the layout
// was checked by check_section_table) must be zero: no checksum covers it.
std::string check_padding(int fd, const PceFileHeader& h, const std::string& path) {
  std::array<std::byte, kPceAlignment> pad{};
  for (size_t i = 0; i < kNumSections; ++i) {
    const uint64_t end = h.sections[i].offset + h.sections[i].length;
    const uint64_t n = align_up(end, kPceAlignment) - end;
    if (n == 0) continue;
    if (pread_full(fd, std::span(pad.data(), n), end, path) != n)
      return "truncated while reading the padding (was the file changed?)";
    for (uint64_t k = 0; k < n; ++k) {
      if (pad[k] != std::byte{0})
        return "non-zero byte in the padding after section " + std::string(section_name(static_cast<Section>(i + 1))) +
               " at offset " + std::to_string(end + k) + ": the file is corrupt; re-extract it";
    }
  }
  return "";
}

struct MappedStorage final : PceStorage {
  explicit MappedStorage(MappedFile m) : map(std::move(m)) {}
  MappedFile map;
};

struct BufferStorage final : PceStorage {
  explicit BufferStorage(PageBuffer b) : buf(std::move(b)) {}
  PageBuffer buf;
};

Result<LoadedPce> load(const std::string& path, const LoadOptions& opt) {
  UniqueFd fd = open_read_only(path);
  auto hr = read_header(fd.get(), path, opt.expected_circuit_id);
  if (!hr) return make_error(hr.error());
  LoadedPce out;
  out.header = std::move(hr).value();
  const PceFileHeader& h = out.header;

  const ChunkPlan plan(section_lengths(h.sections));
  std::vector<uint64_t> digests(opt.verify_checksums ? plan.chunks.size() : 0);
  std::shared_ptr<const PceStorage> storage;
  const std::byte* base = nullptr;
  if (opt.mode == LoadOptions::Mode::Mmap) {
    auto st = std::make_shared<MappedStorage>(
        MappedFile(fd.get(), h.file_bytes, MapOptions{opt.populate, opt.huge_pages}, path));
    base = st->map.data();
    storage = std::move(st);
    if (opt.verify_checksums) {
      ThreadPool::global().parallel_for(plan.chunks.size(), [&](size_t k) {
        const Chunk& c = plan.chunks[k];
        digests[k] = checksum::xxh3_64(base + h.sections[c.section].offset + c.pos, c.len);
      });
    }
  } else {
    auto st = std::make_shared<BufferStorage>(PageBuffer(h.file_bytes, opt.huge_pages));
    std::byte* buf = st->buf.data();
    base = buf;
    storage = std::move(st);
    // Each chunk is hashed right after its pread, while it is still in this core's cache.
    ThreadPool::global().parallel_for(plan.chunks.size(), [&](size_t k) {
      const Chunk& c = plan.chunks[k];
      const uint64_t off = h.sections[c.section].offset + c.pos;
      if (pread_full(fd.get(), std::span(buf + off, c.len), off, path) != c.len)
        throw std::runtime_error(path + ": truncated while reading (was the file changed?)");
      if (opt.verify_checksums) digests[k] = checksum::xxh3_64(buf + off, c.len);
    });
  }
  if (opt.verify_checksums) {
    const auto sums = plan.combine(digests);
    for (size_t i = 0; i < kNumSections; ++i) {
      if (sums[i] != h.sections[i].checksum)
        return fail(path, std::string("section ") + section_name(static_cast<Section>(i + 1)) +
                              " checksum mismatch (stored " + hex(h.sections[i].checksum) + ", computed " +
                              hex(sums[i]) + "): the file is corrupt; re-extract it");
    }
  }
  if (opt.verify_checksums) {
    if (std::string e = check_padding(fd.get(), h, path); !e.empty()) return fail(path, e);
  }
  out.checksums_verified = opt.verify_checksums;

  std::array<std::span<const std::byte>, kNumSections> secs;
  for (size_t i = 0; i < kNumSections; ++i) secs[i] = {base + h.sections[i].offset, h.sections[i].length};
  try {
    static_cast<Pce&>(out) = Pce(h.info, secs, std::move(storage));
  } catch (const std::invalid_argument& e) {
    return fail(path, std::string("sections do not fit the header counts: ") + e.what());
  }
  if (opt.validate_structure) {
    if (std::string e = out.validate_structure(); !e.empty())
      return fail(path, "structural check failed: " + e + "; the file is corrupt or was written by a faulty tool");
    out.structure_validated = true;
  }
  return out;
}

}  // namespace

uint64_t section_checksum(std::span<const std::byte> bytes) {
  const uint64_t n = checksum::num_chunks(bytes.size());
  std::vector<uint64_t> digests(n);
  ThreadPool::global().parallel_for(n, [&](size_t k) {
    const uint64_t pos = k * checksum::kChunkBytes;
    digests[k] = checksum::xxh3_64(bytes.data() + pos, std::min(checksum::kChunkBytes, bytes.size() - pos));
  });
  return checksum::combine(digests);
}

uint64_t structural_hash(const PceInfo& info, const std::array<uint64_t, kNumSections>& section_checksums) {
  std::array<std::byte, 64 + 8 * kNumSections> b{};
  put<uint64_t>(b, 0, info.num_inputs);
  put<uint64_t>(b, 8, info.num_aux);
  put<uint64_t>(b, 16, info.num_constraints);
  for (size_t m = 0; m < 3; ++m) put<uint64_t>(b, 24 + 8 * m, info.nnz[m]);
  put<uint64_t>(b, 48, info.dict_size);
  put<uint8_t>(b, 56, static_cast<uint8_t>(info.encoding));
  for (size_t m = 0; m < 3; ++m) put<uint8_t>(b, 57 + m, info.row_ptr_width[m]);
  for (size_t i = 0; i < kNumSections; ++i) put<uint64_t>(b, 64 + 8 * i, section_checksums[i]);
  return checksum::xxh3_64(b.data(), b.size());
}

uint64_t structural_hash(const Pce& pce) {
  return structural_hash(pce.info(), checksums_of(pce.sections()));
}

Result<PceFileHeader> read_pce_header(const std::string& path, const std::string& expected_circuit_id) {
  try {
    UniqueFd fd = open_read_only(path);
    return read_header(fd.get(), path, expected_circuit_id);
  } catch (const std::exception& e) {
    return make_error(e.what());  // I/O errors; their text names the path
  }
}

Result<LoadedPce> load_pce(const std::string& path, const LoadOptions& options) {
  try {
    return load(path, options);
  } catch (const std::bad_alloc&) {
    return make_error(path + ": out of memory while loading");
  } catch (const std::exception& e) {
    return make_error(e.what());
  }
}

Result<PceFileHeader> save_pce(const Pce& pce, const std::string& path, const SaveProgress& progress) {
  PceFileHeader h;
  h.info = pce.info();
  if (h.info.circuit_id.size() > kPceMaxCircuitIdBytes || h.info.circuit_id.find('\0') != std::string::npos)
    return fail(path, "cannot save: the circuit id must be at most 127 bytes without NUL");

  // Layout: sections in kind order, each at the next multiple of 4096; the commit marker after them.
  uint64_t cursor = kPceHeaderBytes;
  for (size_t i = 0; i < kNumSections; ++i) {
    h.sections[i].offset = cursor;
    h.sections[i].length = pce.sections()[i].size();
    cursor = align_up(cursor + h.sections[i].length, kPceAlignment);
  }
  h.file_bytes = cursor + kPceTrailerBytes;
  {
    // The reader's header checks, before anything is written: the writer never produces a file
    // that cannot be loaded (e.g. from a default-constructed Pce). Checksums are not looked at.
    PceFileHeader probe = h, parsed;
    if (std::string e = check_header_fields(encode_header(probe), "", parsed); !e.empty())
      return fail(path, "cannot save: " + e);
  }

  try {
    AtomicFile file(path);
    file.allocate(h.file_bytes);
    const ChunkPlan plan(section_lengths(h.sections));
    std::vector<uint64_t> digests(plan.chunks.size());
    uint64_t total = 0, done = 0;
    for (const auto& s : h.sections) total += s.length;
    std::mutex progress_mu;
    ThreadPool::global().parallel_for(plan.chunks.size(), [&](size_t k) {
      const Chunk& c = plan.chunks[k];
      const auto bytes = pce.sections()[c.section].subspan(c.pos, c.len);
      digests[k] = checksum::xxh3_64(bytes.data(), bytes.size());
      file.pwrite(bytes, h.sections[c.section].offset + c.pos);
      if (progress) {
        std::lock_guard lk(progress_mu);
        done += c.len;
        progress(done, total);
      }
    });
    const auto sums = plan.combine(digests);
    for (size_t i = 0; i < kNumSections; ++i) h.sections[i].checksum = sums[i];
    h.structural_hash = structural_hash(h.info, sums);
    const HeaderBytes hb = encode_header(h);
    const TrailerBytes tb = encode_trailer(h);
    file.pwrite(hb, 0);
    file.pwrite(tb, h.file_bytes - kPceTrailerBytes);
    file.commit();
  } catch (const std::bad_alloc&) {
    return fail(path, "out of memory while saving");
  } catch (const std::exception& e) {
    return make_error(e.what());  // AtomicFile's messages name the path and the errno text
  }
  return h;
}

}  // namespace cuzk::pce
