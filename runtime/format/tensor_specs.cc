#include "tensor_specs.h"

#include "layer_spec.h"

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

}  // namespace

std::vector<TensorSpec> ExpectedTensors(const Hyperparameters& hp) {
  std::vector<TensorSpec> out;
  const uint32_t d = hp.d_model;
  out.push_back({TokenEmbedding(Stack::kEncoder, hp), {hp.source_vocab_size, d}, true});
  if (!hp.shared_embeddings) out.push_back({TokenEmbedding(Stack::kDecoder, hp), {hp.target_vocab_size, d}, true});
  if (!hp.tied_output_projection) out.push_back({OutputProjection(hp), {hp.target_vocab_size, d}, true});
  if (hp.final_logits_bias) out.push_back({"final_logits_bias", {hp.target_vocab_size}, false});
  if (hp.position_encoding == PositionEncoding::kLearned) {
    out.push_back({LearnedPositions(Stack::kEncoder), {hp.max_positions, d}, false});
    out.push_back({LearnedPositions(Stack::kDecoder), {hp.max_positions, d}, false});
  }
  // Each layer as its block lists it: the parts of each operator, each norm after the operator it follows.
  for (const BlockSpec* block : {&EncoderLayerSpec(), &DecoderLayerSpec()}) {
    const uint32_t layers = block->stack == Stack::kEncoder ? hp.encoder_layers : hp.decoder_layers;
    for (uint32_t i = 0; i < layers; ++i) {
      for (size_t k = 0; k < block->n_linears; ++k) {
        const LinearSpec& l = block->linears[k];
        for (uint8_t p = 0; p < l.n_parts; ++p) AddLinear(out, LayerTensor(*block, i, l.parts[p]), Size(l.out, hp), Size(l.in, hp));
        for (size_t n = 0; n < block->n_norms; ++n)
          if (block->norms[n].after == l.op) AddLayerNorm(out, LayerTensor(*block, i, block->norms[n].name), d);
      }
    }
  }
  if (hp.norm_placement == NormPlacement::kPreNorm) {
    AddLayerNorm(out, FinalNorm(Stack::kEncoder), d);
    AddLayerNorm(out, FinalNorm(Stack::kDecoder), d);
  }
  return out;
}

}  // namespace tern::format
