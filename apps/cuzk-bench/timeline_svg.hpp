#pragma once
// --timeline-svg FILE: a batch's timeline as a picture (SVG 1.1, no script, no external
// resources), drawn from what --timeline records: one block of rows per place the device stages
// ran ("gpu:0", "gpu:1", ..., "cpu"), one row per partition in flight at once there (each
// partition goes to the first row free at its synthesis start), and on a time axis each
// partition's stages as bars coloured by stage:
//   synthesis, wait (for a prover, and on a GPU with two witness slots for the other witness's
//   kernels), upload (the witness to the GPU; drawn just before the kernels, although with two
//   witness slots it ran during the wait), device (the rest of the device stage: MatVec, H, the
//   MSMs), finalize (from the time a finalize worker took it),
// with a legend, and each proof's completion marked by a dashed line across the rows.
//
// Every bar is a <rect class="stage-STAGE" data-proof="P" data-partition="K" data-stage="STAGE"
// data-ms="..."> with a <title> tooltip; every completion a <line class="completion"
// data-proof="P">: scripts (and tests) can find them.
#include <string>
#include <vector>

#include "timeline.hpp"

namespace cuzk::bench {

// The stages as drawn, in order: synthesis, wait, upload, device, finalize.
inline constexpr const char* kTimelineStages[] = {"synthesis", "wait", "upload", "device", "finalize"};

// The picture of these partitions and completions; `title` heads it.
std::string timeline_svg(const std::vector<PartitionSpan>& spans, const std::vector<Completion>& completions,
                         const std::string& title);

}  // namespace cuzk::bench
