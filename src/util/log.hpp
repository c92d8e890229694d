#pragma once
// Process-wide logging on spdlog's default logger, to stderr, as text or JSON lines.
//
//   text: 2025-01-31T12:00:00.123Z info ready listen=unix:///run/cuzk.sock version=0.1.0
//   json: {"ts":"2025-01-31T12:00:00.123Z","level":"info","msg":"ready","listen":"unix:///...",...}
//
// Plain spdlog calls (spdlog::info("...")) work in both formats; log_event() adds structured
// fields that stay machine-readable (key=value in text, JSON members in json).
#include <spdlog/common.h>

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

namespace cuzk::logging {

// Levels accepted by init_logging and CUZK_LOG: trace, debug, info, warn (warning), error,
// critical, off.
using Level = spdlog::level::level_enum;

// Installs the stderr logger as spdlog's default. `format` is "text" or "json". The environment
// variable CUZK_LOG, when set and non-empty, overrides `level`. Throws std::invalid_argument
// naming the bad value (and where it came from) on an unknown level or format. May be called
// again to reconfigure.
void init_logging(const std::string& level, const std::string& format);

// Parses a level name; false when unknown.
bool parse_level(std::string_view name, Level& out);

// True after init_logging(..., "json").
bool json_format();

using Field = std::pair<std::string_view, std::string>;

// Logs a structured event: `event k1=v1 k2=v2` in text mode (values with spaces, quotes, '=' or
// control characters are double-quoted and escaped, so a line always splits back into its
// fields), or one JSON object with "msg": event and one member per field in json mode. Nothing is
// rendered when the level is disabled.
void log_event(Level level, std::string_view event, std::initializer_list<Field> fields);

// `s` as the body of a JSON string (no surrounding quotes): ", \ and control characters escaped,
// bytes that are not valid UTF-8 replaced by U+FFFD so the output is always valid JSON.
std::string json_escape(std::string_view s);
void append_json_escaped(std::string& out, std::string_view s);

// `s` as a logfmt value: unchanged when it is a non-empty run of printable characters without
// spaces, quotes or '='; otherwise double-quoted with \" \\ \n \t \xNN escapes.
std::string text_value(std::string_view s);

}  // namespace cuzk::logging
