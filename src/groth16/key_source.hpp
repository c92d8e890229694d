#pragma once
// Where a prover reads a proving key's bases from: a ProvingKey in memory, or a .params file read
// window by window (ParamsKeySource, groth16/params_file.hpp) so that a device prover can upload a
// 47 GB key without the host ever holding all of it (a 32 GiB PoRep key then costs the host one
// window, not 47 GiB).
#include <cstdint>
#include <functional>
#include <span>
#include <string>

#include "groth16/keys.hpp"

namespace cuzk::groth16 {

struct ParamsLayout;  // groth16/params_file.hpp

// The number of points of each part of a key (bellperson layout, groth16/keys.hpp).
struct KeySizes {
  uint64_t ic = 0, h = 0, l = 0, a = 0, b_g1 = 0, b_g2 = 0;

  static KeySizes of(const ProvingKey& pk);
  static KeySizes of(const ParamsLayout& layout);  // a .params file's, without loading it
  // Bytes the decoded points take in memory (what loading the whole key costs the host).
  uint64_t host_bytes() const;
  // Bytes of the .params file of a key of these sizes (groth16/params_file.hpp's layout).
  uint64_t params_file_bytes() const;
  friend bool operator==(const KeySizes&, const KeySizes&) = default;
};

enum class G1Section { h, l, a, b_g1 };
const char* section_name(G1Section s);

// Called with consecutive windows of a section, in order: `first` is the index of points[0].
using G1Sink = std::function<void(uint64_t first, std::span<const G1Affine> points)>;
using G2Sink = std::function<void(uint64_t first, std::span<const G2Affine> points)>;

class KeySource {
 public:
  virtual ~KeySource() = default;
  virtual const VerifyingKey& vk() const = 0;
  virtual KeySizes sizes() const = 0;
  // Every point of the section, window by window. Throws std::runtime_error naming the file,
  // section and point when the data is bad (a file changed since it was opened).
  virtual void read_g1(G1Section section, const G1Sink& sink) const = 0;
  virtual void read_b_g2(const G2Sink& sink) const = 0;
  // The whole key when this source holds it in memory, else null.
  virtual const ProvingKey* in_memory() const { return nullptr; }
  // A name for the key behind the source, the same for every source of that key ("params:<path>"
  // for a .params file, "memory:<address>" for a key in memory), for sharing one host copy of it;
  // "" when the source has no identity.
  virtual std::string identity() const { return {}; }
};

// A key in memory (one window per section); the key must outlive the source.
class MemoryKeySource final : public KeySource {
 public:
  explicit MemoryKeySource(const ProvingKey& pk) : pk_(pk) {}
  const VerifyingKey& vk() const override { return pk_.vk; }
  KeySizes sizes() const override { return KeySizes::of(pk_); }
  void read_g1(G1Section section, const G1Sink& sink) const override;
  void read_b_g2(const G2Sink& sink) const override;
  const ProvingKey* in_memory() const override { return &pk_; }
  std::string identity() const override;

 private:
  const ProvingKey& pk_;
};

// Every point of the source in memory (a test's fake device; a small key).
ProvingKey collect_key(const KeySource& src);

}  // namespace cuzk::groth16
