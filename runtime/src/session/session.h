// Translator::Impl: one translation session. It owns the arena (planned once, bound to SessionBuffers),
// its Network (operators over the Model's shared packed weights, thread pool), the tokenizer, the file's
// logits rules and the profiler, and is the search's StepDecoder (the one seam between the search and the
// network). A call: stage and pack the batch (batch.h), encode, choose the columns (the identity or the
// call's shortlist), run the search strategy (search/search.h), detokenize.
#pragma once

#include <atomic>
#include <memory>

#include "base/profiler.h"
#include "memory/arena.h"
#include "nn/network.h"
#include "nn/prepared_model.h"
#include "nn/thread_policy.h"
#include "search/logits_processors.h"
#include "search/search.h"
#include "search/token_stream.h"
#include "session/batch.h"
#include "session/buffers.h"
#include "session/call.h"
#include "session/forced_call.h"
#include "session/markup_call.h"
#include "tern/translator.h"
#include "session/paragraphs.h"
#include "text/tokenizer.h"

namespace tern {

struct Translator::Impl : public StepDecoder {
  std::shared_ptr<const Model> model;
  std::shared_ptr<const PreparedModel> prepared;
  std::unique_ptr<Network> net;
  std::shared_ptr<const Tokenizer> tokenizer;         // the model's (Tokenizer::Shared)
  std::shared_ptr<const Tokenizer> target_tokenizer;  // target prefixes and scored targets given as text (loaded on first use)
  TranslatorConfig config;
  Dims dims;
  ArenaPlan plan;
  SessionBuffers buf;
  std::unique_ptr<uint8_t[]> owned_arena;
  LogitsProcessors processors;  // the file's rules
  Profiler prof;
  ThreadPolicy threads;   // pool or calling thread, step by step (nn/thread_policy.h)
  TextSplitter splitter;  // splits texts into sentences (with ICU; without, texts are single sentences)
  Paragraphs paragraphs;  // lent to each call (Call::paragraphs): its texts of several sentences
  MarkupCall markup;      // lent to each call (Call::markup): its markup, taken out and put back
  std::atomic<bool> busy{false};  // a Translate call is running (api/translator.cc, BusyGuard)
  int alignment_layer = -1;       // the default decoder layer whose cross-attention gives token_sources
  mutable uint64_t vocab_fingerprint = 0; // the model's vocabularies (terms/glossary_impl.h), computed by the first
                                          // call with a glossary (0 = not yet): a glossary must match them

  /// Plans the arena for `config`, binds it (the caller's, or one allocated here), loads the tokenizer,
  /// packs the weights (shared through the Model), makes the network. Errors: those of Translator::Create.
  Status Init(std::shared_ptr<const Model> model, const TranslatorConfig& config);

  /// StepDecoder: logits (and alignment) of the requested rows, on the pool or this thread by measurement.
  /// Everything it needs of the call is in the request.
  Result<StepOutput> Decode(const StepRequest& request) override;

  /// Runs call.request (Translator's TranslateIds, Translate, Score, ScoreIds or TranslateContinuous, after the
  /// busy flag is taken) through the stages below, with call.options the request's and the session's markup
  /// and paragraph objects lent to it; call.results holds what it gives. Errors: those of the stage it runs.
  Status Run(Call& call);

  /// Every method below is a stage of `call` (session/call.h), the entry point's Call: it takes the call and
  /// its inputs, acts on *call.options and leaves what it gives in call.results (one record per input, also
  /// with kCancelled; other errors leave none). Errors: those of Translator's entry points.
  ///
  /// Translator::TranslateIds and Translate, after the busy flag is taken. `scored`: Translator::Score's
  /// targets, in place of the options' target prefixes.
  Status TranslateIds(Call& call, Span<const Span<const uint32_t>> sources, const ForcedInput* scored = nullptr);
  Status Translate(Call& call, Span<const std::string_view> texts);

  /// Translate() with every text one sentence: tokenize, translate, detokenize into the arena.
  Status TranslateTexts(Call& call, Span<const std::string_view> texts, const ForcedInput* scored = nullptr);

  /// Translator::Score and ScoreIds (after the busy flag is taken): the targets forced, greedy, scored.
  Status Score(Call& call, Span<const std::string_view> sources, Span<const std::string_view> targets);
  Status ScoreIds(Call& call, Span<const Span<const uint32_t>> sources, Span<const Span<const uint32_t>> targets);

  /// TranslateOptions::alternatives (session/alternatives_call.h) for texts (by_text) or ids.
  Status TranslateAlternatives(Call& call, Span<const std::string_view> texts, Span<const Span<const uint32_t>> ids, bool by_text);

  /// Loads target_tokenizer if it is not yet. Error: kInvalidModel when SentencePiece rejects the target proto.
  Status LoadTargetTokenizer();

  /// Translator::CheckOptions: what a call refuses as a whole, checked without translating.
  Status CheckOptions(const TranslateOptions& options) const;

  /// Encodes the sentences staged in buf.batch (after PackBatch) and searches them; fills buf.results.
  Status TranslateStaged(Call& call, size_t n_valid, const ResolvedOptions& o);
};

/// Stages source ids `given` as input sentence i (staged_ids, in_len), or records its error in the results
/// (no ids, more than max_source_tokens after max_input_length, an id outside the source vocabulary).
void StageIds(Translator::Impl& t, size_t i, Span<const uint32_t> given, const TranslateOptions& options);
/// What StageText did with a sentence.
enum class Staged { kIds, kEmpty, kFailed };
/// Stages sentence `text` as input i, the one staging of a text for static and continuous calls: its source
/// ids (staged_ids [i x src], in_len[i]) and their byte spans in `text` (src_spans), with options.target_lang's
/// code and max_input_length. kEmpty: whitespace only and `forced` false (no scored target or prefix): result
/// i is one empty hypothesis and sentence_ok[i] 0, no model run. kFailed: the tokenizer's error (invalid
/// UTF-8, too many tokens) is result i's.
Staged StageText(Translator::Impl& t, size_t i, std::string_view text, const TranslateOptions& options, bool forced);
/// Detokenizes every hypothesis of result i into the arena's text slots (text and token_spans).
void DetokenizeResult(Translator::Impl& t, size_t i);
/// TranslateOptions::replace_unknowns on result i (detokenized, its source spans set; `input` the sentence's
/// text): each generated `<unk>`'s text becomes its aligned source token's bytes (session/unknowns.cc).
void ReplaceUnknowns(Translator::Impl& t, size_t i, std::string_view input);
/// kInvalidArgument when the model has no language token for `target_lang` (empty: none asked).
Status CheckTargetLang(const Translator::Impl& t, std::string_view target_lang);

/// The search's context for `call` resolved as `o`: the session's buffers, token mask and profile, the
/// call's logits rules (o's, with the options that act on them applied: built into call.rules), the model's
/// </s> and decoder start tokens, o's search options and end tokens, the identity columns; no stream,
/// origins, constraints or forced tokens (the call sets what it has).
SearchContext CallSearchContext(Translator::Impl& t, Call& call, const ResolvedOptions& o);

/// A status that still leaves *results filled: success, or a call the caller's callback stopped.
inline bool HasResults(const Status& s) { return s.ok() || s.code() == StatusCode::kCancelled; }

/// Resolves `config` on `model` and plans every buffer into `plan` (Create, RequiredArenaBytes,
/// DescribeArena). Errors: ResolveDims' and PlanArena's.
Result<Dims> PlanFor(const Model& model, const TranslatorConfig& config, SessionBuffers* buf, ArenaPlan* plan);

}  // namespace tern
