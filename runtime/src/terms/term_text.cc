#include "terms/term_text.h"

#include "base/utf8.h"

namespace tern::terms {

uint32_t DecodeAt(std::string_view s, size_t i, size_t* len) {
  const auto c = static_cast<unsigned char>(s[i]);
  size_t n = c < 0x80 ? 1 : c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
  if (i + n > s.size()) n = 1;
  *len = n;
  if (n == 1) return c;
  uint32_t cp = c & (0x7f >> n);
  for (size_t k = 1; k < n; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3f);
  return cp;
}

bool IsWordChar(uint32_t cp) {
  if (cp < 0x80) return (cp >= '0' && cp <= '9') || (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z');
  if (cp >= 0xa0 && cp <= 0xbf) return false;
  if (cp == 0xd7 || cp == 0xf7) return false;
  if (cp >= 0x2000 && cp <= 0x2bff) return false;
  if (cp >= 0x3000 && cp <= 0x303f) return false;
  if (cp >= 0xfe30 && cp <= 0xfe4f) return false;
  if (cp >= 0xff00 && cp <= 0xff65) {  // full-width forms: their letters and digits are word characters
    return (cp >= 0xff10 && cp <= 0xff19) || (cp >= 0xff21 && cp <= 0xff3a) || (cp >= 0xff41 && cp <= 0xff5a);
  }
  if (cp == 0xfffd) return false;
  if (cp >= 0x1f000 && cp <= 0x1faff) return false;
  return true;
}

bool IsSpaceChar(uint32_t cp) { return cp == ' ' || (cp >= 0x09 && cp <= 0x0d) || cp == 0xa0; }

namespace {
// Latin Extended-A's case pairs: capital then small in [0x100, 0x137] and [0x14a, 0x177] (capital even),
// and in [0x139, 0x148] and [0x179, 0x17e] (capital odd).
bool PairsEven(uint32_t cp) { return (cp >= 0x100 && cp <= 0x137) || (cp >= 0x14a && cp <= 0x177); }
bool PairsOdd(uint32_t cp) { return (cp >= 0x139 && cp <= 0x148) || (cp >= 0x179 && cp <= 0x17e); }
}  // namespace

uint32_t FoldCase(uint32_t cp) {
  if (cp >= 'A' && cp <= 'Z') return cp + 32;
  if (cp >= 0xc0 && cp <= 0xde && cp != 0xd7) return cp + 32;
  if (PairsEven(cp)) return cp | 1u;
  if (PairsOdd(cp)) return cp & 1u ? cp + 1 : cp;
  if (cp == 0x178) return 0xff;
  if (cp >= 0x391 && cp <= 0x3a9 && cp != 0x3a2) return cp + 32;  // Greek
  if (cp >= 0x410 && cp <= 0x42f) return cp + 32;                  // Cyrillic
  if (cp >= 0x400 && cp <= 0x40f) return cp + 80;
  return cp;
}

uint32_t UpperCase(uint32_t cp) {
  if (cp >= 'a' && cp <= 'z') return cp - 32;
  if (cp >= 0xe0 && cp <= 0xfe && cp != 0xf7) return cp - 32;
  if (cp == 0xff) return 0x178;
  if (PairsEven(cp) && (cp & 1u)) return cp - 1;
  if (PairsOdd(cp) && !(cp & 1u)) return cp - 1;
  if (cp >= 0x3b1 && cp <= 0x3c9 && cp != 0x3c2) return cp - 32;
  if (cp >= 0x430 && cp <= 0x44f) return cp - 32;
  if (cp >= 0x450 && cp <= 0x45f) return cp - 80;
  return cp;
}


std::string NormalizeTerm(std::string_view term) {
  std::string out;
  bool space = false;
  for (size_t i = 0, len = 0; i < term.size(); i += len) {
    const uint32_t cp = DecodeAt(term, i, &len);
    if (IsSpaceChar(cp)) {
      space = !out.empty();
      continue;
    }
    if (space) out.push_back(' ');
    space = false;
    out.append(term.substr(i, len));
  }
  return out;
}

uint64_t FoldedUnitHash(std::string_view s, size_t i, size_t* end) {
  uint64_t h = 1469598103934665603ull;
  auto mix = [&h](uint32_t cp) {
    for (int k = 0; k < 4; ++k) h = (h ^ ((cp >> (8 * k)) & 0xff)) * 1099511628211ull;
  };
  size_t len = 0;
  const uint32_t first = DecodeAt(s, i, &len);
  mix(FoldCase(first));
  i += len;
  if (IsWordChar(first)) {
    while (i < s.size()) {
      const uint32_t cp = DecodeAt(s, i, &len);
      if (!IsWordChar(cp)) break;
      mix(FoldCase(cp));
      i += len;
    }
  }
  *end = i;
  return h;
}

bool IsJoiner(uint32_t cp) { return cp == '-' || cp == '.' || cp == '@' || cp == '_' || cp == '+'; }

namespace {
// The code point ending just before byte i (i > 0), and its start (*at).
uint32_t Before(std::string_view s, size_t i, size_t* at) {
  size_t b = i - 1;
  while (b > 0 && (static_cast<unsigned char>(s[b]) & 0xc0) == 0x80 && i - b < 4) --b;
  size_t len = 0;
  *at = b;
  return DecodeAt(s, b, &len);
}
}  // namespace

bool StartsName(std::string_view s, size_t b) {
  if (b == 0) return true;
  size_t at = 0;
  const uint32_t prev = Before(s, b, &at);
  if (IsWordChar(prev)) return false;
  if (!IsJoiner(prev) || at == 0) return true;
  size_t at2 = 0;
  return !IsWordChar(Before(s, at, &at2));
}

bool EndsName(std::string_view s, size_t e) {
  if (e >= s.size()) return true;
  size_t len = 0;
  const uint32_t next = DecodeAt(s, e, &len);
  if (IsWordChar(next)) return false;
  if (!IsJoiner(next) || e + len >= s.size()) return true;
  return !IsWordChar(DecodeAt(s, e + len, &len));
}

}  // namespace tern::terms
