#include "engine/partition_work.hpp"

#include <stdexcept>

#include "circuits/builtin.hpp"
#include "groth16/proof_codec.hpp"
#include "groth16/prover_zkey.hpp"
#include "groth16/verifier.hpp"
#include "poly/domain.hpp"
#include "util/log.hpp"
#include "util/rng.hpp"

namespace cuzk::engine {

namespace {

std::string encode_public(std::span<const Fr> values) {
  std::string out(values.size() * 32, '\0');
  for (size_t i = 0; i < values.size(); ++i) {
    values[i].to_bytes_le(std::span<uint8_t>(reinterpret_cast<uint8_t*>(out.data()) + 32 * i, 32));
  }
  return out;
}

// The circuit's shape from its PCE: the runtime's, computed once (make_runtime), else now.
std::shared_ptr<const groth16::CircuitShape> pce_shape(const CircuitRuntime& rt) {
  return rt.shape ? rt.shape : std::make_shared<const groth16::CircuitShape>(groth16::CircuitShape::of(*rt.pce));
}

// A PCE circuit's witness from its payload: the built-in's own, a Filecoin kind's from its vanilla
// proofs, or the request's .wtns (its length checked at submit or at load).
PceWitness pce_witness(const CircuitRuntime& rt, PartitionPayload payload, ThreadPool& pool) {
  const CircuitDef& def = rt.def;
  const pce::Pce& p = *rt.pce;
  if (def.source == CircuitSource::Builtin) {
    circuits::BuiltinWitness w = circuits::witness_builtin(def.builtin, payload.witness_seed);
    return {std::move(w.inputs), std::move(w.aux)};
  }
  if (payload.vanilla) {
    PartitionAssignment w = payload.vanilla->assignment(payload.partition, pool);
    if (w.inputs.size() != p.num_inputs() || w.aux.size() != p.num_aux()) {
      throw std::runtime_error("circuit '" + def.id + "': the witness has " + std::to_string(w.inputs.size()) +
                               " inputs and " + std::to_string(w.aux.size()) + " aux, its PCE " +
                               std::to_string(p.num_inputs()) + " and " + std::to_string(p.num_aux()));
    }
    return {std::move(w.inputs), std::move(w.aux)};
  }
  if (payload.z.size() != p.num_inputs() + p.num_aux()) {
    // Keys and PCE of different circuits would get here; validate_key at load refuses those.
    throw std::logic_error("circuit '" + def.id + "': a witness of " + std::to_string(payload.z.size()) +
                           " values reached synthesis, its PCE has " + std::to_string(p.num_inputs() + p.num_aux()));
  }
  const auto split = payload.z.begin() + static_cast<ptrdiff_t>(p.num_inputs());
  return {std::vector<Fr>(payload.z.begin(), split), std::vector<Fr>(split, payload.z.end())};
}

}  // namespace

std::shared_ptr<const CircuitRuntime> make_runtime(CircuitDef def, SrsHandle srs, PceHandle pce) {
  std::shared_ptr<const groth16::CircuitShape> shape;
  if (pce) shape = std::make_shared<const groth16::CircuitShape>(groth16::CircuitShape::of(*pce));
  return std::make_shared<const CircuitRuntime>(
      CircuitRuntime{std::move(def), std::move(srs), std::move(pce), std::move(shape)});
}

std::optional<uint64_t> witness_length(const CircuitRuntime& rt) {
  if (rt.def.uses_zkey()) {
    if (rt.srs && rt.srs->zkey) return rt.srs->zkey->n_vars;
    return std::nullopt;
  }
  if (rt.pce) return rt.pce->num_inputs() + rt.pce->num_aux();
  if (rt.srs && rt.srs->bellperson()) return rt.srs->key_sizes().ic + rt.srs->key_sizes().l;
  return std::nullopt;
}

std::string witness_length_error(size_t index, uint64_t have, uint64_t want, const std::string& circuit_id) {
  if (have == want) return {};
  return "witness " + std::to_string(index) + " has " + std::to_string(have) + " values but circuit '" + circuit_id +
         "' needs " + std::to_string(want);
}

const char* path_name(SynthesisPath path) {
  switch (path) {
    case SynthesisPath::Pce:
      return "pce";
    case SynthesisPath::FullSynthesis:
      return "full_synthesis";
    case SynthesisPath::Zkey:
      return "zkey";
  }
  return "pce";
}

bool device_stage_on_gpu(const backend::Placement& gpus, const CircuitRuntime& rt) {
  if (!gpus.enabled()) return false;
  return rt.def.uses_zkey() || static_cast<bool>(rt.pce);
}

backend::CircuitKey circuit_key(const std::string& circuit, const SrsHandle& srs, const PceHandle& pce) {
  if (!srs || (!srs->zkey && !(srs->bellperson() && pce)))
    throw std::logic_error("circuit '" + circuit + "' has no key or PCE for a device prover");
  if (srs->zkey) return {circuit, backend::ZkeyKey{srs->zkey.get()}, {srs}};
  return {circuit, backend::PceKey{&srs->key_source(), pce.get()}, {srs, pce}};
}

uint64_t partition_bytes(const CircuitRuntime& rt, uint64_t num_constraints_hint, bool device_on_gpu) {
  uint64_t n = num_constraints_hint, vars = 0;
  if (rt.pce) {
    n = rt.pce->num_constraints();
    vars = rt.pce->num_inputs() + rt.pce->num_aux();
  } else if (rt.srs && rt.srs->zkey) {
    n = rt.srs->zkey->domain_size;
    vars = rt.srs->zkey->n_vars;
  } else if (rt.srs && rt.srs->bellperson()) {
    const groth16::KeySizes k = rt.srs->key_sizes();
    n = k.h + 1;
    vars = k.ic + k.l;
  }
  return partition_bytes(n, vars, device_on_gpu, rt.def.uses_zkey(), !rt.pce && !rt.def.uses_zkey());
}

uint64_t partition_bytes(uint64_t n, uint64_t vars, bool device_on_gpu, bool zkey, bool full_synthesis) {
  const uint64_t m = poly::Domain::size_for(n == 0 ? 1 : n);
  const uint64_t fr = sizeof(Fr);
  if (device_on_gpu) {
    // The witness and the CPU G2 MSM's digits; a zkey's a, b, c are made on the host.
    return vars * fr + vars * 16 + (256ull << 10) + (zkey ? 3 * m * fr : 0);
  }
  // witness; a, b, c at domain size (compute_h grows them in place) plus H; MSM digit scratch.
  uint64_t bytes = vars * fr + 4 * m * fr + vars * 16 + (256ull << 10);
  if (full_synthesis) bytes += 3 * n * fr;  // full synthesis: LC scratch, copies
  return bytes;
}

Synthesized synthesize(const CircuitRuntime& rt, PartitionPayload payload, ThreadPool& pool, bool matvec) {
  Synthesized out;
  const CircuitDef& def = rt.def;
  if (def.uses_zkey()) {
    out.path = SynthesisPath::Zkey;
    out.public_inputs = encode_public(std::span<const Fr>(payload.z).subspan(1, rt.srs->zkey->n_public));
    out.work = ZkeyWitness{std::move(payload.z)};
    return out;
  }
  std::span<const Fr> inputs;
  if (def.synthesizable() && !rt.pce) {
    // No PCE yet: full synthesis gives a, b, c and the densities directly.
    r1cs::ProvingCS cs = payload.vanilla ? payload.vanilla->synthesize(payload.partition)
                                         : circuits::synthesize_builtin(def.builtin, payload.witness_seed);
    auto shape = std::make_shared<groth16::CircuitShape>();
    shape->num_inputs = cs.num_inputs();
    shape->num_aux = cs.num_aux();
    shape->num_constraints = cs.num_constraints();
    shape->a_aux_density = cs.a_aux_density();
    shape->b_input_density = cs.b_input_density();
    shape->b_aux_density = cs.b_aux_density();
    Evaluated e{std::move(cs.inputs()), std::move(cs.aux()), cs.take_a(), cs.take_b(), cs.take_c(), std::move(shape)};
    out.path = SynthesisPath::FullSynthesis;
    out.work = std::move(e);
    inputs = std::get<Evaluated>(out.work).inputs;
  } else {
    if (!rt.pce) throw std::runtime_error("circuit '" + def.id + "' has no PCE");
    PceWitness w = pce_witness(rt, std::move(payload), pool);
    out.path = SynthesisPath::Pce;
    if (matvec) {
      groth16::ProverInput in = groth16::make_prover_input(*rt.pce, w.inputs, w.aux, nullptr, {.pool = &pool});
      out.work = Evaluated{std::move(w.inputs), std::move(w.aux), std::move(in.a),
                           std::move(in.b),     std::move(in.c),  pce_shape(rt)};
      inputs = std::get<Evaluated>(out.work).inputs;
    } else {
      out.work = std::move(w);
      inputs = std::get<PceWitness>(out.work).inputs;
    }
  }
  out.public_inputs = encode_public(inputs.subspan(1));
  return out;
}

namespace {

// The bellperson-convention stage on the CPU from (inputs, aux, a, b, c).
groth16::ProofMsms stage1_on_cpu(const CircuitRuntime& rt, const groth16::CircuitShape& shape,
                                 std::span<const Fr> inputs, std::span<const Fr> aux, std::vector<Fr> a,
                                 std::vector<Fr> b, std::vector<Fr> c, ThreadPool& pool,
                                 groth16::ProveTimings* timings) {
  groth16::ProverInput in{inputs, aux, std::move(a), std::move(b), std::move(c)};
  // The CPU proves from the key's host copy (loaded now if the GPUs held the only copy).
  auto pk = rt.srs->host_key();
  if (!pk.ok()) throw std::runtime_error(pk.error());
  return groth16::prove_stage1(**pk, shape, std::move(in), timings, {.pool = &pool});
}

}  // namespace

DeviceStageOut device_stage(const CircuitRuntime& rt, Synthesized s, ThreadPool& pool, groth16::ProveTimings* timings) {
  DeviceStageOut out;
  if (auto* zk = std::get_if<ZkeyWitness>(&s.work)) {
    // zkey_msms runs on ThreadPool::global(), which the engine sizes for its prover.
    out.msms = groth16::zkey_msms(*rt.srs->zkey, zk->z, timings);
  } else if (auto* w = std::get_if<PceWitness>(&s.work)) {
    // synthesize left MatVec to a GPU that did not take the partition.
    if (!rt.pce) throw std::logic_error("device_stage: a PCE witness and no PCE");
    groth16::ProverInput in = groth16::make_prover_input(*rt.pce, w->inputs, w->aux, timings, {.pool = &pool});
    out.msms = stage1_on_cpu(rt, *pce_shape(rt), w->inputs, w->aux, std::move(in.a), std::move(in.b), std::move(in.c),
                             pool, timings);
  } else {
    Evaluated& e = std::get<Evaluated>(s.work);
    out.msms =
        stage1_on_cpu(rt, *e.shape, e.inputs, e.aux, std::move(e.a), std::move(e.b), std::move(e.c), pool, timings);
  }
  return out;
}

uint64_t held_bytes(const Synthesized& s) {
  auto bytes = [](const std::vector<Fr>& v) { return uint64_t{v.capacity()} * sizeof(Fr); };
  return std::visit(
      [&](const auto& w) -> uint64_t {
        using W = std::decay_t<decltype(w)>;
        if constexpr (std::is_same_v<W, PceWitness>) return bytes(w.inputs) + bytes(w.aux);
        if constexpr (std::is_same_v<W, Evaluated>)
          return bytes(w.inputs) + bytes(w.aux) + bytes(w.a) + bytes(w.b) + bytes(w.c);
        if constexpr (std::is_same_v<W, ZkeyWitness>) return bytes(w.z);
      },
      s.work);
}

DeviceStageOut device_stage_on(backend::Placement& gpus, size_t slot, const CircuitRuntime& rt, Synthesized& s,
                               ThreadPool& pool, backend::StageReport* report, const std::function<void()>& before_cpu,
                               groth16::ProveTimings* timings) {
  auto on_cpu = [&] {
    if (before_cpu) before_cpu();
    return device_stage(rt, std::move(s), pool, timings).msms;
  };
  // A GPU takes a zkey witness, or a PCE witness whose a, b, c it computes from its resident PCE;
  // evaluated partitions (full synthesis; MatVec done on the CPU) stay on the CPU.
  const auto* zk = std::get_if<ZkeyWitness>(&s.work);
  const auto* pw = std::get_if<PceWitness>(&s.work);
  const bool zkey = zk && rt.srs && rt.srs->zkey;
  const bool bellperson = pw && rt.pce && rt.srs && rt.srs->bellperson();
  if (!gpus.enabled() || !(zkey || bellperson)) {
    if (report) report->backend = "cpu";
    return {on_cpu()};
  }
  const backend::WitnessRef w = zkey ? backend::WitnessRef{backend::FullWitness{zk->z}}
                                     : backend::WitnessRef{groth16::Witness{pw->inputs, pw->aux}};
  return {backend::stage_with_retry(gpus, slot, circuit_key(rt.def.id, rt.srs, rt.pce), w, on_cpu, report, timings)};
}

namespace {

// The one check both kinds share: the proof decodes and verifies with the circuit's key.
std::string verify_with(const CircuitRuntime& rt, std::span<const Fr> inputs, const std::string& proof) {
  auto decoded = groth16::decode_proofs(std::span(reinterpret_cast<const uint8_t*>(proof.data()), proof.size()));
  if (!decoded.ok() || decoded->size() != 1) return "the proof does not decode";
  auto ok = groth16::verify(rt.srs->pvk, decoded->front(), inputs);
  if (!ok.ok()) return ok.error();
  return *ok ? std::string() : "the proof does not verify";
}

}  // namespace

std::string verify_vanilla_partition(const CircuitRuntime& rt, const VanillaPartitions& vanilla, uint32_t partition,
                                     const std::string& proof) {
  const std::vector<Fr> inputs = vanilla.verifier_inputs(partition);
  const std::string why = verify_with(rt, inputs, proof);
  return why.empty() ? why : why + " against the public inputs derived from " + vanilla.inputs_source();
}

std::string verify_partition(const CircuitRuntime& rt, const std::string& public_inputs, const std::string& proof) {
  if (public_inputs.size() % 32 != 0) return "the public inputs are not whole 32-byte values";
  std::vector<Fr> inputs(public_inputs.size() / 32);
  for (size_t i = 0; i < inputs.size(); ++i) {
    auto v = Fr::from_bytes_le(std::span(reinterpret_cast<const uint8_t*>(public_inputs.data()) + 32 * i, 32));
    if (!v.ok()) return "public input " + std::to_string(i) + " is not a canonical field element";
    inputs[i] = *v;
  }
  const std::string why = verify_with(rt, inputs, proof);
  // A proof that does not verify with the witness's own public inputs means the witness does not
  // satisfy the circuit (or the key is corrupt): no such proof is handed out.
  return why.empty() ? why : why + " with the witness's public inputs: the witness does not satisfy the circuit";
}

std::string finalize_stage(const CircuitRuntime& rt, const DeviceStageOut& d, groth16::ProveTimings* timings) {
  SystemRng rng;
  const Fr r = Fr::random(rng), s = Fr::random(rng);
  const backend::FinalizeKey key =
      rt.srs->zkey ? backend::FinalizeKey{rt.srs->zkey.get()} : backend::FinalizeKey{&rt.srs->vk()};
  const groth16::Proof proof = backend::finalize(key, d.msms, r, s, timings);
  const std::vector<uint8_t> bytes = groth16::encode_proofs(std::span<const groth16::Proof>(&proof, 1));
  return std::string(bytes.begin(), bytes.end());
}

}  // namespace cuzk::engine
