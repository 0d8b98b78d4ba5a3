// Sentence boundaries in UTF-8 text, by ICU's sentence BreakIterator (Unicode UAX #29 sentence rules,
// with the locale's abbreviation suppressions: locale "xx@ss=standard", so "Mr. Smith" stays one
// sentence in English). ICU is the well-kept segmenter every platform ships (Debian's libicu, Android's
// platform ICU); its data is mapped from the shared library, so a device pays for the pages it reads.
// Without ICU at build time (TERN_WITH_ICU off), Create returns kUnsupported and texts are translated
// as single sentences.
#pragma once

#include <cstddef>
#include <memory>
#include <string_view>
#include <vector>

#include "tern/status.h"

namespace tern {

/// One sentence of a text: text[begin, end) without the whitespace around it, and text[end, gap_end) the
/// whitespace after it (up to the next sentence or the end of the text).
struct SentenceSpan {
  size_t begin = 0, end = 0, gap_end = 0;
};

class SentenceSplitter {
 public:
  /// A splitter for language `lang` (a BCP 47 / ICU language such as "en", or "" for ICU's root rules).
  /// Errors: kUnsupported (built without ICU), kInternal (ICU failed to open its sentence rules).
  static Result<std::unique_ptr<SentenceSplitter>> Create(std::string_view lang);
  ~SentenceSplitter();

  /// Replaces *out with the sentences of `text` (valid UTF-8; see FindInvalidUtf8). A text of whitespace
  /// only has none. Allocates (ICU's text object, out's growth). Error: kInternal (ICU).
  Status Split(std::string_view text, std::vector<SentenceSpan>* out);

  /// True when this build can split (it has ICU).
  static bool Available();

  /// True when `text` cannot hold more than one sentence under the Unicode sentence rules, decided
  /// without ICU: it is ASCII and none of . ! ? or a line/paragraph separator appears before its last
  /// character other than whitespace and closing quotes or brackets (UAX #29 breaks a sentence only after
  /// those). Lets single-sentence texts, the common case, skip ICU (and its ~1.3 MiB of rule data).
  static bool SurelyOneSentence(std::string_view text);

 private:
  SentenceSplitter();
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace tern
