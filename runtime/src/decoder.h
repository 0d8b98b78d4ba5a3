// One incremental decoder step for the rows the search is extending.
//
// KV cache layout per decoder layer: [rows, n_heads, max_target_tokens, head_dim] for K and for V. Row
// slot s writes position p at step p only. A hypothesis' earlier positions live in the slots of its
// ancestors: ancestry[s * max_target_tokens + p] names the slot that holds position p, so reordering
// beams copies small index rows (ancestry, tokens), never K/V.
#pragma once

#include <cstddef>
#include <cstdint>

#include "buffers.h"
#include "network.h"
#include "profiler.h"
#include "search/vocab_map.h"

namespace tern {

/// The rows decoded in one step.
struct StepRows {
  size_t n = 0;                          // rows
  const uint32_t* slots = nullptr;       // [n] KV-cache slot of each row
  const uint32_t* sentences = nullptr;   // [n] sentence of each row (length order: its source is in_.src_off/src_len)
  const uint32_t* tokens = nullptr;      // [n] input token of each row
  const uint32_t* ancestry = nullptr;    // [rows, max_target_tokens] slot holding position p of slot s's hypothesis
};

/// Embeds each row's input token at position `pos`, appends its self-attention K/V to the KV cache and
/// attends over the cache (causal by construction: only positions <= pos exist), attends over its
/// sentence's cross-attention K/V, and writes logits [rows.n, vocab.size] over the columns of `vocab` to
/// dec.logits. `scores`: attention scratch of max(src, pos + 1) floats. Error: kInternal (XNNPACK).
Status DecodeStep(const Network& net, const Model& model, const Dims& dims, size_t pos, const StepRows& rows,
                  const VocabMap& vocab, const BatchBuffers& in, const DecoderBuffers& dec, float* scores, Profiler& prof);

}  // namespace tern
