#include "json_message.h"

#include <algorithm>

namespace tern::convert {

std::string QuotedForMessage(const std::string& s, size_t max_bytes) {
  size_t n = std::min(s.size(), max_bytes);
  // Never cut inside a UTF-8 sequence: back off over continuation bytes (10xxxxxx) to the sequence's start.
  if (n < s.size())
    while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  // A string from a file may hold anything: bytes that are not UTF-8 print as U+FFFD, never throw.
  return nlohmann::json(s.substr(0, n)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) +
         (n < s.size() ? "..." : "");
}

std::string BriefJson(const nlohmann::json& v) {
  if (v.is_array()) return v.empty() ? "[]" : "a list of " + std::to_string(v.size());
  if (v.is_object()) return "an object";
  if (v.is_string()) return QuotedForMessage(v.get_ref<const std::string&>(), 64);
  return v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace tern::convert
