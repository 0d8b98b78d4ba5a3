// One incremental decoder step for the active beam rows: embeds each row's last token at position
// `pos`, appends its self-attention K/V to the KV cache and attends over the cache (causal by
// construction: only positions <= pos exist), attends over its sentence's cross-attention K/V, and
// projects to logits.
//
// KV cache layout per decoder layer: [rows, n_heads, max_target_tokens, head_dim] for K and for V.
// Row slot s writes position p at step p only. A hypothesis' earlier positions live in the slots of its
// ancestors: anc[s][p] names the slot that holds position p, so reordering beams copies small index
// rows (anc, tokens), never K/V.
#include <cmath>

#include "kernels.h"
#include "translator_impl.h"

namespace tern {

Status Translator::Impl::DecodeStep(size_t n, size_t pos, const uint32_t* input_tokens) {
  const Dims& D = dims;
  ArenaViews& A = a;
  const size_t d = D.d, dh = D.head_dim, H = D.heads, T = D.tgt;
  const float scale = 1.f / std::sqrt(static_cast<float>(dh));
  const bool pre = hp->norm_placement == NormPlacement::kPreNorm;
  const float eps = hp->layer_norm_epsilon;
  const float* positions = model->positions(true) + pos * d;
  const size_t head_stride = T * dh, slot_stride = H * T * dh;
  const size_t layer_kv = D.rows * slot_stride;

  auto t0 = Tick();
  for (size_t i = 0; i < n; ++i)
    EmbedRow(*decoder_embedding, input_tokens[i], hp->embedding_scale, positions, A.dec_x + i * d);
  Tock(t0, &profile.other_ms);

  for (size_t l = 0; l < decoder.size(); ++l) {
    const DecoderLayer& L = decoder[l];
    float* K = A.self_k + l * layer_kv;
    float* V = A.self_v + l * layer_kv;

    // Self-attention over the KV cache.
    t0 = Tick();
    TERN_RETURN_IF_ERROR(RunLinear(L.qkv, SublayerInput(A.dec_x, L.self_attn_norm, n, A.dec_h), n, A.dec_qkv, A.dec_quant));
    Tock(t0, &profile.decoder_linear_ms);
    t0 = Tick();
    for (size_t i = 0; i < n; ++i) {
      const size_t slot = A.active[i];
      const float* qkv = A.dec_qkv + i * 3 * d;
      for (size_t h = 0; h < H; ++h) {
        std::copy(qkv + d + h * dh, qkv + d + (h + 1) * dh, K + slot * slot_stride + h * head_stride + pos * dh);
        std::copy(qkv + 2 * d + h * dh, qkv + 2 * d + (h + 1) * dh, V + slot * slot_stride + h * head_stride + pos * dh);
      }
      const uint32_t* anc = A.anc + slot * T;
      for (size_t p = 0; p < pos; ++p) A.kv_offsets[p] = static_cast<uint32_t>(anc[p] * slot_stride + p * dh);
      A.kv_offsets[pos] = static_cast<uint32_t>(slot * slot_stride + pos * dh);
      for (size_t h = 0; h < H; ++h) {
        // scores_p = q . k_p for p in 0..pos, keys gathered through the ancestry offsets.
        const float* q = qkv + h * dh;
        float m = -INFINITY;
        for (size_t p = 0; p <= pos; ++p) {
          A.scores[p] = scale * Dot(q, K + A.kv_offsets[p] + h * head_stride, dh);
          m = std::max(m, A.scores[p]);
        }
        float sum = 0.f;
        for (size_t p = 0; p <= pos; ++p) sum += (A.scores[p] = std::exp(A.scores[p] - m));
        const float inv = 1.f / sum;
        float* out = A.dec_ctx + i * d + h * dh;
        std::fill(out, out + dh, 0.f);
        for (size_t p = 0; p <= pos; ++p) {
          const float w = A.scores[p] * inv;
          const float* v = V + A.kv_offsets[p] + h * head_stride;
          for (size_t j = 0; j < dh; ++j) out[j] += w * v[j];
        }
      }
    }
    Tock(t0, &profile.self_attention_ms);
    t0 = Tick();
    TERN_RETURN_IF_ERROR(ResidualOut(L.out, A.dec_ctx, L.self_attn_norm, n, A.dec_x, A.dec_h, A.dec_quant));

    // Cross-attention over the sentence's encoder output.
    TERN_RETURN_IF_ERROR(RunLinear(L.cross_q, SublayerInput(A.dec_x, L.cross_attn_norm, n, A.dec_h), n, A.dec_q, A.dec_quant));
    Tock(t0, &profile.decoder_linear_ms);
    t0 = Tick();
    const float* ckv = A.cross_kv + l * D.src_rows * 2 * d;
    for (size_t i = 0; i < n; ++i) {
      const size_t b = A.active_sentence[i];
      const float* k = ckv + A.src_off[b] * 2 * d;
      for (size_t h = 0; h < H; ++h)
        AttendRow(A.dec_q + i * d + h * dh, k + h * dh, k + d + h * dh, 2 * d, A.src_len[b], dh, scale, A.scores,
                  A.dec_ctx + i * d + h * dh);
    }
    Tock(t0, &profile.cross_attention_ms);
    t0 = Tick();
    TERN_RETURN_IF_ERROR(ResidualOut(L.cross_out, A.dec_ctx, L.cross_attn_norm, n, A.dec_x, A.dec_h, A.dec_quant));
    TERN_RETURN_IF_ERROR(FeedForward(L.fc1, L.fc2, L.final_norm, n, A.dec_x, A.dec_h, A.dec_ffn, A.dec_quant));
    Tock(t0, &profile.decoder_linear_ms);
  }
  t0 = Tick();
  if (pre) LayerNorm(A.dec_x, decoder_final_norm.gamma, decoder_final_norm.beta, eps, n, d, A.dec_x);
  TERN_RETURN_IF_ERROR(RunLinear(output_projection, A.dec_x, n, A.logits, A.dec_quant));
  Tock(t0, &profile.output_projection_ms);
  profile.decoder_steps++;
  return Status::Ok();
}

}  // namespace tern
