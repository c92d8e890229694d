#pragma once
// Reader for snarkjs/circom witness files (.wtns: iden3 binfile "wtns", version 2), see
// shared/reference/snarkjs-formats.md section 4.3: section 1 = u32 n8, prime (n8 bytes LE),
// u32 nWitness; section 2 = nWitness values of n8 bytes, standard form, little-endian. Only the
// BLS12-381 scalar field is accepted for now.
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ff/bls12_381.hpp"
#include "util/result.hpp"

namespace cuzk::circom {

// `name` (a path, or e.g. "<memory>") prefixes every error message. Values are checked canonical (< r).
Result<std::vector<ff::Fr>> parse_wtns(std::span<const uint8_t> bytes, std::string_view name = "<wtns>");
Result<std::vector<ff::Fr>> load_wtns(const std::string& path);

}  // namespace cuzk::circom
