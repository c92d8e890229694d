#pragma once
// cuzk-bench batch --timeline FILE.csv and --timeline-svg FILE.svg: the files opened before the
// batch runs (an unwritable path fails at once, not after minutes of proofs) and the picture
// drawn after it.
#include "commands.hpp"
#include "timeline.hpp"

namespace cuzk::bench {

// Opens the CSV, and for the picture checks its file and keeps the spans. Returns 0, or 1 after
// the error is reported.
int open_timeline(const BatchOptions& o, Timeline& timeline);
// Draws --timeline-svg from the batch's partitions and completions; false (reported) when it
// cannot be written. True without --timeline-svg.
bool write_picture(const BatchOptions& o, const Timeline& timeline);

}  // namespace cuzk::bench
