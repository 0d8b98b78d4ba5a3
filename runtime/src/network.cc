#include "network.h"

#include <chrono>
#include <string>

#include "weight_formats.h"
#include "kernels.h"

namespace tern {
namespace {

LayerNormParams Norm(const Model& m, const std::string& prefix) {
  return {m.tensor(prefix + ".weight")->f32(), m.tensor(prefix + ".bias")->f32()};
}

// Bytes of a stored tensor with its scales.
uint64_t StoredBytes(const TensorView& t) {
  return t.bytes + format::FormatOf(t.dtype).ScaleBytes(t.rows(), t.cols(), t.block_size);
}

#define TERN_BIND(lhs, packed)                \
  do {                                        \
    auto _r = Linear::Bind(packed);           \
    if (!_r.ok()) return _r.status();         \
    lhs = std::move(_r.value());              \
  } while (0)

}  // namespace

Result<std::unique_ptr<Network>> Network::Create(const Model& m, const PreparedModel& p, size_t threads) {
  std::unique_ptr<Network> n(new Network());
  n->hp_ = &m.hparams();
  for (size_t i = 0; i < p.encoder.size(); ++i) {
    const PreparedEncoderLayer& pl = p.encoder[i];
    const std::string prefix = "encoder.layers." + std::to_string(i);
    EncoderLayer l;
    TERN_BIND(l.qkv, pl.qkv);
    TERN_BIND(l.out, pl.out);
    TERN_BIND(l.fc1, pl.fc1);
    TERN_BIND(l.fc2, pl.fc2);
    l.self_attn_norm = Norm(m, prefix + ".self_attn_layer_norm");
    l.final_norm = Norm(m, prefix + ".final_layer_norm");
    n->encoder_.push_back(std::move(l));
  }
  for (size_t i = 0; i < p.decoder.size(); ++i) {
    const PreparedDecoderLayer& pl = p.decoder[i];
    const std::string prefix = "decoder.layers." + std::to_string(i);
    DecoderLayer l;
    TERN_BIND(l.qkv, pl.qkv);
    TERN_BIND(l.out, pl.out);
    TERN_BIND(l.cross_q, pl.cross_q);
    TERN_BIND(l.cross_kv, pl.cross_kv);
    TERN_BIND(l.cross_out, pl.cross_out);
    TERN_BIND(l.fc1, pl.fc1);
    TERN_BIND(l.fc2, pl.fc2);
    l.self_attn_norm = Norm(m, prefix + ".self_attn_layer_norm");
    l.cross_attn_norm = Norm(m, prefix + ".encoder_attn_layer_norm");
    l.final_norm = Norm(m, prefix + ".final_layer_norm");
    n->decoder_.push_back(std::move(l));
  }
  if (n->hp_->norm_placement == NormPlacement::kPreNorm) {
    n->encoder_final_norm_ = Norm(m, "encoder.layer_norm");
    n->decoder_final_norm_ = Norm(m, "decoder.layer_norm");
  }
  TERN_BIND(n->output_projection_, p.output_projection);
  if (p.gathered_output.available()) {
    n->gathered_ = &p.gathered_output;
    n->gathered_kernel_ = GatheredInt8Best();
  }
  for (const TensorView& t : m.tensors()) {
    const std::string_view name = t.name;
    if (name.rfind("decoder.layers.", 0) == 0 && t.rank == 2 && name.find("encoder_attn.k_proj") == std::string_view::npos &&
        name.find("encoder_attn.v_proj") == std::string_view::npos)
      n->decoder_layer_weight_bytes_ += StoredBytes(t);
  }
  const Hyperparameters& hp = *n->hp_;
  const TensorView* proj = m.tensor(hp.tied_output_projection
                                        ? (hp.shared_embeddings ? "encoder.embed_tokens.weight" : "decoder.embed_tokens.weight")
                                        : "lm_head.weight");
  n->output_weight_bytes_ = (proj ? StoredBytes(*proj) : 0) + (hp.final_logits_bias ? 4 * uint64_t{hp.target_vocab_size} : 0);
  n->encoder_embedding_ = m.tensor("encoder.embed_tokens.weight");
  n->decoder_embedding_ = n->hp_->shared_embeddings ? n->encoder_embedding_ : m.tensor("decoder.embed_tokens.weight");
  n->threads_ = static_cast<uint32_t>(threads);
  n->pool_ = MakeThreadPool(threads);
  n->PingPool();  // the workers start now: the first job on a new pool takes milliseconds
  auto q = RowQuantizer::Create();
  if (!q.ok()) return q.status();
  n->quantizer_ = std::move(q.value());
  return n;
}

double Network::PingPool() const {
  if (!pool_) return 0;
  const auto t0 = std::chrono::steady_clock::now();
  pthreadpool_parallelize_1d(pool_.get(), [](void*, size_t) {}, nullptr, threads_, 0);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

Status Network::Quantize(const float* x, size_t rows, size_t cols, const QuantScratch& q) const {
  return quantizer_.Run(x, rows, cols, q, pool());
}

Status Network::RunLinear(const Linear& l, const float* x, size_t rows, float* y, const QuantScratch& q) const {
  if (rows == 0) return Status::Ok();
  if (l.quantized()) TERN_RETURN_IF_ERROR(quantizer_.Run(x, rows, l.in_features(), q, pool()));
  return l.Run(x, q, rows, y, pool());
}

Status Network::OutputLogits(const float* x, size_t rows, const VocabMap& vocab, float* logits,
                             const QuantScratch& q) const {
  if (vocab.identity()) return RunLinear(output_projection_, x, rows, logits, q);
  if (gathered_ && gathered_->available()) {
    TERN_RETURN_IF_ERROR(quantizer_.Run(x, rows, hp_->d_model, q, pool()));
    gathered_->Run(gathered_kernel_, q, rows, vocab.tokens, vocab.size, logits, pool());
    return Status::Ok();
  }
  TERN_RETURN_IF_ERROR(RunLinear(output_projection_, x, rows, logits, q));
  CompactColumns(logits, rows, hp_->target_vocab_size, vocab.tokens, vocab.size);
  return Status::Ok();
}

uint64_t Network::OutputWeightBytes(const VocabMap& vocab) const {
  if (!vocab.identity() && gathered_ && gathered_->available()) return gathered_->BytesRead(vocab.size);
  return output_weight_bytes_;
}

const float* Network::SublayerInput(const float* x, const LayerNormParams& norm, size_t rows, float* h) const {
  if (hp_->norm_placement != NormPlacement::kPreNorm) return x;
  LayerNorm(x, norm.gamma, norm.beta, hp_->layer_norm_epsilon, rows, hp_->d_model, h);
  return h;
}

Status Network::ResidualOut(const Linear& out, const float* ctx, const LayerNormParams& norm, size_t rows, float* x,
                            float* h, const QuantScratch& q) const {
  TERN_RETURN_IF_ERROR(RunLinear(out, ctx, rows, h, q));
  AddInPlace(x, h, rows * hp_->d_model);
  if (hp_->norm_placement == NormPlacement::kPostNorm)
    LayerNorm(x, norm.gamma, norm.beta, hp_->layer_norm_epsilon, rows, hp_->d_model, x);
  return Status::Ok();
}

Status Network::FeedForward(const Linear& fc1, const Linear& fc2, const LayerNormParams& norm, size_t rows, float* x,
                            float* h, float* ffn, const QuantScratch& q) const {
  TERN_RETURN_IF_ERROR(RunLinear(fc1, SublayerInput(x, norm, rows, h), rows, ffn, q));
  Activate(hp_->activation, ffn, rows * hp_->ffn_dim);
  return ResidualOut(fc2, ffn, norm, rows, x, h, q);
}

}  // namespace tern
