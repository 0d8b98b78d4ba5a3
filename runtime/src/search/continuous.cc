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
    const size_t n = ActiveRows(c, slots, step, strategy, cb.positions);
    if (n == 0) return Status::Ok();
    if (c.stream && c.stream->Stopped()) {
      CancelRunning(c, slots, feed);
      return Status(StatusCode::kCancelled, "cancelled");
    }
    if (Status st = DecodeAndStep(c, n, step, decoder, strategy, cb.positions); !st.ok()) {
      CancelRunning(c, slots, feed);
      return st;
    }
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
