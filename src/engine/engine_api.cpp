#include "engine/engine_api.hpp"

namespace cuzk::engine {

const char* kind_name(ProofKind kind) {
  switch (kind) {
    case ProofKind::PorepSealCommit:
      return "porep_c2";
    case ProofKind::SnapDealsUpdate:
      return "snap_update";
    case ProofKind::WindowPostPartition:
      return "window_post";
    case ProofKind::WinningPost:
      return "winning_post";
    case ProofKind::Generic:
      return "generic";
    default:
      return "unspecified";
  }
}

const char* priority_name(Priority p) {
  switch (p) {
    case Priority::Low:
      return "low";
    case Priority::Normal:
      return "normal";
    case Priority::High:
      return "high";
    case Priority::Critical:
      return "critical";
    default:
      return "unspecified";
  }
}

Priority effective_priority(ProofKind kind, int wire_priority) {
  if (wire_priority >= 1 && wire_priority <= 4) return static_cast<Priority>(wire_priority);
  if (wire_priority != 0) return Priority::Normal;
  switch (kind) {
    case ProofKind::WinningPost:
      return Priority::Critical;
    case ProofKind::WindowPostPartition:
      return Priority::High;
    default:
      return Priority::Normal;
  }
}

}  // namespace cuzk::engine
