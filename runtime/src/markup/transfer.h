// Tags back into a translation by alignment (Bergamot's tag transfer, bergamot-translator
// src/translator/html.cpp, is the model; this is tern's own rule):
//  - an element that encloses source text goes around the target tokens aligned to source tokens that
//    overlap that text: they form runs in the translation's order (at most one other token inside a run),
//    and the run with the most tokens holding a letter or digit (then the most tokens, then the first)
//    is the element's, so one stray token aligned elsewhere does not stretch the element; when the source
//    element starts and ends at word boundaries, its target range is widened to whole words;
//  - an element whose source text holds a word but has no aligned target token (the model dropped, merged
//    or moved its words) is not left empty: it wraps the translation's word where its source position maps
//    (below: the word after that point; at the end, the word before);
//  - an empty element, and every verbatim item (<br>, <img>,
//    comments, script, kept placeholders), goes where its source position maps: after the last target
//    token (in the translation's order) aligned to source text before that position (at the start when
//    there is none; at the end for the end of the source); then before the translation's final punctuation
//    when it sat before the source's, before a sentence's end it did not follow in the source
//    (markup/punctuation.h), and never inside a word (a position inside a word moves to the word's end);
//  - the tree is kept: a child's range is clamped into its parent's, siblings keep their source order (a
//    sibling starts no earlier than the previous one ends); an element without children that this leaves
//    empty although its source held a word (its words are aligned before a sibling's, or were dropped)
//    wraps the next free word after it: one before where a later sibling's own aligned words begin,
//    inside its parent (none: the model dropped its words and left no word for it; it holds its source
//    text, untranslated, where its siblings stand, never empty). So the output holds exactly the input's tags
//    (lenient repairs included), each start tag before its end tag, properly nested, whatever the alignment.
// Text between tags is escaped (html.h AppendEscaped).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "markup/html.h"
#include "tern/translator.h"

namespace tern::markup {

/// A translation of Parsed::text as placement needs it.
struct AlignedTranslation {
  std::string_view text;              // the plain translation
  Span<const TextSpan> token_spans;   // per target token: its bytes in `text`
  Span<const int32_t> token_sources;  // per target token: its source token (index into source_spans), -1: none
  Span<const TextSpan> source_spans;  // per source token: its bytes in Parsed::text
};

/// The translation with p's elements placed. out_begin and out_end (resized to text.size() + 1) map each
/// byte k of the plain translation to its bytes [out_begin[k], out_end[k]) in the result (entry
/// text.size(): the result's end).
std::string Transfer(const Parsed& p, const AlignedTranslation& t, std::vector<size_t>* out_begin,
                     std::vector<size_t>* out_end);

}  // namespace tern::markup
