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

void check_witness(const std::vector<Fr>& z, uint64_t want, const std::string& id) {
  if (z.size() != want) {
    throw std::invalid_argument("witness has " + std::to_string(z.size()) + " values but circuit '" + id + "' needs " +
                                std::to_string(want));
  }
  if (z.empty() || !z[0].is_one()) throw std::invalid_argument("witness value 0 (ONE) must be 1");
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
  if (rt.srs && rt.srs->pk) return rt.srs->pk->vk.ic.size() + rt.srs->pk->l.size();
  return std::nullopt;
}

bool device_stage_on_gpu(const GpuPool& gpus, const CircuitRuntime& rt) {
  if (!gpus.enabled()) return false;
  if (rt.def.uses_zkey()) return gpus.zkey_capable();
  return static_cast<bool>(rt.pce);
}

uint64_t partition_bytes(const CircuitRuntime& rt, uint64_t num_constraints_hint, bool device_on_gpu) {
  uint64_t n = num_constraints_hint, vars = 0;
  if (rt.pce) {
    n = rt.pce->num_constraints();
    vars = rt.pce->num_inputs() + rt.pce->num_aux();
  } else if (rt.srs && rt.srs->zkey) {
    n = rt.srs->zkey->domain_size;
    vars = rt.srs->zkey->n_vars;
  } else if (rt.srs && rt.srs->pk) {
    n = rt.srs->pk->h.size() + 1;
    vars = rt.srs->pk->vk.ic.size() + rt.srs->pk->l.size();
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
    check_witness(payload.z, rt.srs->zkey->n_vars, def.id);
    out.public_inputs = encode_public(std::span<const Fr>(payload.z).subspan(1, rt.srs->zkey->n_public));
    out.z = std::move(payload.z);
    return out;
  }
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
    out.shape = std::move(shape);
    out.a = cs.take_a();
    out.b = cs.take_b();
    out.c = cs.take_c();
    out.inputs = std::move(cs.inputs());
    out.aux = std::move(cs.aux());
    out.full_synthesis = true;
  } else {
    if (!rt.pce) throw std::runtime_error("circuit '" + def.id + "' has no PCE");
    const pce::Pce& p = *rt.pce;
    if (def.source == CircuitSource::Builtin) {
      circuits::BuiltinWitness w = circuits::witness_builtin(def.builtin, payload.witness_seed);
      out.inputs = std::move(w.inputs);
      out.aux = std::move(w.aux);
    } else if (payload.vanilla) {
      PartitionAssignment w = payload.vanilla->assignment(payload.partition);
      if (w.inputs.size() != p.num_inputs() || w.aux.size() != p.num_aux()) {
        throw std::runtime_error("circuit '" + def.id + "': the witness has " + std::to_string(w.inputs.size()) +
                                 " inputs and " + std::to_string(w.aux.size()) + " aux, its PCE " +
                                 std::to_string(p.num_inputs()) + " and " + std::to_string(p.num_aux()));
      }
      out.inputs = std::move(w.inputs);
      out.aux = std::move(w.aux);
    } else {
      check_witness(payload.z, p.num_inputs() + p.num_aux(), def.id);
      out.inputs.assign(payload.z.begin(), payload.z.begin() + static_cast<ptrdiff_t>(p.num_inputs()));
      out.aux.assign(payload.z.begin() + static_cast<ptrdiff_t>(p.num_inputs()), payload.z.end());
      payload.z = {};
    }
    if (matvec) {
      groth16::ProverInput in = groth16::make_prover_input(p, out.inputs, out.aux, nullptr, {.pool = &pool});
      out.a = std::move(in.a);
      out.b = std::move(in.b);
      out.c = std::move(in.c);
    }
    out.shape = rt.shape ? rt.shape : std::make_shared<const groth16::CircuitShape>(groth16::CircuitShape::of(p));
  }
  out.public_inputs = encode_public(std::span<const Fr>(out.inputs).subspan(1));
  return out;
}

DeviceStageOut device_stage(const CircuitRuntime& rt, Synthesized s, ThreadPool& pool, groth16::ProveTimings* timings) {
  DeviceStageOut out;
  if (rt.def.uses_zkey()) {
    // prove_zkey runs on ThreadPool::global(), which the engine sizes for its prover.
    out.proof = groth16::prove_zkey(*rt.srs->zkey, s.z);
    return out;
  }
  if (s.a.empty() && !s.full_synthesis) {
    // synthesize left MatVec to a GPU that did not take the partition.
    if (!rt.pce) throw std::logic_error("device_stage: no a, b, c and no PCE");
    groth16::ProverInput in = groth16::make_prover_input(*rt.pce, s.inputs, s.aux, timings, {.pool = &pool});
    s.a = std::move(in.a);
    s.b = std::move(in.b);
    s.c = std::move(in.c);
  }
  // The inputs/aux spans point into `s`, which lives until the stage returns.
  groth16::ProverInput in{s.inputs, s.aux, std::move(s.a), std::move(s.b), std::move(s.c)};
  out.msms = groth16::prove_stage1(*rt.srs->pk, *s.shape, std::move(in), timings, {.pool = &pool});
  return out;
}

DeviceStageOut device_stage_on(GpuPool& gpus, size_t slot, const CircuitRuntime& rt, Synthesized s, ThreadPool& pool,
                               DeviceStageReport* report, const std::function<void()>& before_cpu) {
  DeviceStageReport local;
  DeviceStageReport& rep = report ? *report : local;
  auto on_cpu = [&] {
    if (before_cpu) before_cpu();
    rep.backend = "cpu";
    return device_stage(rt, std::move(s), pool, nullptr);
  };
  const bool zkey = rt.def.uses_zkey() && rt.srs && rt.srs->zkey && gpus.zkey_capable();
  const bool bellperson = !rt.def.uses_zkey() && rt.pce && !s.full_synthesis && rt.srs && rt.srs->pk;
  if (!gpus.enabled() || !(zkey || bellperson)) return on_cpu();
  const groth16::Witness w{s.inputs, s.aux};
  const size_t n = gpus.devices().size();
  auto attempt = [&](size_t sl) {
    DeviceStageOut out;
    if (zkey) {
      // The whole snarkjs-convention proof: the device's sums, then the blinding on the CPU.
      const groth16::ZkeyMsms sums = gpus.zkey_stage1(sl, rt.def.id, rt.srs, s.z, &rep.backend);
      SystemRng rng;
      const Fr r = Fr::random(rng), t = Fr::random(rng);
      out.proof = groth16::zkey_finalize(*rt.srs->zkey, sums, r, t);
    } else {
      out.msms = gpus.stage1(sl, rt.def.id, rt.srs, rt.pce, w, &rep.backend);
    }
    return out;
  };
  auto does_not_fit = [&](const std::exception& e) {
    if (gpus.required()) throw std::runtime_error(std::string(e.what()) + " (gpus.backend = \"gpu\")");
    logging::log_event(logging::Level::warn, "gpu_prover_unavailable",
                       {{"circuit", rt.def.id}, {"error", e.what()}, {"using", "cpu"}});
  };
  try {
    return attempt(slot);
  } catch (const backend::DeviceFailure& e) {
    rep.failures.push_back(e.what());
  } catch (const backend::DeviceMemoryShort& e) {
    does_not_fit(e);
    return on_cpu();
  }
  // One retry: the next device, else the CPU.
  const std::string retry_on = n > 1 ? "gpu:" + std::to_string(gpus.devices()[(slot + 1) % n]) : "cpu";
  logging::log_event(logging::Level::warn, "device_stage_failed",
                     {{"circuit", rt.def.id}, {"error", rep.failures.back()}, {"retry", retry_on}});
  if (n == 1) return on_cpu();
  try {
    return attempt((slot + 1) % n);
  } catch (const backend::DeviceFailure& e) {
    rep.failures.push_back(e.what());
  } catch (const backend::DeviceMemoryShort& e) {
    does_not_fit(e);
    return on_cpu();
  }
  throw std::runtime_error("the device stage failed twice: " + rep.failures[0] + "; then " + rep.failures[1]);
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
  groth16::Proof proof;
  if (d.proof) {
    proof = *d.proof;
  } else {
    SystemRng rng;
    const Fr r = Fr::random(rng), s = Fr::random(rng);
    proof = groth16::prove_finalize(rt.srs->pk->vk, d.msms, r, s, timings);
  }
  const std::vector<uint8_t> bytes = groth16::encode_proofs(std::span<const groth16::Proof>(&proof, 1));
  return std::string(bytes.begin(), bytes.end());
}

}  // namespace cuzk::engine
