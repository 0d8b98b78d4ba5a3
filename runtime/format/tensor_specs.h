// The tensors a .tern file holds for given hyperparameters. Shared by the converter (what to write) and
// the loader (what to check), so the two cannot drift apart (schema/README.md rule 7).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tern/model.h"

namespace tern::format {

/// A tensor the hyperparameters require: its name, shape and whether it is a matrix that takes the
/// file's weight format (linear weights, embeddings) or stays f32 (vectors: biases, norms, positions).
struct TensorSpec {
  std::string name;
  std::vector<uint32_t> shape;
  bool quantizable = false;
};

/// Every tensor a .tern file must hold for `hp`, in a fixed order. Names follow transformers' Marian
/// layout without the "model." prefix (e.g. "encoder.layers.0.self_attn.q_proj.weight").
std::vector<TensorSpec> ExpectedTensors(const Hyperparameters& hp);

}  // namespace tern::format
