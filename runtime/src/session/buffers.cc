#include "model/model_impl.h"
#include "session/buffers.h"

#include <algorithm>

#include "text/tokenizer.h"

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
  const uint64_t text_bytes = uint64_t{d.tgt} * MaxPieceBytes(model) + 1;
  if (text_bytes > (uint64_t{1} << 31))
    return Status(StatusCode::kInvalidArgument, "Translator: " + std::to_string(text_bytes) +
                                                    " bytes of text per hypothesis (max_target_tokens x the longest "
                                                    "target piece): lower max_target_tokens");
  d.text_bytes = static_cast<size_t>(text_bytes);
  const uint64_t src_text_bytes = uint64_t{d.src} * MaxSourcePieceBytes(model) + 1;
  if (src_text_bytes > (uint64_t{1} << 31))
    return Status(StatusCode::kInvalidArgument, "Translator: " + std::to_string(src_text_bytes) +
                                                    " bytes of source text (max_source_tokens x the longest source piece): "
                                                    "lower max_source_tokens");
  d.src_text_bytes = static_cast<size_t>(src_text_bytes);
  d.shortlist = model.impl().shortlist().present();
  d.attention = c.attention;
  d.continuous = c.continuous_batching;
  return d;
}

Status PlanArena(const Model& model, const Dims& d, SessionBuffers* b, ArenaPlan* plan) {
  DeclareBuffers(d, b, plan);
  // The memory rule (tern/model.h, LoadOptions): the arena as planned, in 64 bits, plus what the model
  // holds, within the model's budget; and an arena this machine can address.
  const uint64_t arena = plan->total_bytes(), owned = model.impl().owned_bytes_estimate(), budget = model.memory_budget_bytes();
  if (arena > budget || owned > budget - std::min(budget, arena) || arena > SIZE_MAX / 2)
    return Status(StatusCode::kResourceExhausted,
                  "Translator: the arena at these limits needs " + std::to_string(arena) + " bytes; with the " +
                      std::to_string(owned) + " bytes of the model's tables and packed weights that exceeds the memory "
                      "budget of " + std::to_string(budget) + " bytes (LoadOptions::memory_budget_bytes)" +
                      (arena > SIZE_MAX / 2 ? " and what this machine can address" : "") +
                      ": lower max_batch, max_beam, max_source_tokens or max_target_tokens");
  return Status::Ok();
}

void DeclareBuffers(const Dims& d, SessionBuffers* b, ArenaPlan* plan) {
  constexpr Phase kEnc = Phase::kEncoder, kDec = Phase::kDecoder;
  const uint64_t batch = d.batch, src_rows = uint64_t{d.batch} * d.src;
  BatchBuffers& in = b->batch;
  plan->Add(&in.staged_ids, "batch.staged_ids", src_rows, kEnc, kDec);
  plan->Add(&in.src_spans, "batch.src_spans", src_rows, kEnc, kDec);
  plan->Add(&in.in_len, "batch.in_len", batch, kEnc, kDec);
  plan->Add(&in.src_ids, "batch.src_ids", src_rows, kEnc, kDec);
  plan->Add(&in.src_off, "batch.src_off", batch, kEnc, kDec);
  plan->Add(&in.src_len, "batch.src_len", batch, kEnc, kDec);
  plan->Add(&in.order, "batch.order", batch, kEnc, kDec);
  plan->Add(&in.max_len, "batch.max_len", batch, kEnc, kDec);
  plan->Add(&in.sentence_ok, "batch.sentence_ok", batch, kEnc, kDec);
  plan->Add(&in.constraints.tokens, "batch.constraints.tokens", batch * kMaxConstraintTokens, kEnc, kDec);
  plan->Add(&in.constraints.off, "batch.constraints.off", batch * kMaxConstraints, kEnc, kDec);
  plan->Add(&in.constraints.len, "batch.constraints.len", batch * kMaxConstraints, kEnc, kDec);
  plan->Add(&in.constraints.src_begin, "batch.constraints.src_begin", batch * kMaxConstraints, kEnc, kDec);
  plan->Add(&in.constraints.src_end, "batch.constraints.src_end", batch * kMaxConstraints, kEnc, kDec);
  plan->Add(&in.constraints.count, "batch.constraints.count", batch, kEnc, kDec);
  plan->Add(&in.ids_text, "batch.ids_text", d.src_text_bytes, kEnc, kEnc);
  plan->Add(&in.forced_ids, "batch.forced_ids", batch * d.tgt, kEnc, kDec);
  plan->Add(&in.forced_len, "batch.forced_len", batch, kEnc, kDec);
  DeclareNetworkBuffers(d, &b->enc, &b->dec, plan);
  DeclareSearchBuffers(d, &b->search, &b->results, plan);
  DeclareAlternativeBuffers(d, &b->alternatives, plan);
  if (d.attention) DeclareAttentionBuffers(d, &b->attention, plan);
  if (d.continuous) DeclareContinuousBuffers(d, &b->continuous, plan);
  if (d.shortlist) {
    plan->Add(&b->vocab.tokens, "shortlist.tokens", d.vocab, kDec, kDec);
    plan->Add(&b->vocab.index, "shortlist.index", d.vocab, kDec, kDec);
    plan->Add(&b->vocab.mask, "shortlist.mask", d.vocab, kDec, kDec);
  }
  plan->Plan();
}

}  // namespace tern
