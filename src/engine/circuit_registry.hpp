#pragma once
// Circuit ids the daemon serves: the [[circuits]] of its config and, when enabled, every built-in
// circuit by name ("chain:2^18"). A definition says where the structure comes from (built-in
// code, a .pce file, a circom .r1cs, a snarkjs .zkey) and where the keys come from (.params/.vk,
// the .zkey, or the test-only setup cached under the parameter directory).
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "circuits/builtin.hpp"
#include "engine/config.hpp"
#include "filecoin/registered_post_proof.hpp"
#include "filecoin/registered_update_proof.hpp"
#include "util/result.hpp"

namespace cuzk::engine {

enum class CircuitSource { Builtin, Pce, R1cs, Zkey, Porep, Post, Snap };

struct CircuitDef {
  std::string id;
  CircuitSource source = CircuitSource::Builtin;
  circuits::BuiltinSpec builtin;   // Builtin
  uint64_t porep_sector_size = 0;  // Porep: the PoRep C2 partition circuit of this sector size
  // Post: the FallbackPoSt circuit of this proof's type and sector size (the V1 and V1_1 Window
  // proofs share it; only their challenges differ).
  const filecoin::RegisteredPostProof* post_proof = nullptr;
  const filecoin::RegisteredUpdateProof* update_proof = nullptr;  // Snap: one partition's circuit
  std::string pce_path;     // Pce: the file; otherwise where the extracted Pce is cached
  std::string r1cs_path;    // R1cs
  std::string zkey_path;    // Zkey
  std::string params_path;  // bellperson keys (not Zkey)
  std::string vk_path;      // optional; the .params file holds the vk too
  bool test_setup = false;  // generate params_path/vk_path with the test-only setup if missing

  bool uses_zkey() const { return source == CircuitSource::Zkey; }
  // Witness data a request carries: .wtns files, (built-ins) partition inputs, (PoRep) a C1
  // output or (PoSt, SnapDeals) vanilla proofs.
  bool takes_wtns() const { return source == CircuitSource::Pce || source == CircuitSource::R1cs || uses_zkey(); }
  // Circuits whose code is built in (built-ins, PoRep, PoSt, SnapDeals): their PCE can be extracted
  // in the background while requests are served by full synthesis.
  bool synthesizable() const { return source == CircuitSource::Builtin || filecoin(); }
  // The Filecoin circuits, proved only through their own proof kinds (not GENERIC).
  bool filecoin() const {
    return source == CircuitSource::Porep || source == CircuitSource::Post || source == CircuitSource::Snap;
  }
};

// A file-system-safe stem for cached files of a circuit id ("chain:2^18" -> "chain_2^18").
std::string file_stem(const std::string& circuit_id);

class CircuitRegistry {
 public:
  explicit CircuitRegistry(const Config& config);

  // The definition, or an error naming the id and the known ones.
  Result<CircuitDef> find(const std::string& id) const;
  // The PoRep circuit id of a sector size: "porep:2KiB", ..., "porep:64GiB".
  static std::string porep_id(uint64_t sector_size);
  // The PoSt circuit id of a registered PoSt proof: "window-post:2KiB", "winning-post:32GiB".
  static std::string post_id(const filecoin::RegisteredPostProof& proof);
  // The SnapDeals partition circuit id of a registered update proof: "snap:2KiB", "snap:32GiB".
  static std::string snap_id(const filecoin::RegisteredUpdateProof& proof);
  // Configured ids (built-ins by name are not listed: there are too many).
  std::vector<std::string> ids() const;
  // The directories the engine writes PCEs and test-only keys to: the PCE and parameter
  // directories and those of configured circuits' own such files.
  std::vector<std::string> output_dirs() const;
  bool builtins_enabled() const { return builtins_; }
  bool test_keys_allowed() const { return allow_test_keys_; }

 private:
  CircuitDef builtin_def(const std::string& id, const circuits::BuiltinSpec& spec) const;
  // A porep:/window-post:/winning-post:/snap: circuit (the caller sets which proof or size): its
  // PCE cached in the PCE directory; keys from the official parameter file `official_stem`.params
  // (filecoin's v28 name) when it is in the parameter directory, else test-only keys cached there
  // (find() refuses those unless srs.allow_test_keys).
  CircuitDef filecoin_def(std::string id, CircuitSource source, const std::string& official_stem) const;
  // A porep:/window-post:/winning-post:/snap: id, or nullopt when `id` has none of those prefixes.
  std::optional<Result<CircuitDef>> find_filecoin(const std::string& id) const;

  std::map<std::string, CircuitDef> defs_;
  bool builtins_ = true;
  bool allow_test_keys_ = false;
  std::string param_dir_, pce_dir_;
};

}  // namespace cuzk::engine
