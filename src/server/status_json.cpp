#include "server/status_json.hpp"

#include <cstdio>
#include <string_view>
#include <type_traits>

#include "util/log.hpp"

namespace cuzk::server {

namespace {

// Local rather than engine::priority_name so the wire layer depends on the engine's types only.
const char* priority_label(engine::Priority p) {
  switch (p) {
    case engine::Priority::Low:
      return "low";
    case engine::Priority::Normal:
      return "normal";
    case engine::Priority::High:
      return "high";
    case engine::Priority::Critical:
      return "critical";
    case engine::Priority::Unspecified:
      break;
  }
  return "unspecified";
}

const char* tier_label(int tier) {
  return tier == 0 ? "hot" : tier == 1 ? "warm" : "cold";
}

// Appends members to one JSON object; every member is followed by a comma unless `last`.
class ObjectWriter {
 public:
  explicit ObjectWriter(std::string& out) : out_(out) {}

  template <class T>
  void num(std::string_view key, T value, bool last = false) {
    this->key(key);
    if constexpr (std::is_floating_point_v<T>) {
      char buf[32];
      const int n = std::snprintf(buf, sizeof buf, "%.3f", static_cast<double>(value));
      out_.append(buf, n > 0 ? static_cast<size_t>(n) : 0);
    } else {
      out_ += std::to_string(value);
    }
    end(last);
  }
  void str(std::string_view key, std::string_view value, bool last = false) {
    this->key(key);
    string(value);
    end(last);
  }
  void boolean(std::string_view key, bool value, bool last = false) {
    this->key(key);
    out_ += value ? "true" : "false";
    end(last);
  }
  // key: [{...}, ...], each object written by item(writer, element).
  template <class Items, class Item>
  void array(std::string_view key, const Items& items, Item&& item) {
    this->key(key);
    out_ += '[';
    for (size_t i = 0; i < items.size(); ++i) {
      if (i) out_ += ',';
      out_ += '{';
      item(*this, items[i]);
      out_ += '}';
    }
    out_ += "],";
  }
  void key(std::string_view k) {
    string(k);
    out_ += ':';
  }
  void string(std::string_view s) {
    out_ += '"';
    logging::append_json_escaped(out_, s);
    out_ += '"';
  }

 private:
  void end(bool last) {
    if (!last) out_ += ',';
  }
  std::string& out_;
};

void write_lists(ObjectWriter& w, const engine::EngineStatus& s) {
  w.array("queues", s.queues, [](ObjectWriter& o, const engine::QueueInfo& q) {
    o.str("proof_kind", q.proof_kind);
    o.str("priority", priority_label(q.priority));
    o.num("pending", q.pending);
    o.num("in_progress", q.in_progress);
    o.num("pending_partitions", q.pending_partitions);
    o.num("in_progress_partitions", q.in_progress_partitions, true);
  });
  w.array("stage_queues", s.stage_queues, [](ObjectWriter& o, const engine::QueueInfo& q) {
    o.str("proof_kind", q.proof_kind);
    o.str("priority", priority_label(q.priority));
    o.str("stage", q.stage);
    o.num("pending", q.pending);
    o.num("in_progress", q.in_progress, true);
  });
  w.array("workers", s.workers, [](ObjectWriter& o, const engine::WorkerInfo& x) {
    o.str("name", x.name);
    o.str("state", x.state);
    o.str("current_job_id", x.current_job_id);
    o.num("current_partition", x.current_partition);
    o.num("busy_seconds", x.busy_seconds, true);
  });
  w.array("srs", s.srs, [](ObjectWriter& o, const engine::SrsInfo& x) {
    o.str("circuit_id", x.circuit_id);
    o.str("tier", tier_label(x.tier));
    o.num("size_bytes", x.size_bytes);
    o.num("ref_count", x.ref_count);
    o.boolean("test_only", x.test_only);
    o.str("storage", x.storage, true);
  });
  w.array("pce", s.pce, [](ObjectWriter& o, const engine::PceInfoStatus& p) {
    o.str("circuit_id", p.circuit_id);
    o.str("state", p.state);
    o.str("path", p.path);
    o.num("size_bytes", p.size_bytes, true);
  });
  w.array("operations", s.operations, [](ObjectWriter& o, const engine::OperationInfo& op) {
    o.str("what", op.what);
    o.str("circuit_id", op.circuit_id);
    o.str("unit", op.unit);
    o.num("done", op.done);
    o.num("total", op.total);
    o.num("fraction", op.fraction);
    o.num("elapsed_seconds", op.elapsed_seconds, true);
  });
}

}  // namespace

std::string engine_status_json(const engine::EngineStatus& s, const std::string& version,
                               const std::vector<std::string>& unauthenticated_from) {
  std::string out = "{";
  ObjectWriter w(out);
  w.str("version", version);
  w.num("uptime_seconds", s.uptime_seconds);
  out += "\"memory\":{";
  w.num("used_bytes", s.memory_used_bytes);
  w.num("limit_bytes", s.memory_limit_bytes);
  w.num("waits", s.memory_waits);
  w.num("rss_bytes", s.rss_bytes);
  w.num("peak_rss_bytes", s.peak_rss_bytes, true);
  out += "},\"counters\":{";
  w.num("completed", s.completed);
  w.num("failed", s.failed);
  w.num("cancelled", s.cancelled, true);
  out += "},";
  write_lists(w, s);
  const auto strings = [&](std::string_view key, const std::vector<std::string>& items) {
    w.key(key);
    out += '[';
    for (size_t i = 0; i < items.size(); ++i) {
      if (i) out += ',';
      w.string(items[i]);
    }
    out += ']';
  };
  strings("unauthenticated_from", unauthenticated_from);
  out += ',';
  strings("circuits", s.circuits);
  out += '}';
  return out;
}

}  // namespace cuzk::server
