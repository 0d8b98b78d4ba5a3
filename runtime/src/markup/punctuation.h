// Sentence-final punctuation in a text (UTF-8): where a translation's final marks start, whether the rest of
// a source holds only them, and whether a position follows a sentence's end. What markup/transfer.h needs
// to keep a span or an element on the same side of a sentence's end as in the source.
#pragma once

#include <cstddef>
#include <string_view>

namespace tern::markup {

/// At byte i of t: a closing mark (. ! ? : ; " ' ) ] … ” ’ » «); *len is its length in bytes.
bool ClosingMark(std::string_view t, size_t i, size_t* len);

/// Reading t from byte `from` over spaces and closing marks (up to the first other byte): one past the last
/// final mark among them (. ! ? or a 3-byte mark: … ” ’); `from` when there is none.
size_t FinalMarkEnd(std::string_view t, size_t from);

/// Where t's trailing closing marks start (after the spaces before them); t.size() when it has none.
size_t FinalPunctuationStart(std::string_view t);

/// The bytes before `at` (spaces skipped) end a sentence: a run of closing marks holding . ! ? or …, after a
/// word of two or more bytes ("auf. |", not "z.B. |" or "3. |"). Returns where that run starts, or
/// std::string_view::npos. Constant time: it looks at most 64 bytes back for each of the spaces, the run and
/// the word (more spaces or marks than that: no sentence's end).
size_t SentenceEndBefore(std::string_view t, size_t at);

}  // namespace tern::markup
