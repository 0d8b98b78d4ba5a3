#include "model/model_impl.h"
#include "nn/decoder.h"

#include <algorithm>
#include <cmath>

#include "kernels/kernels.h"

namespace tern {

using format::LinearOp;
using format::NormOp;

Status DecodeStep(const Network& net, const Model& model, const Dims& D, const DecodeRows& rows, const SourceRanges& in,
                  const DecoderBuffers& A, Profiler& prof) {
  const Hyperparameters& hp = net.hp();
  const size_t n = rows.n, d = D.d, dh = D.head_dim, H = D.heads, T = D.tgt;
  float* scores = A.attention;
  const float scale = 1.f / std::sqrt(static_cast<float>(dh));
  auto pos_of = [&](size_t i) -> size_t { return rows.positions ? rows.positions[i] : rows.pos; };
  size_t last = 0;
  for (size_t i = 0; i < n; ++i) last = std::max(last, pos_of(i));
  const float* positions = model.impl().positions(true, last + 1);
  const size_t head_stride = T * dh, slot_stride = H * T * dh;
  const size_t layer_kv = D.rows * slot_stride;
  const QuantScratch q = A.quant.scratch();
  Profile& P = prof.profile;

  auto t0 = prof.Tick();
  for (size_t i = 0; i < n; ++i)
    EmbedRow(net.decoder_embedding(), rows.tokens[i], hp.embedding_scale, positions + pos_of(i) * d, A.x + i * d);
  prof.Tock(t0, &P.other_ms);

  for (size_t l = 0; l < net.decoder().size(); ++l) {
    const Layer& L = net.decoder()[l];
    float* K = A.self_k + l * layer_kv;
    float* V = A.self_v + l * layer_kv;

    // Self-attention over the KV cache.
    t0 = prof.Tick();
    TERN_RETURN_IF_ERROR(net.RunLinear(L.op(LinearOp::kSelfQkv), net.SublayerInput(A.x, L.ln(NormOp::kSelfAttn), n, A.h), n, A.qkv, q));
    prof.Tock(t0, &P.decoder_linear_ms);
    t0 = prof.Tick();
    for (size_t i = 0; i < n; ++i) {
      const size_t slot = rows.slots[i], pos = pos_of(i);
      const float* qkv = A.qkv + i * 3 * d;
      for (size_t h = 0; h < H; ++h) {
        std::copy(qkv + d + h * dh, qkv + d + (h + 1) * dh, K + slot * slot_stride + h * head_stride + pos * dh);
        std::copy(qkv + 2 * d + h * dh, qkv + 2 * d + (h + 1) * dh, V + slot * slot_stride + h * head_stride + pos * dh);
      }
      const uint32_t* anc = rows.ancestry + slot * T;
      for (size_t p = 0; p < pos; ++p) A.kv_offsets[p] = static_cast<uint32_t>(anc[p] * slot_stride + p * dh);
      A.kv_offsets[pos] = static_cast<uint32_t>(slot * slot_stride + pos * dh);
      for (size_t h = 0; h < H; ++h)
        AttendGathered(qkv + h * dh, K + h * head_stride, V + h * head_stride, A.kv_offsets, pos + 1, dh, scale, scores,
                       A.ctx + i * d + h * dh);
    }
    prof.Tock(t0, &P.self_attention_ms);
    t0 = prof.Tick();
    TERN_RETURN_IF_ERROR(net.ResidualOut(L.op(LinearOp::kSelfOut), A.ctx, L.ln(NormOp::kSelfAttn), n, A.x, A.h, q));

    // Cross-attention over the sentence's encoder output.
    TERN_RETURN_IF_ERROR(net.RunLinear(L.op(LinearOp::kCrossQ), net.SublayerInput(A.x, L.ln(NormOp::kCrossAttn), n, A.h), n, A.q, q));
    prof.Tock(t0, &P.decoder_linear_ms);
    t0 = prof.Tick();
    const float* ckv = A.cross_kv + l * D.src_rows * 2 * d;
    const bool align = rows.alignment_layer == static_cast<int>(l);
    float* coverage = l + 1 == D.dec_layers ? rows.coverage_attention : nullptr;
    for (size_t i = 0; i < n; ++i) {
      const size_t b = rows.sentences[i], len = in.len[b];
      const float* k = ckv + in.off[b] * 2 * d;
      if (align) std::fill(A.alignment_sum.data(), A.alignment_sum.data() + len, 0.f);
      for (size_t h = 0; h < H; ++h) {
        AttendRow(A.q + i * d + h * dh, k + h * dh, k + d + h * dh, 2 * d, len, dh, scale, scores, A.ctx + i * d + h * dh);
        if (align) AddInPlace(A.alignment_sum, scores, len);  // scores: this head's attention probabilities
        if (coverage && h == 0) std::copy(scores, scores + len, coverage + i * rows.attention_stride);
      }
      // The source's </s> (its last token) takes much attention without translating to anything: a
      // generated token aligns to the most attended of the others (a generated </s> to the source's, Finish).
      if (align) A.alignment[i] = static_cast<int32_t>(ArgMax(A.alignment_sum, len > 1 ? len - 1 : len, 0));
      if (align && rows.attention)
        for (size_t k = 0; k < len; ++k) rows.attention[i * rows.attention_stride + k] = A.alignment_sum[k] / static_cast<float>(H);
    }
    prof.Tock(t0, &P.cross_attention_ms);
    t0 = prof.Tick();
    TERN_RETURN_IF_ERROR(net.ResidualOut(L.op(LinearOp::kCrossOut), A.ctx, L.ln(NormOp::kCrossAttn), n, A.x, A.h, q));
    TERN_RETURN_IF_ERROR(net.FeedForward(L.op(LinearOp::kFc1), L.op(LinearOp::kFc2), L.ln(NormOp::kFinal), n, A.x, A.h, A.ffn, q));
    prof.Tock(t0, &P.decoder_linear_ms);
  }
  t0 = prof.Tick();
  if (hp.norm_placement == NormPlacement::kPreNorm) {
    const LayerNormParams& f = net.decoder_final_norm();
    LayerNorm(A.x, f.gamma, f.beta, hp.layer_norm_epsilon, n, d, A.x);
  }
  TERN_RETURN_IF_ERROR(net.OutputLogits(A.x, n, rows.columns, A.logits, A.logits_max, q));
  prof.Tock(t0, &P.output_projection_ms);
  P.decoder_steps++;
  P.weight_bytes_read += net.decoder_layer_weight_bytes() + net.OutputWeightBytes(rows.columns);
  P.output_columns += rows.columns.count;
  return Status::Ok();
}

}  // namespace tern
