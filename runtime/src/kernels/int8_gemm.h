// tern's own int8 matrix multiply for linear layers on CPUs without int8 dot-product instructions (x86
// AVX2 without VNNI, Arm NEON without SDOT, ARMv7 NEON), where XNNPACK's qd8 x qc8w kernels widen both
// operands to 16 bits. It reads the weights as the model stores them ([N, K] int8 rows, row scales): no
// packing. Exact: int32 sums, no 16-bit saturation, so every ISA's kernel gives the portable kernel's
// integers, and the float epilogue is the same operations in the same order (no fused multiply-add):
//
//   acc[r, n] = sum_k q[r, k] * w[n, k] - zero_point[r] * row_sum[n]               (int32, exact)
//   out[r, n] = ((float(acc) * x_scale[r]) * w_scale[n]) + bias[n]
//
// which is what XNNPACK's operator followed by tern's epilogue gives (nn/linear.h), bit for bit: a layer
// computes the same floats whichever runs it, and int8 output stays the same on every CPU.
//
// x86 and AArch64 run the tiles of the gathered output-layer kernels (kernels/gathered_kernels.h) over every
// weight row in order: AVX2 widens int8 to int16 and sums pairs with vpmaddwd (2 input rows x 4 weight rows
// per tile, the weight rows two tiles ahead prefetched); AArch64 NEON multiplies with vmull_s8. ARMv7 has its
// own NEON kernel (int8_gemm_neon.cc), which sums two int8 products in int16 (vmull_s8 + vmlal_s8) before
// widening: exact for weights in [-127, 127] (at most 2 x 128 x 127 = 32,512), which is why a layer with a
// weight of -128 stays on XNNPACK (Int8RowSums; tern-convert's symmetric quantization writes none).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include <xnnpack.h>

#include "kernels/isa.h"

namespace tern {

/// out[r, n] for r < rows, n < N (above): q [rows, K] row-quantized input with its params, w [N, K] int8
/// rows (K contiguous bytes each, rows w_stride bytes apart), w_scales [N], row_sums [N], bias [N] or
/// nullptr; out rows out_stride floats apart. K <= kMaxInt8GemmK. Allocates nothing.
using Int8GemmFn = void (*)(const int8_t* q, const xnn_quantization_params* qp, size_t rows, size_t K, const int8_t* w,
                            size_t w_stride, const float* w_scales, const int32_t* row_sums, const float* bias, size_t N,
                            float* out, size_t out_stride);

/// Inner dimensions whose int32 sums cannot overflow: 2 x 128 x 127 x 8192 < 2^31.
constexpr size_t kMaxInt8GemmK = 8192;

struct Int8GemmKernel {
  const char* isa;  ///< "portable", "avx2", "neon"
  Int8GemmFn fn;
};

/// The kernel of ISA level `isa` (a level this CPU runs: AvailableIsas). Levels with int8 dot products
/// (avx512vnni, neondot) get the best kernel below them (this one is for CPUs without them).
Int8GemmKernel Int8GemmFor(Isa isa);

/// Whether tern's own kernel runs int8 linear layers at ActiveIsa() (instead of XNNPACK): on x86 AVX2
/// without VNNI and Arm NEON without dot products, where it was measured faster (docs/performance.md);
/// elsewhere XNNPACK, whose dot-product kernels tern has not been measured against. TERN_OWN_INT8=0 in the
/// environment keeps XNNPACK everywhere (read once).
bool OwnInt8GemmActive();

/// "tern's (avx2)" or "XNNPACK's": who runs int8 linear layers (`tern --verbose`).
std::string Int8GemmSummary();

/// row_sums[n] = sum_k w[n, k] for the N rows of w ([N, K], rows w_stride apart); false when a weight is
/// -128 (outside the kernels' range: the layer keeps XNNPACK).
bool Int8RowSums(const int8_t* w, size_t N, size_t K, size_t w_stride, int32_t* row_sums);

}  // namespace tern
