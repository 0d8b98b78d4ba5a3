// Search in stages, with the semantics of Hugging Face transformers' generate() for Marian: greedy search,
// and beam search by the rules of transformers 5.x (GenerationMixin._beam_search, the default) or 4.x
// (BeamSearchScorer + BeamHypotheses), with early_stopping false, true or "never":
//
//   for each position: active rows (every live hypothesis of every unfinished sentence)
//                      -> StepDecoder::Decode (logits [rows, columns]: the one seam to the network)
//                      -> SearchStrategy::Step (logits processors, choice, the track, finished hypotheses)
//                      -> FinishSentence for each sentence that ended: its n-best hypotheses, every
//                         track channel, into the result buffers
// over sentence slots that a feed fills (SentenceSlots): a batch staged before the search, or continuous
// batching's sentences joining as slots free.
//
// A sentence's rows are consecutive; sentences are in length order (SentenceInfo::order maps back).
// Greedy and beam search are two strategies behind one interface (CTranslate2's decoding.h has the same
// split). Nothing here allocates.
#pragma once

#include <cstddef>
#include <cstdint>

#include "base/profiler.h"
#include "memory/arena.h"
#include "memory/dims.h"
#include "search/constraints.h"
#include "search/forced_tokens.h"
#include "search/hypotheses.h"
#include "search/logits_pipeline.h"
#include "search/logits_processors.h"
#include "search/token_stream.h"
#include "search/track.h"
#include "search/vocab_map.h"
#include "tern/translator.h"

namespace tern {

/// The search's arena buffers.
struct SearchBuffers {
  TrackPlanes track, track_next;             // [rows, tgt]: the running hypotheses, and the next step's
  FinishedStorage<TrackPlanes> finished;     // [batch x beam, tgt]
  TrackPlanes candidate;                     // [1, tgt]: a finished candidate being assembled
  ArenaArray<float> beam_scores;             // [rows] running sum of log-probabilities
  ArenaArray<float> step_scores;             // [rows] new beam scores while a sentence's beams are reordered
  ArenaArray<uint32_t> step_tokens;          // [rows] input token of each active row this step
  ArenaArray<uint32_t> active;               // [rows] slots decoded this step
  ArenaArray<uint32_t> active_sentence;      // [rows] sentence of each active row
  ArenaArray<int32_t> row_source;            // [rows] alignment of each active row this step (-1 when not asked)
  ArenaArray<uint8_t> done;                  // [batch]
  ArenaArray<float> cand_score, cand_logprob;  // [kCandidates] candidates of one sentence: running score,
  ArenaArray<uint32_t> cand_token, cand_beam;  //   token's log-probability, token, beam (0..beam-1)
  ArenaArray<uint32_t> cand_met;             // [kCandidates] constraint tokens met by each (constrained sentences)
  ArenaArray<uint32_t> stream_emitted;       // [batch] text bytes already streamed per sentence (input order)
  ArenaArray<uint32_t> sample_order;         // [vocab] sampling: the columns of one row, ranked (search/sampling.h)
  // The coverage penalty (search/coverage.h; planned with TranslatorConfig::attention, else empty):
  ArenaArray<float> step_attention;          // [rows, src] each active row's cross-attention this step
  ArenaArray<float> coverage, coverage_next; // [rows, src] per beam slot: its tokens' summed attention
};

/// What a call returns (views into these stay valid until the next call): the search writes hypotheses,
/// the session texts and errors.
struct ResultBuffers {
  TrackPlanes tracks;                        // [batch x n_best, tgt]
  ArenaArray<char> out_text;                 // [batch, n_best, text_bytes]
  ArenaArray<TextSpan> token_spans;          // [batch x n_best, tgt] each token's bytes in its text
  ArenaArray<uint32_t> decode_scratch;       // [text_bytes] the detokenizer's clean-up map
  ArenaArray<char> out_errors;               // [batch, kErrorBytes]
  ArenaArray<Hypothesis> hypotheses;         // [batch, n_best]
  ArenaArray<TranslationResult> results;     // [batch]
};

/// Bytes of one sentence's error message, NUL included (longer messages are cut).
constexpr size_t kErrorBytes = 192;

/// Declares the search's and the results' buffers (64-bit counts).
void DeclareSearchBuffers(const Dims& d, SearchBuffers* s, ResultBuffers* r, ArenaPlan* plan);

struct SearchOptions {
  uint32_t beam = 1;           // 1 = greedy
  uint32_t n_best = 1;
  float length_penalty = 1.f;  // beam: score = sum_logprob / generated_len ^ length_penalty
  bool want_scores = true;     // sentence scores and each token's log-probability
  bool want_alignment = false; // each token's source position (the decoder computes it)
  int alignment_layer = -1;    // with want_alignment: the decoder layer whose cross-attention gives it
  HfRules hf_rules = HfRules::kTransformers5;            // beam: whose stopping rule and finished-set merge
  EarlyStopping early_stopping = EarlyStopping::kFalse;  // beam: transformers' early_stopping
  SamplingOptions sampling;  // greedy: sample instead of argmax when enabled (search/sampling.h)
  float coverage_penalty = 0.f;  // beam: Wu et al.'s coverage penalty's weight (search/coverage.h); 0: off
};

/// The rows the search asks the network to decode at one position.
struct StepRequest {
  size_t pos = 0;                        // 0: the decoder start token is the input
  const uint32_t* positions = nullptr;   // [n] continuous batching: each row's own position (nullptr: pos)
  size_t n = 0;                          // rows
  const uint32_t* slots = nullptr;       // [n] KV-cache slot of each row
  const uint32_t* sentences = nullptr;   // [n] sentence (length order) of each row
  const uint32_t* tokens = nullptr;      // [n] input token of each row
  const uint32_t* ancestry = nullptr;    // the track's kv_slot plane [rows, tgt]: slot holding position p of slot s
  const VocabMap* columns = nullptr;     // the logits' columns
  bool want_alignment = false;
  int alignment_layer = -1;              // with want_alignment: the decoder layer whose cross-attention gives it
  float* attention = nullptr;            // [n, src] with want_alignment: each row's cross-attention (nullptr: none)
  /// [n, src] the coverage penalty's attention (search/coverage.h): each row's cross-attention in the last
  /// decoder layer's first head, CTranslate2's alignment head for Marian models (nullptr: none).
  float* coverage_attention = nullptr;
};

/// What a step gives back (valid until the next call).
struct StepOutput {
  float* logits = nullptr;             // [n, columns.size]
  const float* logits_max = nullptr;   // [n] each row's largest logit (kernels.h's MaxOf) where the network
                                       // had it for free; nullptr: not known
  const int32_t* alignment = nullptr;  // [n] source position each row attends to most; nullptr when not asked
};

/// The network as the search sees it: rows in, logits out.
class StepDecoder {
 public:
  virtual ~StepDecoder() = default;
  /// Error: the network's (kInternal).
  virtual Result<StepOutput> Decode(const StepRequest& request) = 0;
};

/// Per sentence (length order): the caller's input index, the cap on generated tokens, the source length.
struct SentenceInfo {
  const uint32_t* order = nullptr;    // [n] input index (within the call)
  const uint32_t* max_len = nullptr;  // [n] generated-token cap, </s> included
  const uint32_t* src_len = nullptr;  // [n] source tokens, </s> included
};

/// What the stages share during one search.
struct SearchContext {
  const Dims& dims;
  SentenceInfo in;
  SearchBuffers& s;
  const ResultBuffers& out;
  const LogitsProcessors& processors;         // the file's token mask, renormalize_logits and rules
  Span<LogitsProcessor* const> call_processors;  // the call's own (TranslateOptions::logits_processors)
  FinishedSet<TrackPlanes> hyps;
  Profiler& prof;
  uint32_t eos = 0, start = 0;
  SearchOptions opt;
  size_t n_sentences = 0;   // slots in this search (set by RunSearch)
  float* logits = nullptr;  // of the current step: [rows, vocab.size]
  VocabMap vocab;           // the columns of the logits (identity, or the call's shortlist)
  TokenStream* stream = nullptr;  // the call's token stream and abort check (nullptr: neither)
  const TokenStream::Origin* origins = nullptr;  // paragraph calls: the text and part of each input sentence
  const ConstraintBuffers* constraints = nullptr;  // the call's constraints (nullptr: none)
  const ForcedTokens* forced = nullptr;  // target prefixes or scored targets (nullptr: none)
  Span<const uint32_t> end_tokens = {};  // the call's tokens that end a hypothesis besides eos
  const uint32_t* start_step = nullptr;  // [batch] continuous batching: the step at which sentence b joined
  const uint8_t* aligned = nullptr;      // [batch] continuous batching: 1 where sentence b reports its alignment
                                         // (with opt.want_alignment); nullptr: every sentence, by opt.want_alignment
  const uint64_t* sampling_keys = nullptr;  // [inputs] the caller's key of each input (nullptr: its index)
  uint32_t key_group = 0;  // > 0: return_alternatives' second pass, input r is alternative r % k of input r / k
  const float* logits_max = nullptr;     // [rows] MaxOf of each logits row as decoded (no rule yet); or nullptr
  const RuleSet* rules = nullptr;        // the call's logits rules (session/call.h); nullptr: the file's

  /// Sentence b's position at search step `step` (continuous batching: sentences join at different steps).
  size_t Pos(size_t b, size_t step) const { return start_step ? step - start_step[b] : step; }

  /// Whether sentence b (length order) reports each token's source position (token_sources).
  bool Aligned(size_t b) const { return opt.want_alignment && (!aligned || aligned[b]); }

  /// Whether `token` ends a hypothesis (eos, or one of the call's end tokens).
  bool IsEnd(uint32_t token) const {
    if (token == eos) return true;
    for (uint32_t t : end_tokens)
      if (token == t) return true;
    return false;
  }

  /// The key sentence b's (length order) draws depend on (search/sampling.h): its input's key (the caller's,
  /// or its index in the call), plus its part within a split text times 2^32.
  uint64_t SampleKey(size_t b) const {
    const uint32_t i = in.order[b];
    if (key_group) {
      const uint64_t input = i / key_group;
      return (sampling_keys ? sampling_keys[input] : input) * key_group + i % key_group;
    }
    const size_t input = origins ? origins[i].index : i;
    const uint64_t part = origins ? origins[i].part : 0;
    return (sampling_keys ? sampling_keys[input] : input) + (part << 32);
  }

  /// Tokens of sentence b's (length order) target prefix (or scored target; 0: none).
  uint32_t PrefixLen(size_t b) const { return forced ? forced->Length(in.order[b]) : 0; }
  /// The token forced on sentence b at `pos`: true and *token, or false (search/forced_tokens.h).
  bool Forced(size_t b, size_t pos, uint32_t* token) const { return forced && forced->At(in.order[b], pos, eos, token); }

  /// The constraints of sentence b (length order); n == 0 when it has none.
  SentenceConstraints Constraints(size_t b) const {
    return constraints ? ConstraintsOf(*constraints, in.order[b]) : SentenceConstraints();
  }
  /// The constraint state of beam slot `slot` before position `pos`.
  uint32_t ConstraintState(size_t slot, size_t pos) const { return pos ? s.track.constraint[slot * dims.tgt + pos - 1] : 0; }

  /// What the logits pipeline's stages see for active row `row` (beam slot `slot`, sentence b) at `pos`.
  RowContext Row(size_t slot, size_t b, size_t pos, size_t row = 0) const {
    RowContext r;
    r.pos = pos;
    r.max_len = in.max_len[b];
    r.start_token = start;
    r.history = s.track.token + slot * dims.tgt;
    r.sentence = in.order[b];
    r.vocab = &vocab;
    r.row = row;
    r.slot = slot;
    r.b = b;
    r.search = this;
    return r;
  }
};

/// Writes sentence b's (length order) n-best hypotheses, every track channel, to the result buffers at its
/// input index c.in.order[b]; a sentence every rule banned (no finite hypothesis) gets its error there.
void FinishSentence(SearchContext& c, size_t b);

/// How a search chooses tokens: greedy or beam (two strategies behind one interface).
class SearchStrategy {
 public:
  virtual ~SearchStrategy() = default;
  /// Hypotheses decoded for unfinished sentence b (length order) at `pos` (greedy 1; beam 1 up to the first
  /// free step, the first or the one after its target prefix, then beam).
  virtual size_t LiveRows(const SearchContext& c, size_t b, size_t pos) const = 0;
  /// Chooses the next tokens of the n active rows at search step `step` (each sentence at its own position,
  /// c.Pos(b, step)) from c.logits, writes the track, finishes hypotheses and sentences (c.s.done).
  virtual void Step(SearchContext& c, size_t n, size_t step) = 0;
};

/// Greedy search: the file's and the call's processors on the raw logits, argmax; a sentence finishes at
/// </s> or at its length cap. Token log-probability: log_softmax of the processed logits at the chosen token
/// (transformers' compute_transition_scores with normalize_logits=True; a forced </s> adds 0); the score is
/// their sum. With opt.sampling enabled the row is warped and a token drawn (search/sampling.h); its
/// log-probability is log_softmax of the warped row (what compute_transition_scores gives). A forced token (search/forced_tokens.h) is taken as it is, with its log-probability under the
/// rules; it counts in the score only when scoring.
class GreedySearch final : public SearchStrategy {
 public:
  size_t LiveRows(const SearchContext&, size_t, size_t) const override { return 1; }
  void Step(SearchContext& c, size_t n, size_t step) override;
};

/// Beam search: log_softmax, the token mask and the processors (the file's, then the call's; renormalized
/// when renormalize_logits), plus each beam's running score; the top 2 x beam candidates of each sentence,
/// then by opt.hf_rules:
///  - 5.x (_get_running_beams_for_next_iteration, _update_finished_beams, _check_early_stop_heuristic):
///    the best `beam` candidates that do not end in </s> run on; candidates ranked within the first
///    `beam` that end (</s>, or the length cap) are merged into the finished set; the sentence stops for
///    good when its finished set is full and the best running beam / L ^ length_penalty cannot beat its
///    worst (L: tokens generated so far; with early_stopping "never" and length_penalty > 0, the cap), with
///    early_stopping true once the set is full, and at the cap;
///  - 4.x (BeamSearchScorer.process, BeamHypotheses.is_done): candidates in rank order, </s> within the
///    first `beam` ranks finishes a hypothesis, the others fill the beams; the sentence is done when the
///    set is full and (early_stopping true, or) the best candidate / L ^ length_penalty cannot beat the
///    worst finished; at the cap the running beams finish as they are.
/// A token's log-probability is its processed log-probability (the candidate's score less its beam's).
/// Through a target prefix one row runs and takes the forced tokens, its score unchanged; generated_len
/// counts the tokens after the prefix (search/forced_tokens.h).
class BeamSearch final : public SearchStrategy {
 public:
  size_t LiveRows(const SearchContext& c, size_t b, size_t pos) const override {
    return pos <= c.PrefixLen(b) ? 1 : c.opt.beam;
  }
  void Step(SearchContext& c, size_t n, size_t step) override;
};

/// Lists the live rows of the unfinished sentences 0..ns-1 at search step `step` (each sentence at its own
/// position, c.Pos) in c.s.active / active_sentence / step_tokens (and each row's position in positions[n],
/// when given); a sentence at its position 0 starts its beams' scores at 0. Returns the rows.
size_t ActiveRows(SearchContext& c, size_t ns, size_t step, const SearchStrategy& strategy, uint32_t* positions);

/// Decodes the n rows ActiveRows listed (at their `positions`, or all at `step` when null), keeps each row's
/// alignment and runs the strategy's step. Error: the decoder's (kInternal).
Status DecodeAndStep(SearchContext& c, size_t n, size_t step, StepDecoder& decoder, SearchStrategy& strategy,
                     const uint32_t* positions);

}  // namespace tern
