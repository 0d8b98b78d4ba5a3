// NEON int8 GEMM for ARMv7 (armhf: NEON, no dot products; AArch64 runs the gathered NEON kernels' tiles,
// int8_gemm.cc): register tiles of 4 input rows x 2 weight rows, 16 columns per step. vmull_s8 multiplies the
// low 8 bytes, vmlal_s8 adds the high 8 bytes' products into the same int16 lanes (at most 2 x 128 x 127 =
// 32,512: no overflow, the weights lying in [-127, 127]), vpadalq_s16 adds neighbouring lanes into int32
// accumulators: 3 instructions per 16 multiply-adds of a row and a weight row. The sums are exact, so they
// equal the portable kernel's.
#include <arm_neon.h>

#include "kernels/int8_gemm_isa.h"

namespace tern {
namespace {

constexpr size_t kMR = 4, kNR = 2;

inline int32_t Sum4(int32x4_t v) {
#if defined(__aarch64__)
  return vaddvq_s32(v);
#else
  const int32x2_t s = vadd_s32(vget_low_s32(v), vget_high_s32(v));
  return vget_lane_s32(vpadd_s32(s, s), 0);
#endif
}

template <size_t MR, size_t NR>
inline void Tile(const int8_t* q, size_t K, const int8_t* const* w, int32_t (*sums)[kNR]) {
  int32x4_t acc[MR][NR];
  for (size_t r = 0; r < MR; ++r)
    for (size_t c = 0; c < NR; ++c) acc[r][c] = vdupq_n_s32(0);
  size_t k = 0;
  for (; k + 16 <= K; k += 16) {
    int8x16_t wv[NR];
    for (size_t c = 0; c < NR; ++c) wv[c] = vld1q_s8(w[c] + k);
    for (size_t r = 0; r < MR; ++r) {
      const int8x16_t a = vld1q_s8(q + r * K + k);
      for (size_t c = 0; c < NR; ++c) {
        int16x8_t p = vmull_s8(vget_low_s8(a), vget_low_s8(wv[c]));
        p = vmlal_s8(p, vget_high_s8(a), vget_high_s8(wv[c]));
        acc[r][c] = vpadalq_s16(acc[r][c], p);
      }
    }
  }
  for (size_t r = 0; r < MR; ++r)
    for (size_t c = 0; c < NR; ++c) {
      int32_t s = Sum4(acc[r][c]);
      for (size_t j = k; j < K; ++j) s += int32_t{q[r * K + j]} * int32_t{w[c][j]};  // K not a multiple of 16
      sums[r][c] = s;
    }
}

template <size_t NR>
inline void Rows(const int8_t* q, const xnn_quantization_params* qp, size_t rows, size_t K, const int8_t* const* wr,
                 const float* w_scales, const int32_t* row_sums, const float* bias, size_t n, float* out, size_t out_stride) {
  int32_t sums[kMR][kNR];
  for (size_t r = 0; r < rows; r += kMR) {
    const size_t m = rows - r < kMR ? rows - r : kMR;
    const int8_t* qr = q + r * K;
    if (m == 4) Tile<4, NR>(qr, K, wr, sums);
    else if (m == 3) Tile<3, NR>(qr, K, wr, sums);
    else if (m == 2) Tile<2, NR>(qr, K, wr, sums);
    else Tile<1, NR>(qr, K, wr, sums);
    for (size_t i = 0; i < m; ++i) {
      const xnn_quantization_params& p = qp[r + i];
      for (size_t c = 0; c < NR; ++c)
        out[(r + i) * out_stride + n + c] = Int8GemmOutput(sums[i][c] - p.zero_point * row_sums[n + c], p.scale,
                                                           w_scales[n + c], bias ? bias[n + c] : 0.f);
    }
  }
}

}  // namespace

TERN_INT8_GEMM_KERNEL(Int8GemmNeon) {
  size_t n = 0;
  for (; n + kNR <= N; n += kNR) {
    const int8_t* wr[kNR] = {w + n * w_stride, w + (n + 1) * w_stride};
    Rows<kNR>(q, qp, rows, K, wr, w_scales, row_sums, bias, n, out, out_stride);
  }
  if (n < N) {
    const int8_t* wr[kNR] = {w + n * w_stride, w + n * w_stride};
    Rows<1>(q, qp, rows, K, wr, w_scales, row_sums, bias, n, out, out_stride);
  }
}

}  // namespace tern
