#pragma once
// Standard base64 (RFC 4648 §4, padded), as Go's encoding/json writes a []byte.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace cuzk::filecoin {

// Appends the decoded bytes to `out`. Strict: the length must be a multiple of 4, '=' only as the
// last one or two characters, no other characters, unused bits of the last group zero. Throws
// std::invalid_argument naming the offset of the first bad character.
void base64_decode(std::string_view in, std::vector<uint8_t>& out);
std::string base64_encode(const uint8_t* data, size_t size);

}  // namespace cuzk::filecoin
