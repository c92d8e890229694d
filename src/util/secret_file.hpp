#pragma once
// Reading credential files: the daemon's bearer token and TLS PEM files. A secret (a token, a
// private key) must be a regular file that only its owner can read or write: anything looser is
// refused with the chmod that fixes it, because a token other local users can read protects
// nothing.
#include <cstddef>
#include <string>
#include <string_view>

#include "util/result.hpp"

namespace cuzk {

// Whole file, at most `max_bytes`; `what` names it in errors ("token file"). Refused unless it is
// a regular file with no group or other permission bits, owned by this user or root.
Result<std::string> read_secret_file(const std::string& path, std::string_view what, size_t max_bytes);

// A bearer token: one line (a trailing newline is dropped) of 16..1024 visible ASCII characters
// (what an HTTP/2 header value may carry), from a secret file.
Result<std::string> read_bearer_token(const std::string& path);

// A PEM file (certificate chain, CA bundle or private key; at most 1 MiB) that must contain a
// "-----BEGIN " block. `secret`: a private key, read with read_secret_file's rules.
Result<std::string> read_pem_file(const std::string& path, std::string_view what, bool secret);

}  // namespace cuzk
