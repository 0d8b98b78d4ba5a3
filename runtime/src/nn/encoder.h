// The encoder over a packed batch and the cross-attention K/V of its output.
#pragma once

#include <cstddef>

#include "base/profiler.h"
#include "nn/activations.h"
#include "nn/decoder.h"
#include "nn/network.h"

namespace tern {

/// Runs the encoder on the n_sentences sources packed as `ids` (sentence b's tokens at rows in.off[b] ..
/// in.off[b] + in.len[b], no padding rows, so the source padding mask is implicit), then writes every
/// decoder layer's cross-attention K|V of its output to dec.cross_kv [dec_layers, src_rows, 2 d_model]:
/// computed once per source sentence and shared by all of its beams; the K|V of packed row r goes to
/// cross_kv row cross_row0 + r (continuous batching encodes one sentence into its slot's rows).
/// Error: kInternal (XNNPACK).
Status Encode(const Network& net, const Model& model, size_t n_sentences, const uint32_t* ids, const SourceRanges& in,
              const EncoderBuffers& enc, const DecoderBuffers& dec, size_t src_rows, Profiler& prof, size_t cross_row0 = 0);

}  // namespace tern
