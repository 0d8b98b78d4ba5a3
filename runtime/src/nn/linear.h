// Linear layers: y[rows, out] = x[rows, in] @ W^T + b, W [out, in] row-major, run by XNNPACK.
//
// Packing happens once per Model (PackLinear, called by the PreparedModel): the weights of one or more
// tensors of the same format, concatenated along `out` (fused projections: Q|K|V, cross K|V), go into a
// PackedBlock. Each Translator then binds its own operator to that block (Linear::Bind): operators carry
// per-call state, so they are per Translator; the packed weights are not.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "nn/linear_kernels.h"
#include "nn/own_int8.h"
#include "nn/packed_cache.h"
#include "nn/packed_weights.h"
#include "tern/model.h"
#include "views.h"
#include "tern/status.h"
#include "nn/xnn_ops.h"

namespace tern {

/// One linear layer as packed for the whole process.
struct PackedLinear {
  std::string name;  // the first weight's name, for messages
  DType dtype = DType::kF32;
  size_t in = 0, out = 0;
  uint32_t block_size = 0;            // qb4w
  std::vector<uint8_t> bind_scales;   // the scales, kept when binding must pass them (LinearKernel::create_reads_scales)
  std::unique_ptr<PackedBlock> block;  // XNNPACK's packed weights; nullptr when tern's own GEMM runs the layer
  PackedBlockId cache_id;              // the block's identity in a packed-weights cache file
  /// True when the layer reads the model's weights while translating (tern's own GEMM): their pages stay.
  bool reads_model_weights() const { return own.available() || own4.available(); }
  /// LinearKernel::exact_epilogue: the weight scales [out] and bias [out] tern applies after the operator.
  std::vector<float> epilogue_scales, epilogue_bias;
  /// int8 on a CPU without int8 dot products: tern's own GEMM over the stored rows (nn/own_int8.h), which
  /// runs the layer at every number of rows (bit for bit what the XNNPACK operator gives).
  OwnInt8Linear own;
  /// qc4w on x86 AVX2 without VNNI when opted in, and qc4w / qb4w wherever XNNPACK's 4-bit operator is wrong
  /// (nn/int4_probe.h): tern's own 4-bit GEMM over the stored nibbles (nn/own_int8.h), with the fused bias
  /// (for qc4w bit for bit XNNPACK's operator and the epilogue where that one is right), at every number of rows.
  OwnInt4Linear own4;
  std::vector<float> own4_bias;
};

/// Which implementations PackLinear prepares.
enum class LinearBackends {
  /// tern's own GEMM where the CPU and layer allow it (then XNNPACK packs nothing: the layer reads the model's
  /// rows, one copy of the weights), XNNPACK otherwise.
  kAuto,
  /// XNNPACK's packed operator always, and tern's own GEMM as in kAuto too (tests and benchmarks compare them
  /// through Linear::RunXnnpack).
  kBoth,
  /// XNNPACK's packed operator only (nn/int4_probe.cc checks XNNPACK's 4-bit kernels with it).
  kXnnpackOnly,
};

/// What PackLinear hands XNNPACK (the staging, the scales and bias it passes, the fusion): part of the
/// packed-weights cache's key (nn/packer_key.h). Raise it with any change to them, so that a cache file
/// packed from other inputs is never mapped.
constexpr uint32_t kPackingScheme = 1;

/// Packs `weights` (n >= 1 tensors [out_i, in] of one format, fused along out) with `biases` (f32 [out_i],
/// or nullptr entries for zero). With `cache`, the block of `ordinal` (the layer's place in the packing
/// order) and this shape is mapped instead of packed when XNNPACK accepts it (its seed matches); the weights
/// are then neither read nor staged. Errors: kInvalidArgument (shapes or formats differ),
/// kResourceExhausted (no memory for a temporary), kInternal (XNNPACK).
Result<PackedLinear> PackLinear(const TensorView* const* weights, const TensorView* const* biases, size_t n,
                                LinearBackends backends = LinearBackends::kAuto, const PackedCacheFile* cache = nullptr,
                                uint32_t ordinal = 0);

/// A Translator's operator over a PackedLinear.
class Linear {
 public:
  /// Creates the operator over p's packed weights (no packing, no read of the weights), or binds tern's own
  /// GEMM (PackedLinear::own, own4). Error: kInternal.
  static Result<Linear> Bind(const PackedLinear& p);

  size_t in_features() const { return in_; }
  /// The (first) weight's name, e.g. "model.decoder.layers.0.self_attn.q_proj.weight".
  const char* name() const { return name_; }
  size_t out_features() const { return out_; }
  /// True when Run reads the input from a QuantScratch filled by RowQuantizer::Run (int8 weights).
  bool quantized() const { return kernel_->quantized_input; }

  /// True when Run can give each row's max from its epilogue's pass (XNNPACK runs the layer and tern
  /// applies the scales after it); elsewhere the max would cost a pass of its own.
  bool fuses_row_max() const { return !own_ && !own4_ && epilogue_scales_ != nullptr; }
  /// y[rows, out] from x[rows, in] (or its quantized copy `q`, see quantized()). With `row_max` and
  /// fuses_row_max(), also row_max[r] = MaxOf(y row r) (kernels.h); otherwise row_max is not written. Error:
  /// kInternal.
  Status Run(const float* x, const QuantScratch& q, size_t rows, float* y, pthreadpool_t pool,
             float* row_max = nullptr) const;
  /// Run on XNNPACK's operator (packed with LinearBackends::kBoth; tests and benchmarks compare it with the
  /// own GEMM). Error: kInternal (also when the layer was packed without it).
  Status RunXnnpack(const float* x, const QuantScratch& q, size_t rows, float* y, pthreadpool_t pool,
                    float* row_max = nullptr) const;

 private:
  XnnOperator op_;
  const LinearKernel* kernel_ = nullptr;
  size_t in_ = 0, out_ = 0;
  const float* epilogue_scales_ = nullptr;  // the PackedLinear's (the Model outlives its Translators)
  const float* epilogue_bias_ = nullptr;
  const char* name_ = "";  // the PackedLinear's name
  const OwnInt8Linear* own_ = nullptr;  // the PackedLinear's, when available
  Int8GemmKernel own_kernel_{};
  const OwnInt4Linear* own4_ = nullptr;
  const float* own4_bias_ = nullptr;
  Int4GemmKernel own4_kernel_{};
};

/// y[r, n] = y[r, n] * w_scale[n] + bias[n] for rows x n: two IEEE operations per element, never fused
/// (tern builds with -ffp-contract=off), so any vectorization the compiler chooses gives the same bits.
void Epilogue(float* y, size_t rows, size_t n, const float* w_scale, const float* bias);

}  // namespace tern
