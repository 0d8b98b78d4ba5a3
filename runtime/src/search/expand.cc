#include "search/expand.h"

#include <cmath>

#include "kernels/kernels.h"

namespace tern {

void ExpandSearch::Step(SearchContext& c, size_t n, size_t pos) {
  SearchBuffers& S = c.s;
  const size_t T = c.dims.tgt, V = c.vocab.size;
  // The one pipeline (logits_pipeline.h): mask, the file's rules, the call's, every end token banned.
  ProcessRows(c, LogitsPipeline::For(c, RowPass::kExpansion), n, pos);
  for (size_t i = 0; i < n; ++i) {
    const size_t slot = S.active[i], b = S.active_sentence[i], input = c.in.order[b];
    float* row = c.logits + i * V;
    uint32_t token = 0;
    const bool forced = c.Forced(b, pos, &token);
    if (!forced) {
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
    if (!forced || pos + 1 >= c.in.max_len[b]) {
      c.hyps.Add(b, S.track, slot, static_cast<uint32_t>(pos + 1), false, 0.f);
      S.done[b] = 1;
    }
  }
}

}  // namespace tern
