// Search in stages, with the semantics of Hugging Face transformers' generate() for Marian: greedy search,
// and beam search by the rules of transformers 5.x (GenerationMixin._beam_search, the default) or 4.x
// (BeamSearchScorer + BeamHypotheses), with early_stopping false, true or "never":
//
//   for each position: active rows (every live beam of every unfinished sentence)
//                      -> StepDecoder::Decode (logits [rows, vocab])
//                      -> GreedyStep or BeamStep (logits processors, choice, finished hypotheses)
//   then Finish: n-best hypotheses per sentence into the result buffers.
//
// A sentence's rows are consecutive; sentences are in length order (BatchBuffers::order maps back).
#pragma once

#include <cstddef>
#include <cstdint>

#include "buffers.h"
#include "decoder.h"
#include "profiler.h"
#include "search/hypotheses.h"
#include "search/logits_processors.h"
#include "search/token_stream.h"

namespace tern {

struct SearchOptions {
  uint32_t beam = 1;           // 1 = greedy
  uint32_t n_best = 1;
  float length_penalty = 1.f;  // beam: score = sum_logprob / generated_len ^ length_penalty
  bool want_scores = true;
  HfRules hf_rules = HfRules::kTransformers5;            // beam: whose stopping rule and finished-set merge
  EarlyStopping early_stopping = EarlyStopping::kFalse;  // beam: transformers' early_stopping
};

/// Runs the model for one step of the search (the session's decoder).
class StepDecoder {
 public:
  virtual ~StepDecoder() = default;
  /// Decodes `rows` at position `pos` and returns the logits [rows.n, vocab.size] over the columns of
  /// `vocab` (valid until the next call).
  virtual Result<float*> Decode(size_t pos, const StepRows& rows, const VocabMap& vocab) = 0;
};

/// What the stages share during one search.
struct SearchContext {
  const Dims& dims;
  const BatchBuffers& in;
  SearchBuffers& s;
  const ResultBuffers& out;
  const LogitsProcessors& processors;
  HypothesisStore hyps;
  Profiler& prof;
  uint32_t eos = 0, start = 0;
  SearchOptions opt;
  size_t n_sentences = 0;   // in this search (set by RunSearch)
  float* logits = nullptr;  // of the current step: [rows, vocab.size]
  VocabMap vocab;           // the columns of the logits (identity, or the call's shortlist)
  TokenStream* stream = nullptr;  // the call's token stream and abort check (nullptr: neither)

  /// What the logits processors see for the row of beam slot `slot` (sentence b) at `pos`.
  RowContext Row(size_t slot, size_t b, size_t pos) const {
    RowContext r;
    r.pos = pos;
    r.max_len = in.max_len[b];
    r.start_token = start;
    r.history = s.tokens + slot * dims.tgt;
    r.sentence = in.order[b];
    r.vocab = &vocab;
    return r;
  }
};

/// Searches n_sentences sentences (prepared in ctx.in) and writes their results (ctx.out, by input index).
/// Errors: those of the decoder (kInternal); kCancelled when ctx.stream stopped the call (results are
/// written for the sentences that finished; the others get the error kCancelled).
Status RunSearch(SearchContext& ctx, size_t n_sentences, StepDecoder& decoder);

/// Greedy step for the n active rows at `pos`: the token mask and the processors on the raw logits,
/// argmax; a sentence finishes at </s> or at its length cap. Score: sum over its tokens of log_softmax of
/// the processed logits at the chosen token (transformers' compute_transition_scores with
/// normalize_logits=True; a forced </s> adds 0).
void GreedyStep(SearchContext& ctx, size_t n, size_t pos);

/// Beam step: log_softmax, the token mask and the processors (renormalized when renormalize_logits), plus
/// each beam's running score; the top 2 x beam candidates of each sentence, then by opt.hf_rules:
///  - 5.x (_get_running_beams_for_next_iteration, _update_finished_beams, _check_early_stop_heuristic):
///    the best `beam` candidates that do not end in </s> run on; candidates ranked within the first
///    `beam` that end (</s>, or the length cap) are merged into the finished set; the sentence stops for good
///    when its finished set is full and the best running beam / L ^ length_penalty cannot beat its worst
///    (L: tokens generated so far; with early_stopping "never" and length_penalty > 0, the cap), with
///    early_stopping true once the set is full, and at the cap;
///  - 4.x (BeamSearchScorer.process, BeamHypotheses.is_done): candidates in rank order, </s> within the
///    first `beam` ranks finishes a hypothesis, the others fill the beams; the sentence is done when the
///    set is full and (early_stopping true, or) the best candidate / L ^ length_penalty cannot beat the
///    worst finished; at the cap the running beams finish as they are.
void BeamStep(SearchContext& ctx, size_t n, size_t pos);

}  // namespace tern
