#include "buffers.h"

#include <algorithm>

#include "tokenizer.h"

namespace tern {

Result<Dims> ResolveDims(const Model& model, const TranslatorConfig& c) {
  const Hyperparameters& hp = model.hparams();
  const ArenaLimits& lim = model.limits();
  Dims d;
  d.d = hp.d_model;
  d.heads = hp.n_heads;
  d.head_dim = hp.head_dim;
  d.ffn = hp.ffn_dim;
  d.vocab = hp.target_vocab_size;
  d.enc_layers = hp.encoder_layers;
  d.dec_layers = hp.decoder_layers;
  d.beam = c.max_beam ? c.max_beam : std::max<uint32_t>(1, model.generation().beam_size);
  // The file's max_rows bounds batch x beam of a Translator that takes the file's batch size.
  d.batch = c.max_batch ? c.max_batch
                        : std::min<size_t>(lim.max_batch, std::max<size_t>(1, lim.max_rows / std::max<size_t>(1, d.beam)));
  d.n_best = c.max_n_best ? c.max_n_best : 1;
  d.src = c.max_source_tokens ? c.max_source_tokens : lim.max_source_tokens;
  d.tgt = c.max_target_tokens ? c.max_target_tokens : lim.max_target_tokens;
  if (d.batch > kMaxBatch || d.beam > kMaxBeam)
    return Status(StatusCode::kInvalidArgument, "Translator: max_batch (<= " + std::to_string(kMaxBatch) + ") or max_beam (<= " +
                                                    std::to_string(kMaxBeam) + ") too large");
  if (d.n_best > d.beam)
    return Status(StatusCode::kInvalidArgument,
                  "Translator: max_n_best " + std::to_string(d.n_best) + " exceeds max_beam " + std::to_string(d.beam));
  if (d.src > hp.max_positions || uint64_t{d.tgt} + 1 > hp.max_positions)
    return Status(StatusCode::kInvalidArgument, "Translator: max_source_tokens " + std::to_string(d.src) +
                                                    " / max_target_tokens " + std::to_string(d.tgt) +
                                                    " exceed the model's max_positions " + std::to_string(hp.max_positions));
  if (d.src < 1 || d.tgt < 1) return Status(StatusCode::kInvalidArgument, "Translator: token limits must be >= 1");
  if (c.threads > 1024)
    return Status(StatusCode::kInvalidArgument, "Translator: threads " + std::to_string(c.threads) + " > 1024");
  d.rows = d.batch * d.beam;
  if (uint64_t{d.rows} * d.heads * d.tgt * d.head_dim >= (uint64_t{1} << 32))
    return Status(StatusCode::kInvalidArgument, "Translator: KV cache of one layer exceeds 2^32 elements; lower the limits");
  d.src_rows = d.batch * d.src;
  d.text_bytes = d.tgt * MaxPieceBytes(model) + 1;
  d.shortlist = model.shortlist().present();
  // The memory rule (tern/model.h, LoadOptions): the arena, bounded in 64 bits before anything is
  // planned in size_t, plus what the model holds, within the model's budget.
  const uint64_t arena = ArenaUpperBound(d), owned = model.owned_bytes_estimate(), budget = model.memory_budget_bytes();
  if (arena > budget || owned > budget - std::min(budget, arena) || arena > SIZE_MAX / 2)
    return Status(StatusCode::kResourceExhausted,
                  "Translator: the arena at these limits needs up to " + std::to_string(arena) + " bytes; with the " +
                      std::to_string(owned) + " bytes of the model's tables and packed weights that exceeds the memory "
                      "budget of " + std::to_string(budget) + " bytes (LoadOptions::memory_budget_bytes): lower "
                      "max_batch, max_beam, max_source_tokens or max_target_tokens");
  return d;
}

uint64_t ArenaUpperBound(const Dims& d) {
  // Every buffer PlanArena declares, unshared, in 64 bits, with its widest element (4 bytes) and a
  // 64-byte rounding each; test_core checks it is never below the planned total.
  const uint64_t L = d.dec_layers, rows = d.rows, T = d.tgt, S = d.src, B = d.batch, D = d.d, F = d.ffn, V = d.vocab;
  const uint64_t src_rows = B * S, wide = std::max(D, F), hd = uint64_t{d.heads} * d.head_dim;
  uint64_t elements = 2 * L * rows * hd * T            // KV cache
                      + L * src_rows * 2 * D           // cross-attention K/V
                      + src_rows * (6 * D + F)         // encoder activations
                      + rows * (7 * D + F + V)         // decoder activations and logits
                      + 4 * rows * T + 5 * rows + T    // search tokens and ancestry, scores, a candidate
                      + B * uint64_t{d.beam} * (T + 2) + 6 * B + 6 * uint64_t{d.beam}  // hypotheses, candidates
                      + B * d.n_best * (T + 2) + B     // results
                      + 3 * V + T + std::max(S, T + 1) + src_rows;  // shortlist, offsets, scores, ids
  const uint64_t quant = (src_rows + rows) * (wide + 64) + 2 * 64 * 16;  // qd8 inputs and their params
  const uint64_t text = B * d.n_best * (uint64_t{d.text_bytes} + 64)   // detokenized text, Hypothesis structs
                        + B * (kErrorBytes + 64);                         // error messages, TranslationResults
  return elements * 4 + quant + text + 64 * 64;
}

void PlanArena(const Dims& d, SessionBuffers* b, ArenaPlan* plan) {
  constexpr Phase kEnc = Phase::kEncoder, kCross = Phase::kCrossKV, kDec = Phase::kDecoder;
  const size_t kv = d.dec_layers * d.rows * d.heads * d.tgt * d.head_dim;
  const size_t wide = std::max(d.d, d.ffn);
  auto quant = [&](QuantBuffers* q, const char* qname, const char* pname, size_t rows, Phase first, Phase last) {
    plan->Add(&q->q, qname, QuantInputBytes(rows, wide), first, last);
    plan->Add(&q->params, pname, QuantParamsBytes(rows) / sizeof(xnn_quantization_params), first, last);
  };
  BatchBuffers& in = b->batch;
  plan->Add(&in.staged_ids, "batch.staged_ids", d.src_rows, kEnc, kEnc);
  plan->Add(&in.in_len, "batch.in_len", d.batch, kEnc, kEnc);
  plan->Add(&in.src_ids, "batch.src_ids", d.src_rows, kEnc, kDec);
  plan->Add(&in.src_off, "batch.src_off", d.batch, kEnc, kDec);
  plan->Add(&in.src_len, "batch.src_len", d.batch, kEnc, kDec);
  plan->Add(&in.order, "batch.order", d.batch, kEnc, kDec);
  plan->Add(&in.max_len, "batch.max_len", d.batch, kEnc, kDec);
  plan->Add(&in.sentence_ok, "batch.sentence_ok", d.batch, kEnc, kDec);
  DecoderBuffers& dec = b->dec;
  plan->Add(&dec.self_k, "decoder.self_k (KV cache)", kv, kDec, kDec);
  plan->Add(&dec.self_v, "decoder.self_v (KV cache)", kv, kDec, kDec);
  plan->Add(&dec.cross_kv, "decoder.cross_kv", d.dec_layers * d.src_rows * 2 * d.d, kCross, kDec);
  SearchBuffers& s = b->search;
  plan->Add(&s.tokens, "search.tokens", d.rows * d.tgt, kDec, kDec);
  plan->Add(&s.tokens_next, "search.tokens_next", d.rows * d.tgt, kDec, kDec);
  plan->Add(&s.anc, "search.ancestry", d.rows * d.tgt, kDec, kDec);
  plan->Add(&s.anc_next, "search.ancestry_next", d.rows * d.tgt, kDec, kDec);
  plan->Add(&s.beam_scores, "search.beam_scores", d.rows, kDec, kDec);
  plan->Add(&s.step_scores, "search.step_scores", d.rows, kDec, kDec);
  plan->Add(&s.step_tokens, "search.step_tokens", d.rows, kDec, kDec);
  plan->Add(&s.active, "search.active", d.rows, kDec, kDec);
  plan->Add(&s.active_sentence, "search.active_sentence", d.rows, kDec, kDec);
  plan->Add(&dec.kv_offsets, "decoder.kv_offsets", d.tgt, kDec, kDec);
  plan->Add(&s.hyp_tokens, "search.hyp_tokens", d.batch * d.beam * d.tgt, kDec, kDec);
  plan->Add(&s.hyp_len, "search.hyp_len", d.batch * d.beam, kDec, kDec);
  plan->Add(&s.hyp_score, "search.hyp_score", d.batch * d.beam, kDec, kDec);
  plan->Add(&s.hyp_count, "search.hyp_count", d.batch, kDec, kDec);
  plan->Add(&s.done, "search.done", d.batch, kDec, kDec);
  plan->Add(&s.cand_score, "search.cand_score", 2 * d.beam, kDec, kDec);
  plan->Add(&s.cand_token, "search.cand_token", 2 * d.beam, kDec, kDec);
  plan->Add(&s.cand_beam, "search.cand_beam", 2 * d.beam, kDec, kDec);
  plan->Add(&s.cand_seq, "search.cand_seq", d.tgt, kDec, kDec);
  plan->Add(&s.stream_emitted, "search.stream_emitted", d.batch, kEnc, kDec);
  ResultBuffers& r = b->results;
  plan->Add(&r.out_ids, "results.ids", d.batch * d.n_best * d.tgt, kEnc, kDec);
  plan->Add(&r.out_errors, "results.errors", d.batch * kErrorBytes, kEnc, kDec);
  plan->Add(&r.hypotheses, "results.hypotheses", d.batch * d.n_best, kEnc, kDec);
  plan->Add(&r.results, "results.results", d.batch, kEnc, kDec);
  EncoderBuffers& enc = b->enc;
  plan->Add(&enc.x, "encoder.x", d.src_rows * d.d, kEnc, kCross);
  plan->Add(&enc.h, "encoder.h", d.src_rows * d.d, kEnc, kEnc);
  plan->Add(&enc.qkv, "encoder.qkv", d.src_rows * 3 * d.d, kEnc, kEnc);
  plan->Add(&enc.ctx, "encoder.ctx", d.src_rows * d.d, kEnc, kEnc);
  plan->Add(&enc.ffn, "encoder.ffn", d.src_rows * d.ffn, kEnc, kEnc);
  quant(&enc.quant, "encoder.quant.q", "encoder.quant.params", d.src_rows, kEnc, kCross);
  plan->Add(&dec.x, "decoder.x", d.rows * d.d, kDec, kDec);
  plan->Add(&dec.h, "decoder.h", d.rows * d.d, kDec, kDec);
  plan->Add(&dec.qkv, "decoder.qkv", d.rows * 3 * d.d, kDec, kDec);
  plan->Add(&dec.q, "decoder.q", d.rows * d.d, kDec, kDec);
  plan->Add(&dec.ctx, "decoder.ctx", d.rows * d.d, kDec, kDec);
  plan->Add(&dec.ffn, "decoder.ffn", d.rows * d.ffn, kDec, kDec);
  plan->Add(&dec.logits, "decoder.logits", d.rows * d.vocab, kDec, kDec);
  plan->Add(&b->attention_scores, "attention.scores", std::max(d.src, d.tgt + 1), kEnc, kDec);
  quant(&dec.quant, "decoder.quant.q", "decoder.quant.params", d.rows, kDec, kDec);
  plan->Add(&r.out_text, "results.text", d.batch * d.n_best * d.text_bytes, kEnc, kDec);
  if (d.shortlist) {
    plan->Add(&b->vocab.tokens, "shortlist.tokens", d.vocab, kDec, kDec);
    plan->Add(&b->vocab.index, "shortlist.index", d.vocab, kDec, kDec);
    plan->Add(&b->vocab.mask, "shortlist.mask", d.vocab, kDec, kDec);
  }
  plan->Plan();
}

}  // namespace tern
