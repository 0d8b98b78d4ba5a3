#include "tensor_specs.h"

namespace tern::format {
namespace {

void AddLinear(std::vector<TensorSpec>& out, const std::string& prefix, uint32_t out_f, uint32_t in_f) {
  out.push_back({prefix + ".weight", {out_f, in_f}, true});
  out.push_back({prefix + ".bias", {out_f}, false});
}

void AddLayerNorm(std::vector<TensorSpec>& out, const std::string& prefix, uint32_t d) {
  out.push_back({prefix + ".weight", {d}, false});
  out.push_back({prefix + ".bias", {d}, false});
}

void AddAttention(std::vector<TensorSpec>& out, const std::string& prefix, uint32_t d) {
  for (const char* p : {"q_proj", "k_proj", "v_proj", "out_proj"}) AddLinear(out, prefix + "." + p, d, d);
}

}  // namespace

std::vector<TensorSpec> ExpectedTensors(const Hyperparameters& hp) {
  std::vector<TensorSpec> out;
  const uint32_t d = hp.d_model;
  out.push_back({"encoder.embed_tokens.weight", {hp.source_vocab_size, d}, true});
  if (!hp.shared_embeddings) out.push_back({"decoder.embed_tokens.weight", {hp.target_vocab_size, d}, true});
  if (!hp.tied_output_projection) out.push_back({"lm_head.weight", {hp.target_vocab_size, d}, true});
  if (hp.final_logits_bias) out.push_back({"final_logits_bias", {hp.target_vocab_size}, false});
  if (hp.position_encoding == PositionEncoding::kLearned) {
    out.push_back({"encoder.embed_positions.weight", {hp.max_positions, d}, false});
    out.push_back({"decoder.embed_positions.weight", {hp.max_positions, d}, false});
  }
  for (uint32_t i = 0; i < hp.encoder_layers; ++i) {
    const std::string p = "encoder.layers." + std::to_string(i);
    AddAttention(out, p + ".self_attn", d);
    AddLayerNorm(out, p + ".self_attn_layer_norm", d);
    AddLinear(out, p + ".fc1", hp.ffn_dim, d);
    AddLinear(out, p + ".fc2", d, hp.ffn_dim);
    AddLayerNorm(out, p + ".final_layer_norm", d);
  }
  for (uint32_t i = 0; i < hp.decoder_layers; ++i) {
    const std::string p = "decoder.layers." + std::to_string(i);
    AddAttention(out, p + ".self_attn", d);
    AddLayerNorm(out, p + ".self_attn_layer_norm", d);
    AddAttention(out, p + ".encoder_attn", d);
    AddLayerNorm(out, p + ".encoder_attn_layer_norm", d);
    AddLinear(out, p + ".fc1", hp.ffn_dim, d);
    AddLinear(out, p + ".fc2", d, hp.ffn_dim);
    AddLayerNorm(out, p + ".final_layer_norm", d);
  }
  if (hp.norm_placement == NormPlacement::kPreNorm) {
    AddLayerNorm(out, "encoder.layer_norm", d);
    AddLayerNorm(out, "decoder.layer_norm", d);
  }
  return out;
}

}  // namespace tern::format
