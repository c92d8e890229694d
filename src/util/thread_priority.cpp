#include "util/thread_priority.hpp"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace cuzk {

namespace {
// PRIO_PROCESS with a thread id addresses one thread on Linux (nice is per task there).
id_t this_tid() {
  return static_cast<id_t>(syscall(SYS_gettid));
}
}  // namespace

int current_thread_nice() {
  errno = 0;
  const int v = getpriority(PRIO_PROCESS, this_tid());
  return errno == 0 ? v : 0;
}

int lower_current_thread_priority(int increment) {
  const int now = current_thread_nice();
  if (increment <= 0) return now;
  const int want = std::min(19, now + increment);
  return setpriority(PRIO_PROCESS, this_tid(), want) == 0 ? want : now;
}

}  // namespace cuzk
