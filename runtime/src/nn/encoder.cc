#include "model/model_impl.h"
#include "nn/encoder.h"

#include <algorithm>
#include <cmath>

#include "kernels/kernels.h"

namespace tern {

using format::LinearOp;
using format::NormOp;

Status Encode(const Network& net, const Model& model, size_t ns, const uint32_t* ids, const SourceRanges& in,
              const EncoderBuffers& E, const DecoderBuffers& dec, size_t src_rows, Profiler& prof, size_t cross_row0) {
  float* scores = dec.attention;
  const auto t0 = prof.Tick();
  const Hyperparameters& hp = net.hp();
  const size_t d = hp.d_model, dh = hp.head_dim, H = hp.n_heads;
  const size_t n = in.off[ns - 1] + in.len[ns - 1];  // packed rows
  const float scale = 1.f / std::sqrt(static_cast<float>(dh));
  size_t longest = 0;
  for (size_t b = 0; b < ns; ++b) longest = std::max<size_t>(longest, in.len[b]);
  const float* pos = model.impl().positions(false, longest);
  const QuantScratch q = E.quant.scratch();

  // x = embed_tokens(ids) * embedding_scale + positions (positions from 0 in each sentence).
  for (size_t b = 0; b < ns; ++b)
    for (size_t p = 0; p < in.len[b]; ++p) {
      const size_t r = in.off[b] + p;
      EmbedRow(net.encoder_embedding(), ids[r], hp.embedding_scale, pos + p * d, E.x + r * d);
    }

  for (const Layer& L : net.encoder()) {
    // Self-attention: every query of a sentence attends over that sentence's keys only.
    TERN_RETURN_IF_ERROR(net.RunLinear(L.op(LinearOp::kSelfQkv), net.SublayerInput(E.x, L.ln(NormOp::kSelfAttn), n, E.h), n, E.qkv, q));
    for (size_t b = 0; b < ns; ++b) {
      const size_t off = in.off[b], len = in.len[b];
      for (size_t i = 0; i < len; ++i) {
        const float* qrow = E.qkv + (off + i) * 3 * d;
        for (size_t h = 0; h < H; ++h) {
          const float* k = E.qkv + off * 3 * d + d + h * dh;
          AttendRow(qrow + h * dh, k, k + d, 3 * d, len, dh, scale, scores, E.ctx + (off + i) * d + h * dh);
        }
      }
    }
    TERN_RETURN_IF_ERROR(net.ResidualOut(L.op(LinearOp::kSelfOut), E.ctx, L.ln(NormOp::kSelfAttn), n, E.x, E.h, q));
    TERN_RETURN_IF_ERROR(net.FeedForward(L.op(LinearOp::kFc1), L.op(LinearOp::kFc2), L.ln(NormOp::kFinal), n, E.x, E.h, E.ffn, q));
  }
  if (hp.norm_placement == NormPlacement::kPreNorm) {
    const LayerNormParams& f = net.encoder_final_norm();
    LayerNorm(E.x, f.gamma, f.beta, hp.layer_norm_epsilon, n, d, E.x);
  }
  prof.Tock(t0, &prof.profile.encoder_ms);

  // Cross-attention K|V of every decoder layer: [n, 2 d] per layer, quantizing the encoder output once.
  const auto t1 = prof.Tick();
  for (size_t l = 0; l < net.decoder().size(); ++l) {
    const Linear& kv = net.decoder()[l].op(LinearOp::kCrossKv);
    float* out = dec.cross_kv + (l * src_rows + cross_row0) * 2 * d;
    if (kv.quantized() && l == 0) TERN_RETURN_IF_ERROR(net.Quantize(E.x, n, d, q));
    TERN_RETURN_IF_ERROR(kv.Run(E.x, q, n, out, net.pool()));
  }
  prof.Tock(t1, &prof.profile.cross_kv_ms);
  return Status::Ok();
}

}  // namespace tern
