// AVX-512 VNNI 4-bit GEMM (built with -mavx512f -mavx512bw -mavx512vnni; called only at the avx512vnni
// level): the panel kernel (kernels/int4_panel.h) with 16 weight rows in the lanes of a 512-bit vector and
// vpdpbusd adding 4 products (unsigned nibble x signed input byte) into each lane, 8 input rows at a time.
// The integer sums are exact (a lane holds at most K x 15 x 128 < 2^31) and the float operations are the
// portable kernel's, lane by lane, so the result is the portable kernel's bit for bit. Panels wider than
// kInt4PanelBytes (K > 4096) and calls below Int4PanelRows() rows run the AVX2 kernel.
#include <immintrin.h>

#include "kernels/int4_gemm_isa.h"
#include "kernels/int4_panel.h"

namespace tern {
namespace {

constexpr size_t kNP = 16;

struct Args {
  const int8_t* q;
  const xnn_quantization_params* qp;
  const int32_t* chunk_sums;
  size_t K, block;
  float* out;
  size_t out_stride;
};

// acc[r] += the products of column groups [g0, g1) for input rows x, x + K, ... (MR of them). The 8-row
// form names its accumulators: GCC 12 copies an array of them between registers on every step.
template <size_t MR>
inline void Dot(__m512i* acc, const uint8_t* pan, const int8_t* x, size_t K, size_t g0, size_t g1) {
  if constexpr (MR == 8) {
    __m512i a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3], a4 = acc[4], a5 = acc[5], a6 = acc[6], a7 = acc[7];
    for (size_t g = g0; g < g1; ++g) {
      const __m512i wv = _mm512_loadu_si512(pan + g * kNP * 4);
      const int8_t* xg = x + g * 4;
      a0 = _mm512_dpbusd_epi32(a0, wv, _mm512_set1_epi32(Int4Load4(xg)));
      a1 = _mm512_dpbusd_epi32(a1, wv, _mm512_set1_epi32(Int4Load4(xg + K)));
      a2 = _mm512_dpbusd_epi32(a2, wv, _mm512_set1_epi32(Int4Load4(xg + 2 * K)));
      a3 = _mm512_dpbusd_epi32(a3, wv, _mm512_set1_epi32(Int4Load4(xg + 3 * K)));
      a4 = _mm512_dpbusd_epi32(a4, wv, _mm512_set1_epi32(Int4Load4(xg + 4 * K)));
      a5 = _mm512_dpbusd_epi32(a5, wv, _mm512_set1_epi32(Int4Load4(xg + 5 * K)));
      a6 = _mm512_dpbusd_epi32(a6, wv, _mm512_set1_epi32(Int4Load4(xg + 6 * K)));
      a7 = _mm512_dpbusd_epi32(a7, wv, _mm512_set1_epi32(Int4Load4(xg + 7 * K)));
    }
    acc[0] = a0, acc[1] = a1, acc[2] = a2, acc[3] = a3, acc[4] = a4, acc[5] = a5, acc[6] = a6, acc[7] = a7;
  } else {
    for (size_t g = g0; g < g1; ++g) {
      const __m512i wv = _mm512_loadu_si512(pan + g * kNP * 4);
      for (size_t r = 0; r < MR; ++r)
        acc[r] = _mm512_dpbusd_epi32(acc[r], wv, _mm512_set1_epi32(Int4Load4(x + r * K + g * 4)));
    }
  }
}

template <size_t MR>
void Tile(const Args& a, size_t r0, const uint8_t* pan, const Int4PanelTables& t, size_t n0, size_t cols) {
  const size_t K = a.K, bl = a.block ? a.block : K, blocks = K / bl;
  __m512 f[MR];
  for (size_t r = 0; r < MR; ++r) f[r] = _mm512_setzero_ps();
  for (size_t b = 0; b < blocks; ++b) {
    __m512i acc[MR];
    for (size_t r = 0; r < MR; ++r) acc[r] = _mm512_setzero_si512();
    Dot<MR>(acc, pan, a.q + r0 * K, K, b * bl / 4, (b + 1) * bl / 4);
    // sum over the block of q * (nibble - 8) = acc - 8 * sum(q); minus zero_point * sum(nibble - 8)
    const __m512i ws = _mm512_loadu_si512(t.wsum + b * kNP);
    for (size_t r = 0; r < MR; ++r) {
      const xnn_quantization_params& p = a.qp[r0 + r];
      const int32_t qs = Int4BlockQSum(a.chunk_sums, r0 + r, K, bl, b);
      const __m512i ib = _mm512_sub_epi32(_mm512_sub_epi32(acc[r], _mm512_set1_epi32(8 * qs)),
                                          _mm512_mullo_epi32(_mm512_set1_epi32(p.zero_point), ws));
      const __m512 fi = _mm512_maskz_cvtepi32_ps(0xffff, ib);  // (the unmasked form warns in GCC 12)
      if (a.block == 0) {  // qc4w: ((float(acc) * x_scale) * w_scale) + bias
        f[r] = _mm512_add_ps(_mm512_mul_ps(_mm512_mul_ps(fi, _mm512_set1_ps(p.scale)), _mm512_loadu_ps(t.scale)),
                             _mm512_loadu_ps(t.bias));
      } else {  // qb4w: f + float(ib) * scale, block by block
        f[r] = _mm512_add_ps(f[r], _mm512_mul_ps(fi, _mm512_loadu_ps(t.scale + b * kNP)));
      }
    }
  }
  const __mmask16 mask = static_cast<__mmask16>((1u << cols) - 1);
  for (size_t r = 0; r < MR; ++r) {
    __m512 v = f[r];
    if (a.block) v = _mm512_add_ps(_mm512_mul_ps(v, _mm512_set1_ps(a.qp[r0 + r].scale)), _mm512_loadu_ps(t.bias));
    _mm512_mask_storeu_ps(a.out + (r0 + r) * a.out_stride + n0, mask, v);
  }
}

template <size_t MR>
void Rest(const Args& a, size_t r0, size_t left, const uint8_t* pan, const Int4PanelTables& t, size_t n0, size_t cols) {
  if constexpr (MR > 0) {
    if (left == MR) return Tile<MR>(a, r0, pan, t, n0, cols);
    Rest<MR - 1>(a, r0, left, pan, t, n0, cols);
  }
}

}  // namespace

TERN_INT4_GEMM_KERNEL(Int4GemmAvx512Vnni) {
  if (rows < Int4PanelRows(true, block) || kNP * K > kInt4PanelBytes) {
    Int4GemmAvx2(q, qp, chunk_sums, rows, K, w, w_stride, block, w_scales, block_scales, bias, N, out, out_stride);
    return;
  }
  const Args a{q, qp, chunk_sums, K, block, out, out_stride};
  alignas(64) uint8_t pan[kInt4PanelBytes];
  alignas(64) int32_t wsum[kNP * kInt4MaxBlocks];
  alignas(64) float scale[kNP * kInt4MaxBlocks], bias_lanes[kNP];
  const Int4PanelTables t{wsum, scale, bias_lanes};
  constexpr size_t kMR = 8;
  for (size_t n0 = 0; n0 < N; n0 += kNP) {
    Int4MakePanel<kNP>(w, w_stride, n0, N, K, block, w_scales, block_scales, bias, pan, t);
    const size_t cols = N - n0 < kNP ? N - n0 : kNP;
    size_t r = 0;
    for (; r + kMR <= rows; r += kMR) Tile<kMR>(a, r, pan, t, n0, cols);
    if (r < rows) Rest<kMR - 1>(a, r, rows - r, pan, t, n0, cols);
  }
}

}  // namespace tern
