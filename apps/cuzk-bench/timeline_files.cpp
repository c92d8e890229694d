#include "timeline_files.hpp"

#include <cerrno>
#include <cstring>
#include <exception>
#include <fstream>
#include <iostream>

#include "timeline_svg.hpp"
#include "util/atomic_file.hpp"

namespace cuzk::bench {

int open_timeline(const BatchOptions& o, Timeline& timeline) {
  if (!o.timeline.empty()) {
    if (auto t = Timeline::open(timeline, o.timeline); !t) {
      std::cerr << "cuzk-bench: " << t.error() << "\n";
      return 1;
    }
  }
  if (o.timeline_svg.empty()) return 0;
  timeline.keep_spans();
  if (!std::ofstream(o.timeline_svg, std::ios::out | std::ios::trunc)) {
    std::cerr << "cuzk-bench: cannot write the timeline picture to " << o.timeline_svg << ": " << std::strerror(errno)
              << "\n";
    return 1;
  }
  return 0;
}

bool write_picture(const BatchOptions& o, const Timeline& timeline) {
  if (o.timeline_svg.empty()) return true;
  const std::string title = "cuzk-bench batch: " + o.circuit + ", " + std::to_string(o.count) + " proofs, " +
                            std::to_string(o.concurrency) + " in flight";
  try {
    write_file_atomically(o.timeline_svg, timeline_svg(timeline.spans(), timeline.completions(), title));
    return true;
  } catch (const std::exception& e) {
    std::cerr << "cuzk-bench: cannot write the timeline picture: " << e.what() << "\n";
    return false;
  }
}

}  // namespace cuzk::bench
