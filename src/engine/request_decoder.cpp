#include "engine/request_decoder.hpp"

#include "engine/porep_request.hpp"
#include "engine/post_request.hpp"
#include "engine/snap_request.hpp"
#include "r1cs/circom_wtns.hpp"
#include "util/checksum.hpp"
#include "util/quote.hpp"

namespace cuzk::engine {

namespace {

using O = Outcome<DecodedRequest>;

O invalid(std::string message) {
  return invalid_request(std::move(message));
}

// A circom circuit: one .wtns per partition, each checked (length when known, ONE first) here.
O decode_wtns(ProofRequest& req, const DecodeContext& ctx, DecodedRequest out) {
  const CircuitDef& def = out.def;
  if (!req.partition_inputs.empty()) {
    return invalid("circuit '" + def.id + "' takes .wtns witnesses (field witnesses), not partition_inputs");
  }
  if (req.witnesses.empty()) return invalid("no witnesses: send one .wtns file per partition");
  if (req.witnesses.size() > kMaxPartitions) {
    return invalid(std::to_string(req.witnesses.size()) + " partitions; at most " + std::to_string(kMaxPartitions));
  }
  const std::optional<uint64_t> want = ctx.witness_length ? ctx.witness_length(def) : std::nullopt;
  for (size_t i = 0; i < req.witnesses.size(); ++i) {
    const std::string& w = req.witnesses[i];
    auto z = circom::parse_wtns(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(w.data()), w.size()),
                                "witness " + std::to_string(i));
    if (!z.ok()) return invalid(z.error());
    if (want) {
      if (std::string why = witness_length_error(i, z->size(), *want, def.id); !why.empty()) return invalid(why);
    }
    if (z->empty() || !(*z)[0].is_one()) return invalid("witness " + std::to_string(i) + ": value 0 (ONE) must be 1");
    out.payloads.push_back(PartitionPayload{0, std::move(z).value(), nullptr, 0});
    req.witnesses[i] = {};
  }
  out.witness_length_checked = want.has_value();
  return O::success(std::move(out));
}

// A built-in circuit: one short input per partition, from which it computes its own witness.
O decode_builtin(ProofRequest& req, DecodedRequest out) {
  if (!req.witnesses.empty()) {
    return invalid("built-in circuit '" + out.def.id +
                   "' computes its own witness: send partition_inputs, not witnesses");
  }
  if (req.partition_inputs.empty()) {
    return invalid("no partitions: send one partition_inputs entry (<= 64 bytes) per partition");
  }
  if (req.partition_inputs.size() > kMaxPartitions) {
    return invalid(std::to_string(req.partition_inputs.size()) + " partitions; at most " +
                   std::to_string(kMaxPartitions));
  }
  for (size_t i = 0; i < req.partition_inputs.size(); ++i) {
    const std::string& in = req.partition_inputs[i];
    if (in.size() > kMaxPartitionInputBytes) {
      return invalid("partition_inputs[" + std::to_string(i) + "] has " + std::to_string(in.size()) +
                     " bytes; at most " + std::to_string(kMaxPartitionInputBytes));
    }
    out.payloads.push_back(PartitionPayload{checksum::xxh3_64(in.data(), in.size()), {}, nullptr, 0});
  }
  return O::success(std::move(out));
}

// GENERIC: a registered circuit by id; the Filecoin circuits only through their own kinds.
O decode_generic(ProofRequest& req, const DecodeContext& ctx) {
  if (req.circuit_id.empty()) return invalid("circuit_id is required for GENERIC proofs");
  auto def = ctx.registry.find(req.circuit_id);
  if (!def.ok()) return invalid(def.error());
  if (def->source == CircuitSource::Porep) {
    return invalid("circuit '" + def->id +
                   "' is the PoRep C2 circuit: send POREP_SEAL_COMMIT with the C1 output as vanilla_proof");
  }
  if (def->source == CircuitSource::Post) {
    return invalid("circuit '" + def->id +
                   "' is a PoSt circuit: send WINDOW_POST_PARTITION or WINNING_POST with the vanilla_proofs");
  }
  if (def->source == CircuitSource::Snap) {
    return invalid("circuit '" + def->id +
                   "' is the SnapDeals circuit: send SNAP_DEALS_UPDATE with the commitments and vanilla_proofs");
  }
  DecodedRequest out;
  out.def = *def;
  return def->takes_wtns() ? decode_wtns(req, ctx, std::move(out)) : decode_builtin(req, std::move(out));
}

}  // namespace

Outcome<DecodedRequest> filecoin_request(const ProofRequest& req, const DecodeContext& ctx,
                                         const std::string& circuit_id, const std::string& decided_by,
                                         const std::string& kind, std::shared_ptr<const VanillaPartitions> vanilla) {
  if (!req.circuit_id.empty() && req.circuit_id != circuit_id) {
    return invalid("circuit_id " + short_quote(req.circuit_id) + " does not match " + decided_by + " (" + circuit_id +
                   "); leave it empty for " + kind + " requests");
  }
  auto def = ctx.registry.find(circuit_id);
  if (!def.ok()) return invalid(def.error());
  DecodedRequest out;
  out.def = *def;
  for (uint32_t k = 0; k < vanilla->count(); ++k) {
    PartitionPayload p;
    p.vanilla = vanilla;
    p.partition = k;
    out.payloads.push_back(std::move(p));
  }
  out.vanilla = std::move(vanilla);
  return O::success(std::move(out));
}

Outcome<DecodedRequest> decode_request(ProofRequest& req, const DecodeContext& ctx) {
  switch (req.kind) {
    case ProofKind::Generic:
      return decode_generic(req, ctx);
    case ProofKind::PorepSealCommit:
      return decode_porep(req, ctx);
    case ProofKind::Unspecified:
      return invalid("proof_kind is required (GENERIC for registered circuits)");
    case ProofKind::WindowPostPartition:
    case ProofKind::WinningPost:
      return decode_post(req, ctx);
    case ProofKind::SnapDealsUpdate:
      return decode_snap(req, ctx);
  }
  return invalid("unknown proof_kind " + std::to_string(static_cast<int>(req.kind)));
}

}  // namespace cuzk::engine
