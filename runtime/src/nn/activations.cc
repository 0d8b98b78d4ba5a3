#include "nn/activations.h"

#include <algorithm>

namespace tern {

void DeclareNetworkBuffers(const Dims& d, EncoderBuffers* enc, DecoderBuffers* dec, ArenaPlan* plan) {
  constexpr Phase kEnc = Phase::kEncoder, kCross = Phase::kCrossKV, kDec = Phase::kDecoder;
  // Element counts in 64 bits: products of limits may exceed a 32-bit size_t (then the plan is refused).
  const uint64_t rows = d.rows, T = d.tgt, D = d.d, F = d.ffn, src_rows = uint64_t{d.batch} * d.src;
  const uint64_t kv = uint64_t{d.dec_layers} * rows * d.heads * T * d.head_dim, wide = std::max(D, F);
  auto quant = [&](QuantBuffers* q, const char* qname, const char* pname, const char* sname, uint64_t n, Phase first,
                   Phase last) {
    plan->Add(&q->q, qname, QuantInputBytes(n, wide), first, last);
    plan->Add(&q->params, pname, QuantParamsCount(n), first, last);
    plan->Add(&q->chunk_sums, sname, QuantChunkSumsCount(n, wide), first, last);
  };
  plan->Add(&dec->self_k, "decoder.self_k (KV cache)", kv, kDec, kDec);
  plan->Add(&dec->self_v, "decoder.self_v (KV cache)", kv, kDec, kDec);
  plan->Add(&dec->cross_kv, "decoder.cross_kv", uint64_t{d.dec_layers} * src_rows * 2 * D, kCross, kDec);
  plan->Add(&dec->kv_offsets, "decoder.kv_offsets", T, kDec, kDec);
  plan->Add(&enc->x, "encoder.x", src_rows * D, kEnc, kCross);
  plan->Add(&enc->h, "encoder.h", src_rows * D, kEnc, kEnc);
  plan->Add(&enc->qkv, "encoder.qkv", src_rows * 3 * D, kEnc, kEnc);
  plan->Add(&enc->ctx, "encoder.ctx", src_rows * D, kEnc, kEnc);
  plan->Add(&enc->ffn, "encoder.ffn", src_rows * F, kEnc, kEnc);
  quant(&enc->quant, "encoder.quant.q", "encoder.quant.params", "encoder.quant.chunk_sums", src_rows, kEnc, kCross);
  plan->Add(&dec->x, "decoder.x", rows * D, kDec, kDec);
  plan->Add(&dec->h, "decoder.h", rows * D, kDec, kDec);
  plan->Add(&dec->qkv, "decoder.qkv", rows * 3 * D, kDec, kDec);
  plan->Add(&dec->q, "decoder.q", rows * D, kDec, kDec);
  plan->Add(&dec->ctx, "decoder.ctx", rows * D, kDec, kDec);
  plan->Add(&dec->ffn, "decoder.ffn", rows * F, kDec, kDec);
  plan->Add(&dec->logits, "decoder.logits", rows * d.vocab, kDec, kDec);
  plan->Add(&dec->logits_max, "decoder.logits_max", rows, kDec, kDec);
  plan->Add(&dec->attention, "attention.scores", std::max<uint64_t>(d.src, T + 1), kEnc, kDec);
  plan->Add(&dec->alignment_sum, "decoder.alignment_sum", d.src, kDec, kDec);
  plan->Add(&dec->alignment, "decoder.alignment", rows, kDec, kDec);
  quant(&dec->quant, "decoder.quant.q", "decoder.quant.params", "decoder.quant.chunk_sums", rows, kDec, kDec);
}

void DeclareSentenceEncoderBuffers(const Dims& d, EncoderBuffers* enc, ArenaPlan* plan) {
  // Live through the decoder: a sentence is encoded while others are being decoded.
  constexpr Phase kEnc = Phase::kEncoder, kDec = Phase::kDecoder;
  const uint64_t S = d.src, D = d.d, F = d.ffn, wide = std::max(D, F);
  plan->Add(&enc->x, "continuous.encoder.x", S * D, kEnc, kDec);
  plan->Add(&enc->h, "continuous.encoder.h", S * D, kEnc, kDec);
  plan->Add(&enc->qkv, "continuous.encoder.qkv", S * 3 * D, kEnc, kDec);
  plan->Add(&enc->ctx, "continuous.encoder.ctx", S * D, kEnc, kDec);
  plan->Add(&enc->ffn, "continuous.encoder.ffn", S * F, kEnc, kDec);
  plan->Add(&enc->quant.q, "continuous.encoder.quant.q", QuantInputBytes(S, wide), kEnc, kDec);
  plan->Add(&enc->quant.params, "continuous.encoder.quant.params", QuantParamsCount(S), kEnc, kDec);
  plan->Add(&enc->quant.chunk_sums, "continuous.encoder.quant.chunk_sums", QuantChunkSumsCount(S, wide), kEnc, kDec);
}

}  // namespace tern
