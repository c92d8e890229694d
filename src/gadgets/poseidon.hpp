#pragma once
// Poseidon in a circuit, exactly as neptune v11's legacy circuit (src/circuit.rs poseidon_hash),
// the one Filecoin's Groth16 parameters were generated for: the same allocations in the same
// order, the same constraints with the same linear combinations, and the same constant folding
// (the domain tag's first S-box is computed as a constant). A textbook circuit would hash to the
// same value but allocate different witnesses (filecoin-circuits.md 8.2).
//
// Shape (t = arity + 1, half = R_F / 2), counted by tests/test_poseidon.cpp:
// - first round: element 0 (tag) folded; each input: square_sum, square, mul_sum (3 constraints);
// - other full rounds: each element: ensure_allocated, square, square, mul_sum (4 constraints);
//   the last first-half round mixes with the pre-sparse matrix, the terminal round adds no key;
// - partial round j: element 0 only (4 constraints), mixed with sparse matrix j; the others stay
//   linear combinations (no constraint);
// - finally elements[1] is allocated (1 constraint): 3·arity + 4·(7t + R_P) + 1 in all.
//
// Values between S-boxes are "Elt"s: an allocated variable, or a linear combination with its
// value (neptune's Elt::Num). The linear combinations are kept merged (one term per variable,
// inputs before aux) like bellpepper's LinearCombination, so each constraint row has bellpepper's
// terms; backends that never read LCs (WitnessCS) skip building them.
#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "gadgets/num.hpp"
#include "gadgets/poseidon_constants.hpp"
#include "r1cs/witness_cs.hpp"

namespace cuzk::gadgets {

// Poseidon's Elt builds large LCs as values; under a backend that never reads them it skips that
// work (the trait lives in r1cs/constraint_system.hpp, WitnessCS's specialization beside it).
using r1cs::kCsReadsLinearCombinations;

namespace poseidon_detail {

using r1cs::Term;

// A linear combination with one term per variable, sorted as bellpepper's Indexer keeps them
// (inputs, then aux, each by index). Zero sums are kept, as bellpepper keeps them.
class MergedLc {
 public:
  const std::vector<Term>& terms() const { return terms_; }

  // sum over parts of coeff_k * lc_k (each part: a coefficient and either a variable or an LC).
  struct Part {
    Fr coeff;
    const MergedLc* lc;  // nullptr: the single variable `var`
    Variable var;
  };
  static MergedLc combine(std::span<const Part> parts) {
    std::vector<Term> all;
    size_t n = 0;
    for (const Part& p : parts) n += p.lc != nullptr ? p.lc->terms_.size() : 1;
    all.reserve(n);
    for (const Part& p : parts) {
      if (p.lc == nullptr) {
        all.push_back(Term{p.var, p.coeff});
      } else {
        for (const Term& t : p.lc->terms_) all.push_back(Term{t.var, p.coeff * t.coeff});
      }
    }
    std::stable_sort(all.begin(), all.end(), [](const Term& a, const Term& b) { return key(a.var) < key(b.var); });
    MergedLc out;
    out.terms_.reserve(all.size());
    for (const Term& t : all) {
      if (!out.terms_.empty() && out.terms_.back().var == t.var) {
        out.terms_.back().coeff += t.coeff;
      } else {
        out.terms_.push_back(t);
      }
    }
    return out;
  }

  LC append_to(LC lc) const {
    for (const Term& t : terms_) lc.add(t.coeff, t.var);
    return lc;
  }

 private:
  static uint64_t key(Variable v) { return (v.is_aux() ? (uint64_t{1} << 32) : 0) | v.index(); }
  std::vector<Term> terms_;
};

// neptune's Elt: Allocated(AllocatedNum) or Num(LC + value).
struct Elt {
  bool allocated = false;
  Variable var{};           // Allocated
  std::optional<Fr> value;  // both kinds (a Num of constants always has one)
  MergedLc lc;              // Num, when the backend reads LCs

  static Elt of(const AllocatedNum& n) { return Elt{true, n.var(), n.value(), {}}; }
};

template <ConstraintSystem CS>
class LegacyCircuit {
  static constexpr bool kLc = kCsReadsLinearCombinations<CS>;

 public:
  LegacyCircuit(CS& cs, const PoseidonConstants& c, std::vector<Elt> elements)
      : cs_(cs), c_(c), elements_(std::move(elements)) {}

  AllocatedNum hash() {
    {
      auto ns = cs_.namespace_([] { return "first round"; });
      full_round(true, false);
    }
    for (size_t i = 1; i < c_.half_full_rounds; ++i) {
      auto ns = cs_.namespace_([&] { return "initial full round " + std::to_string(i); });
      full_round(false, false);
    }
    for (size_t i = 0; i < c_.partial_rounds; ++i) {
      auto ns = cs_.namespace_([&] { return "partial round " + std::to_string(i); });
      partial_round();
    }
    for (size_t i = 0; i + 1 < c_.half_full_rounds; ++i) {
      auto ns = cs_.namespace_([&] { return "final full round " + std::to_string(i); });
      full_round(false, false);
    }
    {
      auto ns = cs_.namespace_([] { return "terminal full round"; });
      full_round(false, true);
    }
    auto ns = cs_.namespace_([] { return "hash result"; });
    return ensure_allocated(elements_[1]);
  }

 private:
  const Fr& key() { return c_.compressed_round_constants.at(offset_++); }

  void full_round(bool first, bool last) {
    const size_t t = c_.width;
    // Keys are read in neptune's order: all pre keys (first round only), then all post keys.
    const size_t pre_base = offset_;
    if (first) offset_ += t;
    const size_t post_base = offset_;
    if (first || !last) offset_ += t;
    for (size_t i = 0; i < t; ++i) {
      const std::optional<Fr> post =
          (first || !last) ? std::optional<Fr>(c_.compressed_round_constants.at(post_base + i)) : std::nullopt;
      if (first && i == 0) {
        // The tag is a constant, so its first S-box is too: (tag + pre)^5 + post, no constraint.
        const Fr x = *elements_[0].value + c_.compressed_round_constants.at(pre_base);
        elements_[0] = constant(x.square().square() * x + *post);
        continue;
      }
      auto ns = cs_.namespace_([&] { return "quintic s-box " + std::to_string(i); });
      if (first) {
        elements_[i] = quintic_s_box_pre_add(elements_[i], c_.compressed_round_constants.at(pre_base + i), *post);
      } else {
        elements_[i] = quintic_s_box(elements_[i], post);
      }
    }
    mix();
  }

  void partial_round() {
    const Fr k = key();
    {
      auto ns = cs_.namespace_([] { return "solitary quintic s-box"; });
      elements_[0] = quintic_s_box(elements_[0], k);
    }
    mix();
  }

  // neptune product_mds: pre-sparse after the last first-half full round, sparse matrix j after
  // partial round j, M otherwise.
  void mix() {
    const size_t half = c_.half_full_rounds;
    if (round_ + 1 == half) {
      mix_dense(c_.pre_sparse_matrix);
    } else if (round_ >= half && round_ < half + c_.partial_rounds) {
      mix_sparse(c_.sparse_matrices.at(round_ - half));
    } else {
      mix_dense(c_.mds);
    }
    ++round_;
  }

  // result_j = sum_i m[i][j] * elements_i (scalar_product over column j). The buffers are members
  // so that a hash allocates nothing per round on the witness path.
  void mix_dense(const FrMatrix& m) {
    const size_t t = c_.width;
    next_.resize(t);
    column_.resize(t);
    for (size_t j = 0; j < t; ++j) {
      for (size_t i = 0; i < t; ++i) column_[i] = m.at(i, j);
      next_[j] = scalar_product(column_);
    }
    elements_.swap(next_);
  }

  // result_0 = w_hat · elements; result_j = elements_j + v_rest[j-1] * elements_0.
  void mix_sparse(const PoseidonSparseMatrix& s) {
    const size_t t = c_.width;
    next_.resize(t);
    next_[0] = scalar_product(s.w_hat);
    for (size_t j = 1; j < t; ++j) {
      const Elt& e = elements_[j];
      if (e.allocated) throw std::logic_error("Poseidon circuit: sparse mix of an allocated element");
      const std::array<Fr, 2> coeffs = {Fr::one(), s.v_rest[j - 1]};
      const std::array<const Elt*, 2> elts = {&e, &elements_[0]};
      next_[j] = linear(elts, coeffs);
    }
    elements_.swap(next_);
  }

  Elt scalar_product(std::span<const Fr> coeffs) {
    ptrs_.resize(elements_.size());
    for (size_t i = 0; i < elements_.size(); ++i) ptrs_[i] = &elements_[i];
    return linear(ptrs_, coeffs);
  }

  // sum_k coeffs[k] * elts[k] as a Num; the value is known only if every input value is.
  // (flatten: GCC otherwise leaves Fr's add/mul as calls in these large template functions,
  // which costs ~7 % of the witness time.)
  [[gnu::flatten]] Elt linear(std::span<const Elt* const> elts, std::span<const Fr> coeffs) {
    Elt out;
    out.value = Fr::zero();
    for (size_t k = 0; k < elts.size(); ++k) {
      if (out.value && elts[k]->value) {
        *out.value += coeffs[k].is_one() ? *elts[k]->value : coeffs[k] * *elts[k]->value;
      } else {
        out.value.reset();
      }
    }
    if constexpr (kLc) out.lc = linear_lc(elts, coeffs);
    return out;
  }

  // Kept out of line so that flattening linear() inlines the field arithmetic, not the sort.
  [[gnu::noinline]] MergedLc linear_lc(std::span<const Elt* const> elts, std::span<const Fr> coeffs) {
    parts_.clear();
    for (size_t k = 0; k < elts.size(); ++k) {
      const Elt& e = *elts[k];
      parts_.push_back(MergedLc::Part{coeffs[k], e.allocated ? nullptr : &e.lc, e.var});
    }
    return MergedLc::combine(parts_);
  }

  // num_from_fr: the constant x as x·ONE.
  Elt constant(const Fr& x) {
    Elt e;
    e.value = x;
    if constexpr (kLc) {
      const std::array<MergedLc::Part, 1> part = {MergedLc::Part{x, nullptr, CS::one()}};
      e.lc = MergedLc::combine(part);
    }
    return e;
  }

  // Elt::ensure_allocated(enforce = true): "allocate for Elt::Num" / "num", then lc * ONE = v.
  AllocatedNum ensure_allocated(const Elt& e) {
    if (e.allocated) return AllocatedNum(e.var, e.value);
    AllocatedNum v;
    {
      auto ns = cs_.namespace_([] { return "allocate for Elt::Num"; });
      v = AllocatedNum::alloc(cs_, e.value);
    }
    cs_.enforce([] { return "enforce num allocation preserves lc"; },
                [&](LC lc) { return e.lc.append_to(std::move(lc)); }, [](LC lc) { return lc + CS::one(); },
                [&](LC lc) { return lc + v.var(); });
    return v;
  }

  // square_sum: (l + k)^2, constraint (l + k·ONE) * (l + k·ONE) = res.
  AllocatedNum square_sum(const Fr& k, const AllocatedNum& l) {
    std::optional<Fr> val;
    if (l.value()) val = (*l.value() + k).square();
    AllocatedNum res;
    {
      auto ns = cs_.namespace_([] { return "squared sum"; });
      res = AllocatedNum::alloc(cs_, val);
    }
    auto ab = [&](LC lc) { return lc + l.var() + k * CS::one(); };
    cs_.enforce([] { return "squared sum constraint"; }, ab, ab, [&](LC lc) { return lc + res.var(); });
    return res;
  }

  // mul_sum(a, b, pre, post) = a * (b + pre) + post, constraint (b [+ pre·ONE]) * a = res [- post·ONE].
  AllocatedNum mul_sum(const AllocatedNum& a, const AllocatedNum& b, const std::optional<Fr>& pre,
                       const std::optional<Fr>& post) {
    std::optional<Fr> val;
    if (a.value() && b.value()) {
      Fr x = *b.value();
      if (pre) x += *pre;
      x *= *a.value();
      if (post) x += *post;
      val = x;
    }
    AllocatedNum res;
    {
      auto ns = cs_.namespace_([] { return "mul_sum"; });
      res = AllocatedNum::alloc(cs_, val);
    }
    const char* name = post ? (pre ? "mul sum constraint pre-post-add" : "mul sum constraint post-add")
                            : (pre ? "mul sum constraint pre-add" : "mul sum constraint");
    cs_.enforce([name] { return name; },
                [&](LC lc) {
                  lc = lc + b.var();
                  if (pre) lc = lc + *pre * CS::one();
                  return lc;
                },
                [&](LC lc) { return lc + a.var(); },
                [&](LC lc) {
                  lc = lc + res.var();
                  if (post) lc = lc + (-*post) * CS::one();
                  return lc;
                });
    return res;
  }

  // quintic_s_box: l^5 + post (post omitted in the terminal round).
  [[gnu::flatten]] Elt quintic_s_box(const Elt& e, const std::optional<Fr>& post) {
    AllocatedNum l;
    {
      auto ns = cs_.namespace_([] { return "S-box input"; });
      l = ensure_allocated(e);
    }
    AllocatedNum l2, l4;
    {
      auto ns = cs_.namespace_([] { return "l^2"; });
      l2 = l.square(cs_);
    }
    {
      auto ns = cs_.namespace_([] { return "l^4"; });
      l4 = l2.square(cs_);
    }
    auto ns = cs_.namespace_([] { return "(l4 * l) + rk)"; });
    return Elt::of(mul_sum(l4, l, std::nullopt, post));
  }

  // quintic_s_box_pre_add: (l + pre)^5 + post, for the inputs in the first round.
  [[gnu::flatten]] Elt quintic_s_box_pre_add(const Elt& e, const Fr& pre, const Fr& post) {
    AllocatedNum l;
    {
      auto ns = cs_.namespace_([] { return "S-box input"; });
      l = ensure_allocated(e);
    }
    AllocatedNum l2, l4;
    {
      auto ns = cs_.namespace_([] { return "(l+rk)^2"; });
      l2 = square_sum(pre, l);
    }
    {
      auto ns = cs_.namespace_([] { return "l^4"; });
      l4 = l2.square(cs_);
    }
    auto ns = cs_.namespace_([] { return "l4 * (l + rk)"; });
    return Elt::of(mul_sum(l4, l, pre, post));
  }

  CS& cs_;
  const PoseidonConstants& c_;
  std::vector<Elt> elements_;
  size_t offset_ = 0;
  size_t round_ = 0;
  std::vector<Elt> next_;
  std::vector<Fr> column_;
  std::vector<const Elt*> ptrs_;
  std::vector<MergedLc::Part> parts_;
};

}  // namespace poseidon_detail

// Poseidon of `preimage` (exactly `arity` allocated numbers) as neptune's legacy circuit. The
// domain tag comes from `type`; neptune's legacy circuit has no padding, so ConstantLength must
// equal the arity.
template <ConstraintSystem CS>
AllocatedNum poseidon_hash_circuit(CS& cs, std::span<const AllocatedNum> preimage, const PoseidonConstants& c,
                                   const PoseidonHashType& type = PoseidonHashType::merkle_tree()) {
  if (preimage.size() != c.arity) {
    throw std::invalid_argument("Poseidon circuit: preimage has " + std::to_string(preimage.size()) +
                                " elements, arity is " + std::to_string(c.arity));
  }
  if (type.kind() == PoseidonHashType::Kind::ConstantLength && type.parameter() != c.arity) {
    throw std::invalid_argument("Poseidon circuit: ConstantLength(" + std::to_string(type.parameter()) +
                                ") must equal the arity " + std::to_string(c.arity) +
                                " (the legacy circuit has no padding)");
  }
  std::vector<poseidon_detail::Elt> elements;
  elements.reserve(c.width);
  {
    poseidon_detail::Elt tag;
    tag.value = type.domain_tag(c.arity);
    elements.push_back(std::move(tag));  // only its value is read: the first S-box folds it
  }
  for (const AllocatedNum& n : preimage) elements.push_back(poseidon_detail::Elt::of(n));
  return poseidon_detail::LegacyCircuit<CS>(cs, c, std::move(elements)).hash();
}

// Filecoin's Poseidon (Standard strength, MerkleTree tag) of `arity` allocated numbers, for the
// Merkle-path and column-hash circuits (arities 2, 4, 8, 11; 16/24/36 also work).
template <ConstraintSystem CS>
AllocatedNum poseidon_hash_circuit(CS& cs, size_t arity, std::span<const AllocatedNum> preimage) {
  return poseidon_hash_circuit(cs, preimage, poseidon_constants(arity), PoseidonHashType::merkle_tree());
}

}  // namespace cuzk::gadgets
