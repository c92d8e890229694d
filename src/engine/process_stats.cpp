#include "engine/process_stats.hpp"

#include <sched.h>

#include <charconv>
#include <fstream>
#include <string>
#include <string_view>
#include <thread>

namespace cuzk::engine {

namespace {

// Reads "<field>:   <n> kB" from a /proc file (status and meminfo share this layout).
uint64_t read_kib_field(const char* path, std::string_view field) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    const std::string_view l(line);
    if (l.size() <= field.size() || l.substr(0, field.size()) != field || l[field.size()] != ':') continue;
    const size_t start = l.find_first_of("0123456789", field.size() + 1);
    if (start == std::string_view::npos) return 0;
    uint64_t kib = 0;
    const auto [end, ec] = std::from_chars(l.data() + start, l.data() + l.size(), kib);
    if (ec != std::errc{}) return 0;
    // The kernel writes "kB" but means KiB; a unit-less value would be a count we do not expect.
    if (std::string_view(end, l.data() + l.size()).find("kB") == std::string_view::npos) return 0;
    return kib * 1024;
  }
  return 0;
}

}  // namespace

uint64_t process_rss_bytes() {
  return read_kib_field("/proc/self/status", "VmRSS");
}
uint64_t process_peak_rss_bytes() {
  return read_kib_field("/proc/self/status", "VmHWM");
}
uint64_t mem_total_bytes() {
  return read_kib_field("/proc/meminfo", "MemTotal");
}
uint64_t mem_available_bytes() {
  return read_kib_field("/proc/meminfo", "MemAvailable");
}

unsigned hardware_threads() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    const int n = CPU_COUNT(&set);
    if (n > 0) return static_cast<unsigned>(n);
  }
  return std::thread::hardware_concurrency();  // 0 when unknown
}

}  // namespace cuzk::engine
