// The encoder over a packed batch (sentence b's tokens at rows src_off[b] .. src_off[b] + src_len[b],
// no padding rows, so the source padding mask is implicit) and the cross-attention K/V projection of
// its output, computed once per source sentence and shared by all of its beams.
#include <cmath>

#include "kernels.h"
#include "translator_impl.h"

namespace tern {

Status Translator::Impl::Encode(size_t n_sentences) {
  const auto t0 = Tick();
  const Dims& D = dims;
  ArenaViews& A = a;
  const size_t d = D.d, dh = D.head_dim, H = D.heads;
  const size_t n = A.src_off[n_sentences - 1] + A.src_len[n_sentences - 1];  // packed rows
  const float scale = 1.f / std::sqrt(static_cast<float>(dh));
  const bool pre = hp->norm_placement == NormPlacement::kPreNorm;
  const float eps = hp->layer_norm_epsilon;
  const float* pos = model->positions(false);

  // x = embed_tokens(ids) * embedding_scale + positions (positions from 0 in each sentence).
  for (size_t b = 0; b < n_sentences; ++b)
    for (size_t p = 0; p < A.src_len[b]; ++p) {
      const size_t r = A.src_off[b] + p;
      EmbedRow(*encoder_embedding, A.src_ids[r], hp->embedding_scale, pos + p * d, A.enc_x + r * d);
    }

  for (const EncoderLayer& L : encoder) {
    // Self-attention: every query of a sentence attends over that sentence's keys only (no padding rows).
    TERN_RETURN_IF_ERROR(RunLinear(L.qkv, SublayerInput(A.enc_x, L.self_attn_norm, n, A.enc_h), n, A.enc_qkv, A.enc_quant));
    for (size_t b = 0; b < n_sentences; ++b) {
      const size_t off = A.src_off[b], len = A.src_len[b];
      for (size_t i = 0; i < len; ++i) {
        const float* q = A.enc_qkv + (off + i) * 3 * d;
        for (size_t h = 0; h < H; ++h) {
          const float* k = A.enc_qkv + off * 3 * d + d + h * dh;
          AttendRow(q + h * dh, k, k + d, 3 * d, len, dh, scale, A.scores, A.enc_ctx + (off + i) * d + h * dh);
        }
      }
    }
    TERN_RETURN_IF_ERROR(ResidualOut(L.out, A.enc_ctx, L.self_attn_norm, n, A.enc_x, A.enc_h, A.enc_quant));
    TERN_RETURN_IF_ERROR(FeedForward(L.fc1, L.fc2, L.final_norm, n, A.enc_x, A.enc_h, A.enc_ffn, A.enc_quant));
  }
  if (pre) LayerNorm(A.enc_x, encoder_final_norm.gamma, encoder_final_norm.beta, eps, n, d, A.enc_x);
  Tock(t0, &profile.encoder_ms);

  // Cross-attention K|V of every decoder layer: [n, 2 d] per layer, quantizing the encoder output once.
  const auto t1 = Tick();
  for (size_t l = 0; l < decoder.size(); ++l) {
    const Linear& kv = decoder[l].cross_kv;
    float* out = A.cross_kv + l * D.src_rows * 2 * d;
    if (kv.quantized() && l == 0) TERN_RETURN_IF_ERROR(quantizer.Run(A.enc_x, n, d, A.enc_quant, pool.get()));
    TERN_RETURN_IF_ERROR(kv.Run(A.enc_x, A.enc_quant, n, out, pool.get()));
  }
  Tock(t1, &profile.cross_kv_ms);
  return Status::Ok();
}

}  // namespace tern
