// Scanning a line of markup in linear time (html.cc's parser): where each tag ends, a tag's name, and where
// a raw element (script, style, translate="no") ends. Every function here does work proportional to what it
// passes over, once: a hostile line ("<a " repeated, unterminated quotes, nested raw elements) costs the
// parser O(line) in all, never O(line^2).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tern::markup {

/// Where each tag of one line ends, answered in O(1) after one O(n) pass (made when first asked).
class TagEnds {
 public:
  explicit TagEnds(std::string_view line) : line_(line) {}
  /// One past the '>' that ends the tag whose '<' is at line[i] (a '>' inside a quoted attribute value does
  /// not end it; a quote opens only outside quotes and closes at the same quote), or npos when the line
  /// ends first.
  size_t At(size_t i);

 private:
  std::string_view line_;
  std::vector<uint32_t> end_from_;  // [n + 1]: where a tag scan that is outside quotes at p ends (+1; 0 = none)
};

/// Finds one needle again and again as a parse moves forward: a search from `from` reuses the last answer
/// while it lies at or after `from` (or was "none"), so all searches together pass over the line once.
class ForwardFind {
 public:
  ForwardFind(std::string_view line, std::string what, bool no_case = false)
      : line_(line), what_(std::move(what)), no_case_(no_case) {}
  /// The first occurrence at or after `from` (npos: none). `from` must not decrease from call to call.
  size_t From(size_t from);

 private:
  std::string_view line_;
  std::string what_;
  bool no_case_;
  bool searched_ = false;
  size_t found_ = 0;
};

/// The name of the tag at line[from..to) ("<name ...>" or "</name>"): every byte after "<" or "</" up to a
/// space, '/' or '>' (non-ASCII letters included, so "</bé>" is not "</b>"), ASCII letters lower-cased.
std::string TagName(std::string_view line, size_t from, size_t to);

/// Finds `what` (lower-case ASCII) in line from `from`, case-insensitively; npos when absent.
size_t FindNoCase(std::string_view line, std::string_view what, size_t from);

/// HTML's void elements (area, base, br, col, embed, hr, img, input, link, meta, param, source, track, wbr).
bool IsVoid(const std::string& name);
/// Tags that separate words: their element starts or ends a block of text (p, div, li, h1, td, ...).
bool IsBlock(const std::string& name);

/// The end of the element named `name` whose start tag ends at `from`, for an element whose contents are
/// markup (translate="no"): start and end tags of the same name nest; comments are skipped. Returns one past
/// its matching end tag's '>', and that end tag's start in *close_at; npos when the line (or, with
/// `stop_at_close_of`, an end tag of one of those names: an enclosing element's) comes first, with *close_at
/// where the contents stop. *unclosed gets the end tags ("</i>") of the elements the contents leave open,
/// innermost first: what a lenient parse writes before the element's own end tag.
size_t NestedElementEnd(std::string_view line, const std::string& name, size_t from, TagEnds& ends,
                        const std::vector<std::string>& stop_at_close_of, size_t* close_at, std::string* unclosed);

}  // namespace tern::markup
