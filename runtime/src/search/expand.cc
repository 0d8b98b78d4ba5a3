#include "search/expand.h"

#include <cmath>

#include "kernels/kernels.h"

namespace tern {

void ExpandSearch::Step(SearchContext& c, size_t n, size_t pos) {
  SearchBuffers& S = c.s;
  const size_t T = c.dims.tgt, V = c.vocab.size;
  for (size_t i = 0; i < n; ++i) {
    const size_t slot = S.active[i], b = S.active_sentence[i], input = c.in.order[b];
    float* row = c.logits + i * V;
    const RowContext ctx = c.Row(slot, b, pos);
    MaskRow(row, c.vocab.mask, V);
    c.processors.Apply(ctx, row);
    c.ApplyCallProcessors(slot, b, pos, row);
    uint32_t token = 0;
    const bool forced = c.Forced(b, pos, &token);
    if (!forced) {
      const int64_t eos_col = c.vocab.Index(c.eos);
      if (eos_col >= 0) row[eos_col] = -INFINITY;
      for (uint32_t t : c.end_tokens)  // every end token, as CTranslate2's expansion disables its end ids
        if (const int64_t col = c.vocab.Index(t); col >= 0) row[col] = -INFINITY;
      const float lse = LogSumExp(row, V);
      uint32_t cols[kMaxBeam];
      size_t m = 0;
      for (size_t v = 0; v < V && std::isfinite(lse); ++v) {  // the k best finite columns, descending
        if (!std::isfinite(row[v]) || (m == out_.k && !(row[v] > row[cols[m - 1]]))) continue;
        size_t at = m < out_.k ? m++ : m - 1;
        while (at > 0 && row[cols[at - 1]] < row[v]) cols[at] = cols[at - 1], --at;
        cols[at] = static_cast<uint32_t>(v);
      }
      for (size_t j = 0; j < m; ++j) {
        out_.token[input * out_.stride + j] = c.vocab.Token(cols[j]);
        out_.logprob[input * out_.stride + j] = row[cols[j]] - lse;
      }
      out_.count[input] = static_cast<uint32_t>(m);
      token = m ? c.vocab.Token(cols[0]) : c.eos;
    }
    const size_t at = slot * T + pos;
    S.track.token[at] = token;
    S.track.kv_slot[at] = static_cast<uint32_t>(slot);
    S.track.logprob[at] = 0.f;
    S.track.source[at] = S.row_source[i];
    S.track.constraint[at] = 0;
    if (!forced || pos + 1 >= ctx.max_len) {
      c.hyps.Add(b, S.track, slot, static_cast<uint32_t>(pos + 1), false, 0.f);
      S.done[b] = 1;
    }
  }
}

}  // namespace tern
