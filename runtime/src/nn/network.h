// The Transformer's layers as one Translator runs them: its own XNNPACK operators bound to the Model's
// shared packed weights (prepared_model.h), the LayerNorm parameters and embeddings read from the Model,
// and the sublayer plumbing shared by the encoder and the decoder (norm placement, residuals, the
// feed-forward block).
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "nn/linear.h"
#include "nn/op_probe.h"
#include "nn/prepared_model.h"
#include "base/profiler.h"
#include "tern/model.h"
#include "views.h"
#include "nn/xnn_ops.h"

namespace tern {

/// The output layer's columns: tokens[0..count) ascending target ids, or all of them (tokens nullptr, count =
/// the target vocabulary).
struct OutputColumns {
  const uint32_t* tokens = nullptr;
  size_t count = 0;
  bool all() const { return tokens == nullptr; }
};

/// One LayerNorm's parameters: f32 [d_model] each, pointing into the model.
struct LayerNormParams {
  const float* gamma = nullptr;
  const float* beta = nullptr;
};

/// One layer as a Translator runs it: its operators (bound to the Model's packed weights) and norms,
/// indexed by format::LinearOp / NormOp (layer_spec.h); an encoder layer leaves the cross-attention empty.
struct Layer {
  Linear linear[format::kLinearOps];
  LayerNormParams norm[format::kNormOps];
  const Linear& op(format::LinearOp o) const { return linear[static_cast<size_t>(o)]; }
  const LayerNormParams& ln(format::NormOp o) const { return norm[static_cast<size_t>(o)]; }
};

class Network {
 public:
  /// Binds operators to `prepared`'s packed weights and reads the norms and embeddings of `model`.
  /// Errors: kInternal (XNNPACK).
  static Result<std::unique_ptr<Network>> Create(const Model& model, const PreparedModel& prepared, size_t threads);

  const Hyperparameters& hp() const { return *hp_; }
  const std::vector<Layer>& encoder() const { return encoder_; }
  const std::vector<Layer>& decoder() const { return decoder_; }
  const LayerNormParams& encoder_final_norm() const { return encoder_final_norm_; }  // pre-norm only
  const LayerNormParams& decoder_final_norm() const { return decoder_final_norm_; }  // pre-norm only
  const Linear& output_projection() const { return output_projection_; }            // logits = x @ E^T + final_logits_bias
  const TensorView& encoder_embedding() const { return *encoder_embedding_; }
  const TensorView& decoder_embedding() const { return *decoder_embedding_; }
  /// The pool the operators run on now: the Translator's, or nullptr (the calling thread alone) while
  /// SetPooled(false) (thread_policy.h decides).
  pthreadpool_t pool() const { return pooled_ ? pool_.get() : nullptr; }
  void SetPooled(bool on) const { pooled_ = on; }
  /// Seconds one empty job per thread takes on the pool (0 without one): how long its workers take to
  /// answer (thread_policy.h).
  double PingPool() const;
  uint32_t threads() const { return threads_; }

  /// y[rows, out] = l(x[rows, in]), quantizing x into q first when l takes int8 input.
  Status RunLinear(const Linear& l, const float* x, size_t rows, float* y, const QuantScratch& q,
                   float* row_max = nullptr) const;
  /// Logits [rows, columns.count] of x [rows, d_model] over `columns`: XNNPACK's full projection for all
  /// of them; for a shortlist the gathered int8 kernel (gathered_projection.h), or, where the output
  /// projection is not int8, the full projection with the shortlist's columns kept. `logits` holds
  /// [rows, target vocab] floats. When LogitsMaxFused(columns), also row_max[r] = MaxOf(logits row r)
  /// (kernels.h) from the projection's epilogue; otherwise row_max is not written. Error: kInternal (XNNPACK).
  Status OutputLogits(const float* x, size_t rows, const OutputColumns& columns, float* logits, float* row_max,
                      const QuantScratch& q) const;
  /// Whether OutputLogits gives each row's max for `columns` at no extra pass (Linear::fuses_row_max).
  bool LogitsMaxFused(const OutputColumns& columns) const { return columns.all() && output_projection_.fuses_row_max(); }
  /// Weight bytes a decoder step reads in its layers (every decoder linear layer but the cross-attention
  /// K/V projection, which runs once per sentence: data and scales), and in its output layer for `columns`.
  uint64_t decoder_layer_weight_bytes() const { return decoder_layer_weight_bytes_; }
  uint64_t OutputWeightBytes(const OutputColumns& columns) const;
  /// The gathered kernel's ISA ("avx512vnni", ...), or "" when the model has no gathered projection.
  const char* gathered_isa() const { return gathered_ && gathered_->available() ? gathered_kernel_.isa : ""; }

  /// Quantizes x[rows, cols] into q (qd8) for several Linears on the same input.
  Status Quantize(const float* x, size_t rows, size_t cols, const QuantScratch& q) const;

  // Sublayer plumbing (x, h: [rows, d_model]):
  /// The sublayer's input: x (post-norm) or LayerNorm(x) written to h (pre-norm).
  const float* SublayerInput(const float* x, const LayerNormParams& norm, size_t rows, float* h) const;
  /// h = out(ctx); x += h; then x = LayerNorm(x) for post-norm.
  Status ResidualOut(const Linear& out, const float* ctx, const LayerNormParams& norm, size_t rows, float* x, float* h,
                     const QuantScratch& q) const;
  /// x = x + fc2(act(fc1(input))), with the norm placed as above; ffn: [rows, ffn_dim] scratch.
  Status FeedForward(const Linear& fc1, const Linear& fc2, const LayerNormParams& norm, size_t rows, float* x, float* h,
                     float* ffn, const QuantScratch& q) const;

 private:
  Network() = default;
  const Hyperparameters* hp_ = nullptr;
  std::vector<Layer> encoder_, decoder_;
  LayerNormParams encoder_final_norm_, decoder_final_norm_;
  Linear output_projection_;
  const GatheredProjection* gathered_ = nullptr;
  GatheredInt8Kernel gathered_kernel_{};
  uint64_t decoder_layer_weight_bytes_ = 0, output_weight_bytes_ = 0;
  const TensorView* encoder_embedding_ = nullptr;
  const TensorView* decoder_embedding_ = nullptr;
  uint32_t threads_ = 1;
  ThreadPool pool_;
  mutable bool pooled_ = true;  // per Translator (a Network is never shared): which way the next operators run
  RowQuantizer quantizer_;
  std::unique_ptr<OpProbe> probe_;  // TERN_DUMP_OPS (op_probe.h); nullptr: no dumps
  void Probe(const char* op, const char* name, const float* data, size_t count) const {
    if (probe_) probe_->F32(op, name, data, count);
  }
};

}  // namespace tern
