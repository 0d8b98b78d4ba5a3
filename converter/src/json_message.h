// Values from a checkpoint's JSON files, printed into error messages. Whatever the file holds, these never
// throw and never walk a deep value: a hostile config.json gets a clear refusal, not std::terminate.
#pragma once

#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

namespace tern::convert {

/// A JSON value for an error message: scalars as JSON (strings cut to 64 bytes), containers by kind and
/// size only, so a value nested 100,000 deep is never walked (nlohmann's dump() recurses). Never throws.
std::string BriefJson(const nlohmann::json& v);

/// `s` as a quoted JSON string for an error message, cut to at most `max_bytes` bytes (then "..." follows)
/// at a UTF-8 sequence boundary; bytes that are not UTF-8 print as U+FFFD. Never throws (nlohmann's plain
/// dump() throws type_error 316 on invalid UTF-8, which a cut in mid-sequence would make).
std::string QuotedForMessage(const std::string& s, size_t max_bytes);

}  // namespace tern::convert
