#include "search/continuous.h"

namespace tern {
namespace {

// Hands every running sentence over as cancelled (the call stops or fails).
void CancelRunning(SearchContext& c, size_t slots, SentenceSlots& feed) {
  for (size_t b = 0; b < slots; ++b)
    if (!c.s.done[b]) {
      c.s.done[b] = 1;
      feed.Finished(b, /*cancelled=*/true);
    }
}

}  // namespace

Status RunContinuous(SearchContext& c, size_t slots, StepDecoder& decoder, SearchStrategy& strategy, SentenceSlots& feed,
                     const ContinuousBuffers& cb) {
  SearchBuffers& S = c.s;
  const size_t T = c.dims.tgt, B = c.opt.beam;
  c.n_sentences = slots;
  c.start_step = cb.start_step;
  for (size_t b = 0; b < slots; ++b) S.done[b] = 1;  // free
  for (size_t step = 0;; ++step) {
    // Free slots take waiting sentences, which start at their position 0.
    for (size_t b = 0; b < slots; ++b) {
      if (!S.done[b]) continue;
      Result<bool> admitted = feed.Admit(b);
      if (!admitted.ok()) {
        CancelRunning(c, slots, feed);
        return admitted.status();
      }
      if (!admitted.value()) break;
      S.done[b] = 0;
      cb.start_step[b] = static_cast<uint32_t>(step);
      c.hyps.ResetSentence(b);
    }
    size_t n = 0;
    for (size_t b = 0; b < slots; ++b) {
      if (S.done[b]) continue;
      const size_t pos = c.Pos(b, step), live = strategy.LiveRows(c, b, pos);
      for (size_t j = 0; j < live; ++j) {
        const size_t slot = b * B + j;
        S.active[n] = static_cast<uint32_t>(slot);
        S.active_sentence[n] = static_cast<uint32_t>(b);
        S.step_tokens[n] = pos == 0 ? c.start : S.track.token[slot * T + pos - 1];
        cb.positions[n] = static_cast<uint32_t>(pos);
        if (pos == 0) S.beam_scores[slot] = 0.f;
        ++n;
      }
    }
    if (n == 0) return Status::Ok();
    if (c.stream && c.stream->Stopped()) {
      CancelRunning(c, slots, feed);
      return Status(StatusCode::kCancelled, "cancelled");
    }
    StepRequest req;
    req.positions = cb.positions;
    req.n = n;
    req.slots = S.active;
    req.sentences = S.active_sentence;
    req.tokens = S.step_tokens;
    req.ancestry = S.track.kv_slot;
    req.columns = &c.vocab;
    req.want_alignment = c.opt.want_alignment;
    Result<StepOutput> out = decoder.Decode(req);
    if (!out.ok()) {
      CancelRunning(c, slots, feed);
      return out.status();
    }
    c.logits = out.value().logits;
    for (size_t i = 0; i < n; ++i) S.row_source[i] = out.value().alignment ? out.value().alignment[i] : -1;
    strategy.Step(c, n, step);
    // Sentences that ended at this step (each ran at least one row) leave their slots.
    for (size_t i = 0; i < n; ++i) {
      const size_t b = S.active_sentence[i];
      if ((i > 0 && S.active_sentence[i - 1] == b) || !S.done[b]) continue;
      FinishSentence(c, b);
      feed.Finished(b, /*cancelled=*/false);
    }
  }
}

}  // namespace tern
