// The network's arena buffers (memory/arena.h): the encoder's and the decoder's activations, the KV cache,
// and the row-quantized copies int8 weights read. Declared by Declare*Buffers from Dims; the session plans
// them with the other components' buffers.
#pragma once

#include <cstdint>

#include "memory/arena.h"
#include "memory/dims.h"
#include "nn/xnn_ops.h"

namespace tern {

/// Row-quantized copy of a batch of activations (int8 weights): the QuantScratch of xnn_ops.h.
struct QuantBuffers {
  ArenaArray<int8_t> q;                          // [rows x max(d_model, ffn_dim)] + XNN_EXTRA_BYTES
  ArenaArray<xnn_quantization_params> params;    // [rows + XNN_EXTRA_QUANTIZATION_PARAMS]
  ArenaArray<int32_t> chunk_sums;                // [rows x ceil(max(d_model, ffn_dim) / 32)] (4-bit GEMM)
  QuantScratch scratch() const { return {q.data(), params.data(), chunk_sums.data()}; }
};

/// Encoder activations (encoder.cc).
struct EncoderBuffers {
  ArenaArray<float> x;     // [src_rows, d] (lives into the cross-K/V phase: its input)
  ArenaArray<float> h;     // [src_rows, d]
  ArenaArray<float> qkv;   // [src_rows, 3 d]
  ArenaArray<float> ctx;   // [src_rows, d]
  ArenaArray<float> ffn;   // [src_rows, ffn]
  QuantBuffers quant;      // [src_rows, max(d, ffn)]
};

/// Decoder state and activations (decoder.cc).
struct DecoderBuffers {
  ArenaArray<float> self_k, self_v;  // KV cache [dec_layers, rows, heads, tgt, head_dim]
  ArenaArray<float> cross_kv;        // [dec_layers, src_rows, 2 d]: K | V of every source token
  ArenaArray<uint32_t> kv_offsets;   // [tgt] per-position offsets into the KV cache for one row
  ArenaArray<float> x, h;            // [rows, d]
  ArenaArray<float> qkv;             // [rows, 3 d]
  ArenaArray<float> q, ctx;          // [rows, d]
  ArenaArray<float> ffn;             // [rows, ffn]
  ArenaArray<float> logits;          // [rows, vocab]
  ArenaArray<float> logits_max;      // [rows] each logits row's largest value
  ArenaArray<float> attention;       // [max(src, tgt + 1)] one attention row's scores (encoder and decoder)
  ArenaArray<float> alignment_sum;   // [src] one row's cross-attention summed over heads (alignment)
  ArenaArray<int32_t> alignment;     // [rows] the source position each row attends to most (alignment)
  QuantBuffers quant;                // [rows, max(d, ffn)]
};

/// Declares the network's buffers in `plan` (64-bit counts).
void DeclareNetworkBuffers(const Dims& d, EncoderBuffers* enc, DecoderBuffers* dec, ArenaPlan* plan);

/// Declares encoder buffers for one sentence ([src, ...] rows) that live through the decoder phase
/// (continuous batching encodes a joining sentence between decoder steps).
void DeclareSentenceEncoderBuffers(const Dims& d, EncoderBuffers* enc, ArenaPlan* plan);

}  // namespace tern
