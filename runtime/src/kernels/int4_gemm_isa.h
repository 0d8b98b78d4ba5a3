// Internal to the 4-bit GEMM kernels (int4_gemm*.cc): the per-ISA entry points and the scalar arithmetic
// every kernel reproduces operation for operation (the files build with -ffp-contract=off).
#pragma once

#include <cstring>

#include "kernels/int4_gemm.h"

namespace tern {

namespace {  // internal linkage: each file compiles its own copy with its own ISA flags
/// Weight k of a 4-bit row: the even column in the low nibble, zero point 8.
inline int32_t Int4Weight(const uint8_t* row, size_t k) {
  const uint8_t b = row[k / 2];
  return static_cast<int32_t>(k % 2 ? b >> 4 : b & 0x0f) - 8;
}
inline float Bf16(uint16_t h) {
  const uint32_t bits = uint32_t{h} << 16;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}
/// qc4w: the int8 epilogue.
inline float Int4QcOutput(int32_t acc, float x_scale, float w_scale, float bias) {
  float v = static_cast<float>(acc);
  v *= x_scale;
  v *= w_scale;
  return v + bias;
}
/// qb4w: one block into the running sum, then the output.
inline float Int4BlockAdd(float f, int32_t ib, uint16_t scale) {
  const float t = static_cast<float>(ib) * Bf16(scale);
  return f + t;
}
inline float Int4QbOutput(float f, float x_scale, float bias) {
  const float v = f * x_scale;
  return v + bias;
}
}  // namespace

#define TERN_INT4_GEMM_KERNEL(name)                                                                                    \
  void name(const int8_t* q, const xnn_quantization_params* qp, const int32_t* chunk_sums, size_t rows, size_t K,         \
            const uint8_t* w, size_t w_stride, size_t block, const float* w_scales, const uint16_t* block_scales,       \
            const float* bias, size_t N, float* out, size_t out_stride)

TERN_INT4_GEMM_KERNEL(Int4GemmPortable);
#if defined(__x86_64__) || defined(__i386__)
TERN_INT4_GEMM_KERNEL(Int4GemmAvx2);
/// The AVX2 kernel over the split input (int4_split_avx2.cc), for K a multiple of 64 and rows x K <=
/// kInt4SplitBytes (its split copy of q is on the stack): qc4w, which Int4GemmAvx2 runs on it below its panel
/// form's rows, and qb4w with blocks of 32 up to kInt4SplitQbRows rows (8 weight rows in the lanes, as the
/// panel form, without building a panel per call).
constexpr size_t kInt4SplitBytes = 16384, kInt4SplitQbRows = 2;
TERN_INT4_GEMM_KERNEL(Int4SplitAvx2);
inline bool Int4SplitFits(size_t rows, size_t K, size_t block) {
  return (block == 0 || (block == 32 && rows <= kInt4SplitQbRows)) && K % 64 == 0 && rows * K <= kInt4SplitBytes;
}
TERN_INT4_GEMM_KERNEL(Int4GemmAvx512Vnni);
#endif

}  // namespace tern
