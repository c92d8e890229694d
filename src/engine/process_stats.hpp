#pragma once
// Process and machine figures from /proc (Linux), for the memory budget's "auto" size, status and
// metrics. Each returns 0 when the value cannot be read (no /proc, a sandbox, another OS): callers
// treat 0 as "unknown", never as a real measurement.
#include <cstdint>

namespace cuzk::engine {

uint64_t process_rss_bytes();       // VmRSS of /proc/self/status: resident now
uint64_t process_peak_rss_bytes();  // VmHWM of /proc/self/status: highest resident so far
uint64_t mem_total_bytes();         // MemTotal of /proc/meminfo
uint64_t mem_available_bytes();     // MemAvailable of /proc/meminfo
// CPUs this process may run on (its affinity mask, which containers and taskset narrow), else
// std::thread::hardware_concurrency().
unsigned hardware_threads();

}  // namespace cuzk::engine
