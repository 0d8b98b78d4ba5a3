// Inline HTML/XML in a line of text, taken apart for translation: the plain text (what is translated,
// entities decoded) and the elements, each with the byte range of the plain text it encloses. Bergamot's
// HTML handling (bergamot-translator src/translator/html.cpp) is the model: tags out before translation,
// back in after it by alignment (transfer.h).
//
// What is recognized:
//  - start tags <name attr="v" ...> (attribute values in quotes may hold '>'), end tags </name>, and
//    self-closing <name/>; names are matched case-insensitively;
//  - void elements (HTML's area, base, br, col, embed, hr, img, input, link, meta, param, source, track,
//    wbr): no end tag;
//  - comments <!-- -->, CDATA sections <![CDATA[ ]]>, declarations <!...> and processing instructions
//    <?...?>, and <script>/<style> elements (to the first end tag of the same name: raw text) and elements
//    with translate="no", and by default <code>, <kbd>, <samp>, <var>, <pre> and class="notranslate" ones
//    (to their matching end tag: tags of the same name nest inside), with their
//    contents: kept verbatim where they are, never translated;
//  - a tag's name is every byte up to a space, '/' or '>' ("</bé>" does not close <b>);
//  - character references: &name; for the entities in html.cc's table, &#N; and &#xH; (decoded in the
//    plain text; the output writes a character that came from a reference with the input's spelling);
//    anything else starting with '&' is text;
//  - a '<' that does not start one of the above is text.
// A void element or a block element's tag (p, div, li, ...) between two non-space characters puts a space
// between them in the plain text, so that words do not run together; an inline tag (b, i, a, span, ...)
// does not ("un<b>believ</b>able" stays one word).
//
// Not well-formed markup: an end tag that does not close the innermost open element, an element left open,
// an unterminated comment, CDATA section, tag or script/style element. In strict mode that is the line's
// error, naming the tag and its byte offset. In lenient mode the markup is repaired as a browser would
// repair it: an end tag closes the open elements above its own (each gets an end tag in the output), an end
// tag with no open element is dropped, elements left open are closed at the end of the line, a script,
// style or translate="no" element left open runs to the end of the line (script, style) or of the element
// around it and is closed there, and any other unterminated construct is text. Parsing is linear in the
// line's length whatever it holds (markup/scan.h).
#pragma once

#include <cctype>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "tern/options.h"
#include "tern/span.h"
#include "tern/status.h"

namespace tern::markup {

/// How a line's markup is read.
enum class Mode : uint8_t {
  kStrict,   // not well-formed markup fails the line
  kLenient,  // repaired (see above)
  kXml,      // app strings' inline XML (`<0>..</0>`, `<link>..</link>`, `<b>`): strict, and no element is void,
             // no script/style raw text, no HTML block spacing; code/kbd/samp/var/pre and translate="no" kept as in HTML
};

/// The character starting at byte i of t (ends_at: the one ending before byte i) is a letter or digit: ASCII
/// alphanumerics, and any non-ASCII character but Latin-1's and General Punctuation's marks (quotes such as
/// „ “ » ’, dashes, …).
inline bool WordCharAt(std::string_view t, size_t i, bool ends_at = false) {
  if (ends_at) {
    if (i == 0) return false;
    do --i;
    while (i > 0 && (static_cast<unsigned char>(t[i]) & 0xc0) == 0x80);
  }
  if (i >= t.size()) return false;
  const auto u = static_cast<unsigned char>(t[i]);
  if (u < 0x80) return std::isalnum(u) != 0;
  if (u == 0xc2) return false;                                                       // U+0080..U+00BF
  if (u == 0xe2 && i + 1 < t.size() && (static_cast<unsigned char>(t[i + 1]) == 0x80 ||
                                       static_cast<unsigned char>(t[i + 1]) == 0x81)) return false;  // U+2000..U+207F
  return true;
}

/// One element of the markup tree.
struct Element {
  enum class Kind : uint8_t {
    kPair,      // a start tag and its end tag around plain text [begin, end)
    kVerbatim,  // a void element, self-closing tag, comment, CDATA, declaration, script/style: at `begin`
  };
  Kind kind = Kind::kPair;
  std::string open;   // the start tag (or the verbatim item) as written in the line
  std::string close;  // the end tag as written (lenient repairs: "</name>"); empty for kVerbatim
  size_t begin = 0, end = 0;  // plain-text bytes it encloses (kVerbatim: begin == end, where it stands)
  size_t source_offset = 0;   // where its start tag is in the line (bytes)
  int parent = -1;            // index of the enclosing element, -1 at the top
  bool space_before = false;  // protect.h: a do-not-translate span had a space before / after it: the
  bool space_after = false;   //   output gets one there too
  bool apart_before = false;  // kept text (a span, <code>...): no letter or digit was right before / after it
  bool apart_after = false;   //   in the source: the output puts a space between it and a word (transfer.h)
};

/// Sets e's apart_before / apart_after from the source `line` around bytes [from, to) it was taken from.
inline void MarkApart(Element* e, std::string_view line, size_t from, size_t to) {
  e->apart_before = !WordCharAt(line, from, true);
  e->apart_after = !WordCharAt(line, to);
}

/// A line taken apart.
struct Parsed {
  std::string text;                 // the plain text to translate (character references decoded)
  std::vector<uint32_t> origin;     // [text.size()] for each plain byte, the line bytes it came from:
  std::vector<uint32_t> origin_end; //   [origin, origin_end) (a reference's bytes map to the whole reference)
  std::vector<Element> elements;    // in document order (a parent before its children)
  /// Characters that came from character references, with the input's spelling ("\u00a0" -> "&nbsp;"):
  /// the output writes them that way.
  std::unordered_map<std::string, std::string> references;
  bool plain = false;  // plain text with do-not-translate spans (protect.h): the output is not escaped
};

/// Plain-text bytes [b, e) -> the line's bytes they came from (tags inside the range included).
inline std::pair<size_t, size_t> LineSpan(const Parsed& p, size_t b, size_t e) {
  if (p.text.empty()) return {0, 0};
  if (b >= p.text.size()) return {p.origin_end.back(), p.origin_end.back()};
  if (e <= b) return {p.origin[b], p.origin[b]};
  return {p.origin[b], p.origin_end[std::min(e, p.text.size()) - 1]};
}

/// Bounds on what one line may hold (a hostile line cannot make the parser allocate more than a few times
/// its own size).
constexpr size_t kMaxElements = 100000;
constexpr size_t kMaxDepth = 1000;

/// Takes `line` apart. Errors (kInvalidArgument): not well-formed markup in strict mode ("markup: <b> at
/// byte 5 is not closed", "markup: </i> at byte 20 does not close <b> (byte 5)", ...); more than
/// kMaxElements elements or kMaxDepth nesting (both modes). <code>, <kbd>, <samp>, <var>, <pre> and
/// class="notranslate" elements are kept verbatim as translate="no" ones are (protect.h KeptByDefault)
/// unless `translate_code`. `keep`: do-not-translate spans of the line (placeholders found in it, a caller's
/// spans; sorted, not overlapping): one that starts in text becomes a verbatim item (cut at the first '<'),
/// its surrounding spaces restored on output; one that starts inside a tag or a kept element is ignored.
Status Parse(std::string_view line, Mode mode, Parsed* out, bool translate_code = false, Span<const TextSpan> keep = {});

/// Writes `text` (UTF-8) as markup text: '&', '<' and '>' escaped, a character that came from a
/// character reference written with the input's spelling.
void AppendEscaped(std::string_view text, const Parsed& p, std::string* out);

}  // namespace tern::markup
