// Internal to the x86 gathered-projection kernels (gathered_avx2.cc, gathered_avx512.cc): the shared
// driver (token tiles of 4 with their rows prefetched two tiles ahead, row tiles, a short last tile) and
// the float epilogue. Each kernel file includes it and supplies its register tile; everything here has
// internal linkage, so each file compiles its own copy with its own ISA flags.
#pragma once

#include <immintrin.h>

#include "kernels/gathered_kernels_isa.h"

namespace tern {
namespace {

// One row and 4 tokens: (float(sums - (offset + zp) x row_sums) * x_scale) * w_scale + bias, where
// `offset` is what the tile added per unit of row sum (128 when it flipped the input to unsigned).
inline __m128 Epilogue(__m128i sums, int32_t offset, const xnn_quantization_params& qp, __m128i row_sums, __m128 w_scales,
                       __m128 bias) {
  const __m128i acc = _mm_sub_epi32(sums, _mm_mullo_epi32(_mm_set1_epi32(offset + qp.zero_point), row_sums));
  __m128 v = _mm_cvtepi32_ps(acc);
  v = _mm_mul_ps(v, _mm_set1_ps(qp.scale));
  v = _mm_mul_ps(v, w_scales);
  return _mm_add_ps(v, bias);
}

// tile(q, m, w, sums): sums[r] = the 4 dot products of input row r < m (m <= MR) with rows w[0..3].
template <size_t MR, typename TileFn>
inline void RunTiles(TileFn tile, int32_t offset, const int8_t* q, const xnn_quantization_params* qp, size_t rows,
                     size_t d, const int8_t* w, const float* w_scales, const int32_t* row_sums, const float* bias,
                     const uint32_t* tokens, size_t K, float* out, size_t out_stride) {
  for (size_t k = 0; k < K; k += kNR) {
    uint32_t t[kNR];
    const int8_t* wr[kNR];
    const size_t n = TokenTile(tokens, k, K, w, d, t, wr);
    __m128i rs;
    __m128 ws, b;
    if (!tokens && n == kNR) {  // a dense GEMM's full tile: rows k..k+3 in order
      rs = _mm_loadu_si128(reinterpret_cast<const __m128i*>(row_sums + k));
      ws = _mm_loadu_ps(w_scales + k);
      b = bias ? _mm_loadu_ps(bias + k) : _mm_setzero_ps();
    } else {
      rs = _mm_setr_epi32(row_sums[t[0]], row_sums[t[1]], row_sums[t[2]], row_sums[t[3]]);
      ws = _mm_setr_ps(w_scales[t[0]], w_scales[t[1]], w_scales[t[2]], w_scales[t[3]]);
      b = bias ? _mm_setr_ps(bias[t[0]], bias[t[1]], bias[t[2]], bias[t[3]]) : _mm_setzero_ps();
    }
    for (size_t r = 0; r < rows; r += MR) {
      const size_t m = rows - r < MR ? rows - r : MR;
      __m128i sums[MR];
      tile(q + r * d, m, wr, sums);
      for (size_t i = 0; i < m; ++i) {
        const __m128 v = Epilogue(sums[i], offset, qp[r + i], rs, ws, b);
        float* o = out + (r + i) * out_stride + k;
        if (n == kNR) {
          _mm_storeu_ps(o, v);
        } else {
          alignas(16) float tmp[kNR];
          _mm_store_ps(tmp, v);
          for (size_t c = 0; c < n; ++c) o[c] = tmp[c];
        }
      }
    }
  }
}

}  // namespace
}  // namespace tern
