#include "text/sentence_splitter.h"

#include <string>

#if TERN_WITH_ICU
#include <unicode/ubrk.h>
#include <unicode/uchar.h>
#include <unicode/utext.h>
#include <unicode/utf8.h>
#elif defined(__EMSCRIPTEN__)
#include <emscripten/emscripten.h>

#include <cstdint>
#endif

namespace tern {
namespace {

// Appends the segment text[a, b) between two sentence breaks, trimmed of whitespace (`at(i, &next)`: is the
// character at byte i whitespace, `before(i, &prev)`: the one before byte i), or, when it is whitespace only,
// gives it to the gap after the previous sentence.
template <typename At, typename Before>
void AppendSegment(std::string_view text, size_t a, size_t b, At at, Before before, std::vector<SentenceSpan>* out) {
  size_t begin = a, end = b, step;
  while (begin < end && at(text, begin, &step)) begin = step;
  while (end > begin && before(text, end, &step)) end = step;
  if (begin == end) {
    if (!out->empty()) out->back().gap_end = b;
    return;
  }
  out->push_back({begin, end, b});
}

}  // namespace

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
  for (int32_t b = ubrk_next(it); b != UBRK_DONE; a = b, b = ubrk_next(it))
    AppendSegment(text, static_cast<size_t>(a), static_cast<size_t>(b), SpaceAt, SpaceBefore, out);
  return Status::Ok();  // the iterator still points into text, unused until the next Split sets new text
}

#elif defined(__EMSCRIPTEN__)

// WebAssembly: the JavaScript engine's Intl.Segmenter (the browser's own ICU; Node's full ICU) gives the
// breaks. Unlike the ICU build it applies no abbreviation suppressions ("Mr. Smith" may be two sentences),
// and its ICU version is the engine's: docs/targets.md says where that changes a translation.
namespace {

// Intl.Segmenter's sentence breaks of text[0, n) (UTF-8) for `lang`, written as UTF-8 byte offsets to
// breaks[0, n] (there are at most n); returns their count, or -1 when the engine has no Intl.Segmenter.
EM_JS(int, tern_js_sentence_breaks, (const char* text, size_t n, const char* lang, int32_t* breaks), {
  if (typeof Intl !== 'object' || typeof Intl.Segmenter !== 'function') return -1;
  const s = UTF8ToString(text, n);
  let seg;
  try { seg = new Intl.Segmenter(UTF8ToString(lang) || undefined, { granularity: 'sentence' }); }
  catch (e) { seg = new Intl.Segmenter(undefined, { granularity: 'sentence' }); }
  let count = 0, bytes = 0, at = 0;
  for (const part of seg.segment(s)) {
    const end = part.index + part.segment.length;
    bytes += lengthBytesUTF8(s.slice(at, end));
    at = end;
    if (count <= n) HEAP32[(breaks >> 2) + count++] = bytes;
  }
  return count;
});
EM_JS(int, tern_js_has_segmenter, (), { return typeof Intl === 'object' && typeof Intl.Segmenter === 'function' ? 1 : 0; });
EM_JS_DEPS(tern_sentence_splitter, "$UTF8ToString,$lengthBytesUTF8");

// Unicode's White_Space characters, decoded from UTF-8 at byte i (forward) or before byte i (backward).
bool WhiteSpace(uint32_t c) {
  return (c >= 0x09 && c <= 0x0d) || c == 0x20 || c == 0x85 || c == 0xa0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200a) ||
         c == 0x2028 || c == 0x2029 || c == 0x202f || c == 0x205f || c == 0x3000;
}
uint32_t Decode(std::string_view t, size_t i, size_t* len) {
  const auto b = [&](size_t k) { return static_cast<uint32_t>(static_cast<unsigned char>(t[k])); };
  const uint32_t c = b(i);
  const size_t n = c < 0x80 ? 1 : c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
  *len = i + n <= t.size() ? n : t.size() - i;
  if (*len != n) return 0xfffd;
  if (n == 1) return c;
  if (n == 2) return (c & 0x1f) << 6 | (b(i + 1) & 0x3f);
  if (n == 3) return (c & 0x0f) << 12 | (b(i + 1) & 0x3f) << 6 | (b(i + 2) & 0x3f);
  return (c & 0x07) << 18 | (b(i + 1) & 0x3f) << 12 | (b(i + 2) & 0x3f) << 6 | (b(i + 3) & 0x3f);
}
bool SpaceAt(std::string_view t, size_t i, size_t* next) {
  size_t len;
  const bool space = WhiteSpace(Decode(t, i, &len));
  *next = i + len;
  return space;
}
bool SpaceBefore(std::string_view t, size_t i, size_t* prev) {
  size_t k = i - 1;
  while (k > 0 && (static_cast<unsigned char>(t[k]) & 0xc0) == 0x80) --k;  // back to the character's first byte
  size_t len;
  const bool space = WhiteSpace(Decode(t, k, &len));
  *prev = k;
  return space;
}

}  // namespace

struct SentenceSplitter::State {
  std::string lang;
};
SentenceSplitter::SentenceSplitter() : state_(std::make_unique<State>()) {}
SentenceSplitter::~SentenceSplitter() = default;
bool SentenceSplitter::Available() { return tern_js_has_segmenter() != 0; }
Result<std::unique_ptr<SentenceSplitter>> SentenceSplitter::Create(std::string_view lang) {
  if (!Available()) return Status(StatusCode::kUnsupported, "sentence splitting needs Intl.Segmenter, which this JavaScript engine lacks");
  std::unique_ptr<SentenceSplitter> s(new SentenceSplitter());
  s->state_->lang = std::string(lang);
  return s;
}
Status SentenceSplitter::Split(std::string_view text, std::vector<SentenceSpan>* out) {
  out->clear();
  std::vector<int32_t> breaks(text.size() + 1);
  const int count = tern_js_sentence_breaks(text.data(), text.size(), state_->lang.c_str(), breaks.data());
  if (count < 0) return Status(StatusCode::kInternal, "Intl.Segmenter is gone");
  size_t a = 0;
  for (int k = 0; k < count && k <= static_cast<int>(text.size()); ++k) {
    const size_t b = static_cast<size_t>(breaks[k]);
    if (b <= a || b > text.size()) continue;  // (never: the offsets are the text's own)
    AppendSegment(text, a, b, SpaceAt, SpaceBefore, out);
    a = b;
  }
  return Status::Ok();
}

#else  // neither ICU nor a JavaScript engine

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
