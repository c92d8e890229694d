#include "util/log.hpp"

#include <spdlog/formatter.h>
#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <memory>
#include <mutex>
#include <stdexcept>

namespace cuzk::logging {
namespace {

std::atomic<bool> g_json{false};
std::mutex g_init_mu;

// The JSON members of the event being logged on this thread (",\"k\":\"v\"..."), or null. Loggers
// here are synchronous, so the formatter runs on the thread that called log_event; passing the
// fields beside the message (instead of inside it) means no message text can be mistaken for them.
thread_local const std::string* t_event_fields = nullptr;

void append_timestamp(std::string& out, std::chrono::system_clock::time_point tp) {
  const auto since_epoch = tp.time_since_epoch();
  const auto secs = std::chrono::duration_cast<std::chrono::seconds>(since_epoch);
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(since_epoch - secs).count();
  const std::time_t t = static_cast<std::time_t>(secs.count());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[40];
  const int n = std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1,
                              tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms));
  if (n > 0) out.append(buf, static_cast<size_t>(n));
}

// One JSON object per line: {"ts":...,"level":...,"msg":...[,fields]}.
class JsonFormatter final : public spdlog::formatter {
 public:
  void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) override {
    std::string line;
    line.reserve(96 + msg.payload.size());
    line += "{\"ts\":\"";
    append_timestamp(line, msg.time);
    line += "\",\"level\":\"";
    const auto level = spdlog::level::to_string_view(msg.level);
    line.append(level.data(), level.size());
    line += "\",\"msg\":\"";
    append_json_escaped(line, std::string_view(msg.payload.data(), msg.payload.size()));
    line += '"';
    if (t_event_fields != nullptr) line += *t_event_fields;
    line += "}\n";
    dest.append(line.data(), line.data() + line.size());
  }
  std::unique_ptr<spdlog::formatter> clone() const override { return std::make_unique<JsonFormatter>(); }
};

// Length of the valid UTF-8 sequence at s[i], or 0 when the bytes there are not one.
size_t utf8_sequence_length(std::string_view s, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char b0 = byte(i);
  size_t len = 0;
  unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    len = 2;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    len = 3;
    if (b0 == 0xE0) lo = 0xA0;  // overlong
    if (b0 == 0xED) hi = 0x9F;  // UTF-16 surrogates
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    len = 4;
    if (b0 == 0xF0) lo = 0x90;  // overlong
    if (b0 == 0xF4) hi = 0x8F;  // above U+10FFFF
  } else {
    return 0;
  }
  if (i + len > s.size()) return 0;
  if (byte(i + 1) < lo || byte(i + 1) > hi) return 0;
  for (size_t k = 2; k < len; ++k) {
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
  }
  return len;
}

// One byte, escaped as JSON and our text values both do: quotes, backslash and \n \r \t by name,
// other control bytes as <control_prefix> + two hex digits ("\u00" for JSON, "\x" for text).
void append_escaped_byte(std::string& out, unsigned char c, const char* control_prefix) {
  static constexpr char kHex[] = "0123456789abcdef";
  switch (c) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\r':
      out += "\\r";
      break;
    case '\t':
      out += "\\t";
      break;
    default:
      if (c < 0x20 || c == 0x7f) {
        out += control_prefix;
        out += kHex[c >> 4];
        out += kHex[c & 15];
      } else {
        out += static_cast<char>(c);
      }
  }
}

}  // namespace

void append_json_escaped(std::string& out, std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80) {
      const size_t len = utf8_sequence_length(s, i);
      if (len == 0) {
        out += "\\ufffd";
        ++i;
      } else {
        out.append(s.substr(i, len));
        i += len;
      }
      continue;
    }
    append_escaped_byte(out, c, "\\u00");
    ++i;
  }
}

std::string json_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 8);
  append_json_escaped(out, s);
  return out;
}

std::string text_value(std::string_view s) {
  bool plain = !s.empty();
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c <= 0x20 || c == 0x7f || c == '"' || c == '=') {
      plain = false;
      break;
    }
  }
  if (plain) return std::string(s);
  std::string out = "\"";
  for (const char ch : s) append_escaped_byte(out, static_cast<unsigned char>(ch), "\\x");
  out += '"';
  return out;
}

bool parse_level(std::string_view name, Level& out) {
  struct Entry {
    std::string_view name;
    Level level;
  };
  static constexpr Entry kLevels[] = {
      {"trace", Level::trace},  {"debug", Level::debug}, {"info", Level::info},         {"warn", Level::warn},
      {"warning", Level::warn}, {"error", Level::err},   {"critical", Level::critical}, {"off", Level::off},
  };
  for (const auto& e : kLevels) {
    if (e.name == name) {
      out = e.level;
      return true;
    }
  }
  return false;
}

bool json_format() {
  return g_json.load(std::memory_order_relaxed);
}

void init_logging(const std::string& level, const std::string& format) {
  static constexpr const char* kExpected = "expected trace, debug, info, warn, error, critical or off";
  std::string level_name = level;
  std::string source = "log level";
  if (const char* env = std::getenv("CUZK_LOG"); env != nullptr && *env != '\0') {
    level_name = env;
    source = "CUZK_LOG";
  }
  Level lvl{};
  if (!parse_level(level_name, lvl)) {
    throw std::invalid_argument(source + ": unknown log level '" + level_name + "' (" + kExpected + ")");
  }
  if (format != "text" && format != "json") {
    throw std::invalid_argument("log format: unknown value '" + format + "' (expected text or json)");
  }
  const bool json = format == "json";

  std::lock_guard lock(g_init_mu);
  // A plain (uncoloured) stderr sink: colour codes would corrupt JSON lines and log files. The
  // sink flushes after every message, so a supervisor sees each line at once.
  auto sink = std::make_shared<spdlog::sinks::stderr_sink_mt>();
  if (json) {
    sink->set_formatter(std::make_unique<JsonFormatter>());
  } else {
    sink->set_formatter(
        std::make_unique<spdlog::pattern_formatter>("%Y-%m-%dT%H:%M:%S.%eZ %l %v", spdlog::pattern_time_type::utc));
  }
  auto logger = std::make_shared<spdlog::logger>("cuzk", std::move(sink));
  logger->set_level(lvl);
  logger->flush_on(Level::trace);
  g_json.store(json, std::memory_order_relaxed);
  spdlog::set_default_logger(std::move(logger));
}

void log_event(Level level, std::string_view event, std::initializer_list<Field> fields) {
  auto* logger = spdlog::default_logger_raw();
  if (logger == nullptr || !logger->should_log(level)) return;
  if (json_format()) {
    std::string members;
    for (const auto& [key, value] : fields) {
      members += ",\"";
      append_json_escaped(members, key);
      members += "\":\"";
      append_json_escaped(members, value);
      members += '"';
    }
    struct FieldsScope {  // cleared even if a sink throws
      explicit FieldsScope(const std::string* f) { t_event_fields = f; }
      ~FieldsScope() { t_event_fields = nullptr; }
    } scope(&members);
    logger->log(level, "{}", event);
  } else {
    std::string line(event);
    for (const auto& [key, value] : fields) {
      line += ' ';
      line.append(key);
      line += '=';
      line += text_value(value);
    }
    logger->log(level, "{}", line);
  }
}

}  // namespace cuzk::logging
