#include "prepared_model.h"

#include <string>

namespace tern {

namespace internal {
// Access to the Model's cache slot for prepared weights (tern/model.h, prepared_).
struct PreparedSlot {
  static std::mutex& Mutex(const Model& m) { return m.prepared_mu_; }
  static std::shared_ptr<const void>& Slot(const Model& m) { return m.prepared_; }
};
}  // namespace internal

namespace {

Result<PackedLinear> Pack(const Model& m, std::initializer_list<std::string> prefixes) {
  std::vector<const TensorView*> w, b;
  for (const std::string& p : prefixes) {
    w.push_back(m.tensor(p + ".weight"));
    b.push_back(m.tensor(p + ".bias"));
    if (!w.back()) return Status(StatusCode::kInvalidModel, m.name() + ": tensor '" + p + ".weight' missing");
  }
  auto packed = PackLinear(w.data(), b.data(), w.size());
  // The packed copy exists now; the model's copy of these weights is not read again.
  if (packed.ok())
    for (const TensorView* t : w) m.ReleasePages(t->data, t->bytes);
  return packed;
}

#define TERN_ASSIGN_OR_RETURN(lhs, expr) \
  do {                                   \
    auto _r = (expr);                    \
    if (!_r.ok()) return _r.status();    \
    lhs = std::move(_r.value());         \
  } while (0)

Result<std::shared_ptr<PreparedModel>> Prepare(const Model& m) {
  auto p = std::make_shared<PreparedModel>();
  const Hyperparameters& hp = m.hparams();
  for (uint32_t i = 0; i < hp.encoder_layers; ++i) {
    const std::string l = "encoder.layers." + std::to_string(i);
    PreparedEncoderLayer e;
    TERN_ASSIGN_OR_RETURN(e.qkv, Pack(m, {l + ".self_attn.q_proj", l + ".self_attn.k_proj", l + ".self_attn.v_proj"}));
    TERN_ASSIGN_OR_RETURN(e.out, Pack(m, {l + ".self_attn.out_proj"}));
    TERN_ASSIGN_OR_RETURN(e.fc1, Pack(m, {l + ".fc1"}));
    TERN_ASSIGN_OR_RETURN(e.fc2, Pack(m, {l + ".fc2"}));
    p->encoder.push_back(std::move(e));
  }
  for (uint32_t i = 0; i < hp.decoder_layers; ++i) {
    const std::string l = "decoder.layers." + std::to_string(i);
    PreparedDecoderLayer d;
    TERN_ASSIGN_OR_RETURN(d.qkv, Pack(m, {l + ".self_attn.q_proj", l + ".self_attn.k_proj", l + ".self_attn.v_proj"}));
    TERN_ASSIGN_OR_RETURN(d.out, Pack(m, {l + ".self_attn.out_proj"}));
    TERN_ASSIGN_OR_RETURN(d.cross_q, Pack(m, {l + ".encoder_attn.q_proj"}));
    TERN_ASSIGN_OR_RETURN(d.cross_kv, Pack(m, {l + ".encoder_attn.k_proj", l + ".encoder_attn.v_proj"}));
    TERN_ASSIGN_OR_RETURN(d.cross_out, Pack(m, {l + ".encoder_attn.out_proj"}));
    TERN_ASSIGN_OR_RETURN(d.fc1, Pack(m, {l + ".fc1"}));
    TERN_ASSIGN_OR_RETURN(d.fc2, Pack(m, {l + ".fc2"}));
    p->decoder.push_back(std::move(d));
  }
  // Logits = x @ E^T + final_logits_bias, E = lm_head or the (tied) decoder embedding. A tied matrix is
  // also the embedding table read at every step, so its pages are kept.
  const char* proj_name = hp.tied_output_projection
                              ? (hp.shared_embeddings ? "encoder.embed_tokens.weight" : "decoder.embed_tokens.weight")
                              : "lm_head.weight";
  const TensorView* proj = m.tensor(proj_name);
  const TensorView* bias = hp.final_logits_bias ? m.tensor("final_logits_bias") : nullptr;
  if (!proj) return Status(StatusCode::kInvalidModel, m.name() + ": tensor '" + proj_name + "' missing");
  TERN_ASSIGN_OR_RETURN(p->output_projection, PackLinear(&proj, &bias, 1));
  if (m.shortlist().present()) {
    // Shortlisted logits read the model's own rows: its pages are kept.
    TERN_ASSIGN_OR_RETURN(p->gathered_output, GatheredProjection::Prepare(*proj, bias));
  }
  if (!hp.tied_output_projection && !p->gathered_output.available()) m.ReleasePages(proj->data, proj->bytes);
  auto add = [&](const PackedLinear& l) { p->packed_bytes += l.block->bytes(); };
  for (const auto& e : p->encoder) add(e.qkv), add(e.out), add(e.fc1), add(e.fc2);
  for (const auto& d : p->decoder)
    add(d.qkv), add(d.out), add(d.cross_q), add(d.cross_kv), add(d.cross_out), add(d.fc1), add(d.fc2);
  add(p->output_projection);
  return p;
}

}  // namespace

Result<std::shared_ptr<const PreparedModel>> PreparedModel::Of(const std::shared_ptr<const Model>& model) {
  if (!model) return Status(StatusCode::kInvalidArgument, "PreparedModel: no model");
  std::lock_guard<std::mutex> lock(internal::PreparedSlot::Mutex(*model));
  std::shared_ptr<const void>& slot = internal::PreparedSlot::Slot(*model);
  if (!slot) {
    auto prepared = Prepare(*model);
    if (!prepared.ok()) return prepared.status();
    slot = std::shared_ptr<const PreparedModel>(std::move(prepared.value()));
  }
  return std::static_pointer_cast<const PreparedModel>(slot);
}

}  // namespace tern
