// tern::Translator: one translation session on a Model.
//
// A Translator owns one arena (every activation, the KV cache, the beam state and the results), its
// XNNPACK operators and the thread pool. The packed weights belong to the Model: they are made when the
// first Translator on a Model is created and shared by every later one. A Translator is sized at
// creation from TranslatorConfig; after that, TranslateIds() performs no heap allocation (per-sentence
// errors included; only a call that is wrong as a whole returns a Status whose message is a
// std::string), and Translate() allocates only inside SentencePiece's encoder (tokenizing the input).
//
//   auto model = tern::Model::Load("en-de.tern");               // Result<shared_ptr<const Model>>
//   auto tr = tern::Translator::Create(model.value(), {});      // limits from the file, threads from cpuinfo
//   std::string_view in[] = {"A dog runs on the beach."};
//   tern::Span<const tern::TranslationResult> out;
//   tern::Status s = tr.value()->Translate(in, {}, &out);       // out[0].best().text: "Ein Hund ..."
//
// A Translator is used by one thread at a time (a call made while another thread's call runs fails with
// kBusy, nothing shared is touched); several Translators may share one Model. A callback of a call may
// destroy the Translator: the session is released when that call returns (its results with it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tern/continuous.h"
#include "tern/export.h"
#include "tern/model.h"
#include "tern/options.h"
#include "tern/span.h"
#include "tern/status.h"

namespace tern {

/// Creation-time limits. 0 means "the file's default" (ArenaLimits, GenerationDefaults) or, for
/// threads, the number of performance cores cpuinfo reports (DefaultThreadCount()).
struct TranslatorConfig {
  uint32_t max_batch = 0;          ///< sentences per call
  uint32_t max_beam = 0;           ///< largest beam size a call may ask for (default: file's beam_size)
  uint32_t max_n_best = 1;         ///< largest n-best a call may ask for (<= max_beam)
  uint32_t max_source_tokens = 0;  ///< per sentence, including `</s>`
  uint32_t max_target_tokens = 0;  ///< generated per sentence, including `</s>`
  uint32_t threads = 0;            ///< 1 = no worker threads; more than the CPU's logical processors
                                   /// (CpuDescription::processors) are clamped to them: see threads()
  void* arena = nullptr;           ///< optional caller-owned arena (64-byte aligned, >= RequiredArenaBytes)
  size_t arena_bytes = 0;          ///< bytes at `arena`
  /// Plans the buffers of TranslateOptions::return_attention: max_batch x max_n_best x max_target_tokens x
  /// max_source_tokens floats of results, and per decoder row one source row. Off: none (and no cost).
  bool attention = false;
  /// Plans TranslateContinuous's buffers: one sentence's encoder activations that live through decoding
  /// (max_source_tokens x (5 d_model + ffn_dim) floats) and two small index arrays. Off: none.
  bool continuous_batching = false;
};

/// One output sequence. Views are valid until the Translator's next call.
struct Hypothesis {
  std::string_view text;     ///< detokenized target text (empty for TranslateIds)
  Span<const uint32_t> ids;  ///< generated ids, without the decoder start token and without the final `</s>`
  float score = 0.f;         ///< beam: sum_logprob / generated_len ^ length_penalty; greedy: sum_logprob
  /// Per generated token (the search's track, runtime/src/search/track.h), the final `</s>` included when the hypothesis
  /// ended with one (so these hold ids.size() or ids.size() + 1 entries, in order):
  Span<const uint32_t> tokens;        ///< the token ids
  Span<const float> token_logprobs;   ///< its log-probability after the logits processors (transformers'
                                      /// compute_transition_scores(normalize_logits=True)); 0s without scores
  Span<const int32_t> token_sources;  ///< the source token it aligns to (TranslateOptions::return_alignment): an
                                      /// index into TranslationResult::source_ids; -1 when not asked
  Span<const TextSpan> token_spans;   ///< Translate: its bytes in `text` (a word-initial piece without its space;
                                      /// `</s>`: empty at the end); empty for TranslateIds
  /// TranslateOptions::return_attention: [tokens.size(), source_ids.size()] row-major, row p the cross-attention
  /// of alignment_layer averaged over its heads when token p was chosen (it sums to 1); empty when not asked.
  Span<const float> attention;
};

/// The outcome for one input sentence: n hypotheses (best first), or an error for that sentence alone.
struct TranslationResult {
  StatusCode error = StatusCode::kOk;  ///< kOk, or why this sentence failed
  std::string_view error_message;  ///< e.g. "301 source tokens exceed max_source_tokens 256" (the result's index says which sentence)
  Span<const Hypothesis> hypotheses;  ///< n_best hypotheses, best first (none when it failed)
  /// The source tokens the input became (Translate: MarianTokenizer's ids, `</s>` last; a split text: its
  /// sentences' in turn; TranslateIds: the ids given) and, for Translate, each one's bytes in the input text
  /// (empty for TranslateIds). Empty when the input failed before it was tokenized.
  Span<const uint32_t> source_ids;
  Span<const TextSpan> source_spans;  ///< each source id's bytes in the input text (Translate)
  bool ok() const { return error == StatusCode::kOk; }  ///< the sentence was translated
  const Hypothesis& best() const { return hypotheses[0]; }  ///< the first hypothesis (requires ok())
};

/// Time spent in each part of decoding, for `tern translate --profile` (milliseconds, summed over calls).
struct Profile {
  double encoder_ms = 0;            ///< the encoder
  double cross_kv_ms = 0;           ///< cross-attention K/V of each source (once per sentence)
  double decoder_linear_ms = 0;     ///< the decoder's linear layers
  double self_attention_ms = 0;     ///< self-attention over the KV cache
  double cross_attention_ms = 0;    ///< cross-attention
  double output_projection_ms = 0;  ///< the output layer (logits)
  double softmax_topk_ms = 0;       ///< log-softmax, logits processors, top-k / argmax
  double beam_bookkeeping_ms = 0;   ///< beam reordering and finished hypotheses
  double other_ms = 0;              ///< embeddings and the rest
  uint64_t decoder_steps = 0;       ///< decoder invocations (one per generated position)
  uint64_t generated_tokens = 0;    ///< tokens emitted in results
  uint64_t weight_bytes_read = 0;   ///< weights the decoder steps read (their linear layers and the output
                                    /// layer's rows: a shortlist's rows only; 4-bit data as stored), bytes
  uint64_t output_columns = 0;      ///< logits columns computed per decoder step, summed (target vocab, or
                                    /// the shortlist's size): / decoder_steps = the mean shortlist size
  uint64_t single_thread_steps = 0; ///< decoder steps run on the calling thread alone although the Translator
                                    /// has worker threads: the pool was measured slower (a busy CPU)
};

/// One buffer of a Translator's arena plan (`tern inspect` prints them).
struct ArenaBufferInfo {
  std::string name;        ///< e.g. "decoder.self_k (KV cache)"
  size_t bytes = 0;        ///< rounded up to 64
  size_t offset = 0;       ///< from the arena start; buffers that are never live together may overlap
  std::string lifetime;    ///< phases it is live in: "encoder", "encoder..decoder", ...
};

/// The largest call a Translator must take, for TranslatorConfigFor: what the CTranslate2 shim and any caller
/// that sizes Translators to its calls ask for (0: the file's default).
struct CallNeeds {
  uint32_t inputs = 1;         ///< inputs of one call (a longer call runs in chunks: tern/call_chunks.h)
  uint32_t beam_size = 0;      ///< TranslateOptions::beam_size (0: the file's generation beam_size)
  uint32_t n_best = 1;         ///< TranslateOptions::n_best
  uint32_t alternatives = 0;   ///< TranslateOptions::alternatives: each input is that many sentences of the second pass
  uint32_t source_tokens = 0;  ///< the longest source, `</s>` included (0: the file's max_source_tokens)
  uint32_t max_length = 0;     ///< generated tokens asked, `</s>` included (0: the file's max_target_tokens)
  bool attention = false;      ///< return_attention or coverage_penalty (TranslatorConfig::attention)
};

/// The TranslatorConfig of a Translator that takes calls of `needs`, never smaller than `at_least` in any limit
/// (a Translator made before: its sizes only grow, so a caller remakes it rarely): max_beam the largest of
/// beam_size, n_best and alternatives; max_n_best the larger of n_best and alternatives; max_batch the file's
/// default batch for that beam, grown to inputs x alternatives; token limits the file's, grown to the next power
/// of two that holds the call and capped by the model's positions (max_source_tokens <= max_positions,
/// max_target_tokens <= max_positions - 1: a longer max_length is then cut to what the model has, as CTranslate2's
/// decoding length is by its position table); threads, arena and continuous_batching kept from `at_least`.
/// Errors (kInvalidArgument, naming the value): a source longer than max_positions, a beam, n_best or alternatives
/// count over kMaxBeam, inputs x alternatives over kMaxBatch, n_best over beam_size without alternatives.
TERN_API Result<TranslatorConfig> TranslatorConfigFor(const Model& model, const CallNeeds& needs,
                                                      const TranslatorConfig& at_least = {});

/// Threads to use by default: on a big.LITTLE SoC the cores outside its slowest cluster (cpuinfo's
/// cluster frequencies), all cores elsewhere; 1 if cpuinfo cannot tell.
TERN_API uint32_t DefaultThreadCount();

/// One translation session on a Model (see the top of this file): an arena, XNNPACK operators and a thread
/// pool. One call at a time; several Translators may share a Model.
class TERN_API Translator {
 public:
  /// Creates a session: validates `config` against the model (errors: kInvalidArgument for threads
  /// beyond 1024, limits above max_positions, n_best > beam, an arena that is too small or misaligned),
  /// plans and allocates the arena (kResourceExhausted if it cannot), packs every weight for XNNPACK
  /// (kInternal on XNNPACK failure), loads the tokenizer (kInvalidModel if SentencePiece rejects it).
  static Result<std::unique_ptr<Translator>> Create(std::shared_ptr<const Model> model, const TranslatorConfig& config);

  /// Bytes of the arena needed for `config` on `model` (what Create would allocate). Same errors as Create's
  /// limit checks.
  static Result<size_t> RequiredArenaBytes(const Model& model, const TranslatorConfig& config);

  /// The arena plan for `config` on `model`: every buffer, its size, offset and lifetime (declaration order).
  static Result<std::vector<ArenaBufferInfo>> DescribeArena(const Model& model, const TranslatorConfig& config);

  ~Translator();

  /// Translates up to max_batch texts of UTF-8. With options.split_sentences (the default) a text of
  /// several sentences is split, its sentences translated in the same batches as every other sentence
  /// of the call (chunks of max_batch) and joined with the whitespace between them (runtime/src/session/paragraphs.h). Each
  /// sentence is tokenized as MarianTokenizer does (runtime/src/text/tokenizer.h: a leading ">>xxx<<" code, SentencePiece,
  /// the stored vocabulary, `</s>` appended). `*results` receives one TranslationResult per input text, in
  /// input order. A text that fails (invalid UTF-8, a NUL byte, a sentence of more than
  /// max_source_tokens tokens: it is not cut) gets its own error; the others are translated. An empty or
  /// whitespace-only text gives an empty translation (score 0) without running the model. Returns an
  /// error only when the call itself is wrong (too many texts, bad options, an unknown target_lang), and then
  /// `*results` is empty (every entry point below alike; kCancelled keeps what was translated).
  /// Allocates inside SentencePiece and, for multi-sentence texts, in the splitter and the paragraph
  /// buffers.
  Status Translate(Span<const std::string_view> texts, const TranslateOptions& options,
                   Span<const TranslationResult>* results);

  /// True when this build splits texts into sentences (it has ICU); false: every text is one sentence.
  bool splits_sentences() const;

  /// The same on token ids: each source is taken as given (the caller includes `</s>`); results carry ids
  /// only. No heap allocation.
  Status TranslateIds(Span<const Span<const uint32_t>> sources, const TranslateOptions& options,
                      Span<const TranslationResult>* results);

  /// Scores given translations (quality estimation, reranking, filtering parallel data): for each pair
  /// (sources[i], targets[i]) the target, tokenized alone by the model's target SentencePiece, is forced
  /// through the decoder with `</s>` after it, and results[i].best() is that hypothesis: its ids (the
  /// target's), each token's log-probability (`</s>` last) after the file's logits rules and the options'
  /// processors, normalized as transformers' compute_transition_scores(normalize_logits=True), and the
  /// score, their sum: what greedy search gives the same tokens (so scoring a greedy translation returns
  /// its greedy score). Applies max_length, max_length_ratio, return_alignment, alignment_layer,
  /// target_lang, logits_processors, on_token and abort of `options`; beam_size and n_best are 1, no
  /// shortlist, no sentence splitting; markup, placeholders, glossary and target prefixes are
  /// kInvalidArgument. A pair fails alone: a target whose tokens and `</s>` exceed the cap
  /// (kResourceExhausted), a target token the rules give -inf (kInvalidArgument, "score -inf: ..."), a
  /// source that fails as in Translate. Errors of the call: sources and targets of different counts, more
  /// than max_batch pairs (kInvalidArgument), kBusy.
  Status Score(Span<const std::string_view> sources, Span<const std::string_view> targets, const TranslateOptions& options,
               Span<const TranslationResult>* results);

  /// The same on ids: sources with their `</s>`, targets without it (target vocabulary; an id outside it
  /// or `</s>` fails the pair alone). No heap allocation.
  Status ScoreIds(Span<const Span<const uint32_t>> sources, Span<const Span<const uint32_t>> targets,
                  const TranslateOptions& options, Span<const TranslationResult>* results);

  /// Continuous batching (tern/continuous.h): translates every sentence `source` gives, max_batch at a time,
  /// a finished sentence's slot taken by the next waiting one at the next decoder step, each result handed
  /// to source.Done as soon as its sentence ends. Returns when none waits and none runs. Needs
  /// TranslatorConfig::continuous_batching. Takes the options of Translate except those that need the
  /// whole batch or the text pipeline: markup, placeholders, keep_spans, a glossary, target prefixes,
  /// alternatives, return_attention, on_token, and a shortlist (use_shortlist on a model that has one) are
  /// kInvalidArgument. With split_sentences (and a build that splits) a text of several sentences is split,
  /// its sentences join the batch one by one and Done gets their results joined as Translate joins them (a
  /// sentence that cannot be tokenized fails the text before any of it is decoded). A text with spans
  /// auto_protect keeps (a URL, an e-mail address, a printf or brace placeholder; TranslateOptions::
  /// auto_protect) is taken apart as Translate takes it: its plain text runs with the alignment (its result
  /// reports token_sources, as Translate's does) and Done gets the spans put back. A sentence fails alone (Done with its error); errors of the call: kInvalidArgument (not planned, or the options), kBusy, kInternal
  /// (XNNPACK: the running sentences are handed over as kCancelled first), kCancelled (the abort callback).
  /// Allocates only inside SentencePiece's encoder and ICU's splitter (texts), for texts of several sentences
  /// (their sentences' results until joined) and for texts auto_protect takes apart (heap buffers reused
  /// within the call).
  Status TranslateContinuous(SentenceSource& source, const TranslateOptions& options);

  /// Checks a call's options without translating: what Translate and TranslateIds refuse as a whole call
  /// (kInvalidArgument: beam_size beyond max_beam, n_best, a non-finite length_penalty or
  /// max_length_ratio, an alignment_layer the decoder lacks, an hf_rules / early_stopping / markup value
  /// outside its enum, a null logits processor, a glossary made for other vocabularies). A tool checks its
  /// arguments with it before it writes anything. Safe while a call runs in another thread.
  Status CheckOptions(const TranslateOptions& options) const;

  /// Arena size in bytes, and what it would be without lifetime sharing.
  size_t arena_bytes() const;
  /// What the arena would need without lifetime sharing, bytes.
  size_t arena_unshared_bytes() const;
  /// Threads in use: config.threads (or the default), at most the CPU's logical processors. A caller that
  /// asked for more can compare and warn (the CLI does).
  uint32_t threads() const;
  /// Texts per call, as resolved at creation (config.max_batch, or the file's default).
  uint32_t max_batch() const;
  /// The config it was created with.
  const TranslatorConfig& config() const;
  /// The model it translates with.
  const Model& model() const;

  /// Accumulated profile since creation (or ResetProfile). The times are collected only if
  /// EnableProfile(true); the counts (steps, tokens, weight bytes read, logits columns) always.
  void EnableProfile(bool on);
  /// The profile so far (see EnableProfile).
  const Profile& profile() const;
  /// Zeroes the profile.
  void ResetProfile();

  struct Impl;

 private:
  friend Impl& ImplOf(Translator& t);
  explicit Translator(std::shared_ptr<Impl> impl);
  std::shared_ptr<Impl> impl_;  // each call holds it too: a Translator destroyed by its own callback ends the call first
};

}  // namespace tern
