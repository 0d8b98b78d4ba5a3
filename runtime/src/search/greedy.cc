// Greedy search step (transformers' greedy search: processors on the raw logits, then argmax).
#include <limits>

#include "kernels.h"
#include "search/search.h"

namespace tern {

void GreedyStep(SearchContext& c, size_t n, size_t pos) {
  const auto t0 = c.prof.Tick();
  SearchBuffers& S = c.s;
  const size_t T = c.dims.tgt, V = c.dims.vocab;
  const uint8_t* mask = c.processors.mask();
  for (size_t i = 0; i < n; ++i) {
    const size_t slot = S.active[i], b = S.active_sentence[i];
    float* row = c.logits + i * V;
    // The score uses the distribution before any processor: log_softmax of the raw logits.
    const float lse = c.opt.want_scores ? LogSumExp(row, V) : 0.f;
    const RowContext ctx = c.Row(slot, b, pos);
    c.processors.Apply(ctx, row, V);
    uint32_t best = c.eos;
    float bv = -std::numeric_limits<float>::infinity();
    for (size_t v = 0; v < V; ++v)
      if (!mask[v] && row[v] > bv) bv = row[v], best = static_cast<uint32_t>(v);
    if (c.opt.want_scores) S.beam_scores[slot] += row[best] - lse;
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
