// Greedy search step (transformers' greedy search: processors on the raw logits, then argmax).
#include <cmath>

#include "kernels.h"
#include "search/search.h"

namespace tern {

void GreedyStep(SearchContext& c, size_t n, size_t pos) {
  const auto t0 = c.prof.Tick();
  SearchBuffers& S = c.s;
  const size_t T = c.dims.tgt, V = c.vocab.size;
  for (size_t i = 0; i < n; ++i) {
    const size_t slot = S.active[i], b = S.active_sentence[i];
    float* row = c.logits + i * V;
    const RowContext ctx = c.Row(slot, b, pos);
    MaskRow(row, c.vocab.mask, V);  // NoBadWords on the logits
    c.processors.Apply(ctx, row);
    const int64_t eos_col = c.vocab.Index(c.eos);
    const uint32_t best = c.vocab.Token(ArgMax(row, V, eos_col >= 0 ? static_cast<uint32_t>(eos_col) : 0));
    const size_t best_col = static_cast<size_t>(c.vocab.Index(best));
    // The score is what transformers' compute_transition_scores(..., normalize_logits=True) gives for the
    // chosen token: log_softmax of the processed logits (0 for a forced </s>).
    if (c.opt.want_scores) {
      const float lse = LogSumExpWithMax(row, V, row[best_col]);  // the argmax holds the row's max
      if (std::isfinite(lse)) S.beam_scores[slot] += row[best_col] - lse;
    }
    S.tokens[slot * T + pos] = best;
    S.anc[slot * T + pos] = static_cast<uint32_t>(slot);
    const bool last = pos + 1 >= ctx.max_len;
    const uint32_t len = static_cast<uint32_t>(best == c.eos ? pos : pos + 1);
    if (c.stream) c.stream->Token(b, best, S.tokens + slot * T, len, best == c.eos || last);
    if (best == c.eos || last) {
      c.hyps.Add(b, S.tokens + slot * T, len, S.beam_scores[slot]);
      S.done[b] = 1;
    }
  }
  c.prof.Tock(t0, &c.prof.profile.softmax_topk_ms);
}

}  // namespace tern
