#include "filecoin/sector_cache.hpp"

#include <simdjson.h>

#include <filesystem>
#include <fstream>
#include <span>
#include <stdexcept>

#include "util/atomic_file.hpp"

namespace cuzk::filecoin {
namespace {

namespace dom = simdjson::dom;
namespace fs = std::filesystem;

constexpr const char* kSealedJson = "sealed-sector.json";
constexpr const char* kSectorKey = "sector-key.dat";
constexpr const char* kUpdateJson = "snap-update.json";

void make_dir(const std::string& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw std::runtime_error(dir + ": cannot create the directory: " + ec.message());
}

std::string hex_field(const char* name, const Bytes32& b) {
  return std::string("\"") + name + "\": \"" + to_hex(b) + "\"";
}

// A JSON object of known fields, every one required.
class JsonReader {
 public:
  explicit JsonReader(std::string path) : path_(std::move(path)) {
    std::ifstream in(path_, std::ios::binary);
    if (!in) fail("", "cannot open (not a directory written by cuzk?)");
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (auto e = parser_.parse(simdjson::padded_string(text)).get(doc_)) fail("", simdjson::error_message(e));
    if (doc_.get_object().get(obj_)) fail("", "expected a JSON object");
  }
  [[noreturn]] void fail(const std::string& field, const std::string& what) const {
    throw std::invalid_argument(path_ + (field.empty() ? "" : ": " + field) + ": " + what);
  }
  dom::element get(const char* field) const {
    dom::element v;
    if (obj_.at_key(field).get(v)) fail(field, "missing field");
    return v;
  }
  std::string_view str(const char* field) const {
    std::string_view s;
    if (get(field).get_string().get(s)) fail(field, "expected a string");
    return s;
  }
  uint64_t u64(const char* field) const {
    uint64_t x = 0;
    if (get(field).get_uint64().get(x)) fail(field, "expected an unsigned integer");
    return x;
  }
  Bytes32 hex(const char* field) const {
    const std::optional<Bytes32> b = bytes32_from_hex(str(field));
    if (!b) fail(field, "expected 64 hex digits");
    return *b;
  }

 private:
  std::string path_;
  dom::parser parser_;
  dom::element doc_;
  dom::object obj_;
};

}  // namespace

std::vector<Bytes32> read_node_file(const std::string& path, uint64_t nodes) {
  std::error_code ec;
  const uintmax_t size = fs::file_size(path, ec);
  if (ec) throw std::invalid_argument(path + ": cannot read: " + ec.message());
  if (size != nodes * 32) {
    throw std::invalid_argument(path + ": " + std::to_string(size) + " bytes, expected " + std::to_string(nodes) +
                                " nodes of 32 bytes");
  }
  std::vector<Bytes32> out(nodes);
  std::ifstream in(path, std::ios::binary);
  if (!in.read(reinterpret_cast<char*>(out.data()), static_cast<std::streamsize>(size))) {
    throw std::runtime_error(path + ": read failed");
  }
  return out;
}

void write_node_file(const std::string& path, const std::vector<Bytes32>& nodes) {
  AtomicFile f(path);
  f.write(std::as_bytes(std::span<const Bytes32>(nodes)));
  f.commit();
}

void write_sealed_cache(const std::string& dir, const SealedSectorCache& m, const std::vector<Bytes32>& sector_key) {
  if (m.proof == nullptr) throw std::invalid_argument("sealed cache: no registered proof");
  make_dir(dir);
  write_node_file(dir + "/" + kSectorKey, sector_key);
  write_file_atomically(dir + "/" + kSealedJson,
                        "{\"registered_proof\": \"" + std::string(m.proof->name) + "\", \"sector_id\": " +
                            std::to_string(m.sector_id) + ", " + hex_field("prover_id", m.prover_id) + ", " +
                            hex_field("comm_d", m.comm_d) + ", " + hex_field("comm_r", m.comm_r) + ", " +
                            hex_field("comm_c", m.comm_c) + ", " + hex_field("comm_r_last", m.comm_r_last) + "}\n");
}

SealedSectorCache read_sealed_cache(const std::string& dir) {
  const JsonReader j(dir + "/" + kSealedJson);
  SealedSectorCache m;
  try {
    m.proof = &registered_seal_proof(j.str("registered_proof"));
  } catch (const std::invalid_argument& e) {
    j.fail("registered_proof", e.what());
  }
  m.sector_id = j.u64("sector_id");
  m.prover_id = j.hex("prover_id");
  m.comm_d = j.hex("comm_d");
  m.comm_r = j.hex("comm_r");
  m.comm_c = j.hex("comm_c");
  m.comm_r_last = j.hex("comm_r_last");
  return m;
}

std::vector<Bytes32> read_sector_key(const std::string& dir, const SealedSectorCache& meta) {
  return read_node_file(dir + "/" + kSectorKey, meta.proof->shape.nodes);
}

void write_snap_update(const std::string& dir, const SnapUpdateCache& m, const std::vector<Bytes32>& data,
                       const std::vector<Bytes32>& replica) {
  if (m.proof == nullptr) throw std::invalid_argument("snap update: no registered proof");
  make_dir(dir);
  write_node_file(dir + "/data.dat", data);
  write_node_file(dir + "/replica.dat", replica);
  write_file_atomically(dir + "/" + kUpdateJson,
                        "{\"registered_update_proof\": \"" + std::string(m.proof->name) +
                            "\", \"sector_id\": " + std::to_string(m.sector_id) + ", " +
                            hex_field("prover_id", m.prover_id) + ", " + hex_field("comm_c", m.comm_c) + ", " +
                            hex_field("comm_r_old", m.comm_r_old) + ", " + hex_field("comm_d_new", m.comm_d_new) +
                            ", " + hex_field("comm_r_new", m.comm_r_new) + "}\n");
}

SnapUpdateCache read_snap_update(const std::string& dir) {
  const JsonReader j(dir + "/" + kUpdateJson);
  SnapUpdateCache m;
  try {
    m.proof = &registered_update_proof(j.str("registered_update_proof"));
  } catch (const std::invalid_argument& e) {
    j.fail("registered_update_proof", e.what());
  }
  m.sector_id = j.u64("sector_id");
  m.prover_id = j.hex("prover_id");
  m.comm_c = j.hex("comm_c");
  m.comm_r_old = j.hex("comm_r_old");
  m.comm_d_new = j.hex("comm_d_new");
  m.comm_r_new = j.hex("comm_r_new");
  return m;
}

std::vector<Bytes32> read_update_nodes(const std::string& dir, const SnapUpdateCache& meta, const char* file) {
  return read_node_file(dir + "/" + file, meta.proof->sector_size / 32);
}

}  // namespace cuzk::filecoin
