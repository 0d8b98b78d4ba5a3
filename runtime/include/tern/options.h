// tern::TranslateOptions: what one Translate / TranslateIds call may choose (tern/translator.h), with the
// types its fields use: the token and abort callbacks, transformers' rule set, markup, do-not-translate spans.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "tern/model.h"
#include "tern/span.h"

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

/// Sampling instead of greedy search's argmax (transformers' generate(do_sample=True), with its warpers in
/// its order: temperature, then top-k, then top-p; runtime/src/search/sampling.h). The draw is tern's own
/// counter-based generator: the same call with the same seed gives the same output on every CPU (for int8
/// weights, whose logits are identical everywhere). Greedy search only: an unset beam_size means 1, another
/// is kInvalidArgument (beam sampling is not supported). Defaults are transformers' (top_k 50).
struct SamplingOptions {
  bool enabled = false;             ///< sample (transformers' do_sample)
  float temperature = 1.f;          ///< scores / temperature; > 0 and finite
  uint32_t top_k = 50;              ///< keep the top_k highest scores (ties kept); 0: off
  float top_p = 1.f;                ///< keep the most likely tokens whose probabilities reach top_p; in (0, 1], 1: off
  uint32_t min_tokens_to_keep = 1;  ///< top-k and top-p keep at least this many; >= 1
  uint64_t seed = 0;                ///< the generator's seed (a sentence's draws depend on it, its index in the call and the position)
  /// Every field equal (the engine shares a call between requests with equal options).
  bool operator==(const SamplingOptions& o) const {
    return enabled == o.enabled && temperature == o.temperature && top_k == o.top_k && top_p == o.top_p &&
           min_tokens_to_keep == o.min_tokens_to_keep && seed == o.seed;
  }
};

/// Per-call options. An empty optional means the file's default (GenerationDefaults).
struct TranslateOptions {
  std::optional<uint32_t> beam_size;       ///< 1 = greedy (argmax; Hugging Face greedy search semantics)
  std::optional<float> length_penalty;     ///< beam: score = sum_logprob / generated_len ^ length_penalty
  std::optional<uint32_t> max_length;      ///< generated tokens including `</s>` (like max_new_tokens)
  std::optional<float> max_length_ratio;   ///< > 0: also at most ceil(ratio * source tokens) + 10; 0: off
  uint32_t n_best = 1;                     ///< hypotheses returned per sentence (<= beam_size and <= max_n_best)
  bool return_scores = true;               ///< fill Hypothesis::score and token_logprobs
  /// Fill Hypothesis::token_sources: the source token each generated token attends to most (the decoder's
  /// cross-attention; docs/translating.md "Confidence and alignment").
  bool return_alignment = false;
  /// Fill Hypothesis::attention (CTranslate2's return_attention): per token, the cross-attention of
  /// alignment_layer averaged over its heads, over the source tokens. Needs a Translator created with
  /// TranslatorConfig::attention (kInvalidArgument otherwise). Computed after the search by decoding each
  /// returned hypothesis again (runtime/src/session/attention_pass.h); a text split into several sentences
  /// has none (turn split_sentences off).
  bool return_attention = false;
  /// The decoder layer (0-based) whose cross-attention gives token_sources; empty: the model's default
  /// (docs/translating.md "Confidence and alignment" says which and why). Beyond the decoder's layers: kInvalidArgument.
  std::optional<uint32_t> alignment_layer;
  /// Beam search's stopping rule, finished-set merge and n-best order: transformers 5.x's (a sentence stops
  /// when its best running beam / generated_len ^ length_penalty cannot beat its worst finished hypothesis,
  /// for good) or 4.x's (BeamHypotheses.is_done on the best candidate). Greedy search is the same in both.
  HfRules hf_rules = HfRules::kTransformers5;
  /// transformers' early_stopping (tern/model.h EarlyStopping).
  std::optional<EarlyStopping> early_stopping;
  /// Multilingual models (Model::language_tokens): "por" puts the token >>por<< first in every source,
  /// in place of any ">>xxx<<" the text starts with (MarianTokenizer). Empty: the text's own code, if
  /// any. A language the model lacks makes the call fail with kInvalidArgument. Translate() only.
  std::string_view target_lang;
  /// Split each text into sentences (ICU's sentence BreakIterator, runtime/src/text/sentence_splitter.h), translate them
  /// as one batch and join the translations with the whitespace that separated them, one result per
  /// input text. Off: each text is one sentence. Translate() only.
  bool split_sentences = true;
  /// Inline markup in the texts (runtime/src/markup/html.h says what is recognized): the output keeps
  /// exactly the input's tags, placed around the words translated from the text they enclosed. Turns
  /// alignment on; spans are then bytes of the marked-up input and output. Not with on_token (the tags go
  /// in once a sentence is complete): that is kInvalidArgument. Translate() only.
  Markup markup = Markup::kNone;
  /// Markup: the contents of code, kbd, samp, var and pre elements and of elements whose class holds
  /// "notranslate" are kept verbatim, as translate="no" ones are (translate="yes" on such a tag translates
  /// it). True translates them (translate="no" still holds). No effect on plain text.
  bool translate_code = false;
  /// Terminology (tern/glossary.h): each occurrence of a glossary source term in a sentence makes its target
  /// term a constraint the translation must contain (docs/translating.md "Terminology"). Not owned; must outlive the
  /// call. A sentence with more than kMaxConstraints (16) occurrences or 256 target tokens of them fails
  /// alone (kResourceExhausted). With constraints a call scores the whole vocabulary (no shortlist).
  const Glossary* glossary = nullptr;
  /// Do-not-translate spans of plain texts (docs/translating.md "Terminology"): with keep_placeholders, placeholders
  /// ({0}, {name}, %s, %1$d, %(name)s, { $var }, $t(key), %{name}: every syntax in runtime/src/markup/
  /// placeholder_syntax.h), URLs, e-mail addresses and numbers with units (runtime/src/markup/protect.h
  /// lists what is found) come out of the text before translation and go back verbatim where the alignment
  /// places them; keep_spans adds the caller's own (sorted per text, not overlapping; a bad one fails its
  /// text alone). With markup both apply to the text between the tags (a span that starts inside a tag or a
  /// translate="no" element is ignored; one that reaches a tag stops before it), besides translate="no"
  /// elements. Turns alignment on; spans are then bytes of the input and output texts. Not with
  /// on_token. Translate() only.
  bool keep_placeholders = false;
  /// On by default: a plain text (keep_placeholders off, no markup, no keep_spans) that holds a URL, an
  /// e-mail address or a printf or brace placeholder (placeholder_syntax::kAutoProtect, within
  /// placeholder_syntaxes) gets them kept verbatim as keep_placeholders keeps them; a text without any is
  /// translated exactly as with it off. Only where a call can keep spans: not with on_token, target
  /// prefixes or alternatives (those translate such a text as it is), nor in Score or TranslateIds.
  /// TranslateContinuous hands such a text back with kUnsupported (tern::Engine then translates it with
  /// Translate). false: every text is translated as it is (an address may come out translated).
  bool auto_protect = true;
  Span<const KeepSpan> keep_spans;  ///< the caller's own do-not-translate spans (see keep_placeholders)
  /// The syntaxes keep_placeholders finds (placeholder_syntax bits; PlaceholderSyntaxesFromNames reads a
  /// list of names). Bits beyond placeholder_syntax::kAll: kInvalidArgument.
  uint32_t placeholder_syntaxes = placeholder_syntax::kDefault;
  /// Target prefixes (interactive and computer-aided translation; transformers' generate() with
  /// decoder_input_ids = [decoder_start] + prefix): the translation of input i starts with target_prefix[i],
  /// tokenized alone by the model's target SentencePiece (no `</s>`; an empty text: no prefix), and the
  /// search goes on from its end. One per input, or none. Hypotheses hold the prefix's tokens first (each
  /// with its log-probability under the logits rules); the score and beam search's length penalty count only
  /// the tokens after it, max_length counts it too (runtime/src/search/forced_tokens.h). A prefix that
  /// leaves no room for `</s>` within max_length fails its input alone. Turns split_sentences off; not with
  /// markup, keep_placeholders or keep_spans (kInvalidArgument). A prefix's last word is forced as the pieces
  /// it splits into alone ("Ma" stays "▁Ma", it does not become "▁Mann").
  Span<const std::string_view> target_prefix;
  /// The same as target ids (one span per input; an empty span: no prefix). An id outside the target
  /// vocabulary, or `</s>`, fails its input alone. Not together with target_prefix.
  Span<const Span<const uint32_t>> target_prefix_ids;
  /// > 0: CTranslate2's return_alternatives: the `alternatives` most likely tokens at the end of the target
  /// prefix (or at the first position without one), `</s>` excluded, each continued by the call's search
  /// (greedy, beam or sampling) into its own hypothesis, in the order of that first token's log-probability
  /// (runtime/src/session/alternatives_call.h). Hypothesis::score is that log-probability plus the
  /// continuation's score, as CTranslate2 adds them. Needs n_best 1, alternatives <= max_n_best and inputs x
  /// alternatives <= max_batch; not with markup, placeholders, keep_spans, a glossary or on_token
  /// (kInvalidArgument). Turns split_sentences off.
  uint32_t alternatives = 0;
  /// return_alternatives: first tokens less likely than this probability are left out (CTranslate2's
  /// min_alternative_expansion_prob); in [0, 1].
  float min_alternative_expansion_prob = 0.f;
  /// The call's own logits rules in place of the file's (GenerationDefaults; empty: the file's), applied as
  /// transformers applies them (runtime/src/search/logits_processors.h): RepetitionPenaltyLogitsProcessor
  /// (> 0 and finite; 1: off), NoRepeatNGramLogitsProcessor (0: off), MinLengthLogitsProcessor (tokens
  /// generated before `</s>` is allowed: transformers' min_length - 1).
  std::optional<float> repetition_penalty;
  std::optional<uint32_t> no_repeat_ngram_size;  ///< see repetition_penalty
  std::optional<uint32_t> min_length;            ///< see repetition_penalty
  /// `</s>` forced at the last position a hypothesis may take (max_length; transformers'
  /// ForcedEOSTokenLogitsProcessor, forced_eos_token_id = eos) on (true) or off (false) for this call; empty:
  /// the file's (GenerationDefaults::forced_eos). Off, a hypothesis cut at max_length ends without `</s>`.
  std::optional<bool> forced_eos;
  /// Target token sequences never generated (CTranslate2's suppress_sequences, transformers' bad_words_ids
  /// with NoBadWordsLogitsProcessor, after the file's own): a sequence of one token is banned everywhere, a
  /// longer one's last token wherever the tokens so far (a target prefix included) end with the ones before
  /// it. Not owned. An empty sequence or an id outside the target vocabulary: kInvalidArgument.
  Span<const Span<const uint32_t>> suppress_sequences;
  /// Never generate the unknown token (CTranslate2's disable_unk; Hyperparameters::unk_id).
  bool disable_unk = false;
  /// More target tokens that end a hypothesis as `</s>` does (transformers' eos_token_id as a list, CTranslate2's
  /// end_token; at most 8): the ending token is in Hypothesis::tokens, not in ids; min_length holds them all
  /// back; the file's forced `</s>` at max_length stays `</s>`. Not owned. An id outside the target vocabulary:
  /// kInvalidArgument.
  Span<const uint32_t> end_tokens;
  /// > 0: a sentence longer than this many source tokens is cut to it (its first tokens, then `</s>`), as
  /// CTranslate2's max_input_length does (at most max_source_tokens); 0 (default): such a sentence fails alone
  /// (kResourceExhausted), as one over max_source_tokens always does.
  uint32_t max_input_length = 0;
  /// Sampling in place of argmax (greedy search only); off by default.
  SamplingOptions sampling;
  /// A model with a lexical shortlist (Model::shortlist) scores only the shortlist of the call's
  /// sentences (runtime/src/search/vocab_map.h); false scores the whole target vocabulary. No effect without one.
  bool use_shortlist = true;
  /// Streaming and cancellation (whisper.cpp's callbacks with user_data). Called on the translating
  /// thread; a call they make into the same Translator returns kBusy (nothing deadlocks). A stopped call
  /// returns kCancelled and still fills *results: sentences that finished have their results, the others
  /// the error kCancelled. Nothing is allocated on the callback path.
  TokenCallback on_token = nullptr;
  void* on_token_user_data = nullptr;  ///< passed to on_token
  AbortCallback abort = nullptr;       ///< checked before each decoder step
  void* abort_user_data = nullptr;     ///< passed to abort
  /// The call's own logits processors (tern/logits_processor.h), applied in order after the file's rules
  /// to every hypothesis at every step. Not owned; they must outlive the call.
  Span<LogitsProcessor* const> logits_processors;
};

}  // namespace tern
