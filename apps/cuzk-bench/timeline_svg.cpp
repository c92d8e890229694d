#include "timeline_svg.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <tuple>

namespace cuzk::bench {

namespace {

constexpr double kWidth = 1200, kLeft = 110, kRight = 24, kTop = 78, kRowH = 16, kBarH = 12, kGroupGap = 10;
constexpr double kAxisH = 40;
constexpr const char* kColours[] = {"#4e79a7", "#c9c9c9", "#f28e2b", "#e15759", "#59a14f"};
constexpr const char* kLegend[] = {"synthesis", "wait for the prover", "upload", "device stage (MatVec, H, MSMs)",
                                   "finalize"};

std::string num(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", x);
  return buf;
}

std::string xml_escape(const std::string& s) {
  std::string out;
  for (const char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        // XML 1.0 has no other control characters (a request id could hold one).
        out += static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n' ? '?' : c;
    }
  }
  return out;
}

// GPUs by ordinal, then anything else by name, the CPU last.
std::tuple<int, long, std::string> backend_order(const std::string& b) {
  if (b.rfind("gpu:", 0) == 0) return {0, std::strtol(b.c_str() + 4, nullptr, 10), b};
  return {b == "cpu" ? 2 : 1, 0, b};
}

struct Row {
  std::string backend;
  unsigned slot = 0;  // 1, 2, ... within the backend
  double free_at = 0;
};

// Each span's row: per backend, the first row free at its synthesis start (greedy interval
// partitioning, which needs as many rows as partitions were in flight at once there).
std::vector<size_t> place(const std::vector<PartitionSpan>& spans, std::vector<Row>& rows) {
  std::vector<size_t> order(spans.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const auto ka = std::tuple(backend_order(spans[a].backend), spans[a].start_ms, spans[a].proof, spans[a].index);
    const auto kb = std::tuple(backend_order(spans[b].backend), spans[b].start_ms, spans[b].proof, spans[b].index);
    return ka < kb;
  });
  std::vector<size_t> row_of(spans.size());
  for (const size_t i : order) {
    const PartitionSpan& s = spans[i];
    size_t r = 0;
    unsigned slots = 0;
    for (; r < rows.size(); ++r) {
      if (rows[r].backend != s.backend) continue;
      ++slots;
      if (rows[r].free_at <= s.start_ms) break;
    }
    if (r == rows.size()) rows.push_back({s.backend, slots + 1, 0});
    rows[r].free_at = s.end_ms();
    row_of[i] = r;
  }
  return row_of;
}

struct Segment {
  int stage;  // index into kTimelineStages
  double begin_ms, ms;
};

std::vector<Segment> segments(const PartitionSpan& s) {
  const double wait_at = s.start_ms + s.synthesis_ms;
  const double device_at = wait_at + s.prover_wait_ms;
  const double upload = std::min(s.upload_ms, s.prove_ms);
  std::vector<Segment> out = {{0, s.start_ms, s.synthesis_ms},
                              {1, wait_at, s.prover_wait_ms},
                              {2, device_at, upload},
                              {3, device_at + upload, s.prove_ms - upload},
                              {4, device_at + s.prove_ms + s.finalize_wait_ms, s.finalize_ms}};
  out.erase(std::remove_if(out.begin(), out.end(), [](const Segment& g) { return !(g.ms > 0); }), out.end());
  return out;
}

// A round tick interval (1, 2 or 5 times a power of ten ms) giving about `ticks` ticks.
double tick_step(double range_ms, int ticks) {
  const double raw = range_ms / ticks;
  const double p = std::pow(10.0, std::floor(std::log10(raw)));
  for (const double m : {1.0, 2.0, 5.0}) {
    if (raw <= m * p) return m * p;
  }
  return 10 * p;
}

class Canvas {
 public:
  Canvas(double t_max, double chart_top, double chart_h)
      : t_max_(t_max), top_(chart_top), h_(chart_h), plot_w_(kWidth - kLeft - kRight) {}
  double x(double t_ms) const { return kLeft + t_ms / t_max_ * plot_w_; }
  double width(double ms) const { return std::max(0.5, ms / t_max_ * plot_w_); }
  double row_y(size_t row, const std::vector<Row>& rows) const {
    double y = top_;
    for (size_t r = 1; r <= row && r < rows.size(); ++r)
      y += kRowH + (rows[r].backend != rows[r - 1].backend ? kGroupGap : 0);
    return y;
  }
  double top() const { return top_; }
  double bottom() const { return top_ + h_; }
  double t_max() const { return t_max_; }

 private:
  double t_max_, top_, h_, plot_w_;
};

void header(std::string& out, double height, const std::string& title, size_t spans, size_t proofs) {
  out += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"" + num(kWidth) + "\" height=\"" +
         num(height) + "\" viewBox=\"0 0 " + num(kWidth) + " " + num(height) + "\" font-family=\"sans-serif\">\n";
  out += "<style>\n";
  for (size_t i = 0; i < std::size(kTimelineStages); ++i) {
    out += std::string(".stage-") + kTimelineStages[i] + " { fill: " + kColours[i] + "; }\n";
  }
  out += ".completion { stroke: #222; stroke-width: 1; stroke-dasharray: 3 3; }\n";
  out += ".grid { stroke: #e4e4e4; stroke-width: 1; }\ntext { font-size: 11px; fill: #222; }\n";
  out += ".title { font-size: 15px; font-weight: bold; }\n</style>\n";
  out += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  out += "<text class=\"title\" x=\"" + num(kLeft) + "\" y=\"20\">" + xml_escape(title) + "</text>\n";
  out += "<text x=\"" + num(kLeft) + "\" y=\"38\">" + std::to_string(spans) + " partitions of " +
         std::to_string(proofs) + " completed proofs; one row per partition in flight at once, by where its " +
         "device stage ran</text>\n";
}

void legend(std::string& out) {
  double x = kLeft;
  const double y = 52;
  out += "<g class=\"legend\">\n";
  for (size_t i = 0; i < std::size(kTimelineStages); ++i) {
    out += std::string("<rect class=\"legend-key stage-") + kTimelineStages[i] + "\" x=\"" + num(x) + "\" y=\"" +
           num(y) + "\" width=\"12\" height=\"12\"/>";
    out += "<text x=\"" + num(x + 16) + "\" y=\"" + num(y + 10) + "\">" + kLegend[i] + "</text>\n";
    x += 30 + 6.2 * static_cast<double>(std::char_traits<char>::length(kLegend[i]));
  }
  out += "<line class=\"legend-key completion\" x1=\"" + num(x + 6) + "\" y1=\"" + num(y - 1) + "\" x2=\"" +
         num(x + 6) + "\" y2=\"" + num(y + 13) + "\"/>";
  out += "<text x=\"" + num(x + 14) + "\" y=\"" + num(y + 10) + "\">proof completed</text>\n</g>\n";
}

void axis(std::string& out, const Canvas& c) {
  const double step = tick_step(c.t_max(), 10);
  const bool seconds = c.t_max() >= 5000;
  for (double t = 0; t <= c.t_max() + step / 1e6; t += step) {
    const double x = c.x(t);
    out += "<line class=\"grid\" x1=\"" + num(x) + "\" y1=\"" + num(c.top() - 4) + "\" x2=\"" + num(x) + "\" y2=\"" +
           num(c.bottom()) + "\"/>";
    char label[32];
    if (seconds) {
      std::snprintf(label, sizeof label, "%g s", t / 1000);
    } else {
      std::snprintf(label, sizeof label, "%g ms", t);
    }
    out +=
        "<text x=\"" + num(x) + "\" y=\"" + num(c.bottom() + 14) + "\" text-anchor=\"middle\">" + label + "</text>\n";
  }
  out += "<text x=\"" + num(kLeft + (kWidth - kLeft - kRight) / 2) + "\" y=\"" + num(c.bottom() + 32) +
         "\" text-anchor=\"middle\">time since the batch's start</text>\n";
}

void bars(std::string& out, const Canvas& c, const std::vector<PartitionSpan>& spans, const std::vector<Row>& rows,
          const std::vector<size_t>& row_of) {
  for (size_t r = 0; r < rows.size(); ++r) {
    out += "<text x=\"" + num(kLeft - 8) + "\" y=\"" + num(c.row_y(r, rows) + kBarH - 2) + "\" text-anchor=\"end\">" +
           xml_escape(rows[r].backend) + " #" + std::to_string(rows[r].slot) + "</text>\n";
  }
  for (size_t i = 0; i < spans.size(); ++i) {
    const PartitionSpan& s = spans[i];
    const double y = c.row_y(row_of[i], rows) + (kRowH - kBarH) / 2;
    const std::string who = "proof " + std::to_string(s.proof) + " (" + xml_escape(s.job_id) + ") partition " +
                            std::to_string(s.index) + " on " + xml_escape(s.backend);
    for (const Segment& g : segments(s)) {
      const char* stage = kTimelineStages[g.stage];
      out += std::string("<rect class=\"stage-") + stage + "\" data-proof=\"" + std::to_string(s.proof) +
             "\" data-partition=\"" + std::to_string(s.index) + "\" data-stage=\"" + stage + "\" data-ms=\"" +
             num(g.ms) + "\" x=\"" + num(c.x(g.begin_ms)) + "\" y=\"" + num(y) + "\" width=\"" + num(c.width(g.ms)) +
             "\" height=\"" + num(kBarH) + "\"><title>" + who + ": " + kLegend[g.stage] + " " + num(g.ms) +
             " ms</title></rect>\n";
    }
  }
}

void completions_marks(std::string& out, const Canvas& c, const std::vector<Completion>& completions) {
  for (const Completion& d : completions) {
    const double x = c.x(d.t_ms);
    out += "<line class=\"completion\" data-proof=\"" + std::to_string(d.proof) + "\" x1=\"" + num(x) + "\" y1=\"" +
           num(c.top() - 6) + "\" x2=\"" + num(x) + "\" y2=\"" + num(c.bottom()) + "\"><title>proof " +
           std::to_string(d.proof) + " (" + xml_escape(d.job_id) + ") completed at " + num(d.t_ms) +
           " ms</title></line>\n";
  }
}

}  // namespace

std::string timeline_svg(const std::vector<PartitionSpan>& spans, const std::vector<Completion>& completions,
                         const std::string& title) {
  std::vector<Row> rows;
  const std::vector<size_t> row_of = place(spans, rows);
  double t_max = 0;
  for (const PartitionSpan& s : spans) t_max = std::max(t_max, s.end_ms());
  for (const Completion& d : completions) t_max = std::max(t_max, d.t_ms);
  if (!(t_max > 0)) t_max = 1;
  std::set<std::string> groups;
  for (const Row& r : rows) groups.insert(r.backend);
  const double chart_h = std::max(1.0, static_cast<double>(rows.size())) * kRowH +
                         static_cast<double>(groups.empty() ? 0 : groups.size() - 1) * kGroupGap;
  const Canvas canvas(t_max, kTop, chart_h);
  std::string out;
  header(out, kTop + chart_h + kAxisH + 8, title, spans.size(), completions.size());
  legend(out);
  axis(out, canvas);
  if (spans.empty()) {
    out += "<text x=\"" + num(kLeft) + "\" y=\"" + num(kTop + kBarH) + "\">no completed partition to draw</text>\n";
  }
  bars(out, canvas, spans, rows, row_of);
  completions_marks(out, canvas, completions);
  out += "</svg>\n";
  return out;
}

}  // namespace cuzk::bench
