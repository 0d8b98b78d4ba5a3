#include "encoder.h"

#include <cmath>

#include "kernels.h"

namespace tern {

Status Encode(const Network& net, const Model& model, size_t ns, const BatchBuffers& in, const EncoderBuffers& E,
              const DecoderBuffers& dec, float* scores, size_t src_rows, Profiler& prof) {
  const auto t0 = prof.Tick();
  const Hyperparameters& hp = net.hp();
  const size_t d = hp.d_model, dh = hp.head_dim, H = hp.n_heads;
  const size_t n = in.src_off[ns - 1] + in.src_len[ns - 1];  // packed rows
  const float scale = 1.f / std::sqrt(static_cast<float>(dh));
  const float* pos = model.positions(false);
  const QuantScratch q = E.quant.scratch();

  // x = embed_tokens(ids) * embedding_scale + positions (positions from 0 in each sentence).
  for (size_t b = 0; b < ns; ++b)
    for (size_t p = 0; p < in.src_len[b]; ++p) {
      const size_t r = in.src_off[b] + p;
      EmbedRow(net.encoder_embedding(), in.src_ids[r], hp.embedding_scale, pos + p * d, E.x + r * d);
    }

  for (const EncoderLayer& L : net.encoder()) {
    // Self-attention: every query of a sentence attends over that sentence's keys only.
    TERN_RETURN_IF_ERROR(net.RunLinear(L.qkv, net.SublayerInput(E.x, L.self_attn_norm, n, E.h), n, E.qkv, q));
    for (size_t b = 0; b < ns; ++b) {
      const size_t off = in.src_off[b], len = in.src_len[b];
      for (size_t i = 0; i < len; ++i) {
        const float* qrow = E.qkv + (off + i) * 3 * d;
        for (size_t h = 0; h < H; ++h) {
          const float* k = E.qkv + off * 3 * d + d + h * dh;
          AttendRow(qrow + h * dh, k, k + d, 3 * d, len, dh, scale, scores, E.ctx + (off + i) * d + h * dh);
        }
      }
    }
    TERN_RETURN_IF_ERROR(net.ResidualOut(L.out, E.ctx, L.self_attn_norm, n, E.x, E.h, q));
    TERN_RETURN_IF_ERROR(net.FeedForward(L.fc1, L.fc2, L.final_norm, n, E.x, E.h, E.ffn, q));
  }
  if (hp.norm_placement == NormPlacement::kPreNorm) {
    const LayerNormParams& f = net.encoder_final_norm();
    LayerNorm(E.x, f.gamma, f.beta, hp.layer_norm_epsilon, n, d, E.x);
  }
  prof.Tock(t0, &prof.profile.encoder_ms);

  // Cross-attention K|V of every decoder layer: [n, 2 d] per layer, quantizing the encoder output once.
  const auto t1 = prof.Tick();
  for (size_t l = 0; l < net.decoder().size(); ++l) {
    const Linear& kv = net.decoder()[l].cross_kv;
    float* out = dec.cross_kv + l * src_rows * 2 * d;
    if (kv.quantized() && l == 0) TERN_RETURN_IF_ERROR(net.Quantize(E.x, n, d, q));
    TERN_RETURN_IF_ERROR(kv.Run(E.x, q, n, out, net.pool()));
  }
  prof.Tock(t1, &prof.profile.cross_kv_ms);
  return Status::Ok();
}

}  // namespace tern
