// The shared, immutable part of running a Model: every linear layer packed for XNNPACK once per Model
// (Q|K|V and cross K|V fused), whatever number of Translators use it. The first Translator created on a
// Model makes it (and gives back the model's pages of the weights it packed); every later one, in any thread,
// gets the same object and only binds its own operators to the packed weights. A Translator then holds
// its arena, its operators and its thread pool, and no copy of any weight.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "nn/gathered_projection.h"
#include "layer_spec.h"
#include "nn/linear.h"
#include "model/model_data.h"
#include "nn/packed_cache.h"
#include "tern/model.h"
#include "tern/status.h"

namespace tern {

/// One layer's linear operators as packed, indexed by format::LinearOp (layer_spec.h); an operator its
/// block does not have (an encoder layer's cross-attention) stays empty.
struct PreparedLayer {
  PackedLinear linear[format::kLinearOps];
};

class PreparedModel {
 public:
  /// The prepared weights of `model`, made by the first call and shared by all later ones (thread-safe).
  /// Errors (from the first call, and again from later calls until one succeeds): kInternal (XNNPACK),
  /// kResourceExhausted.
  static Result<std::shared_ptr<const PreparedModel>> Of(const std::shared_ptr<const Model>& model);
  /// The packed-weights cache directory Of reads and writes for `model` (LoadOptions::packed_cache_dir, else
  /// TERN_PACKED_CACHE_DIR), or "" when it uses none (none named, or a model from memory). Never fails.
  static std::string CacheDirectoryPath(const Model& model);
  /// The same for a model being loaded with `options` from bytes of `data` (before the Model exists).
  static std::string CacheDirectoryPath(const LoadOptions& options, const internal::ModelData& data);

  /// The packed-weights cache file the blocks are mapped from (nn/packed_cache.h), or nullptr. First, so it
  /// is unmapped after the blocks that borrow from it are gone.
  std::unique_ptr<PackedCacheFile> cache_file;
  std::vector<PreparedLayer> encoder, decoder;
  PackedLinear output_projection;  // [target_vocab_size, d_model]: lm_head or the tied decoder embedding
  /// The output projection over shortlist rows (models with a shortlist and an int8 output projection;
  /// unavailable otherwise).
  GatheredProjection gathered_output;
  size_t packed_bytes = 0;         // sum of the packed weights, bytes

  PackedBlockId gathered_sums_id;   // the gathered projection's row sums in a packed-weights cache
  /// The model's weights the packed copy replaces (nothing reads them again): given back once the packed
  /// weights are final (ModelData::ReleasePages).
  std::vector<std::pair<const void*, size_t>> replaced;

  /// f(PackedBlockId, const void* bytes, size_t size, bool computed) for every int32 row-sums block tern's own
  /// int8 GEMM layers and the gathered projection use (computed: made by this load, not mapped from a cache), in
  /// packing order.
  template <typename F>
  void ForEachRowSums(F&& f) const {
    auto layer = [&](const PackedLinear& x) {
      if (x.own.available()) f(x.cache_id, static_cast<const void*>(x.own.sums()), x.own.out * 4, x.own.cached_sums == nullptr);
    };
    for (const auto* layers : {&encoder, &decoder})
      for (const PreparedLayer& l : *layers)
        for (const PackedLinear& x : l.linear) layer(x);
    layer(output_projection);
    if (gathered_output.available()) {
      const int32_t* computed = gathered_output.computed_sums();
      if (computed || gathered_output.cached())
        f(gathered_sums_id, static_cast<const void*>(computed ? computed : nullptr), gathered_output.vocab() * 4, computed != nullptr);
    }
  }

  /// f(const PackedLinear&) for every linear layer XNNPACK packed (block != nullptr), in packing order.
  template <typename F>
  void ForEachBlock(F&& f) const {
    for (const auto* layers : {&encoder, &decoder})
      for (const PreparedLayer& l : *layers)
        for (const PackedLinear& x : l.linear)
          if (x.block) f(x);
    if (output_projection.block) f(output_projection);
  }
};

}  // namespace tern
