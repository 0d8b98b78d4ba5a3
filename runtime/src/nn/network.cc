#include "model/model_impl.h"
#include "nn/network.h"

#include <chrono>
#include <string>

#include "layer_spec.h"
#include "weight_formats.h"
#include "kernels/kernels.h"

namespace tern {
namespace {

LayerNormParams Norm(const Model& m, const std::string& prefix) {
  return {m.impl().tensor(prefix + ".weight")->f32(), m.impl().tensor(prefix + ".bias")->f32()};
}

// Bytes of a stored tensor with its scales.
uint64_t StoredBytes(const TensorView& t) {
  return t.bytes + format::FormatOf(t.dtype).ScaleBytes(t.rows(), t.cols(), t.block_size);
}

}  // namespace

Result<std::unique_ptr<Network>> Network::Create(const Model& m, const PreparedModel& p, size_t threads) {
  std::unique_ptr<Network> n(new Network());
  n->hp_ = &m.hparams();
  const Hyperparameters& hp = *n->hp_;
  for (const format::BlockSpec* block : {&format::EncoderLayerSpec(), &format::DecoderLayerSpec()}) {
    const bool enc = block->stack == format::Stack::kEncoder;
    const std::vector<PreparedLayer>& prepared = enc ? p.encoder : p.decoder;
    std::vector<Layer>& layers = enc ? n->encoder_ : n->decoder_;
    for (uint32_t i = 0; i < prepared.size(); ++i) {
      Layer l;
      for (size_t k = 0; k < block->n_linears; ++k) {
        const format::LinearSpec& spec = block->linears[k];
        const size_t op = static_cast<size_t>(spec.op);
        TERN_ASSIGN_OR_RETURN(l.linear[op], Linear::Bind(prepared[i].linear[op]));
        // What a decoder step reads: every operator but those that run once per sentence (cross K/V).
        if (!enc && !spec.per_sentence)
          for (uint8_t part = 0; part < spec.n_parts; ++part)
            n->decoder_layer_weight_bytes_ +=
                StoredBytes(*m.impl().tensor(format::LayerTensor(*block, i, spec.parts[part]) + ".weight"));
      }
      for (size_t k = 0; k < block->n_norms; ++k)
        l.norm[static_cast<size_t>(block->norms[k].op)] = Norm(m, format::LayerTensor(*block, i, block->norms[k].name));
      layers.push_back(std::move(l));
    }
  }
  if (hp.norm_placement == NormPlacement::kPreNorm) {
    n->encoder_final_norm_ = Norm(m, format::FinalNorm(format::Stack::kEncoder));
    n->decoder_final_norm_ = Norm(m, format::FinalNorm(format::Stack::kDecoder));
  }
  TERN_ASSIGN_OR_RETURN(n->output_projection_, Linear::Bind(p.output_projection));
  if (p.gathered_output.available()) {
    n->gathered_ = &p.gathered_output;
    n->gathered_kernel_ = GatheredInt8Active();
  }
  const TensorView* proj = m.impl().tensor(format::OutputProjection(hp));
  n->output_weight_bytes_ = (proj ? StoredBytes(*proj) : 0) + (hp.final_logits_bias ? 4 * uint64_t{hp.target_vocab_size} : 0);
  n->encoder_embedding_ = m.impl().tensor(format::TokenEmbedding(format::Stack::kEncoder, hp));
  n->decoder_embedding_ = m.impl().tensor(format::TokenEmbedding(format::Stack::kDecoder, hp));
  n->threads_ = static_cast<uint32_t>(threads);
  n->pool_ = MakeThreadPool(threads);
  n->PingPool();  // the workers start now: the first job on a new pool takes milliseconds
  TERN_ASSIGN_OR_RETURN(n->quantizer_, RowQuantizer::Create());
  n->probe_ = OpProbe::FromEnvironment(m.name());
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

Status Network::RunLinear(const Linear& l, const float* x, size_t rows, float* y, const QuantScratch& q,
                          float* row_max) const {
  if (rows == 0) return Status::Ok();
  if (l.quantized()) {
    TERN_RETURN_IF_ERROR(quantizer_.Run(x, rows, l.in_features(), q, pool(), l.name()));
    if (probe_) probe_->Qd8("qd8_input", l.name(), q.q, rows * l.in_features(), q.params, rows);
  } else {
    Probe("input", l.name(), x, rows * l.in_features());
  }
  TERN_RETURN_IF_ERROR(l.Run(x, q, rows, y, pool(), row_max));
  Probe("linear", l.name(), y, rows * l.out_features());
  return Status::Ok();
}

Status Network::OutputLogits(const float* x, size_t rows, const OutputColumns& columns, float* logits, float* row_max,
                             const QuantScratch& q) const {
  if (columns.all()) return RunLinear(output_projection_, x, rows, logits, q, row_max);
  if (gathered_ && gathered_->available()) {
    TERN_RETURN_IF_ERROR(quantizer_.Run(x, rows, hp_->d_model, q, pool()));
    gathered_->Run(gathered_kernel_, q, rows, columns.tokens, columns.count, logits, pool());
    Probe("gathered_logits", "output_projection", logits, rows * columns.count);
    return Status::Ok();
  }
  TERN_RETURN_IF_ERROR(RunLinear(output_projection_, x, rows, logits, q));
  CompactColumns(logits, rows, hp_->target_vocab_size, columns.tokens, columns.count);
  return Status::Ok();
}

uint64_t Network::OutputWeightBytes(const OutputColumns& columns) const {
  if (!columns.all() && gathered_ && gathered_->available()) return gathered_->BytesRead(columns.count);
  return output_weight_bytes_;
}

const float* Network::SublayerInput(const float* x, const LayerNormParams& norm, size_t rows, float* h) const {
  if (hp_->norm_placement != NormPlacement::kPreNorm) return x;
  LayerNorm(x, norm.gamma, norm.beta, hp_->layer_norm_epsilon, rows, hp_->d_model, h);
  Probe("layer_norm", "pre", h, rows * hp_->d_model);
  return h;
}

Status Network::ResidualOut(const Linear& out, const float* ctx, const LayerNormParams& norm, size_t rows, float* x,
                            float* h, const QuantScratch& q) const {
  TERN_RETURN_IF_ERROR(RunLinear(out, ctx, rows, h, q));
  AddInPlace(x, h, rows * hp_->d_model);
  Probe("residual", out.name(), x, rows * hp_->d_model);
  if (hp_->norm_placement == NormPlacement::kPostNorm) {
    LayerNorm(x, norm.gamma, norm.beta, hp_->layer_norm_epsilon, rows, hp_->d_model, x);
    Probe("layer_norm", "post", x, rows * hp_->d_model);
  }
  return Status::Ok();
}

Status Network::FeedForward(const Linear& fc1, const Linear& fc2, const LayerNormParams& norm, size_t rows, float* x,
                            float* h, float* ffn, const QuantScratch& q) const {
  TERN_RETURN_IF_ERROR(RunLinear(fc1, SublayerInput(x, norm, rows, h), rows, ffn, q));
  Activate(hp_->activation, ffn, rows * hp_->ffn_dim);
  Probe("activation", fc1.name(), ffn, rows * hp_->ffn_dim);
  return ResidualOut(fc2, ffn, norm, rows, x, h, q);
}

}  // namespace tern
