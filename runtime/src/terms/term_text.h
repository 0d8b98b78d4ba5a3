// The text rules of glossary matching (terms/match.cc): what a word is, how letters are compared without
// case, where a term may start and end. Terms are matched on the sentence's text, not on its pieces, so a
// term is found whatever SentencePiece makes of its neighbours ("(dog", "dog's") and only where its own
// text is (an unknown character never stands for another).
//
// A text is read as units: a word (a run of word characters: letters and digits of any script) or a single
// other character that is not a space (punctuation, a symbol, an emoji). No allocation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace tern::terms {

/// The code point at s[i] (valid UTF-8 assumed: the tokenizer checked it) and its length in bytes (*len).
uint32_t DecodeAt(std::string_view s, size_t i, size_t* len);

/// A letter or digit of any script: ASCII letters and digits, and every code point from U+0080 up except
/// the spaces, punctuation and symbol blocks (Latin-1's U+00A0-U+00BF, U+00D7, U+00F7; U+2000-U+2BFF
/// general punctuation, currency, letterlike, arrows, mathematical, technical, box drawing, shapes,
/// dingbats; U+3000-U+303F; U+FE30-U+FE4F; ASCII-like forms at U+FF00-U+FF65 that are not letters or
/// digits; U+FFFD; U+1F000-U+1FAFF emoji).
bool IsWordChar(uint32_t cp);

/// A space as a glossary term sees one (ASCII whitespace, U+00A0).
bool IsSpaceChar(uint32_t cp);

/// Lower case of a letter: ASCII, Latin-1, Latin Extended-A (the pairs), Greek and Cyrillic capitals;
/// every other code point as it is.
uint32_t FoldCase(uint32_t cp);

/// Upper case of a lower-case letter of the same ranges (FoldCase's inverse there), else cp.
uint32_t UpperCase(uint32_t cp);

/// A term as it is compared: spaces around it dropped, each run of spaces inside it one ' '.
std::string NormalizeTerm(std::string_view term);

/// FNV-1a hash of the case-folded unit of `s` starting at byte i (a word, or one other character); *end
/// is where the unit ends. Glossary terms are indexed by the hash of their first unit.
uint64_t FoldedUnitHash(std::string_view s, size_t i, size_t* end);

/// A "joiner" between two word characters makes them one name: '-' (bash-completion), '.'
/// (example.com), '@' (git@vger), '_' and '+'. A term never starts or ends next to one that has a word
/// character on its other side. Apostrophes, slashes, quotes and brackets are not joiners ("shell's",
/// "platform/user", "(dog)").
bool IsJoiner(uint32_t cp);

/// Whether a term may start at byte b of s: b is the text's start, or the character before is not a word
/// character and is not a joiner with a word character before it.
bool StartsName(std::string_view s, size_t b);

/// Whether a term may end at byte e of s (StartsName's mirror): the end of the text, or a character that is
/// not a word character and not a joiner followed by a word character.
bool EndsName(std::string_view s, size_t e);

}  // namespace tern::terms
