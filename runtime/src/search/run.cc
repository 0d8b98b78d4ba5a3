#include "search/run.h"

namespace tern {

namespace {

// Hands every running sentence over as cancelled (the call stops or fails).
void CancelRunning(SearchContext& c, size_t slots, SentenceSlots& feed) {
  for (size_t b = 0; b < slots; ++b)
    if (!c.s.done[b]) feed.Finished(b, /*cancelled=*/true);
}

}  // namespace

Status RunSearch(SearchContext& c, size_t slots, StepDecoder& decoder, SearchStrategy& strategy, SentenceSlots& feed,
                 const SlotSteps& steps) {
  SearchBuffers& S = c.s;
  c.n_sentences = slots;
  c.start_step = steps.start_step;
  for (size_t b = 0; b < slots; ++b) S.done[b] = 1;  // free
  for (size_t step = 0;; ++step) {
    // Free slots take waiting sentences, which start at their position 0 (a staged batch: at step 0 only).
    for (size_t b = 0; b < slots && (step == 0 || steps.start_step); ++b) {
      if (!S.done[b]) continue;
      Result<bool> admitted = feed.Admit(b);
      if (!admitted.ok()) {
        CancelRunning(c, slots, feed);
        return admitted.status();
      }
      if (!admitted.value()) break;
      S.done[b] = 0;
      if (steps.start_step) steps.start_step[b] = static_cast<uint32_t>(step);
      c.hyps.ResetSentence(b);
    }
    // Active rows: every live hypothesis of every running sentence (beam search: only beam 0 at a sentence's
    // position 0; transformers gives the other beams -1e9, which is the same thing).
    const size_t n = ActiveRows(c, slots, step, strategy, steps.positions);
    if (n == 0) {
      if (c.stream && c.stream->stopped()) return Status(StatusCode::kCancelled, "cancelled");  // short: no allocation
      return Status::Ok();
    }
    if (c.stream && c.stream->Stopped()) {  // the token callback or the abort callback
      CancelRunning(c, slots, feed);
      return Status(StatusCode::kCancelled, "cancelled");
    }
    if (Status st = DecodeAndStep(c, n, step, decoder, strategy, steps.positions); !st.ok()) {
      CancelRunning(c, slots, feed);
      return st;
    }
    // Sentences that ended at this step (each ran at least one row) leave their slots.
    for (size_t i = 0; i < n; ++i) {
      const size_t b = S.active_sentence[i];
      if (i > 0 && S.active_sentence[i - 1] == b) continue;
      if (S.done[b]) {
        FinishSentence(c, b);
        feed.Finished(b, /*cancelled=*/false);
      } else if (c.Pos(b, step) + 1 >= c.dims.tgt) {  // cannot happen: every strategy ends a sentence at its cap
        CancelRunning(c, slots, feed);
        return Status(StatusCode::kInternal, "search: a sentence ran past the planned target length");
      }
    }
  }
}

}  // namespace tern
