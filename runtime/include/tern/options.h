// tern::TranslateOptions: what one Translate / TranslateIds call may choose (tern/translator.h), with the
// types its fields use: the token and abort callbacks, transformers' rule set, markup, do-not-translate spans.
// The options themselves (tern/translate_options.h) are written from one table, runtime/fields/fields.py, which
// every binding's code is generated from too.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "tern/model.h"
#include "tern/span.h"
#include "tern/status.h"

namespace tern {

class LogitsProcessor;  ///< tern/logits_processor.h
class Glossary;         ///< tern/glossary.h

/// One generated token, as it is streamed to TranslateOptions::on_token.
///  - greedy search: every token of every sentence, as it is chosen (sentences of a batch interleave, each
///    in order);
///  - beam search: when a sentence finishes, its best hypothesis (the result's first), token by token.
/// `text` is what the sentence's text gained with this token: the detokenized text up to its last space
/// while the sentence runs (a word is complete only when the next one starts, and transformers'
/// clean-up may still join it to what follows), the rest with the last token. So the concatenated
/// `text` of one sentence equals its result's text (with split_sentences, the text of that sentence:
/// the result joins the parts with the whitespace between them). Views are valid during the call only.
struct TokenEvent {
  size_t index = 0;       ///< the input (text or id list) the token belongs to, as results are indexed
  size_t part = 0;        ///< its sentence within that text (split_sentences), else 0
  size_t parts = 1;       ///< sentences in that text
  uint32_t token = 0;     ///< the generated id (eos_id with the last event when the sentence ended with `</s>`)
  std::string_view text;  ///< the text it adds (may be empty)
  bool last = false;      ///< the sentence is complete: no more events for it
  /// The token's log-probability, as Hypothesis::token_logprobs holds it (0 with return_scores false).
  float logprob = 0.f;
};
/// Return true to go on, false to stop the call (it returns kCancelled).
using TokenCallback = bool (*)(const TokenEvent& event, void* user_data);
/// Checked before each decoder step; return true to stop the call (it returns kCancelled).
using AbortCallback = bool (*)(void* user_data);

/// Whose beam search rules a call follows (docs/conformance.md).
enum class HfRules : uint8_t {
  kTransformers5 = 5,  ///< GenerationMixin._beam_search of transformers 5.x (the default)
  kTransformers4 = 4,  ///< BeamSearchScorer / BeamHypotheses of transformers 4.x
};

/// Markup in the texts Translate() is given (docs/translating.md "Markup").
/// The syntaxes keep_placeholders protects: bits of TranslateOptions::placeholder_syntaxes (the grammar of
/// each: runtime/src/markup/placeholder_syntax.h and protect.h).
namespace placeholder_syntax {
constexpr uint32_t kPrintf = 1u << 0;          ///< printf: %s %5.2f %-3d %1$s %.*s %lu %@, %% kept as written
constexpr uint32_t kPythonNamed = 1u << 1;     ///< Python's %(name)s
constexpr uint32_t kRubyNamed = 1u << 2;       ///< Ruby's %{name}
constexpr uint32_t kBrace = 1u << 3;           ///< {0} {0,number} {name!r:>10} {{x}} (.NET, Java, Python, i18next)
constexpr uint32_t kFluent = 1u << 4;          ///< Fluent's { $var } and { -term }
constexpr uint32_t kI18nextNesting = 1u << 5;  ///< i18next's $t(key)
constexpr uint32_t kShell = 1u << 6;           ///< shell $VAR and ${VAR}: off by default (prose has "$HOME", "$5")
constexpr uint32_t kUrl = 1u << 7;             ///< http://, https://, ftp:// and www. addresses
constexpr uint32_t kEmail = 1u << 8;           ///< e-mail addresses
constexpr uint32_t kNumberUnit = 1u << 9;      ///< numbers with units (5 km, 20 %, 3.5 GB)
constexpr uint32_t kAll = (1u << 10) - 1;     ///< every syntax above
constexpr uint32_t kDefault = kAll & ~kShell;  ///< every syntax but the shell's
/// What TranslateOptions::auto_protect keeps without being asked: URLs, e-mail addresses, printf and brace
/// placeholders (issue 40: a sentence with an address or a {name} must not lose it unless the caller asks).
constexpr uint32_t kAutoProtect = kPrintf | kBrace | kUrl | kEmail;
}  // namespace placeholder_syntax

/// The placeholder_syntax bits of a comma-separated list of names: printf, python-named, ruby-named, brace,
/// fluent, i18next, shell, url, email, number-unit, and "default", "all", "none" (spaces around names are
/// ignored). kInvalidArgument naming an unknown or empty name.
TERN_API Result<uint32_t> PlaceholderSyntaxesFromNames(std::string_view names);

enum class Markup : uint8_t {
  kNone = 0,         ///< plain text: '<' and '&' are text
  kHtml = 1,         ///< inline HTML/XML: tags and character references are taken out, translated around, put
                     /// back by alignment; markup that is not well-formed fails its text alone
  kHtmlLenient = 2,  ///< the same, not well-formed markup repaired as a browser would
  /// App strings' inline XML: react-intl / Lingui numbered tags (`Unmute <0>{name}</0>`), named ones
  /// (`<link>here</link>`, `<bold>`), Android's `<b>`: as kHtml (strict), but no element is void (`<link>`
  /// has an end tag), script/style are ordinary elements, no HTML block spacing; code/kbd/samp/var/pre are
  /// kept verbatim as in HTML (translate_code translates them; before 2026-11-29 xml mode translated them)
  kXml = 3,
};

/// A byte range [begin, end) of a text (UTF-8; begin == end: an empty span at that offset).
struct TextSpan {
  size_t begin = 0;  ///< first byte
  size_t end = 0;    ///< one past the last byte
};

/// A do-not-translate span the caller marks: bytes [span.begin, span.end) of texts[text].
struct KeepSpan {
  size_t text = 0;  ///< index of the text in the call
  TextSpan span;    ///< its bytes in that text
};

}  // namespace tern

// SamplingOptions and TranslateOptions, from the field table (runtime/fields/fields.py).
#define TERN_OPTIONS_TYPES_DECLARED 1
#include "tern/translate_options.h"

namespace tern {

/// The field table's range rule of every option (runtime/fields/fields.py, CHECKS): kInvalidArgument naming the
/// first option out of range and what it must be ("sampling_temperature 1e-38: must be finite and >= 1e-06 ...").
/// Every call checks it (Translator::CheckOptions and each translate call); a binding or tool may check early.
TERN_API Status CheckOptionRanges(const TranslateOptions& options);

}  // namespace tern
