// The f32 row operations around the GEMMs (and the int8 weight rows' sums at load), one table per ISA level (kernels/isa.h), chosen once at run
// time: the portable one, an AVX2 one (x86) and a SIMD128 one (WebAssembly), equal bit for bit (row_ops_body.h; tested against each
// other at every level the CPU runs). kernels.h's MaxOf, MaskRow, ScoreRow, AttendRow, AttendGathered and LayerNorm
// call the active table. Internal to kernels/ and its tests.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/isa.h"

namespace tern {

struct RowOps {
  const char* isa;  ///< "portable", "avx2", "wasm_simd128"
  float (*max_of)(const float* x, size_t n);
  /// The smallest and largest of x[n], n >= 1 (NaN never taken unless x[0] is NaN).
  void (*min_max)(const float* x, size_t n, float* min, float* max);
  /// One row's qd8 conversion with its (inv_scale, zero_point): nn/xnn_ops.h's QuantizeRowQd8.
  void (*quantize_row)(const float* x, size_t n, float inv_scale, int32_t zero_point, int8_t* q);
  void (*mask_row)(float* row, const uint8_t* masked, size_t n);
  void (*score_row)(float* row, const uint8_t* masked, float lse, float base, size_t n);
  /// kernels.h's AttendRow and AttendGathered.
  void (*attend_row)(const float* q, const float* keys, const float* values, size_t key_stride, size_t n,
                     size_t head_dim, float scale, float* scores, float* out);
  void (*attend_gathered)(const float* q, const float* keys, const float* values, const uint32_t* offsets, size_t n,
                          size_t head_dim, float scale, float* scores, float* out);
  /// *sum = the sum of w[n] (int8 weights, one row, at load: kernels/int8_gemm.h's Int8RowSums); false when
  /// one of them is -128.
  bool (*int8_row_sum)(const int8_t* w, size_t n, int32_t* sum);
  /// One row of a linear layer's epilogue, y[j] = y[j] * scale[j] + bias[j] (nn/linear.h's Epilogue), and
  /// the largest result (max_of's): the logits' max for log-sum-exp without a second pass over the row.
  float (*scale_bias_max)(float* y, size_t n, const float* scale, const float* bias);
  /// kernels.h's LayerNorm (row_ops_body.h's LayerNormBody: float64 statistics in 8 fixed lanes).
  void (*layer_norm)(const float* x, const float* gamma, const float* beta, float eps, size_t rows, size_t d, float* y);
};

/// The table of ISA level `isa` (a level this CPU runs: AvailableIsas); levels without their own get the
/// best one below them.
const RowOps& RowOpsFor(Isa isa);
/// RowOpsFor(ActiveIsa()), looked up once.
const RowOps& ActiveRowOps();

}  // namespace tern
