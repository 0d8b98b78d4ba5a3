// ICU MessageFormat messages (app strings with plural and select): the parse tree tern needs to translate
// the text of each message and sub-message and to rebuild the exact syntax around the translations.
//
// Grammar (ICU's MessageFormat / MessagePattern, apostrophe mode DOUBLE_OPTIONAL, the default):
//   message    = text (argument text)*
//   argument   = '{' name '}' | '{' name ',' type [',' style] '}'
//              | '{' name ',' ("plural" | "selectordinal") ',' ["offset:" n] (selector '{' message '}')+ '}'
//              | '{' name ',' "select" ',' (keyword '{' message '}')+ '}'
//   selector   = keyword | '=' number;  style: text with balanced braces (kept whole, as a choice style is)
//   text: "''" is one apostrophe; a single ' before { } # (# in a plural message) or | quotes up to the next
//   single '; in a plural or selectordinal message '#' is the number.
// With `fluent`, Project Fluent's placeables and select expressions too (https://projectfluent.org/fluent/guide/
// selectors.html; the EBNF in projectfluent/fluent spec/fluent.ebnf):
//   placeable  = '{' inline '}' | '{' inline '->' variant* '*' variant variant* '}'
//   variant    = '[' key ']' pattern;  inline: $var, -term(.attr)(args), FUNCTION(args)
// Why not ICU's MessagePattern: it lives in libicui18n, which adds 1.0 MiB of resident memory to every
// process that links it (bundled model, tern translate --verbose: peak RSS 28.59 MiB without it, 29.58 with
// it preloaded), for a parse of a few lines. Tested against ICU's grammar in tests/test_icu_message.cc.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "tern/options.h"
#include "tern/status.h"

namespace tern::markup {

/// A message or sub-message: its bytes (between the braces for a sub-message), its own arguments (indexes
/// into IcuMessage::arguments, in order) and its '#' number signs.
struct IcuText {
  TextSpan span;
  std::vector<size_t> arguments;
  std::vector<TextSpan> numbers;
};

/// An argument, braces included; for plural, selectordinal and select, its sub-messages (indexes into
/// IcuMessage::texts, in order).
struct IcuArgument {
  TextSpan span;
  std::vector<size_t> messages;
};

/// texts[0] is the whole message.
struct IcuMessage {
  std::vector<IcuText> texts;
  std::vector<IcuArgument> arguments;
};

/// Parses `message`; kInvalidArgument naming what and the byte ("ICU MessageFormat: '{' at byte 9 is not
/// closed"). Nesting deeper than 32 levels is refused. Linear in the message but for variant keys (each
/// looked at once per text byte that could start one, at most 64 bytes long).
/// `fluent`: an argument that starts with a Fluent inline expression ($var, -term, FUNCTION(...)), never
/// a valid ICU argument name, is a Fluent placeable: "{ $n }" kept whole, or a select expression
/// "{ $n -> [one] pattern *[other] pattern }" whose variant patterns are texts of their own (like ICU's cases,
/// without '#' or apostrophe quoting). A variant key ends the pattern before it where it follows a space; in
/// a select expression written on lines (a line break before its first key) only at the start of a line.
/// Exactly one default variant ("*[other]"), else kInvalidArgument ("Fluent: the select expression at byte 0
/// needs one default variant (*[key])").
Status ParseIcuMessage(std::string_view message, IcuMessage* out, bool fluent = false);

/// What text t of `m` gives the translator: its bytes with its arguments and '#' as do-not-translate spans
/// (relative to the text), or nothing to translate (false) when no letter stands outside them.
bool IcuPiece(std::string_view message, const IcuMessage& m, size_t t, std::string* text, std::vector<TextSpan>* keep);

/// The message rebuilt from each text's translation (translations[t]; the text itself where it had nothing
/// to translate): each argument with sub-messages is written back with its own syntax and its sub-messages'
/// translations, where its parent's translation holds it verbatim. kInvalidArgument when a translation lost an
/// argument.
Status RebuildIcuMessage(std::string_view message, const IcuMessage& m, const std::vector<std::string>& translations,
                         std::string* out);

}  // namespace tern::markup
