#include "nn/prepared_model.h"

#include <string>

#include "model/model_impl.h"

namespace tern {

namespace {

// Packs operator `l` of layer `layer` of `block`: its parts fused along out, with their biases.
Result<PackedLinear> Pack(const Model& m, const format::BlockSpec& block, uint32_t layer, const format::LinearSpec& l) {
  std::vector<const TensorView*> w, b;
  for (uint8_t k = 0; k < l.n_parts; ++k) {
    const std::string p = format::LayerTensor(block, layer, l.parts[k]);
    w.push_back(m.impl().tensor(p + ".weight"));
    b.push_back(m.impl().tensor(p + ".bias"));
    if (!w.back()) return Status(StatusCode::kInvalidModel, m.name() + ": tensor '" + p + ".weight' missing");
  }
  auto packed = PackLinear(w.data(), b.data(), w.size());
  // The packed copy exists now: the model's pages of these weights leave the process's memory (unless tern's
  // own GEMM reads them: then XNNPACK packed nothing).
  if (packed.ok() && !packed.value().reads_model_weights())
    for (const TensorView* t : w) m.impl().ReleasePages(t->data, t->bytes);
  return packed;
}

Result<std::shared_ptr<PreparedModel>> Prepare(const Model& m) {
  auto p = std::make_shared<PreparedModel>();
  const Hyperparameters& hp = m.hparams();
  for (const format::BlockSpec* block : {&format::EncoderLayerSpec(), &format::DecoderLayerSpec()}) {
    const bool enc = block->stack == format::Stack::kEncoder;
    std::vector<PreparedLayer>& layers = enc ? p->encoder : p->decoder;
    for (uint32_t i = 0; i < (enc ? hp.encoder_layers : hp.decoder_layers); ++i) {
      PreparedLayer layer;
      for (size_t k = 0; k < block->n_linears; ++k) {
        const format::LinearSpec& l = block->linears[k];
        TERN_ASSIGN_OR_RETURN(layer.linear[static_cast<size_t>(l.op)], Pack(m, *block, i, l));
      }
      layers.push_back(std::move(layer));
    }
  }
  // Logits = x @ E^T + final_logits_bias, E = lm_head or the (tied) decoder embedding. A tied matrix is
  // also the embedding table read at every step, so its pages are kept.
  const char* proj_name = format::OutputProjection(hp);
  const TensorView* proj = m.impl().tensor(proj_name);
  const TensorView* bias = hp.final_logits_bias ? m.impl().tensor("final_logits_bias") : nullptr;
  if (!proj) return Status(StatusCode::kInvalidModel, m.name() + ": tensor '" + proj_name + "' missing");
  TERN_ASSIGN_OR_RETURN(p->output_projection, PackLinear(&proj, &bias, 1));
  if (m.impl().shortlist().present()) {
    // Shortlisted logits read the model's own rows: its pages are kept.
    TERN_ASSIGN_OR_RETURN(p->gathered_output, GatheredProjection::Prepare(*proj, bias));
  }
  if (!hp.tied_output_projection && !p->gathered_output.available()) m.impl().ReleasePages(proj->data, proj->bytes);
  auto add = [&](const PackedLinear& l) { p->packed_bytes += l.block ? l.block->bytes() : 0; };
  for (const auto* layers : {&p->encoder, &p->decoder})
    for (const PreparedLayer& l : *layers)
      for (const PackedLinear& x : l.linear) add(x);
  add(p->output_projection);
  return p;
}

}  // namespace

Result<std::shared_ptr<const PreparedModel>> PreparedModel::Of(const std::shared_ptr<const Model>& model) {
  if (!model) return Status(StatusCode::kInvalidArgument, "PreparedModel: no model");
  const Model::Impl& m = model->impl();
  std::lock_guard<std::mutex> lock(m.prepared_mu);
  std::shared_ptr<const PreparedModel>& slot = m.prepared;
  if (!slot) {
    TERN_ASSIGN_OR_RETURN(auto prepared, Prepare(*model));
    slot = std::shared_ptr<const PreparedModel>(std::move(prepared));
  }
  return slot;
}

}  // namespace tern
