#include "search/search.h"

#include "batch.h"

#include <algorithm>
#include <cstring>

namespace tern {
namespace {

// Writes the n-best hypotheses of every sentence to the result buffers (by input index).
void Finish(SearchContext& c, size_t ns) {
  const size_t T = c.dims.tgt;
  for (size_t b = 0; b < ns; ++b) {
    const size_t input = c.in.order[b];
    const uint32_t count = c.hyps.count(b);
    uint32_t idx[64];  // count <= beam <= 64 (ResolveDims)
    c.hyps.Ranked(b, idx);
    const uint32_t k_out = std::min<uint32_t>(c.opt.n_best, count);
    for (uint32_t k = 0; k < k_out; ++k) {
      const uint32_t h = idx[k];
      uint32_t* ids = c.out.out_ids + (input * c.dims.n_best + k) * T;
      const uint32_t len = c.hyps.length(b, h);
      std::memcpy(ids, c.hyps.tokens(b, h), len * sizeof(uint32_t));
      Hypothesis& out = c.out.hypotheses[input * c.dims.n_best + k];
      out.text = {};
      out.ids = Span<const uint32_t>(ids, len);
      out.score = c.opt.want_scores ? c.hyps.score(b, h) : 0.f;
      c.prof.profile.generated_tokens += len;
    }
    TranslationResult& r = c.out.results[input];
    r.error = StatusCode::kOk;
    r.error_message = {};
    r.hypotheses = Span<const Hypothesis>(c.out.hypotheses + input * c.dims.n_best, k_out);
  }
}

}  // namespace

Status RunSearch(SearchContext& c, size_t ns, StepDecoder& decoder) {
  SearchBuffers& S = c.s;
  const size_t T = c.dims.tgt, B = c.opt.beam;
  c.n_sentences = ns;
  for (size_t b = 0; b < ns; ++b) S.done[b] = 0;
  c.hyps.Reset(ns);
  for (size_t pos = 0; pos < T; ++pos) {
    // Active rows: every live beam of every unfinished sentence (only beam 0 at step 0: transformers gives
    // the other beams -1e9, which is the same thing).
    size_t n = 0;
    for (size_t b = 0; b < ns; ++b) {
      if (S.done[b]) continue;
      const size_t live = pos == 0 ? 1 : B;
      for (size_t j = 0; j < live; ++j) {
        const size_t slot = b * B + j;
        S.active[n] = static_cast<uint32_t>(slot);
        S.active_sentence[n] = static_cast<uint32_t>(b);
        S.step_tokens[n] = pos == 0 ? c.start : S.tokens[slot * T + pos - 1];
        if (pos == 0) S.beam_scores[slot] = 0.f;
        ++n;
      }
    }
    if (n == 0) break;
    if (c.stream && c.stream->Stopped()) break;  // the token callback or the abort callback
    StepRows rows;
    rows.n = n;
    rows.slots = S.active;
    rows.sentences = S.active_sentence;
    rows.tokens = S.step_tokens;
    rows.ancestry = S.anc;
    auto logits = decoder.Decode(pos, rows, c.vocab);
    if (!logits.ok()) return logits.status();
    c.logits = logits.value();
    if (B == 1) {
      GreedyStep(c, n, pos);
    } else {
      BeamStep(c, n, pos);
    }
  }
  Finish(c, ns);
  if (c.stream && c.stream->stopped()) {
    for (size_t b = 0; b < ns; ++b)
      if (!S.done[b]) SetSentenceError(c.out, c.in, c.in.order[b], StatusCode::kCancelled, "cancelled by the caller");
    return Status(StatusCode::kCancelled, "cancelled");  // short: no allocation (small-string)
  }
  return Status::Ok();
}

}  // namespace tern
