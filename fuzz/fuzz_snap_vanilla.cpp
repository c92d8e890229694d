// SnapDeals vanilla proofs (bincode PartitionProof): the parser, then the validation against the
// 2 KiB synthetic set the seed corpus comes from (`cuzk synth-snap --sector-size 2KiB --seed 1`,
// fuzz/corpus/README.md). Errors must be SnapVanillaError; what parses must serialize back to the
// same bytes (the reader is strict).
#include <cstdlib>
#include <vector>

#include "filecoin/snap_error.hpp"
#include "filecoin/snap_synthetic.hpp"
#include "filecoin/snap_vanilla.hpp"
#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace cuzk::filecoin;
  static const SnapRequestContext ctx = synthetic_snap_vanilla(SnapCircuitShape::of(2048), 1).context;
  SnapPartitionProof proof;
  try {
    proof = parse_snap_partition_proof(cuzk::fuzz::bytes(data, size), 0);
  } catch (const SnapVanillaError&) {
    return 0;
  }
  if (to_bincode(proof) != std::vector<uint8_t>(data, data + size)) std::abort();
  try {
    validate_snap_vanilla(ctx, std::span<const SnapPartitionProof>(&proof, 1));
  } catch (const SnapVanillaError&) {
  }
  return 0;
}
