#pragma once
// Point encodings.
// zcash/bellperson: big-endian coordinates, G2 coordinates as c1 || c0; the top three bits of the
// first byte are flags: 0x80 compressed, 0x40 point at infinity, 0x20 y is the lexicographically
// larger root (compressed only). Compressed G1/G2 = 48/96 bytes, uncompressed = 96/192 bytes.
// snarkjs (.zkey/.ptau): affine x then y, each coordinate little-endian in Montgomery form, G2 as
// c0 || c1; the point at infinity is all zero bytes. G1/G2 = 96/192 bytes.
#include <array>
#include <cstdint>
#include <span>

#include "ec/bls12_381.hpp"
#include "util/result.hpp"

namespace cuzk::ec {

enum class SubgroupCheck { Yes, No };

inline constexpr size_t G1_COMPRESSED = 48, G1_UNCOMPRESSED = 96;
inline constexpr size_t G2_COMPRESSED = 96, G2_UNCOMPRESSED = 192;
inline constexpr size_t G1_SNARKJS = 96, G2_SNARKJS = 192;

std::array<uint8_t, G1_COMPRESSED> g1_to_compressed(const G1Affine& p);
std::array<uint8_t, G1_UNCOMPRESSED> g1_to_uncompressed(const G1Affine& p);
std::array<uint8_t, G2_COMPRESSED> g2_to_compressed(const G2Affine& p);
std::array<uint8_t, G2_UNCOMPRESSED> g2_to_uncompressed(const G2Affine& p);

// Decoders validate everything: length, flags, canonical coordinates, curve equation and (unless
// told otherwise) subgroup membership; errors name what is wrong.
Result<G1Affine> g1_from_compressed(std::span<const uint8_t> b, SubgroupCheck check = SubgroupCheck::Yes);
Result<G1Affine> g1_from_uncompressed(std::span<const uint8_t> b, SubgroupCheck check = SubgroupCheck::Yes);
Result<G2Affine> g2_from_compressed(std::span<const uint8_t> b, SubgroupCheck check = SubgroupCheck::Yes);
Result<G2Affine> g2_from_uncompressed(std::span<const uint8_t> b, SubgroupCheck check = SubgroupCheck::Yes);

std::array<uint8_t, G1_SNARKJS> g1_to_snarkjs(const G1Affine& p);
std::array<uint8_t, G2_SNARKJS> g2_to_snarkjs(const G2Affine& p);
Result<G1Affine> g1_from_snarkjs(std::span<const uint8_t> b, SubgroupCheck check = SubgroupCheck::Yes);
Result<G2Affine> g2_from_snarkjs(std::span<const uint8_t> b, SubgroupCheck check = SubgroupCheck::Yes);

}  // namespace cuzk::ec
