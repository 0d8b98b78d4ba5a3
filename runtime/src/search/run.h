// The search's one loop (search/search.h's stages over sentence slots): a batch staged before the search
// (BatchSlots), or continuous batching, where a slot whose sentence ended takes a waiting one at the next step
// (session/continuous_call.cc's feed). Static and continuous calls run the same loop. Nothing here allocates.
#pragma once

#include <cstddef>
#include <cstdint>

#include "search/search.h"

namespace tern {

/// Where a search's sentences come from and go to. Slot b of the batch holds one sentence at a time: its
/// rows are beam slots b x beam .. b x beam + beam - 1 (their KV cache and track rows) and its cross-
/// attention rows.
class SentenceSlots {
 public:
  virtual ~SentenceSlots() = default;
  /// Fills free slot b with a waiting sentence, staged and encoded, with c.in's entries for b written
  /// (order[b], max_len, src_len). Returns false when none waits now (asked again at the next step, where
  /// sentences may join late: SlotSteps). Error: the encoder's (kInternal), which ends the search.
  virtual Result<bool> Admit(size_t b) = 0;
  /// Sentence b ended: its result is at input index c.in.order[b] of c.out (FinishSentence), or,
  /// `cancelled`, the call stopped or failed before it ended. The slot is free once this returns.
  virtual void Finished(size_t b, bool cancelled) = 0;
};

/// A batch staged before the search: slots 0..n-1 hold sentences 0..n-1 (length order), all at step 0. A
/// sentence cancelled before it ended gets what it has (FinishSentence: its finished hypotheses, if any);
/// the session reports it as cancelled (c.s.done[b] is 0).
class BatchSlots final : public SentenceSlots {
 public:
  BatchSlots(SearchContext& c, size_t n) : c_(c), n_(n) {}
  Result<bool> Admit(size_t b) override { return b < n_; }
  void Finished(size_t b, bool cancelled) override {
    if (cancelled) FinishSentence(c_, b);
  }

 private:
  SearchContext& c_;
  size_t n_;
};

/// Continuous batching (issue 38; the "iteration-level scheduling" of Orca, Yu et al., OSDI 2022): a slot
/// whose sentence ended takes a waiting sentence at the next step, which joins the running batch at its own
/// position 0. Each row is decoded at its own position (DecodeRows::positions): a row's arithmetic is the
/// same whichever rows run beside it, so a sentence's tokens and scores do not depend on when it joined
/// (tests/test_continuous.cc). Both null: every sentence joins at step 0 (free slots are offered to the feed
/// at step 0 only) and all rows run at the step's position.
struct SlotSteps {
  uint32_t* start_step = nullptr;  // [slots] the step at which each slot's sentence joined
  uint32_t* positions = nullptr;   // [slots x beam] each active row's position at this step
};

/// The search, one loop for every call: each step fills free slots (feed.Admit), decodes every live row
/// (ActiveRows, DecodeAndStep), then writes each sentence that ended (FinishSentence) and hands it to
/// feed.Finished; it returns when no sentence runs and none waits. Stops early when c.stream says so (the
/// token callback or the abort check): the running sentences are handed over as cancelled and it returns
/// kCancelled (also when the last token's callback stopped it). Errors: the decoder's and Admit's (the
/// running sentences are handed over as cancelled first); kInternal if a sentence passed dims.tgt
/// positions (every strategy ends a sentence at its cap, c.in.max_len <= dims.tgt). Nothing allocates.
Status RunSearch(SearchContext& c, size_t slots, StepDecoder& decoder, SearchStrategy& strategy, SentenceSlots& feed,
                 const SlotSteps& steps = {});

}  // namespace tern
