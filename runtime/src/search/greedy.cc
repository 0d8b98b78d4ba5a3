// Greedy search step (transformers' greedy search: processors on the raw logits, then argmax).
#include <cmath>

#include "kernels.h"
#include "search/search.h"

namespace tern {

void GreedyStep(SearchContext& c, size_t n, size_t pos) {
  const auto t0 = c.prof.Tick();
  SearchBuffers& S = c.s;
  const size_t T = c.dims.tgt, V = c.dims.vocab;
  for (size_t i = 0; i < n; ++i) {
    const size_t slot = S.active[i], b = S.active_sentence[i];
    float* row = c.logits + i * V;
    const RowContext ctx = c.Row(slot, b, pos);
    MaskRow(row, c.processors.mask(), V);  // NoBadWords on the logits
    c.processors.Apply(ctx, row, V);
    const uint32_t best = ArgMax(row, V, c.eos);
    // The score is what transformers' compute_transition_scores(..., normalize_logits=True) gives for the
    // chosen token: log_softmax of the processed logits (0 for a forced </s>).
    if (c.opt.want_scores) {
      const float lse = LogSumExp(row, V);
      if (std::isfinite(lse)) S.beam_scores[slot] += row[best] - lse;
    }
    S.tokens[slot * T + pos] = best;
    S.anc[slot * T + pos] = static_cast<uint32_t>(slot);
    const bool last = pos + 1 >= ctx.max_len;
    if (best == c.eos || last) {
      c.hyps.Add(b, S.tokens + slot * T, static_cast<uint32_t>(best == c.eos ? pos : pos + 1), S.beam_scores[slot]);
      S.done[b] = 1;
    }
  }
  c.prof.Tock(t0, &c.prof.profile.softmax_topk_ms);
}

}  // namespace tern
