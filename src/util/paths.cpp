#include "util/paths.hpp"

#include <unistd.h>

#include <cstdlib>

namespace cuzk {

std::string default_data_dir() {
  // XDG: a relative $XDG_DATA_HOME is invalid and must be ignored.
  if (const char* xdg = std::getenv("XDG_DATA_HOME"); xdg && xdg[0] == '/') return std::string(xdg) + "/cuzk";
  if (const char* home = std::getenv("HOME"); home && home[0] != '\0') return std::string(home) + "/.local/share/cuzk";
  return "/tmp/cuzk-" + std::to_string(getuid());
}

std::string default_socket_address() {
  return "unix://" + default_data_dir() + "/cuzk.sock";
}

}  // namespace cuzk
