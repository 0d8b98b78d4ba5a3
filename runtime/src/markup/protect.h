// Do-not-translate spans of a plain text: placeholders, URLs, e-mail addresses, numbers with units, and
// spans a caller marks. They come out of the text before translation and go back verbatim where the
// alignment places them (transfer.h, as a void element would), so the model never sees them and cannot
// change them.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "markup/html.h"
#include "tern/translator.h"

namespace tern::markup {

/// Appends to *out the do-not-translate spans found in `text` (UTF-8), in order, not overlapping:
///  - placeholders (markup/placeholder_syntax.h, a parser per syntax): printf in full (%s %5.2f %-3d %1$s
///    %1$.2f %.*s %lu %@, and %% kept as written), Python %(name)s and {name!r:>10}, .NET / Java {0} and
///    {0,number}, Fluent { $var } and { -term }, i18next {{x}} and $t(key), Ruby %{name};
///  - URLs: http://, https://, ftp:// or www. up to the next space (a final . , ; : ! ? ) is not part of it);
///  - e-mail addresses: local@domain.tld;
///  - numbers with units: digits (with . or , inside) then, after at most one space, a unit (km m cm mm kg
///    g mg l ml h min s ms % °C °F KB MB GB TB MHz GHz px pt mph km/h) that ends a word.
/// A placeholder glued to ASCII letters takes them into its span ("%sK", "{n}px", "x%d": a piece of a word is
/// nothing the model can translate). `syntaxes` (placeholder_syntax bits) chooses which; shell $VAR / ${VAR}
/// only when asked; kPrintfBeforeWords among them takes a bare printf conversion before a lower-case word too.
void FindPlaceholders(std::string_view text, std::vector<TextSpan>* out, uint32_t syntaxes = placeholder_syntax::kDefault);

/// With the syntaxes: printf's bare conversions before lower-case words ("%shint:", "%serror") are
/// placeholders too, not prose ("%sure"): for texts the caller says hold placeholders (keep_placeholders),
/// where git's "%shint:%s" is one. Outside placeholder_syntax::kAll: never a caller's bit.
constexpr uint32_t kPrintfBeforeWords = 1u << 31;

/// The first span FindPlaceholders finds that starts at or after byte `from` ({size, size} when there is
/// none). No allocation (the glossary matcher skips these spans while it translates).
TextSpan NextPlaceholder(std::string_view text, size_t from, uint32_t syntaxes = placeholder_syntax::kDefault);

/// The syntaxes TranslateOptions::auto_protect keeps in `text` for a call with `options`: the auto_protect
/// syntaxes within options.placeholder_syntaxes when auto_protect applies to the call (plain text,
/// keep_placeholders off, no keep_spans, no on_token, no target prefix, no alternatives) and `text` holds
/// at least one span of them; 0 otherwise. No allocation.
uint32_t AutoProtectSyntaxes(const TranslateOptions& options, std::string_view text);

/// `text` as a Parsed whose plain text leaves the spans out (sorted, not overlapping, within the text; one
/// of the spaces around a span goes with it) and whose elements are the spans, verbatim, written back
/// unescaped (Parsed::plain). Error (kInvalidArgument): spans that overlap, are out of order or leave the
/// text, or cut a UTF-8 character.
Status Protect(std::string_view text, const std::vector<TextSpan>& spans, Parsed* out);

/// The value of attribute `name` (lower case) in the start tag [tag): quoted (' or ", the quotes taken off)
/// or not; any case for the name; none when the tag lacks it or its quote is not closed. Linear in the tag.
std::optional<std::string_view> AttributeValue(std::string_view tag, const char* name);

/// The start tag [tag) carries translate="no" (HTML's translate attribute; quotes ' or ", any case).
bool TranslateNo(std::string_view tag);

/// An element kept verbatim unless the call asks to translate code (TranslateOptions::translate_code):
/// <code>, <kbd>, <samp>, <var>, <pre> (`name`, lower case), and any element whose class holds
/// "notranslate" (Google Translate's convention); translate="yes" on the tag translates it.
bool KeptByDefault(const std::string& name, std::string_view tag);

}  // namespace tern::markup
