#include "timeline.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace cuzk::bench {

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) {
    if (c == '"') q += '"';
    q += c;
  }
  return q + "\"";
}

Result<bool> Timeline::open(Timeline& t, const std::string& path) {
  t.out_.open(path, std::ios::out | std::ios::trunc);
  if (!t.out_) return make_error("cannot write the timeline to " + path + ": " + std::strerror(errno));
  t.path_ = path;
  t.out_ << "t_ms,event,proof_index,job_id,detail\n";
  return true;
}

void Timeline::event(double t_ms, const char* event, std::optional<uint64_t> proof_index, const std::string& job_id,
                     const std::string& detail) {
  if (!out_.is_open()) return;
  char t[32];
  std::snprintf(t, sizeof t, "%.1f", t_ms);
  std::string line = std::string(t) + "," + event + "," + (proof_index ? std::to_string(*proof_index) : "") + "," +
                     csv_field(job_id) + "," + csv_field(detail) + "\n";
  std::lock_guard lock(mu_);
  out_ << line;
}

Result<bool> Timeline::close() {
  std::lock_guard lock(mu_);
  if (!out_.is_open()) return true;
  out_.flush();
  const bool ok = static_cast<bool>(out_);
  out_.close();
  if (!ok) return make_error("writing the timeline to " + path_ + " failed (disk full?)");
  return true;
}

}  // namespace cuzk::bench
