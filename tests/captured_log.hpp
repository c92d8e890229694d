#pragma once
// Sends spdlog's default logger to a string for a test's lifetime (message only, no prefix).
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace cuzk::test {

class CapturedLog {
 public:
  CapturedLog() : previous_(spdlog::default_logger()) {
    auto logger = std::make_shared<spdlog::logger>("test", std::make_shared<spdlog::sinks::ostream_sink_mt>(out_));
    logger->set_pattern("%v");
    spdlog::set_default_logger(logger);
  }
  ~CapturedLog() { spdlog::set_default_logger(previous_); }
  CapturedLog(const CapturedLog&) = delete;
  CapturedLog& operator=(const CapturedLog&) = delete;

  // The lines that start with `event` (a log_event's name).
  std::vector<std::string> lines(const std::string& event) const {
    std::istringstream in(out_.str());
    std::vector<std::string> out;
    for (std::string line; std::getline(in, line);)
      if (line.rfind(event + " ", 0) == 0) out.push_back(line);
    return out;
  }
  size_t count(const std::string& event) const { return lines(event).size(); }

 private:
  std::shared_ptr<spdlog::logger> previous_;
  std::ostringstream out_;
};

}  // namespace cuzk::test
