// The output layer over a subset of the vocabulary (a shortlist): logits for gathered rows of the
// projection matrix. XNNPACK has no operator for this (its fully-connected operators need weights packed
// ahead of time, and a shortlist changes with every batch), so these are tern's own kernels: a portable
// one and NEON, NEON dot-product, AVX2 and AVX-512 VNNI ones, one per ISA level (kernels/isa.h), all
// computing the same exact int32 sums and the same float operations afterwards, so they agree bit for bit
// (tested against the portable one at every level the CPU runs).
//
// int8 (qc8w rows, qd8 input): for each input row r and column k with token t = tokens[k]:
//   acc = sum_j q[r, j] * w[t, j] - zero_point[r] * row_sum[t]          (int32, exact)
//   out[r, k] = (float(acc) * x_scale[r]) * w_scale[t] + bias[t]       (no fused multiply-add)
// which is XNNPACK's qd8_f32_qc8w arithmetic (its scalar kernel; its x86 kernels fuse the last two
// operations, so logits may differ from the full-vocabulary projection in the last bit).
#pragma once

#include <cstddef>
#include <cstdint>

#include <xnnpack.h>

#include "kernels/isa.h"

namespace tern {

/// The int8 gathered projection: q [rows, d] the row-quantized input with its params; w [V, d] int8
/// rows with f32 scales and int32 row sums; bias [V] or nullptr; tokens [K] < V, or nullptr for rows 0..K-1
/// in order (a dense GEMM: tern's own int8 linear layers, nn/own_int8.h); out [rows, K] with rows
/// out_stride floats apart. d <= 8192 (the int32 sums cannot overflow).
using GatheredInt8Fn = void (*)(const int8_t* q, const xnn_quantization_params* qp, size_t rows, size_t d,
                                const int8_t* w, const float* w_scales, const int32_t* row_sums, const float* bias,
                                const uint32_t* tokens, size_t K, float* out, size_t out_stride);

struct GatheredInt8Kernel {
  const char* isa;  // "portable", "avx2", "avx512vnni", "neon", "neondot"
  GatheredInt8Fn fn;
  GatheredInt8Fn fn_127 = nullptr;  // the same sums, faster, for weights in [-127, 127] only (nullptr: use fn)
  /// The kernel for weights whose every value is in [-127, 127] (`in_127`) or not.
  GatheredInt8Fn For(bool in_127) const { return in_127 && fn_127 ? fn_127 : fn; }
};

/// The kernel of ISA level `isa` (a level this CPU runs: AvailableIsas).
GatheredInt8Kernel GatheredInt8For(Isa isa);
/// The kernel of ActiveIsa().
GatheredInt8Kernel GatheredInt8Active();

}  // namespace tern
