// One logits-processor pipeline: every rule that rewrites a row of next-token scores before a token is
// chosen is a stage (a LogitsRule, logits_processors.h) in one ordered list, applied by one function that
// greedy search, beam search and return_alternatives' expansion call. The lists (RowPass):
//
//   kGreedy     token mask, the file's rules, the call's processors, glossary constraints, then sampling's
//               warpers when sampling (on the raw logits, as transformers' _sample: processors, then warpers)
//   kBeam       log_softmax + token mask (one fused pass), the file's rules, the call's processors,
//               log_softmax again when renormalize_logits, glossary constraints (transformers' _beam_search:
//               processors on the log-probabilities, LogitNormalization last among them)
//   kExpansion  token mask, the file's rules, the call's processors, every end token banned (CTranslate2's
//               expansion disables its end ids; a row through its target prefix keeps them)
//
// The file's rules keep transformers' order (_get_logits_processor: RepetitionPenalty, NoRepeatNGram,
// NoBadWords, MinLength, ForcedEOS), and a call's own processors run after them, as the processors a caller
// passes to generate() run after the generation config's. Forced tokens (a target prefix, a scored target)
// are not a stage: a forced token is taken after the pipeline, and its log-probability is read from the
// processed row (what transformers' compute_transition_scores gives for decoder_input_ids), which a stage that
// banned every other token would change.
//
// Adding a processor: a LogitsRule subclass and one line in LogitsPipeline::For (logits_pipeline.cc) that
// places it; greedy, beam and expansion then all run it. Nothing here allocates.
#pragma once

#include <cstddef>

#include "search/logits_processors.h"
#include "tern/span.h"

namespace tern {

struct SearchContext;

/// Which search the rows are processed for (the stage lists above).
enum class RowPass { kGreedy, kBeam, kExpansion };

/// A search step's ordered stages (pointers to rules that outlive the step; no ownership, no allocation).
class LogitsPipeline {
 public:
  /// The file's rules plus at most five of tern's own stages (the mask, the call's processors, renormalization,
  /// constraints, and the end-token ban or the warpers): For never fills it.
  static constexpr size_t kMaxStages = LogitsProcessors::kMaxProcessors + 5;
  /// The stages for search context `c` (its file rules as set for the call, its call processors,
  /// constraints and sampling options) and `pass`. Built once per step.
  static LogitsPipeline For(const SearchContext& c, RowPass pass);
  /// Rewrites one row in place: row[0..ctx.vocab->size) of the hypothesis ctx describes (ctx.search,
  /// ctx.row, ctx.slot, ctx.b set: SearchContext::Row does), every stage in order.
  void Apply(const RowContext& ctx, float* row) const {
    for (size_t i = 0; i < count_; ++i) stages_[i]->Process(ctx, row);
  }
  /// The stages in order (tests read their names).
  Span<const LogitsRule* const> stages() const { return Span<const LogitsRule* const>(stages_, count_); }

 private:
  void Add(const LogitsRule* r) {
    if (count_ < kMaxStages) stages_[count_++] = r;
  }
  const LogitsRule* stages_[kMaxStages] = {};
  size_t count_ = 0;
};

/// Runs `pipeline` on each of the step's n active rows of c.logits (row i: c.s.active[i], sentence
/// c.s.active_sentence[i], at its own position c.Pos(b, step)).
void ProcessRows(const SearchContext& c, const LogitsPipeline& pipeline, size_t n, size_t step);

}  // namespace tern
