#include "groth16/prover.hpp"

#include <bit>
#include <chrono>
#include <stdexcept>
#include <string>

#include "ec/msm.hpp"
#include "pce/matvec.hpp"
#include "poly/domain.hpp"
#include "util/rng.hpp"
#include "util/stopwatch.hpp"

namespace cuzk::groth16 {

namespace {

using cuzk::Stopwatch;

ThreadPool& pool_of(const ProverOptions& o) {
  return o.pool ? *o.pool : ThreadPool::global();
}

void add_time(ProveTimings* t, double ProveTimings::*field, double s) {
  if (t) t->*field += s;
}

std::string count_mismatch(const char* what, uint64_t got, uint64_t want) {
  return std::string(what) + " has " + std::to_string(got) + " elements, expected " + std::to_string(want);
}

size_t domain_size_of(uint64_t num_constraints) {
  const size_t m = poly::Domain::size_for(num_constraints);
  if (m == 0) {
    throw std::invalid_argument("prover: " + std::to_string(num_constraints) +
                                " constraints need a domain larger than 2^28");
  }
  return m;
}

uint64_t popcount(const std::vector<uint64_t>& words) {
  uint64_t n = 0;
  for (uint64_t w : words) n += static_cast<uint64_t>(std::popcount(w));
  return n;
}

void validate_witness(uint64_t num_inputs, uint64_t num_aux, std::span<const Fr> inputs, std::span<const Fr> aux) {
  if (inputs.size() != num_inputs) {
    throw std::invalid_argument("prover: " + count_mismatch("inputs", inputs.size(), num_inputs));
  }
  if (aux.size() != num_aux) {
    throw std::invalid_argument("prover: " + count_mismatch("aux", aux.size(), num_aux));
  }
  if (inputs.empty() || !inputs[0].is_one()) throw std::invalid_argument("prover: inputs[0] (ONE) must be 1");
}

Fr random_fr(SystemRng& rng) {
  return Fr::random(rng);
}

}  // namespace

CircuitShape CircuitShape::of(const pce::Pce& pce) {
  auto words = [](const pce::DensityView& d) { return std::vector<uint64_t>(d.words().begin(), d.words().end()); };
  return CircuitShape{pce.num_inputs(),
                      pce.num_aux(),
                      pce.num_constraints(),
                      words(pce.a_aux_density()),
                      words(pce.b_input_density()),
                      words(pce.b_aux_density())};
}

uint64_t CircuitShape::a_aux_count() const {
  return popcount(a_aux_density);
}
uint64_t CircuitShape::b_input_count() const {
  return popcount(b_input_density);
}
uint64_t CircuitShape::b_aux_count() const {
  return popcount(b_aux_density);
}

void validate_key(const ProvingKey& pk, const pce::Pce& pce) {
  validate_key(pk, CircuitShape::of(pce));
}

void validate_key(const ProvingKey& pk, const CircuitShape& shape) {
  validate_key(KeySizes::of(pk), shape);
}

void validate_key(const KeySizes& key, const CircuitShape& shape) {
  auto check = [](const char* what, uint64_t got, uint64_t want) {
    if (got != want)
      throw std::invalid_argument("proving key does not fit the circuit: " + count_mismatch(what, got, want));
  };
  check("a_aux_density words", shape.a_aux_density.size(), (shape.num_aux + 63) / 64);
  check("b_aux_density words", shape.b_aux_density.size(), (shape.num_aux + 63) / 64);
  check("b_input_density words", shape.b_input_density.size(), (shape.num_inputs + 63) / 64);
  const uint64_t m = domain_size_of(shape.num_constraints);
  const uint64_t a_count = shape.num_inputs + shape.a_aux_count();
  const uint64_t b_count = shape.b_input_count() + shape.b_aux_count();
  check("vk.ic (num_inputs)", key.ic, shape.num_inputs);
  check("l (num_aux)", key.l, shape.num_aux);
  check("h (domain size - 1)", key.h, m - 1);
  check("a (inputs + A aux density)", key.a, a_count);
  check("b_g1 (B input + aux density)", key.b_g1, b_count);
  check("b_g2 (B input + aux density)", key.b_g2, b_count);
}

ProverInput make_prover_input(const pce::Pce& pce, std::span<const Fr> inputs, std::span<const Fr> aux,
                              ProveTimings* timings, const ProverOptions& options) {
  validate_witness(pce.num_inputs(), pce.num_aux(), inputs, aux);
  Stopwatch sw;
  pce::MatVecResult r = pce::matvec(pce, inputs, aux, {.pool = &pool_of(options)});
  add_time(timings, &ProveTimings::matvec_s, sw.lap());
  return ProverInput{inputs, aux, std::move(r.a), std::move(r.b), std::move(r.c)};
}

std::vector<Fr> compute_h(size_t m, std::vector<Fr> a, std::vector<Fr> b, std::vector<Fr> c, ThreadPool* pool_ptr) {
  ThreadPool& pool = pool_ptr ? *pool_ptr : ThreadPool::global();
  if (m < 2 || (m & (m - 1)) != 0) throw std::invalid_argument("compute_h: m must be a power of two >= 2");
  if (a.size() > m || b.size() > m || c.size() > m) {
    throw std::invalid_argument("compute_h: a, b, c must have at most m elements");
  }
  const poly::Domain dom = poly::Domain::create(m, poly::RootConvention::Zcash).value();
  const Fr shift = dom.default_coset_shift();  // 7
  for (std::vector<Fr>* v : {&a, &b, &c}) {
    v->resize(m, Fr::zero());
    dom.ifft(*v, pool);
    dom.coset_fft(*v, shift, pool);
  }
  const Fr z_inv = dom.z_on_coset(shift).inverse();
  pool.parallel_chunks(m, 4096, [&](size_t lo, size_t hi) {
    for (size_t i = lo; i < hi; ++i) a[i] = (a[i] * b[i] - c[i]) * z_inv;
  });
  b = {};
  c = {};
  dom.coset_ifft(a, shift, pool);
  dom.release_scratch();
  a.resize(m - 1);  // deg H <= m - 2: the top coefficient is 0 for a satisfied circuit
  return a;
}

ProofMsms prove_stage1(const ProvingKey& pk, const pce::Pce& pce, ProverInput input, ProveTimings* timings,
                       const ProverOptions& options) {
  return prove_stage1(pk, CircuitShape::of(pce), std::move(input), timings, options);
}

ProofMsms prove_stage1(const ProvingKey& pk, const CircuitShape& shape, ProverInput input, ProveTimings* timings,
                       const ProverOptions& options) {
  validate_key(pk, shape);
  validate_witness(shape.num_inputs, shape.num_aux, input.inputs, input.aux);
  const uint64_t n = shape.num_constraints;
  if (input.a.size() != n || input.b.size() != n || input.c.size() != n) {
    throw std::invalid_argument("prover: a, b, c must have num_constraints = " + std::to_string(n) +
                                " elements each (got " + std::to_string(input.a.size()) + ", " +
                                std::to_string(input.b.size()) + ", " + std::to_string(input.c.size()) + ")");
  }
  ThreadPool& pool = pool_of(options);
  const size_t m = domain_size_of(n);
  const uint64_t num_inputs = shape.num_inputs;
  const uint64_t b_inputs = shape.b_input_count();
  const std::vector<uint64_t>&a_aux = shape.a_aux_density, &b_in = shape.b_input_density, &b_aux = shape.b_aux_density;

  Stopwatch sw;
  const std::vector<Fr> h = compute_h(m, std::move(input.a), std::move(input.b), std::move(input.c), &pool);
  add_time(timings, &ProveTimings::h_poly_s, sw.lap());

  const ec::MsmOptions dense{.pool = &pool};
  ProofMsms out;
  out.h = ec::msm(std::span<const G1Affine>(pk.h), h, dense);
  add_time(timings, &ProveTimings::msm_h_s, sw.lap());

  out.l = ec::msm(std::span<const G1Affine>(pk.l), input.aux, dense);
  add_time(timings, &ProveTimings::msm_l_s, sw.lap());

  const std::span<const G1Affine> a_pts(pk.a);
  out.a = ec::msm(a_pts.first(num_inputs), input.inputs, dense) +
          ec::msm(a_pts.subspan(num_inputs), input.aux, {.density = &a_aux, .pool = &pool});
  add_time(timings, &ProveTimings::msm_a_s, sw.lap());

  const std::span<const G1Affine> b1_pts(pk.b_g1);
  out.b_g1 = ec::msm(b1_pts.first(b_inputs), input.inputs, {.density = &b_in, .pool = &pool}) +
             ec::msm(b1_pts.subspan(b_inputs), input.aux, {.density = &b_aux, .pool = &pool});
  add_time(timings, &ProveTimings::msm_b_g1_s, sw.lap());

  const std::span<const G2Affine> b2_pts(pk.b_g2);
  out.b_g2 = ec::msm(b2_pts.first(b_inputs), input.inputs, {.density = &b_in, .pool = &pool}) +
             ec::msm(b2_pts.subspan(b_inputs), input.aux, {.density = &b_aux, .pool = &pool});
  add_time(timings, &ProveTimings::msm_b_g2_s, sw.lap());
  return out;
}

Proof prove_finalize(const VerifyingKey& vk, const ProofMsms& msms, const Fr& r, const Fr& s, ProveTimings* timings) {
  Stopwatch sw;
  const G1 delta_g1(vk.delta_g1);
  const G1 a = G1(vk.alpha_g1) + msms.a + delta_g1.mul(r);
  const G2 b = G2(vk.beta_g2) + msms.b_g2 + G2(vk.delta_g2).mul(s);
  const G1 b1 = G1(vk.beta_g1) + msms.b_g1 + delta_g1.mul(s);
  const G1 c = msms.h + msms.l + a.mul(s) + b1.mul(r) - delta_g1.mul(r * s);
  Proof proof{a.to_affine(), b.to_affine(), c.to_affine()};
  add_time(timings, &ProveTimings::finalize_s, sw.lap());
  return proof;
}

Proof prove(const ProvingKey& pk, const pce::Pce& pce, std::span<const Fr> inputs, std::span<const Fr> aux, const Fr& r,
            const Fr& s, ProveTimings* timings, const ProverOptions& options) {
  validate_key(pk, pce);
  ProverInput input = make_prover_input(pce, inputs, aux, timings, options);
  const ProofMsms msms = prove_stage1(pk, pce, std::move(input), timings, options);
  return prove_finalize(pk.vk, msms, r, s, timings);
}

Proof prove(const ProvingKey& pk, const pce::Pce& pce, std::span<const Fr> inputs, std::span<const Fr> aux,
            ProveTimings* timings, const ProverOptions& options) {
  SystemRng rng;
  const Fr r = random_fr(rng), s = random_fr(rng);
  return prove(pk, pce, inputs, aux, r, s, timings, options);
}

std::vector<Proof> prove_many(const ProvingKey& pk, const pce::Pce& pce, std::span<const Witness> witnesses,
                              std::span<const Fr> r, std::span<const Fr> s, ProveTimings* timings,
                              const ProverOptions& options) {
  if (r.size() != witnesses.size() || s.size() != witnesses.size()) {
    throw std::invalid_argument("prove_many: " + std::to_string(witnesses.size()) + " witnesses but " +
                                std::to_string(r.size()) + " r and " + std::to_string(s.size()) + " s values");
  }
  validate_key(pk, pce);
  for (const Witness& w : witnesses) validate_witness(pce.num_inputs(), pce.num_aux(), w.inputs, w.aux);
  std::vector<Proof> proofs;
  proofs.reserve(witnesses.size());
  for (size_t i = 0; i < witnesses.size(); ++i) {
    ProverInput input = make_prover_input(pce, witnesses[i].inputs, witnesses[i].aux, timings, options);
    const ProofMsms msms = prove_stage1(pk, pce, std::move(input), timings, options);
    proofs.push_back(prove_finalize(pk.vk, msms, r[i], s[i], timings));
  }
  return proofs;
}

std::vector<Proof> prove_many(const ProvingKey& pk, const pce::Pce& pce, std::span<const Witness> witnesses,
                              ProveTimings* timings, const ProverOptions& options) {
  SystemRng rng;
  std::vector<Fr> r(witnesses.size()), s(witnesses.size());
  for (size_t i = 0; i < witnesses.size(); ++i) {
    r[i] = random_fr(rng);
    s[i] = random_fr(rng);
  }
  return prove_many(pk, pce, witnesses, r, s, timings, options);
}

}  // namespace cuzk::groth16
