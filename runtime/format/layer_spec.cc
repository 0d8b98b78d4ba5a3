#include "layer_spec.h"

namespace tern::format {
namespace {

constexpr LinearSpec kEncoderLinears[] = {
    {LinearOp::kSelfQkv, {"self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj"}, 3, Dim::kModel, Dim::kModel, Role::kAttention, false},
    {LinearOp::kSelfOut, {"self_attn.out_proj"}, 1, Dim::kModel, Dim::kModel, Role::kAttention, false},
    {LinearOp::kFc1, {"fc1"}, 1, Dim::kFfn, Dim::kModel, Role::kFeedForward, false},
    {LinearOp::kFc2, {"fc2"}, 1, Dim::kModel, Dim::kFfn, Role::kFeedForward, false},
};
constexpr NormSpec kEncoderNorms[] = {
    {NormOp::kSelfAttn, "self_attn_layer_norm", LinearOp::kSelfOut},
    {NormOp::kFinal, "final_layer_norm", LinearOp::kFc2},
};
constexpr LinearSpec kDecoderLinears[] = {
    {LinearOp::kSelfQkv, {"self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj"}, 3, Dim::kModel, Dim::kModel, Role::kAttention, false},
    {LinearOp::kSelfOut, {"self_attn.out_proj"}, 1, Dim::kModel, Dim::kModel, Role::kAttention, false},
    {LinearOp::kCrossQ, {"encoder_attn.q_proj"}, 1, Dim::kModel, Dim::kModel, Role::kAttention, false},
    {LinearOp::kCrossKv, {"encoder_attn.k_proj", "encoder_attn.v_proj"}, 2, Dim::kModel, Dim::kModel, Role::kAttention, true},
    {LinearOp::kCrossOut, {"encoder_attn.out_proj"}, 1, Dim::kModel, Dim::kModel, Role::kAttention, false},
    {LinearOp::kFc1, {"fc1"}, 1, Dim::kFfn, Dim::kModel, Role::kFeedForward, false},
    {LinearOp::kFc2, {"fc2"}, 1, Dim::kModel, Dim::kFfn, Role::kFeedForward, false},
};
constexpr NormSpec kDecoderNorms[] = {
    {NormOp::kSelfAttn, "self_attn_layer_norm", LinearOp::kSelfOut},
    {NormOp::kCrossAttn, "encoder_attn_layer_norm", LinearOp::kCrossOut},
    {NormOp::kFinal, "final_layer_norm", LinearOp::kFc2},
};

constexpr BlockSpec kEncoder = {Stack::kEncoder, "encoder.layers", kEncoderLinears, std::size(kEncoderLinears),
                                kEncoderNorms, std::size(kEncoderNorms)};
constexpr BlockSpec kDecoder = {Stack::kDecoder, "decoder.layers", kDecoderLinears, std::size(kDecoderLinears),
                                kDecoderNorms, std::size(kDecoderNorms)};

}  // namespace

const BlockSpec& EncoderLayerSpec() { return kEncoder; }
const BlockSpec& DecoderLayerSpec() { return kDecoder; }
const BlockSpec& LayerSpec(Stack stack) { return stack == Stack::kEncoder ? kEncoder : kDecoder; }

const LinearSpec* FindLinear(const BlockSpec& b, LinearOp op) {
  for (size_t i = 0; i < b.n_linears; ++i)
    if (b.linears[i].op == op) return &b.linears[i];
  return nullptr;
}

const NormSpec* FindNorm(const BlockSpec& b, NormOp op) {
  for (size_t i = 0; i < b.n_norms; ++i)
    if (b.norms[i].op == op) return &b.norms[i];
  return nullptr;
}

uint32_t Size(Dim d, const Hyperparameters& hp) { return d == Dim::kModel ? hp.d_model : hp.ffn_dim; }

std::string LayerTensor(const BlockSpec& b, uint32_t layer, const char* part) {
  return std::string(b.prefix) + "." + std::to_string(layer) + "." + part;
}

const char* TokenEmbedding(Stack stack, const Hyperparameters& hp) {
  return stack == Stack::kEncoder || hp.shared_embeddings ? "encoder.embed_tokens.weight" : "decoder.embed_tokens.weight";
}

const char* OutputProjection(const Hyperparameters& hp) {
  return hp.tied_output_projection ? TokenEmbedding(Stack::kDecoder, hp) : "lm_head.weight";
}

const char* FinalNorm(Stack stack) { return stack == Stack::kEncoder ? "encoder.layer_norm" : "decoder.layer_norm"; }

const char* LearnedPositions(Stack stack) {
  return stack == Stack::kEncoder ? "encoder.embed_positions.weight" : "decoder.embed_positions.weight";
}

bool RoleOfTensor(const std::string& name, Role* role) {
  for (const BlockSpec* b : {&kEncoder, &kDecoder}) {
    const std::string prefix = std::string(b->prefix) + ".";
    if (name.compare(0, prefix.size(), prefix) != 0) continue;
    const size_t dot = name.find('.', prefix.size());  // after the layer number
    if (dot == std::string::npos) return false;
    const std::string rest = name.substr(dot + 1);
    for (size_t i = 0; i < b->n_linears; ++i)
      for (uint8_t k = 0; k < b->linears[i].n_parts; ++k)
        if (rest == std::string(b->linears[i].parts[k]) + ".weight") return *role = b->linears[i].role, true;
    return false;
  }
  return false;
}

}  // namespace tern::format
