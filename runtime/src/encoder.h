// The encoder over a packed batch and the cross-attention K/V of its output.
#pragma once

#include <cstddef>

#include "buffers.h"
#include "network.h"
#include "profiler.h"

namespace tern {

/// Runs the encoder on the n_sentences sources packed in `in` (sentence b's tokens at rows src_off[b] ..
/// src_off[b] + src_len[b], no padding rows, so the source padding mask is implicit), then writes every
/// decoder layer's cross-attention K|V of its output to dec.cross_kv [dec_layers, src_rows, 2 d_model]:
/// computed once per source sentence and shared by all of its beams. `scores`: [max source tokens].
/// Error: kInternal (XNNPACK).
Status Encode(const Network& net, const Model& model, size_t n_sentences, const BatchBuffers& in, const EncoderBuffers& enc,
              const DecoderBuffers& dec, float* scores, size_t src_rows, Profiler& prof);

}  // namespace tern
