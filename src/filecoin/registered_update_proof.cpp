#include "filecoin/registered_update_proof.hpp"

#include <stdexcept>
#include <string>

#include "filecoin/registered_proof.hpp"
#include "util/quote.hpp"

namespace cuzk::filecoin {
namespace {

constexpr RegisteredUpdateProof kUpdateProofs[] = {
    {0, "StackedDrg2KiBV1", 2 * kKiB},   {1, "StackedDrg8MiBV1", 8 * kMiB},   {2, "StackedDrg512MiBV1", 512 * kMiB},
    {3, "StackedDrg32GiBV1", 32 * kGiB}, {4, "StackedDrg64GiBV1", 64 * kGiB},
};

std::string known() {
  std::string s;
  for (const auto& p : kUpdateProofs) s += (s.empty() ? "" : ", ") + std::to_string(p.id) + " " + std::string(p.name);
  return s;
}

}  // namespace

const RegisteredUpdateProof& registered_update_proof(uint64_t id) {
  for (const auto& p : kUpdateProofs) {
    if (p.id == id) return p;
  }
  throw std::invalid_argument("unknown registered update proof " + std::to_string(id) + " (known: " + known() + ")");
}

const RegisteredUpdateProof& registered_update_proof(std::string_view name) {
  for (const auto& p : kUpdateProofs) {
    if (p.name == name) return p;
  }
  throw std::invalid_argument("unknown registered update proof " + short_quote(name) + " (known: " + known() + ")");
}

const RegisteredUpdateProof& update_proof_of_size(uint64_t sector_size) {
  for (const auto& p : kUpdateProofs) {
    if (p.sector_size == sector_size) return p;
  }
  throw std::invalid_argument("no SnapDeals proof for sector size " + sector_size_name(sector_size) +
                              " (known: " + known() + ")");
}

std::string update_parameter_identifier(const RegisteredUpdateProof& proof) {
  return "empty_sector_update::PublicParams{ sector_nodes: " + std::to_string(proof.sector_size / 32) + " }";
}

std::string update_parameter_file_stem(const RegisteredUpdateProof& proof) {
  // Tree R (the only tree the prefix names) has the sealed sector's shape.
  const PorepShape& s = default_seal_proof(proof.sector_size).shape;
  return "v28-empty-sector-update-merkletree-poseidon_hasher-" + std::to_string(s.base_arity) + "-" +
         std::to_string(s.sub_arity) + "-" + std::to_string(s.top_arity) + "-" +
         parameter_identifier_digest(update_parameter_identifier(proof));
}

std::string snap_circuit_id(const RegisteredUpdateProof& proof) {
  return "snap:" + sector_size_name(proof.sector_size);
}

}  // namespace cuzk::filecoin
