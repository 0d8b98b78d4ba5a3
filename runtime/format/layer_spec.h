// The model's structure, named once: each kind of block (an encoder layer, a decoder layer) lists its
// linear operators (each one or more stored tensors fused along `out`: Q|K|V, cross K|V) and its LayerNorms,
// and the model lists its top-level tensors. Everything that walks the structure derives from these
// tables: the tensors a file must hold (tensor_specs.cc), the semantic checks (parts of one operator share
// a format), the converter's choice of format per matrix (by role), the runtime's weight packing and
// network binding (indexed by LinearOp / NormOp), and the bytes a decoder step reads.
//
// Tensor names follow transformers' Marian layout without the "model." prefix:
// "<stack>.layers.<i>.<part>.weight" / ".bias" for a linear part, "<stack>.layers.<i>.<norm>.weight" /
// ".bias" for a norm.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "tern/model.h"

namespace tern::format {

enum class Stack : uint8_t { kEncoder, kDecoder };

/// The linear operators of a layer (a decoder layer has all, an encoder layer the self-attention and
/// feed-forward ones).
enum class LinearOp : uint8_t { kSelfQkv, kSelfOut, kCrossQ, kCrossKv, kCrossOut, kFc1, kFc2, kCount };
/// The LayerNorms of a layer.
enum class NormOp : uint8_t { kSelfAttn, kCrossAttn, kFinal, kCount };

constexpr size_t kLinearOps = static_cast<size_t>(LinearOp::kCount);
constexpr size_t kNormOps = static_cast<size_t>(NormOp::kCount);

/// What a linear operator is for: the converter's mixed layouts choose a format per role.
enum class Role : uint8_t { kAttention, kFeedForward };
/// A size of the model: d_model or ffn_dim.
enum class Dim : uint8_t { kModel, kFfn };

struct LinearSpec {
  LinearOp op;
  const char* parts[3];  // stored tensors fused along out, in order (e.g. self_attn.q_proj, .k_proj, .v_proj)
  uint8_t n_parts;
  Dim out, in;           // each part is [out, in]
  Role role;
  bool per_sentence;     // run once per source sentence (cross-attention K/V), not at every decoder step
};

struct NormSpec {
  NormOp op;
  const char* name;  // e.g. "self_attn_layer_norm"
  LinearOp after;    // where a file lists it: after this operator's tensors
};

/// The layout of one kind of layer.
struct BlockSpec {
  Stack stack;
  const char* prefix;  // "encoder.layers" / "decoder.layers"
  const LinearSpec* linears;
  size_t n_linears;
  const NormSpec* norms;
  size_t n_norms;
};

/// The encoder's and the decoder's layer layouts.
const BlockSpec& EncoderLayerSpec();
const BlockSpec& DecoderLayerSpec();
/// The block of `stack`.
const BlockSpec& LayerSpec(Stack stack);

/// The spec of `op` in `block`, or nullptr when the block has no such operator.
const LinearSpec* FindLinear(const BlockSpec& block, LinearOp op);
const NormSpec* FindNorm(const BlockSpec& block, NormOp op);

/// Rows/columns of a Dim for `hp`.
uint32_t Size(Dim d, const Hyperparameters& hp);

/// "<prefix>.<layer>.<part>" (e.g. "decoder.layers.2.encoder_attn.k_proj").
std::string LayerTensor(const BlockSpec& block, uint32_t layer, const char* part);

/// Top-level tensors: the token embeddings, the output projection (the tied decoder embedding or
/// lm_head), the stacks' final norms (pre-norm), and learned position tables.
const char* TokenEmbedding(Stack stack, const Hyperparameters& hp);  // the table each stack reads
const char* OutputProjection(const Hyperparameters& hp);
const char* FinalNorm(Stack stack);                                  // "encoder.layer_norm" / "decoder.layer_norm"
const char* LearnedPositions(Stack stack);                           // "<stack>.embed_positions.weight"

/// The Role of matrix `name` of a file when it is a part of a layer's linear operator (false for anything
/// else: the embeddings, the output projection): the converter chooses formats by it.
bool RoleOfTensor(const std::string& name, Role* role);

}  // namespace tern::format
