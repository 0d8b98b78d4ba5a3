// tern's Call: one call through a Translator, made by its entry point (api/translator.cc) on the stack from
// its request (the inputs and options it was given) and passed to every stage of the session (session.h: protect,
// split, tokenize, translate, detokenize, join, restore; alternatives' two passes; scoring). A stage takes the
// Call and its inputs: the options it acts on are call.options, what it gives is call.results. The Call holds
// what the stages set for the call while it runs, its logits rules among them (the session's file rules are never
// changed by a call). The session (arena, network, tokenizer, the file's rules) lends it memory only: the arena,
// and two heap objects reused from call to call so that a call of plain sentences allocates nothing, the markup
// taken out of its texts (call.markup) and the sentences of its split texts (call.paragraphs), each reset by the
// stage that fills it; tests/test_call.cc checks that a call leaves nothing behind however it ends (an error, a
// cancellation, a callback that threw). What decoding needs of it travels in the search's
// StepRequest (the alignment layer, where the cross-attention goes), not through the session.
#pragma once

#include <cstdint>
#include <string_view>

#include "search/logits_processors.h"
#include "search/token_stream.h"
#include "tern/translator.h"

namespace tern {

class SentenceSource;
class MarkupCall;
class Paragraphs;

/// What an entry point was given: views of its arguments, valid for the whole call (a call is synchronous; an
/// engine request owns its inputs until its call ends). texts or ids hold the inputs (one entry per input);
/// scoring adds one target per input; a continuous call (Translator::TranslateContinuous) has a source that
/// hands out sentences while it runs, and no inputs up front.
struct CallRequest {
  enum class Kind { kTranslate, kTranslateIds, kScore, kScoreIds, kContinuous };
  Kind kind = Kind::kTranslate;
  const char* name = "translate";               // the entry point, as TERN_ECHO_OPTIONS and TERN_ECHO_RESULTS name it
  Span<const std::string_view> texts;           // kTranslate's texts, kScore's sources
  Span<const Span<const uint32_t>> ids;         // kTranslateIds' and kScoreIds' sources
  Span<const std::string_view> target_texts;    // kScore's targets
  Span<const Span<const uint32_t>> target_ids;  // kScoreIds' targets
  SentenceSource* source = nullptr;             // kContinuous's (tern/continuous.h)
  const TranslateOptions* options = nullptr;    // the entry point's options (Enter: never null)

  /// The number of inputs (0 for kContinuous: its source hands them out).
  size_t size() const { return kind == Kind::kTranslate || kind == Kind::kScore ? texts.size() : ids.size(); }
  /// Whether it generates (kTranslate, kTranslateIds, kContinuous) rather than scores given targets.
  bool generates() const { return kind != Kind::kScore && kind != Kind::kScoreIds; }
};

struct Call {
  CallRequest request;                           // what the entry point was given (Translator::Impl::Run reads it)
  const TranslateOptions* options = nullptr;     // what the running stage acts on: the request's, or what a stage
                                                 // set for the stages under it (OptionsScope); never null in a stage
  Span<const TranslationResult> results;         // what the last stage gave; once Run returns, the call's results:
                                                 // records in the session's arena, the caller's until its next call
  TokenStream stream;                            // the call's token callback and abort check (TokenStream::Begin)
  bool streaming = false;                        // the call has a token or abort callback
  const TokenStream::Origin* origins = nullptr;  // split texts: the text and part of each sentence being translated
  uint32_t expand = 0;                           // > 0: return_alternatives' first pass (session/alternatives_call.h)
  uint32_t alternatives = 0;                     // > 0: its second pass, k sentences per input (their sampling keys)
  RuleSet rules;                                 // its logits rules, built from its resolved options by
                                                 // CallSearchContext (session.h) and read by its search
  MarkupCall* markup = nullptr;                  // the markup taken out of its texts (protect, restore), and
  Paragraphs* paragraphs = nullptr;              // the sentences of its split texts (split, join): the session's
                                                 // memory, lent for the call and reset by the stage that uses it
};

/// Sets the options the stages under the current one act on (call.options) until the scope ends: a stage that
/// changes the options for those after it (protect, split, score, alternatives' passes) says so here, and
/// the call's own options come back when it returns.
class OptionsScope {
 public:
  OptionsScope(Call& call, const TranslateOptions& options) : call_(call), saved_(call.options) { call.options = &options; }
  ~OptionsScope() { call_.options = saved_; }
  OptionsScope(const OptionsScope&) = delete;
  OptionsScope& operator=(const OptionsScope&) = delete;

 private:
  Call& call_;
  const TranslateOptions* saved_;
};

}  // namespace tern
