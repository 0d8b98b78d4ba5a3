// Internal to the NEON gathered-projection kernels (gathered_neon.cc, gathered_neondot.cc): the shared
// reduction, float epilogue and driver. Each kernel file includes it and supplies its register tiles.
#pragma once

#include <arm_neon.h>

#include "kernels/gathered_kernels_isa.h"

namespace tern {
// Internal linkage: each kernel file compiles its own copy with its own ISA flags (a shared inline copy
// could be taken from the dot-product file by the linker and run on a core without it).
namespace {

// [sum(a0), sum(a1), sum(a2), sum(a3)].
inline int32x4_t Reduce4(int32x4_t a0, int32x4_t a1, int32x4_t a2, int32x4_t a3) {
  return vpaddq_s32(vpaddq_s32(a0, a1), vpaddq_s32(a2, a3));
}

inline float32x4_t Epilogue(int32x4_t sums, const xnn_quantization_params& qp, int32x4_t row_sums, float32x4_t w_scales,
                            float32x4_t bias) {
  const int32x4_t acc = vsubq_s32(sums, vmulq_s32(vdupq_n_s32(qp.zero_point), row_sums));
  float32x4_t v = vcvtq_f32_s32(acc);
  v = vmulq_f32(v, vdupq_n_f32(qp.scale));
  v = vmulq_f32(v, w_scales);
  return vaddq_f32(v, bias);
}

// The d % 16 last columns one by one.
inline int32x4_t Tail(int32x4_t s, const int8_t* x, const int8_t* const* w, size_t j, size_t d) {
  int32_t v[kNR];
  vst1q_s32(v, s);
  for (size_t i = 0; i < kNR; ++i)
    for (size_t c = j; c < d; ++c) v[i] += int32_t{x[c]} * int32_t{w[i][c]};
  return vld1q_s32(v);
}

// A register tile: out[r] = the 4 exact dot products of input row r < MR with the weight rows w[0..3], 16
// bytes at a time by Acc::Step(acc, x, w) (which adds x . w into acc's lanes), the last d % 16 by Tail.
template <typename Acc, size_t MR>
inline void Tile(const int8_t* q, size_t d, const int8_t* const* w, int32x4_t* out) {
  int32x4_t acc[MR][kNR];
#pragma GCC unroll 4
  for (size_t r = 0; r < MR; ++r)
#pragma GCC unroll 4
    for (size_t i = 0; i < kNR; ++i) acc[r][i] = vdupq_n_s32(0);
  size_t j = 0;
  for (; j + 16 <= d; j += 16) {
    int8x16_t wv[kNR];
#pragma GCC unroll 4
    for (size_t i = 0; i < kNR; ++i) wv[i] = vld1q_s8(w[i] + j);
#pragma GCC unroll 4
    for (size_t r = 0; r < MR; ++r) {
      const int8x16_t xv = vld1q_s8(q + r * d + j);
#pragma GCC unroll 4
      for (size_t i = 0; i < kNR; ++i) acc[r][i] = Acc::Step(acc[r][i], xv, wv[i]);
    }
  }
#pragma GCC unroll 4
  for (size_t r = 0; r < MR; ++r) {
    out[r] = Reduce4(acc[r][0], acc[r][1], acc[r][2], acc[r][3]);
    if (j < d) out[r] = Tail(out[r], q + r * d, w, j, d);
  }
}

using TileFn = void (*)(const int8_t*, size_t, const int8_t* const*, int32x4_t*);

// The shared driver: token tiles outer (their rows prefetched two tiles ahead), row tiles of up to MR inner.
template <size_t MR>
inline void Run(const TileFn* tiles, const int8_t* q, const xnn_quantization_params* qp, size_t rows, size_t d,
                const int8_t* w, const float* w_scales, const int32_t* row_sums, const float* bias,
                const uint32_t* tokens, size_t K, float* out, size_t out_stride) {
  for (size_t k = 0; k < K; k += kNR) {
    uint32_t t[kNR];
    const int8_t* wr[kNR];
    const size_t n = TokenTile(tokens, k, K, w, d, t, wr);
    const int32_t rsv[kNR] = {row_sums[t[0]], row_sums[t[1]], row_sums[t[2]], row_sums[t[3]]};
    const float wsv[kNR] = {w_scales[t[0]], w_scales[t[1]], w_scales[t[2]], w_scales[t[3]]};
    const float bv[kNR] = {bias ? bias[t[0]] : 0.f, bias ? bias[t[1]] : 0.f, bias ? bias[t[2]] : 0.f,
                           bias ? bias[t[3]] : 0.f};
    const int32x4_t rs = vld1q_s32(rsv);
    const float32x4_t ws = vld1q_f32(wsv), b = vld1q_f32(bv);
    for (size_t r = 0; r < rows; r += MR) {
      const size_t m = rows - r < MR ? rows - r : MR;
      int32x4_t sums[MR];
      tiles[m - 1](q + r * d, d, wr, sums);
      for (size_t i = 0; i < m; ++i) {
        const float32x4_t v = Epilogue(sums[i], qp[r + i], rs, ws, b);
        float* o = out + (r + i) * out_stride + k;
        if (n == kNR) {
          vst1q_f32(o, v);
        } else {
          float tmp[kNR];
          vst1q_f32(tmp, v);
          for (size_t c = 0; c < n; ++c) o[c] = tmp[c];
        }
      }
    }
  }
}

}  // namespace
}  // namespace tern
