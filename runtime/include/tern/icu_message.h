// Translating ICU MessageFormat messages: app strings with arguments, plural and select
// ("{count, plural, one {# file} other {# files}} in {folder}").
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "tern/export.h"
#include "tern/options.h"
#include "tern/status.h"
#include "tern/translator.h"

namespace tern {

/// One message's outcome: its translation, or the error for that message alone.
struct IcuTranslation {
  StatusCode error = StatusCode::kOk;  ///< kOk, or why this message failed
  std::string error_message;           ///< e.g. "ICU MessageFormat: '{' at byte 9 is not closed"
  std::string text;                    ///< the translated message (UTF-8), when ok()
  /// True when the message was translated.
  bool ok() const { return error == StatusCode::kOk; }
};

/// Translates ICU MessageFormat messages (one per entry of `messages`, UTF-8): the text of the message and of
/// every plural / selectordinal / select case is translated on its own, with the arguments ({name},
/// {n, number}, nested cases) and the cases' '#' kept verbatim (do-not-translate spans placed by alignment,
/// as keep_spans are); then the exact syntax is rebuilt around the translations: the same arguments, the same
/// case keys, the same nesting. A case whose message has no letters ("{#}") is kept as is. The grammar:
/// runtime/src/markup/icu_message.h (ICU's MessageFormat, apostrophe mode DOUBLE_OPTIONAL). With
/// placeholder_syntax::kFluent in options.placeholder_syntaxes (the default), Fluent's placeables and select
/// expressions too ("{ $n -> [one] ... *[other] ... }": each variant's pattern translated on its own).
/// A malformed message, or one whose translation lost an argument, fails alone (its IcuTranslation says why);
/// the others are translated. `options` as for Translate (beam, rules, keep_placeholders for printf-style
/// placeholders inside the texts, glossary, markup: Markup::kXml for rich-text tags in the texts, such as
/// Lingui's "{n, plural, one {<0>#</0> file} other {<0>#</0> files}}"); target prefixes, alternatives,
/// keep_spans and on_token are kInvalidArgument for the whole call. The texts of all messages go through Translate in batches of
/// translator.max_batch(). Allocates (strings per message): a text helper, not the zero-heap decoding path.
TERN_API Status TranslateIcuMessages(Translator& translator, Span<const std::string_view> messages,
                                     const TranslateOptions& options, std::vector<IcuTranslation>* out);

}  // namespace tern
