#include "markup/references.h"

#include "base/utf8.h"

#include <cstdint>

namespace tern::markup {
namespace {

struct NamedReference {
  const char* name;
  const char* utf8;
};
constexpr NamedReference kReferences[] = {
    {"amp", "&"},       {"lt", "<"},        {"gt", ">"},        {"quot", "\""},     {"apos", "'"},
    {"nbsp", "\xc2\xa0"}, {"copy", "\xc2\xa9"}, {"reg", "\xc2\xae"}, {"trade", "\xe2\x84\xa2"},
    {"hellip", "\xe2\x80\xa6"}, {"mdash", "\xe2\x80\x94"}, {"ndash", "\xe2\x80\x93"}, {"lsquo", "\xe2\x80\x98"},
    {"rsquo", "\xe2\x80\x99"}, {"ldquo", "\xe2\x80\x9c"}, {"rdquo", "\xe2\x80\x9d"}, {"laquo", "\xc2\xab"},
    {"raquo", "\xc2\xbb"}, {"euro", "\xe2\x82\xac"}, {"pound", "\xc2\xa3"}, {"yen", "\xc2\xa5"}, {"cent", "\xc2\xa2"},
    {"sect", "\xc2\xa7"}, {"deg", "\xc2\xb0"}, {"plusmn", "\xc2\xb1"}, {"times", "\xc3\x97"}, {"divide", "\xc3\xb7"},
    {"middot", "\xc2\xb7"}, {"para", "\xc2\xb6"}, {"bull", "\xe2\x80\xa2"}};


}  // namespace

size_t ReadReference(std::string_view line, size_t i, std::string* decoded) {
  // A reference is at most 40 bytes: the ';' is looked for there only (linear in the line whatever it holds).
  const size_t semi_in = line.substr(i + 1, 40).find(';');
  if (semi_in == std::string_view::npos) return 0;
  const size_t semi = i + 1 + semi_in;
  const std::string_view body = line.substr(i + 1, semi - i - 1);
  decoded->clear();
  if (body.size() >= 2 && body[0] == '#') {
    const bool hex = body[1] == 'x' || body[1] == 'X';
    const std::string_view digits = body.substr(hex ? 2 : 1);
    if (digits.empty() || digits.size() > 8) return 0;
    uint32_t cp = 0;
    for (char c : digits) {
      int v = -1;
      if (c >= '0' && c <= '9') v = c - '0';
      else if (hex && (c | 0x20) >= 'a' && (c | 0x20) <= 'f') v = (c | 0x20) - 'a' + 10;
      if (v < 0) return 0;
      cp = cp * (hex ? 16 : 10) + static_cast<uint32_t>(v);
      if (cp > 0x10ffff) return 0;
    }
    if (cp == 0 || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
    AppendUtf8(cp, decoded);
    return semi - i + 1;
  }
  for (const NamedReference& r : kReferences) {
    if (body == r.name) {
      *decoded = r.utf8;
      return semi - i + 1;
    }
  }
  return 0;
}


}  // namespace tern::markup
