#include "markup/punctuation.h"

#include <cctype>

namespace tern::markup {
namespace {

constexpr std::string_view kEllipsis = "\xe2\x80\xa6", kRightDouble = "\xe2\x80\x9d", kRightSingle = "\xe2\x80\x99";
constexpr std::string_view kRightGuillemet = "\xc2\xbb", kLeftGuillemet = "\xc2\xab";

bool Final(char c) { return c == '.' || c == '!' || c == '?'; }

}  // namespace

bool ClosingMark(std::string_view t, size_t i, size_t* len) {
  *len = 1;
  switch (t[i]) {
    case '.': case '!': case '?': case ':': case ';': case '"': case '\'': case ')': case ']': return true;
    default: break;
  }
  const std::string_view three = t.substr(i, 3), two = t.substr(i, 2);
  if (three == kEllipsis || three == kRightDouble || three == kRightSingle) return *len = 3, true;
  if (two == kRightGuillemet || two == kLeftGuillemet) return *len = 2, true;
  return false;
}

size_t FinalMarkEnd(std::string_view t, size_t from) {
  size_t end = from;
  for (size_t i = from, len = 1; i < t.size(); i += len) {
    len = 1;
    if (t[i] == ' ') continue;
    if (!ClosingMark(t, i, &len)) break;
    if (Final(t[i]) || len == 3) end = i + len;
  }
  return end;
}

size_t FinalPunctuationStart(std::string_view t) {
  size_t start = t.size(), i = 0, len = 1;
  for (bool in_tail = false; i < t.size(); i += len) {
    len = 1;
    const bool tail = t[i] == ' ' || ClosingMark(t, i, &len);
    if (tail && !in_tail) start = i;
    if (!tail) start = t.size();
    in_tail = tail;
  }
  while (start < t.size() && t[start] == ' ') ++start;  // the spaces before the marks stay with the text
  return start;
}

size_t SentenceEndBefore(std::string_view t, size_t at) {
  // Each run looked at is bounded (kLook bytes): a line of 100,000 elements calls this once per element.
  constexpr size_t kLook = 64;
  size_t j = at < t.size() ? at : t.size();
  const size_t spaces_from = j;
  while (j > 0 && t[j - 1] == ' ' && spaces_from - j < kLook) --j;
  bool final_mark = false;
  const size_t run_end = j;
  for (; run_end - j < kLook;) {  // back over the run of closing marks (not ':' or ';', which end no sentence)
    const char c = j >= 1 ? t[j - 1] : '\0';
    const std::string_view three = j >= 3 ? t.substr(j - 3, 3) : std::string_view();
    if (Final(c) || c == ')' || c == ']' || c == '"' || c == '\'') {
      final_mark |= Final(c), --j;
    } else if (three == kEllipsis || three == kRightDouble || three == kRightSingle) {
      final_mark |= three == kEllipsis, j -= 3;
    } else if (j >= 2 && t.substr(j - 2, 2) == kRightGuillemet) {
      j -= 2;
    } else {
      break;
    }
  }
  if (!final_mark) return std::string_view::npos;
  size_t w = j;  // the word before the run: two or more bytes of letters ("z.B." and "3." end no sentence)
  while (w > 0 && j - w < kLook && (static_cast<unsigned char>(t[w - 1]) >= 0x80 || std::isalpha(static_cast<unsigned char>(t[w - 1])))) --w;
  if (j - w < 2 || (j - w < kLook && w > 0 && (t[w - 1] == '.' || std::isdigit(static_cast<unsigned char>(t[w - 1])))))
    return std::string_view::npos;
  return j;
}

}  // namespace tern::markup
