// Greedy search step (transformers' greedy search: processors on the raw logits, then argmax).
#include <cmath>

#include "kernels/kernels.h"
#include "search/sampling.h"
#include "search/search.h"

namespace tern {

void GreedySearch::Step(SearchContext& c, size_t n, size_t step) {
  const auto t0 = c.prof.Tick();
  SearchBuffers& S = c.s;
  const size_t T = c.dims.tgt, V = c.vocab.size;
  // The one pipeline (logits_pipeline.h): mask, the file's rules, the call's, constraints, sampling's warpers.
  ProcessRows(c, LogitsPipeline::For(c, RowPass::kGreedy), n, step);
  for (size_t i = 0; i < n; ++i) {
    const size_t slot = S.active[i], b = S.active_sentence[i], pos = c.Pos(b, step);
    float* row = c.logits + i * V;
    const uint32_t max_len = c.in.max_len[b];
    const SentenceConstraints sc = c.Constraints(b);
    const uint32_t state = sc.n ? c.ConstraintState(slot, pos) : 0;
    uint32_t best = 0;
    float logprob = 0.f;
    if (c.Forced(b, pos, &best)) {
      // A forced token (target prefix, scored target): its log-probability under the rules; it counts in
      // the score only when scoring (a prefix is input, as decoder_input_ids are to transformers).
      const int64_t col = c.vocab.Index(best);
      if (c.opt.want_scores) {
        const float lse = LogSumExp(row, V);
        logprob = col >= 0 && std::isfinite(lse) ? row[col] - lse : -INFINITY;
        if (c.forced->scored) S.beam_scores[slot] += logprob;
      }
    } else if (c.opt.sampling.enabled) {
      // transformers' _sample: a draw from the softmax of the processed, warped row (search/sampling.h).
      const size_t col = DrawColumn(row, V, CounterUniform(c.opt.sampling.seed, c.SampleKey(b), pos));
      best = c.vocab.Token(col);
      const float lse = LogSumExp(row, V);
      if (std::isfinite(lse)) {
        logprob = row[col] - lse;
        S.beam_scores[slot] += logprob;
      }
    } else {
      const int64_t eos_col = c.vocab.Index(c.eos);
      best = c.vocab.Token(ArgMax(row, V, eos_col >= 0 ? static_cast<uint32_t>(eos_col) : 0));
      const size_t best_col = static_cast<size_t>(c.vocab.Index(best));
      // The token's log-probability is what transformers' compute_transition_scores(..., normalize_logits=True)
      // gives for it: log_softmax of the processed logits (0 for a forced </s>); the score is their sum.
      if (c.opt.want_scores) {
        const float lse = LogSumExpWithMax(row, V, row[best_col]);  // the argmax holds the row's max
        if (std::isfinite(lse)) {
          logprob = row[best_col] - lse;
          S.beam_scores[slot] += logprob;
        }
      }
    }
    const size_t at = slot * T + pos;
    S.track.token[at] = best;
    S.track.kv_slot[at] = static_cast<uint32_t>(slot);
    S.track.logprob[at] = logprob;
    S.track.source[at] = S.row_source[i];
    S.track.constraint[at] = sc.n ? AdvanceConstraint(sc, state, best) : 0;
    const bool last = pos + 1 >= max_len, eos = c.IsEnd(best);
    if (c.stream) c.stream->Token(b, best, logprob, S.track.token + slot * T, eos ? pos : pos + 1, eos || last);
    if (eos || last) {
      c.hyps.Add(b, S.track, slot, static_cast<uint32_t>(pos + 1), eos, S.beam_scores[slot]);
      S.done[b] = 1;
    }
  }
  c.prof.Tock(t0, &c.prof.profile.softmax_topk_ms);
}

}  // namespace tern
