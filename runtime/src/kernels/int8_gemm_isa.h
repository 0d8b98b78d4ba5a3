// Internal to the int8 GEMM kernels (int8_gemm*.cc): the per-ISA entry points, each in a file compiled
// with that ISA's flags, and the float epilogue every kernel computes.
#pragma once

#include "kernels/int8_gemm.h"

namespace tern {

namespace {  // internal linkage: each file compiles its own copy with its own ISA flags
/// The float epilogue, operation for operation (no fused multiply-add: the files build with
/// -ffp-contract=off).
inline float Int8GemmOutput(int32_t acc, float x_scale, float w_scale, float bias) {
  float v = static_cast<float>(acc);
  v *= x_scale;
  v *= w_scale;
  return v + bias;
}
}  // namespace

#define TERN_INT8_GEMM_KERNEL(name)                                                                             \
  void name(const int8_t* q, const xnn_quantization_params* qp, size_t rows, size_t K, const int8_t* w,          \
            size_t w_stride, const float* w_scales, const int32_t* row_sums, const float* bias, size_t N, float* out, \
            size_t out_stride)

TERN_INT8_GEMM_KERNEL(Int8GemmPortable);
#if defined(__ARM_NEON) && !defined(__aarch64__)
TERN_INT8_GEMM_KERNEL(Int8GemmNeon);  // ARMv7; x86 and AArch64 run the gathered kernels' tiles (int8_gemm.cc)
#endif

}  // namespace tern
