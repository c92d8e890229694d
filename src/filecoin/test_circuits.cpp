#include "filecoin/test_circuits.hpp"

#include <bit>
#include <functional>
#include <optional>
#include <stdexcept>

#include "filecoin/create_label_circuit.hpp"
#include "gadgets/insertion.hpp"
#include "gadgets/por.hpp"
#include "gadgets/poseidon_hasher.hpp"
#include "gadgets/sha256_hasher.hpp"
#include "r1cs/recording_cs.hpp"

namespace cuzk::filecoin {
namespace {

using gadgets::AllocatedBit;
using gadgets::AllocatedNum;
using gadgets::Boolean;
using r1cs::RecordingCS;

std::vector<Boolean> blank_bits(RecordingCS& cs, size_t n, const std::string& prefix) {
  std::vector<Boolean> out;
  for (size_t i = 0; i < n; ++i) {
    auto ns = cs.namespace_([&] { return prefix + std::to_string(i); });
    out.push_back(AllocatedBit::alloc(cs, std::nullopt));
  }
  return out;
}

std::vector<AllocatedNum> blank_nums(RecordingCS& cs, size_t n, const std::string& prefix) {
  std::vector<AllocatedNum> out;
  for (size_t i = 0; i < n; ++i) {
    auto ns = cs.namespace_([&] { return prefix + std::to_string(i); });
    out.push_back(AllocatedNum::alloc(cs, std::nullopt));
  }
  return out;
}

size_t checked_log2(size_t size, const char* what) {
  if (size < 2 || !std::has_single_bit(size) || size > 1024) {
    throw std::invalid_argument(std::string(what) + " size " + std::to_string(size) +
                                " must be a power of two in 2..1024");
  }
  return static_cast<size_t>(std::countr_zero(size));
}

struct Entry {
  const char* name;
  const char* help;
  // Builds the circuit and returns the number of setup constraints the reference test excludes.
  std::function<size_t(RecordingCS&, const TestCircuitParams&, std::string&)> build;
};

const std::vector<Entry>& entries() {
  static const std::vector<Entry> list = {
      {"sha256-block", "one SHA-256 compression of 512 allocated bits (bellperson test_full_block)",
       [](RecordingCS& cs, const TestCircuitParams&, std::string& ref) {
         const auto in = blank_bits(cs, 512, "input bit ");
         gadgets::sha256_block_no_padding(cs, std::span<const Boolean>(in));
         ref = "bellperson sha256.rs test_full_block: 25,840 besides the 512 input bits";
         return size_t{512};
       }},
      {"sha256", "SHA-256 with padding of --bits allocated bits (bellperson: 512 bits -> 44,874)",
       [](RecordingCS& cs, const TestCircuitParams& p, std::string& ref) {
         if (p.bits % 8 != 0 || p.bits > 1 << 20)
           throw std::invalid_argument("--bits must be a multiple of 8, <= 2^20");
         const auto in = blank_bits(cs, p.bits, "input bit ");
         gadgets::sha256(cs, std::span<const Boolean>(in));
         ref = "bellperson sha256.rs: 44,874 for 512 bits, besides the input bits";
         return p.bits;
       }},
      {"sha256-hash2", "filecoin-hashers Sha256 hash2_circuit of two allocated numbers (45,379)",
       [](RecordingCS& cs, const TestCircuitParams&, std::string& ref) {
         const auto n = blank_nums(cs, 2, "num ");
         gadgets::Sha256Hasher::hash2_circuit(cs, n[0], n[1]);
         ref = "filecoin-circuits.md 2.3: 512 + 44,866 + 1 = 45,379";
         return size_t{0};
       }},
      {"por",
       "PoR inclusion proof (storage-proofs-core tests/por_circuit.rs): --hasher, --arity, --sub-arity, "
       "--top-arity, --leaves, --private-root",
       [](RecordingCS& cs, const TestCircuitParams& p, std::string& ref) {
         const gadgets::MerkleShape shape{p.arity, p.sub_arity, p.top_arity};
         shape.validate();
         const size_t leaves = p.leaves != 0 ? p.leaves : 64 * shape.base_tree_count();
         const gadgets::AuthPath path = gadgets::AuthPath::blank(shape, leaves);
         const gadgets::Root blank = gadgets::Root::val(std::nullopt);
         if (p.hasher == "sha256") {
           gadgets::por_circuit<gadgets::Sha256Hasher>(cs, blank, path, blank, p.private_root);
           ref =
               "por_circuit.rs (64 leaves per base tree, public root): sha256 2 -> 272,295, 4 -> 216,258, "
               "8 -> 250,987";
         } else if (p.hasher == "poseidon") {
           gadgets::por_circuit<gadgets::PoseidonHasher>(cs, blank, path, blank, p.private_root);
           ref =
               "por_circuit.rs (64 leaves per base tree, public root): poseidon 2 -> 1,887, 4 -> 1,164, "
               "8 -> 1,063, 8-2 -> 1,377, 8-4-2 -> 1,764, 8-8 -> 1,593, 8-8-2 -> 1,907, 8-2-4 -> 1,764; "
               "private root 2/4/8 -> 1,886/1,163/1,062";
         } else {
           throw std::invalid_argument("por: unknown hasher '" + p.hasher + "' (sha256 or poseidon)");
         }
         return size_t{0};
       }},
      {"insert", "insertion.rs insert into --size slots (2/4/8 -> 2/8/22; others size*(size-1))",
       [](RecordingCS& cs, const TestCircuitParams& p, std::string& ref) {
         const size_t k = checked_log2(p.size, "insert");
         const auto elements = blank_nums(cs, p.size - 1, "element ");
         AllocatedNum x;
         {
           auto ns = cs.namespace_([] { return "insert"; });
           x = AllocatedNum::alloc(cs, std::nullopt);
         }
         const auto bits = blank_bits(cs, k, "index bit ");
         gadgets::insert(cs, x, std::span<const Boolean>(bits), std::span<const AllocatedNum>(elements));
         ref = "insertion.rs test_insert: constraints after the index bits";
         return k;
       }},
      {"select", "insertion.rs select from --size elements (size-1)",
       [](RecordingCS& cs, const TestCircuitParams& p, std::string& ref) {
         const size_t k = checked_log2(p.size, "select");
         const auto elements = blank_nums(cs, p.size, "element ");
         const auto bits = blank_bits(cs, k, "index bit ");
         auto ns = cs.namespace_([] { return "select"; });
         gadgets::select(cs, std::span<const AllocatedNum>(elements), std::span<const Boolean>(bits));
         ref = "insertion.rs test_select: constraints after the index bits";
         return k;
       }},
      {"create-label", "create_label.rs test_create_label: 38 x 256 allocated bits, constant layer and node (532,025)",
       [](RecordingCS& cs, const TestCircuitParams&, std::string& ref) {
         std::vector<std::vector<Boolean>> parents;
         for (size_t i = 0; i < kTotalParents; ++i) {
           auto ns = cs.namespace_([&] { return "parents " + std::to_string(i); });
           parents.push_back(gadgets::alloc_bytes_be(cs, std::nullopt, 32));
         }
         std::vector<Boolean> id;
         {
           auto ns = cs.namespace_([] { return "id"; });
           id = gadgets::alloc_bytes_be(cs, std::nullopt, 32);
         }
         auto ns = cs.namespace_([] { return "create_label"; });
         create_label_circuit(cs, std::span<const Boolean>(id), parents, gadgets::UInt32::constant(3),
                              gadgets::UInt64::constant(22));
         ref = "create_label.rs test_create_label: 532,025 in all";
         return size_t{0};
       }},
      {"create-label-porep",
       "create_label_circuit as the PoRep circuit calls it (circuit/params.rs, a layer > 1): replica_id and 14 "
       "parent labels as reverse_bit_numbering(to_bits_le), repeated to 37, constant layer, allocated challenge "
       "(522,269 besides that setup)",
       [](RecordingCS& cs, const TestCircuitParams&, std::string& ref) {
         std::vector<Boolean> id;
         {
           auto ns = cs.namespace_([] { return "replica_id"; });
           id = gadgets::reverse_bit_numbering(AllocatedNum::alloc(cs, std::nullopt).to_bits_le(cs));
         }
         gadgets::UInt64 node;
         {
           auto ns = cs.namespace_([] { return "challenge"; });
           node = gadgets::UInt64::alloc(cs, std::nullopt);
         }
         {
           auto ns = cs.namespace_([] { return "challenge input"; });
           node.pack_into_input(cs);
         }
         std::vector<std::vector<Boolean>> parents;
         for (size_t i = 0; i < kDegree; ++i) {
           auto ns = cs.namespace_([&] { return "parent " + std::to_string(i) + "_bits"; });
           parents.push_back(gadgets::reverse_bit_numbering(AllocatedNum::alloc(cs, std::nullopt).to_bits_le(cs)));
         }
         for (size_t i = 0; parents.size() < kTotalParents; ++i) parents.push_back(parents[i]);
         const size_t setup = cs.num_constraints();
         auto ns = cs.namespace_([] { return "create_label"; });
         create_label_circuit(cs, std::span<const Boolean>(id), parents, gadgets::UInt32::constant(2), node);
         ref = "filecoin-circuits.md 2.3: create_label_circuit 522,269 (SHA-256 522,268 + pack 1)";
         return setup;
       }},
  };
  return list;
}

}  // namespace

TestCircuitInfo test_circuit_info(const std::string& name, const TestCircuitParams& p) {
  for (const Entry& e : entries()) {
    if (name != e.name) continue;
    RecordingCS cs;
    TestCircuitInfo info;
    info.name = name;
    const size_t setup = e.build(cs, p, info.reference);
    info.constraints = cs.num_constraints();
    info.inputs = cs.num_inputs();
    info.aux = cs.num_aux();
    info.reference_constraints = info.constraints - setup;
    return info;
  }
  throw std::invalid_argument("unknown circuit '" + name + "'; known: " + [] {
    std::string s;
    for (const Entry& e : entries()) s += (s.empty() ? "" : ", ") + std::string(e.name);
    return s;
  }());
}

std::vector<std::string> test_circuit_names() {
  std::vector<std::string> out;
  for (const Entry& e : entries()) out.emplace_back(e.name);
  return out;
}

std::string test_circuit_help() {
  std::string s;
  for (const Entry& e : entries()) s += std::string("  ") + e.name + ": " + e.help + "\n";
  return s;
}

}  // namespace cuzk::filecoin
