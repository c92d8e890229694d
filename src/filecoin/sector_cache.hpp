#pragma once
// The on-disk state of sectors sealed and updated here (`cuzk seal --cache DIR`, `cuzk snap
// encode --out DIR`), so SnapDeals runs end to end with no outside data. Not the reference's cache
// layout (t_aux, p_aux, tree files): only what cuzk's own tools need, validated on reading.
//
//   sealed cache DIR:   sealed-sector.json  {"registered_proof", "sector_id", "prover_id", "comm_d",
//                                            "comm_r", "comm_c", "comm_r_last"}
//                       sector-key.dat      the replica, nodes x 32 bytes (tree R's leaves)
//   update DIR:         snap-update.json    {"registered_update_proof", "sector_id", "prover_id",
//                                            "comm_c", "comm_r_old", "comm_d_new", "comm_r_new"}
//                       data.dat            the new data, nodes x 32 bytes (tree D's leaves)
//                       replica.dat         the new replica (tree R new's leaves)
//
// Every file is written atomically; the JSON last, so a directory with its JSON is complete.
// Hex values are the 32 bytes in order (to_hex). Reading throws std::invalid_argument naming the
// file and the field.
#include <cstdint>
#include <string>
#include <vector>

#include "filecoin/domain.hpp"
#include "filecoin/registered_proof.hpp"
#include "filecoin/registered_update_proof.hpp"

namespace cuzk::filecoin {

struct SealedSectorCache {
  const RegisteredSealProof* proof = nullptr;
  uint64_t sector_id = 0;
  Bytes32 prover_id{}, comm_d{}, comm_r{}, comm_c{}, comm_r_last{};
};

struct SnapUpdateCache {
  const RegisteredUpdateProof* proof = nullptr;
  uint64_t sector_id = 0;
  Bytes32 prover_id{}, comm_c{}, comm_r_old{}, comm_d_new{}, comm_r_new{};
};

// Creates `dir` if needed.
void write_sealed_cache(const std::string& dir, const SealedSectorCache& meta, const std::vector<Bytes32>& sector_key);
SealedSectorCache read_sealed_cache(const std::string& dir);
// The nodes of `dir`/sector-key.dat (the size must match the proof's sector).
std::vector<Bytes32> read_sector_key(const std::string& dir, const SealedSectorCache& meta);

void write_snap_update(const std::string& dir, const SnapUpdateCache& meta, const std::vector<Bytes32>& data,
                       const std::vector<Bytes32>& replica);
SnapUpdateCache read_snap_update(const std::string& dir);
// `dir`/data.dat and `dir`/replica.dat.
std::vector<Bytes32> read_update_nodes(const std::string& dir, const SnapUpdateCache& meta, const char* file);

// Nodes of a file of nodes x 32 bytes; throws std::invalid_argument naming the file unless its size
// is exactly that.
std::vector<Bytes32> read_node_file(const std::string& path, uint64_t nodes);
void write_node_file(const std::string& path, const std::vector<Bytes32>& nodes);

}  // namespace cuzk::filecoin
