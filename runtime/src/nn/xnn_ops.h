// The layer between tern and XNNPACK: initialization, the thread pool, operator ownership and the row
// quantizer. Every XNNPACK and pthreadpool handle lives in a RAII owner; outside xnn_ops.cc,
// packed_weights.cc and linear_kernels.cc the runtime never names an xnn_* function.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include <pthreadpool.h>
#include <xnnpack.h>

#include "tern/status.h"

namespace tern {

/// Initializes XNNPACK once per process with tern's allocator (malloc-backed; every XNNPACK allocation
/// goes through it, so tests can count them). Thread-safe. Error: kInternal if the CPU is unsupported.
Status InitXnnpack();

/// Number of allocations XNNPACK has made through tern's allocator since the process started.
size_t XnnpackAllocationCount();

struct ThreadPoolDeleter {
  void operator()(pthreadpool_t p) const { pthreadpool_destroy(p); }
};
/// A pthreadpool, or nullptr for threads <= 1 (XNNPACK then runs on the calling thread).
using ThreadPool = std::unique_ptr<std::remove_pointer_t<pthreadpool_t>, ThreadPoolDeleter>;
ThreadPool MakeThreadPool(size_t threads);

struct XnnOperatorDeleter {
  void operator()(xnn_operator_t op) const { xnn_delete_operator(op); }
};
using XnnOperator = std::unique_ptr<std::remove_pointer_t<xnn_operator_t>, XnnOperatorDeleter>;

/// "XNNPACK <what> failed (xnn_status N)" as kInternal.
Status XnnError(const char* what, xnn_status s);

/// Scratch a Linear needs for int8 weights: the input quantized per row (qd8) and its per-row params.
/// `q` holds rows x in_features int8 (+ XNN_EXTRA_BYTES), `params` rows + XNN_EXTRA_QUANTIZATION_PARAMS.
struct QuantScratch {
  int8_t* q = nullptr;
  xnn_quantization_params* params = nullptr;
  int32_t* chunk_sums = nullptr;  ///< [rows, in_features / 32]: scratch for tern's 4-bit GEMM (its zero-point terms)
};

/// Bytes of QuantScratch::q and entries of ::params for `rows` rows of `cols` features (64-bit: arena
/// planning sizes them before anything is allocated).
uint64_t QuantInputBytes(uint64_t rows, uint64_t cols);
uint64_t QuantParamsCount(uint64_t rows);
uint64_t QuantChunkSumsCount(uint64_t rows, uint64_t cols);

/// One row's quantization (qd8: int8 with one scale and zero point per row). tern computes it itself, in
/// one specified way on every CPU (runtime/src/nn/row_quantizer.cc, docs/design.md "Identical int8 output on
/// every CPU"): XNNPACK's xnn_f32_qd8_asymmetric_quantization_params for the parameters, then
/// q = clamp(round_half_even(x * inv_scale), -128 - zero_point, 127 - zero_point) + zero_point, in plain IEEE
/// operations (no fused multiply-add; rounding by adding and subtracting 1.5 * 2^23).
struct QuantParams {
  int32_t zero_point = 0;  // in [-128, 127]
  float scale = 1.f;       // dequantization scale: x ~ (q - zero_point) * scale
  float inv_scale = 1.f;   // 1 / scale, the quantization multiplier
};
/// The parameters for a row whose values lie in [min, max] (NaN or infinite bounds give finite parameters).
QuantParams QuantizationParamsOf(float min, float max);
/// Quantizes one row x[cols] into q[cols] and its params. `layer`: the linear layer's weight name, for the
/// 7-bit grid experiment's per-layer switch (row_quantizer.cc); nullptr: none.
void QuantizeRowQd8(const float* x, size_t cols, int8_t* q, xnn_quantization_params* params, const char* layer = nullptr);

/// Quantizes f32 rows to int8 with one (scale, zero point) per row ("dynamically quantized" activations,
/// XNNPACK's qd8 layout) with QuantizeRowQd8. One per Translator.
class RowQuantizer {
 public:
  static Result<RowQuantizer> Create();
  /// in [rows, cols] f32 -> scratch. Never fails (a Status for the callers' uniformity).
  Status Run(const float* in, size_t rows, size_t cols, const QuantScratch& scratch, pthreadpool_t pool,
             const char* layer = nullptr) const;
};

}  // namespace tern
