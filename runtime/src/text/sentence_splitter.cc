#include "text/sentence_splitter.h"

#include <string>

#if TERN_WITH_ICU
#include <unicode/ubrk.h>
#include <unicode/uchar.h>
#include <unicode/utext.h>
#include <unicode/utf8.h>
#endif

namespace tern {

bool SentenceSplitter::SurelyOneSentence(std::string_view text) {
  size_t last = text.size();  // one past the last character that is not whitespace or closing
  while (last > 0) {
    const char c = text[last - 1];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' || c == '"' || c == '\'' || c == ')' ||
        c == ']' || c == '}')
      --last;
    else
      break;
  }
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c >= 0x80) return false;  // non-ASCII: other terminators and separators exist; ICU decides
    if (i + 1 < last && (c == '.' || c == '!' || c == '?' || c == '\n' || c == '\r' || c == '\v' || c == '\f')) return false;
  }
  return true;
}

#if TERN_WITH_ICU

namespace {

struct BreakIteratorDeleter {
  void operator()(UBreakIterator* b) const { ubrk_close(b); }
};
struct TextDeleter {
  void operator()(UText* t) const { utext_close(t); }
};

// Whitespace by Unicode's White_Space property, read from text[i] forward or before text[i] backward.
bool SpaceAt(std::string_view text, size_t i, size_t* next) {
  UChar32 c;
  int32_t k = static_cast<int32_t>(i);
  U8_NEXT(reinterpret_cast<const uint8_t*>(text.data()), k, static_cast<int32_t>(text.size()), c);
  *next = static_cast<size_t>(k);
  return c >= 0 && u_isUWhiteSpace(c);
}
bool SpaceBefore(std::string_view text, size_t i, size_t* prev) {
  UChar32 c;
  int32_t k = static_cast<int32_t>(i);
  U8_PREV(reinterpret_cast<const uint8_t*>(text.data()), 0, k, c);
  *prev = static_cast<size_t>(k);
  return c >= 0 && u_isUWhiteSpace(c);
}

}  // namespace

struct SentenceSplitter::State {
  std::unique_ptr<UBreakIterator, BreakIteratorDeleter> it;
};

SentenceSplitter::SentenceSplitter() : state_(std::make_unique<State>()) {}
SentenceSplitter::~SentenceSplitter() = default;
bool SentenceSplitter::Available() { return true; }

Result<std::unique_ptr<SentenceSplitter>> SentenceSplitter::Create(std::string_view lang) {
  const std::string locale = std::string(lang) + "@ss=standard";
  UErrorCode status = U_ZERO_ERROR;
  UBreakIterator* it = ubrk_open(UBRK_SENTENCE, locale.c_str(), nullptr, 0, &status);
  if (U_FAILURE(status) || !it)
    return Status(StatusCode::kInternal, "ICU: cannot open the sentence rules for locale '" + locale + "': " + u_errorName(status));
  std::unique_ptr<SentenceSplitter> s(new SentenceSplitter());
  s->state_->it.reset(it);
  return s;
}

Status SentenceSplitter::Split(std::string_view text, std::vector<SentenceSpan>* out) {
  out->clear();
  if (text.size() > static_cast<size_t>(INT32_MAX)) return Status(StatusCode::kInvalidArgument, "text above 2 GiB");
  UErrorCode status = U_ZERO_ERROR;
  std::unique_ptr<UText, TextDeleter> ut(utext_openUTF8(nullptr, text.data(), static_cast<int64_t>(text.size()), &status));
  if (U_FAILURE(status)) return Status(StatusCode::kInternal, std::string("ICU utext_openUTF8: ") + u_errorName(status));
  UBreakIterator* it = state_->it.get();
  ubrk_setUText(it, ut.get(), &status);
  if (U_FAILURE(status)) return Status(StatusCode::kInternal, std::string("ICU ubrk_setUText: ") + u_errorName(status));
  // Segments [a, b) between breaks (UTF-8 byte offsets: the UText's native indexes), trimmed.
  int32_t a = ubrk_first(it);
  for (int32_t b = ubrk_next(it); b != UBRK_DONE; a = b, b = ubrk_next(it)) {
    size_t begin = static_cast<size_t>(a), end = static_cast<size_t>(b), step;
    while (begin < end && SpaceAt(text, begin, &step)) begin = step;
    while (end > begin && SpaceBefore(text, end, &step)) end = step;
    if (begin == end) {  // whitespace only: it belongs to the gap after the previous sentence
      if (!out->empty()) out->back().gap_end = static_cast<size_t>(b);
      continue;
    }
    out->push_back({begin, end, static_cast<size_t>(b)});
  }
  return Status::Ok();  // the iterator still points into text, unused until the next Split sets new text
}

#else  // !TERN_WITH_ICU

struct SentenceSplitter::State {};
SentenceSplitter::SentenceSplitter() = default;
SentenceSplitter::~SentenceSplitter() = default;
bool SentenceSplitter::Available() { return false; }
Result<std::unique_ptr<SentenceSplitter>> SentenceSplitter::Create(std::string_view) {
  return Status(StatusCode::kUnsupported, "sentence splitting needs ICU, which this build of tern lacks (TERN_WITH_ICU)");
}
Status SentenceSplitter::Split(std::string_view, std::vector<SentenceSpan>*) {
  return Status(StatusCode::kUnsupported, "sentence splitting needs ICU");
}

#endif

}  // namespace tern
