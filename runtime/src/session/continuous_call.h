// Translator::TranslateContinuous (tern/continuous.h): the session's side of continuous batching. Slot b of
// the batch holds one sentence at a time: its source ids at staged_ids / src_ids [b x src], its cross-
// attention K/V at rows b x src, its beam slots b x beam ..; a joining sentence is encoded alone with
// encoder buffers of its own that live through decoding (so encoding never clobbers the running decoder's
// state), and search/search.h's RunSearch runs the steps as for any call. Planned only with TranslatorConfig::continuous_batching.
#pragma once

#include <cstddef>
#include <cstdint>

#include "memory/arena.h"
#include "memory/dims.h"
#include "nn/activations.h"
#include "tern/continuous.h"
#include "session/call.h"
#include "tern/translator.h"

namespace tern {

/// The continuous call's arena buffers.
struct ContinuousCallBuffers {
  EncoderBuffers enc;                // one sentence's encoder activations [src, ...], live through decoding
  ArenaArray<uint32_t> start_step;   // [batch] the decoder step at which each slot's sentence joined
  ArenaArray<uint32_t> positions;    // [rows] each active row's position at this step
  ArenaArray<uint64_t> tags;         // [batch] the caller's tag of each slot's sentence
  ArenaArray<uint8_t> by_ids;        // [batch] 1: the slot's sentence was given as ids (no detokenizing)
  ArenaArray<uint8_t> aligned;       // [batch] 1: the slot's sentence reports its alignment (return_alignment,
                                     // or a text whose spans auto_protect keeps: they go back by it)
};

/// Declares them (counts in 64 bits).
void DeclareContinuousBuffers(const Dims& d, ContinuousCallBuffers* b, ArenaPlan* plan);

/// Translator::TranslateContinuous after the busy flag is taken (errors: tern/translator.h).
/// The call's options are *call.options (the request's).
Status TranslateContinuous(Translator::Impl& t, Call& call, SentenceSource& source);

}  // namespace tern
