// Continuous batching (issue 38; the "iteration-level scheduling" of Orca, Yu et al., OSDI 2022): a
// sentence slot whose sentence finished takes a waiting sentence at the next step, which joins the running
// batch at its own position 0 instead of waiting for the batch's longest sentence to end.
//
// Slot b owns beam slots b x beam .. b x beam + beam - 1 (their KV cache and track rows) and its cross-
// attention rows (the session's). Each row is decoded at its own position (DecodeRows::positions): a row's
// arithmetic is the same whichever rows run beside it, so a sentence's tokens and scores do not depend on
// when it joined (tests/test_continuous.cc checks int8 and f32, greedy and beam). Nothing here allocates.
#pragma once

#include <cstddef>
#include <cstdint>

#include "search/search.h"

namespace tern {

/// Where the sentences of a continuous search come from and go to (the session).
class SentenceSlots {
 public:
  virtual ~SentenceSlots() = default;
  /// Fills free slot b with a waiting sentence: stages and encodes it and writes c.in's entries for b
  /// (order[b] = b, max_len, src_len). Returns false when none waits now (asked again at the next step).
  /// Error: the encoder's (kInternal), which ends the search.
  virtual Result<bool> Admit(size_t b) = 0;
  /// Sentence b ended: its result is at input index b of c.out (FinishSentence), or, `cancelled`, the call was
  /// stopped before it ended. The slot is free once this returns.
  virtual void Finished(size_t b, bool cancelled) = 0;
};

/// The buffers a continuous search needs besides SearchBuffers.
struct ContinuousBuffers {
  uint32_t* start_step = nullptr;  // [slots] the step at which each slot's sentence joined
  uint32_t* positions = nullptr;   // [slots x beam] each active row's position at this step
};

/// Runs `strategy` over `slots` sentence slots until no sentence runs and none waits: each step first
/// fills free slots (feed.Admit), then decodes every live row at its own position, then hands each sentence
/// that ended to feed.Finished. Stops early when c.stream's abort check says so (every running sentence
/// is handed over as cancelled; returns kCancelled). Errors: the decoder's and Admit's (the running
/// sentences are handed over as cancelled first).
Status RunContinuous(SearchContext& c, size_t slots, StepDecoder& decoder, SearchStrategy& strategy, SentenceSlots& feed,
                     const ContinuousBuffers& buffers);

}  // namespace tern
