#include "util/secret_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace cuzk {
namespace {

constexpr size_t kMaxPemBytes = 1 << 20;
constexpr size_t kMinTokenChars = 16;
constexpr size_t kMaxTokenChars = 1024;

// Closes a file descriptor on scope exit.
struct FdCloser {
  int fd;
  ~FdCloser() {
    if (fd >= 0) ::close(fd);
  }
};

std::string octal_mode(mode_t mode) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%04o", static_cast<unsigned>(mode & 07777));
  return buf;
}

// Reads the whole file; `check` (may be null) vets it by its fstat before anything is read, so the
// checked file and the read one are the same even if the path is replaced meanwhile.
template <class Check>
Result<std::string> read_file(const std::string& path, std::string_view what, size_t max_bytes, Check&& check) {
  const std::string who = std::string(what) + " " + path;
  FdCloser fd{::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY)};
  if (fd.fd < 0) return make_error("cannot open the " + who + ": " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd.fd, &st) != 0) return make_error("cannot stat the " + who + ": " + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) return make_error("the " + who + " is not a regular file");
  if (auto r = check(st); !r) return make_error(r.error());
  if (static_cast<uint64_t>(st.st_size) > max_bytes) {
    return make_error("the " + who + " is " + std::to_string(st.st_size) + " bytes; at most " +
                      std::to_string(max_bytes) + " are expected");
  }
  std::string out(static_cast<size_t>(st.st_size), '\0');
  size_t done = 0;
  while (done < out.size()) {
    const ssize_t n = ::read(fd.fd, out.data() + done, out.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return make_error("cannot read the " + who + ": " + std::strerror(errno));
    if (n == 0) break;  // shrank while reading
    done += static_cast<size_t>(n);
  }
  out.resize(done);
  return out;
}

}  // namespace

Result<std::string> read_secret_file(const std::string& path, std::string_view what, size_t max_bytes) {
  return read_file(path, what, max_bytes, [&](const struct stat& st) -> Result<bool> {
    if ((st.st_mode & 077) != 0) {
      return make_error("the " + std::string(what) + " " + path + " has mode " + octal_mode(st.st_mode) +
                        "; it must be readable by its owner only: chmod 600 " + path);
    }
    if (st.st_uid != ::geteuid() && st.st_uid != 0) {
      return make_error("the " + std::string(what) + " " + path + " belongs to uid " + std::to_string(st.st_uid) +
                        ", not to this user (uid " + std::to_string(::geteuid()) +
                        ") or root; chown it to the user the daemon runs as");
    }
    return true;
  });
}

Result<std::string> read_bearer_token(const std::string& path) {
  auto text = read_secret_file(path, "token file", kMaxTokenChars + 2);
  if (!text) return text;
  std::string token = std::move(*text);
  if (!token.empty() && token.back() == '\n') token.pop_back();
  if (!token.empty() && token.back() == '\r') token.pop_back();
  const std::string hint = " (make one with: openssl rand -hex 32 > " + path + " && chmod 600 " + path + ")";
  if (token.size() < kMinTokenChars) {
    return make_error("the token in " + path + " is " + std::to_string(token.size()) + " characters; at least " +
                      std::to_string(kMinTokenChars) + " are needed" + hint);
  }
  if (token.size() > kMaxTokenChars) {
    return make_error("the token in " + path + " is longer than " + std::to_string(kMaxTokenChars) + " characters");
  }
  for (size_t i = 0; i < token.size(); ++i) {
    const auto c = static_cast<unsigned char>(token[i]);
    if (c < 0x21 || c > 0x7e) {
      return make_error("the token in " + path + " has a space, control or non-ASCII byte at offset " +
                        std::to_string(i) + "; a token is one line of visible ASCII characters" + hint);
    }
  }
  return token;
}

Result<std::string> read_pem_file(const std::string& path, std::string_view what, bool secret) {
  auto text = secret ? read_secret_file(path, what, kMaxPemBytes)
                     : read_file(path, what, kMaxPemBytes, [](const struct stat&) -> Result<bool> { return true; });
  if (!text) return text;
  if (text->find("-----BEGIN ") == std::string::npos) {
    return make_error("the " + std::string(what) + " " + path + " is not in PEM format (no \"-----BEGIN\" line)");
  }
  return text;
}

}  // namespace cuzk
