// cuzk-bench status --watch [SECONDS] [--count N]: GetStatus every SECONDS (2 by default), the
// compact view of status_view.hpp redrawn in place on a terminal (the screen cleared with ANSI
// codes) or, when stdout is not a terminal, printed as successive snapshots separated by a blank
// line. Ctrl-C (SIGINT) or SIGTERM ends it with exit code 0; a daemon that stops answering ends it
// with a message naming the daemon and exit code 1.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <optional>
#include <thread>

#include "commands.hpp"
#include "interrupt.hpp"
#include "status_view.hpp"

namespace cuzk::bench {

namespace {

using Clock = std::chrono::steady_clock;

// Sleeps until `until`, waking every 50 ms to notice Ctrl-C; false when interrupted.
bool sleep_until_or_interrupted(Clock::time_point until) {
  while (!interrupted()) {
    const auto now = Clock::now();
    if (now >= until) return true;
    std::this_thread::sleep_for(std::min<Clock::duration>(until - now, std::chrono::milliseconds(50)));
  }
  return false;
}

std::string wall_clock_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  localtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
  return buf;
}

std::string frame_header(const Client& client, const StatusOptions& o, uint64_t refresh) {
  char every[32];
  std::snprintf(every, sizeof every, "%g", *o.watch_s);
  return "cuzk daemon " + client.address() + " at " + wall_clock_now() + " (refresh " + std::to_string(refresh) +
         ", every " + every + " s; Ctrl-C stops)\n";
}

}  // namespace

int run_status_watch(Client& client, const GlobalOptions&, const StatusOptions& o, nlohmann::json& json) {
  const bool tty = isatty(STDOUT_FILENO) == 1;
  const auto interval = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(*o.watch_s));
  std::optional<v1::GetStatusResponse> prev;
  Clock::time_point prev_at{};
  uint64_t refreshes = 0;
  auto next = Clock::now();
  while (!interrupted()) {
    auto s = client.get_status();
    if (interrupted()) break;
    if (!s) {
      std::cerr << "cuzk-bench: lost the daemon at " << client.address() << " after " << refreshes << " refresh"
                << (refreshes == 1 ? "" : "es") << " (stopped, restarting or unreachable: check that cuzk-daemon "
                << "runs, then watch again): " << s.error() << "\n";
      json = {{"command", "status"}, {"watch_refreshes", refreshes}, {"error", s.error()}};
      return 1;
    }
    const auto at = Clock::now();
    ++refreshes;
    const std::string frame =
        frame_header(client, o, refreshes) +
        watch_text(*s, prev ? &*prev : nullptr, prev ? std::chrono::duration<double>(at - prev_at).count() : 0);
    // On a terminal: the cursor home and the screen cleared, then the frame; elsewhere (a file, a
    // pipe) snapshots one after another, a blank line between them.
    std::cout << (tty ? "\033[H\033[2J" : refreshes > 1 ? "\n" : "") << frame << std::flush;
    prev = std::move(*s);
    prev_at = at;
    if (o.count > 0 && refreshes >= o.count) break;
    next += interval;
    if (next < at) next = at + interval;  // a slow answer: no burst of refreshes to catch up
    if (!sleep_until_or_interrupted(next)) break;
  }
  json = {{"command", "status"}, {"watch_refreshes", refreshes}, {"interrupted", interrupted()}};
  return 0;
}

}  // namespace cuzk::bench
