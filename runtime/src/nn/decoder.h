// One incremental decoder step for the rows the search is extending.
//
// KV cache layout per decoder layer: [rows, n_heads, max_target_tokens, head_dim] for K and for V. Row
// slot s writes position p at step p only. A hypothesis' earlier positions live in the slots of its
// ancestors: ancestry[s * max_target_tokens + p] names the slot that holds position p, so reordering
// beams copies small index rows (ancestry, tokens), never K/V.
#pragma once

#include <cstddef>
#include <cstdint>

#include "base/profiler.h"
#include "memory/dims.h"
#include "nn/activations.h"
#include "nn/network.h"

namespace tern {

/// Where each sentence's encoder rows are: sentence b (length order) at rows off[b] .. off[b] + len[b].
struct SourceRanges {
  const uint32_t* off = nullptr;
  const uint32_t* len = nullptr;
};

/// The rows decoded in one step.
struct DecodeRows {
  size_t pos = 0;                        // the position decoded (0: the decoder start token)
  const uint32_t* positions = nullptr;   // [n] continuous batching: each row's own position (nullptr: pos)
  size_t n = 0;                          // rows
  const uint32_t* slots = nullptr;       // [n] KV-cache slot of each row
  const uint32_t* sentences = nullptr;   // [n] sentence of each row (its source: SourceRanges)
  const uint32_t* tokens = nullptr;      // [n] input token of each row
  const uint32_t* ancestry = nullptr;    // [rows, max_target_tokens] slot holding position p of slot s's hypothesis
  OutputColumns columns;                 // the logits' columns
  int alignment_layer = -1;              // >= 0: write dec.alignment from this decoder layer's cross-attention
  float* attention = nullptr;            // with alignment_layer: [n, attention_stride] that layer's cross-attention
  size_t attention_stride = 0;           //   averaged over heads, each row's source positions (the rest untouched)
  float* coverage_attention = nullptr;   // [n, attention_stride]: the last layer's first head's cross-attention
};

/// Embeds each row's input token at position `pos`, appends its self-attention K/V to the KV cache and
/// attends over the cache (causal by construction: only positions <= pos exist), attends over its
/// sentence's cross-attention K/V, and writes logits [rows.n, columns] to dec.logits, and each row's largest
/// logit to dec.logits_max[rows.n] when net.LogitsMaxFused(rows.columns). With an alignment
/// layer, dec.alignment[i] is the source position row i attends to most in that layer's cross-attention,
/// the attention probabilities summed over its heads, the source's final </s> left out (ties: the first
/// position). Error: kInternal (XNNPACK).
Status DecodeStep(const Network& net, const Model& model, const Dims& dims, const DecodeRows& rows,
                  const SourceRanges& src, const DecoderBuffers& dec, Profiler& prof);

}  // namespace tern
