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

// accA[r], accB[r] += the products of words [g0, g1) (8 columns each) for input rows x, x + K, ... (MR of
// them). The 8-row form names its accumulators: GCC 12 copies an array of them between registers on every step.
#define TERN_INT4_DOT(i)                                                                                         \
  {                                                                                                             \
    const __m512i qv = _mm512_set1_epi64(Int4Load8(xg + (i) * K));                                              \
    a##i = _mm512_dpbusd_epi32(a##i, wa, qv);                                                                   \
    b##i = _mm512_dpbusd_epi32(b##i, wb, qv);                                                                   \
  }
template <size_t MR>
inline void Dot(__m512i* accA, __m512i* accB, const uint8_t* pan, const int8_t* x, size_t K, size_t g0, size_t g1) {
  if constexpr (MR == 8) {
    __m512i a0 = accA[0], a1 = accA[1], a2 = accA[2], a3 = accA[3], a4 = accA[4], a5 = accA[5], a6 = accA[6],
            a7 = accA[7];
    __m512i b0 = accB[0], b1 = accB[1], b2 = accB[2], b3 = accB[3], b4 = accB[4], b5 = accB[5], b6 = accB[6],
            b7 = accB[7];
    for (size_t g = g0; g < g1; ++g) {
      const __m512i wa = _mm512_loadu_si512(pan + g * 2 * kNP * 4), wb = _mm512_loadu_si512(pan + (g * 2 + 1) * kNP * 4);
      const int8_t* xg = x + g * 8;
      TERN_INT4_DOT(0) TERN_INT4_DOT(1) TERN_INT4_DOT(2) TERN_INT4_DOT(3)
      TERN_INT4_DOT(4) TERN_INT4_DOT(5) TERN_INT4_DOT(6) TERN_INT4_DOT(7)
    }
    accA[0] = a0, accA[1] = a1, accA[2] = a2, accA[3] = a3, accA[4] = a4, accA[5] = a5, accA[6] = a6, accA[7] = a7;
    accB[0] = b0, accB[1] = b1, accB[2] = b2, accB[3] = b3, accB[4] = b4, accB[5] = b5, accB[6] = b6, accB[7] = b7;
  } else {
    for (size_t g = g0; g < g1; ++g) {
      const __m512i wa = _mm512_loadu_si512(pan + g * 2 * kNP * 4), wb = _mm512_loadu_si512(pan + (g * 2 + 1) * kNP * 4);
      for (size_t r = 0; r < MR; ++r) {
        const __m512i qv = _mm512_set1_epi64(Int4Load8(x + r * K + g * 8));
        accA[r] = _mm512_dpbusd_epi32(accA[r], wa, qv);
        accB[r] = _mm512_dpbusd_epi32(accB[r], wb, qv);
      }
    }
  }
}
#undef TERN_INT4_DOT

template <size_t MR>
void Tile(const Args& a, size_t r0, const uint8_t* pan, const Int4PanelTables& t, size_t n0, size_t cols) {
  const size_t K = a.K, bl = a.block ? a.block : K, blocks = K / bl;
  __m512 f[MR];
  for (size_t r = 0; r < MR; ++r) f[r] = _mm512_setzero_ps();
  for (size_t b = 0; b < blocks; ++b) {
    __m512i accA[MR], accB[MR], acc[MR];
    for (size_t r = 0; r < MR; ++r) accA[r] = accB[r] = _mm512_setzero_si512();
    Dot<MR>(accA, accB, pan, a.q + r0 * K, K, b * bl / 8, (b + 1) * bl / 8);
    // lane pairs into one sum per weight row (int4_panel.h): row j from lanes 2i, 2i + 1 of A or B
    const __m512i even = _mm512_setr_epi32(0, 2, 16, 18, 4, 6, 20, 22, 8, 10, 24, 26, 12, 14, 28, 30);
    const __m512i odd = _mm512_add_epi32(even, _mm512_set1_epi32(1));
    for (size_t r = 0; r < MR; ++r)
      acc[r] = _mm512_add_epi32(_mm512_permutex2var_epi32(accA[r], even, accB[r]),
                                _mm512_permutex2var_epi32(accA[r], odd, accB[r]));
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

// Its own frame (the panel and tables, 96 KiB), apart from the AVX2 kernel's that the other calls take.
__attribute__((noinline)) void PanelGemm(const Args& a, size_t rows, const uint8_t* w, size_t w_stride, size_t block,
                                         const float* w_scales, const uint16_t* block_scales, const float* bias, size_t N) {
  alignas(64) uint8_t pan[kInt4PanelBytes];
  alignas(64) int32_t wsum[kNP * kInt4MaxBlocks];
  alignas(64) float scale[kNP * kInt4MaxBlocks], bias_lanes[kNP];
  const Int4PanelTables t{wsum, scale, bias_lanes};
  constexpr size_t kMR = 8;
  for (size_t n0 = 0; n0 < N; n0 += kNP) {
    Int4MakePanel<kNP>(w, w_stride, n0, N, a.K, block, w_scales, block_scales, bias, pan, t);
    const size_t cols = N - n0 < kNP ? N - n0 : kNP;
    size_t r = 0;
    for (; r + kMR <= rows; r += kMR) Tile<kMR>(a, r, pan, t, n0, cols);
    if (r < rows) Rest<kMR - 1>(a, r, rows - r, pan, t, n0, cols);
  }
}

}  // namespace

TERN_INT4_GEMM_KERNEL(Int4GemmAvx512Vnni) {
  if (rows < Int4PanelRows(true, block) || kNP * K > kInt4PanelBytes || (block && Int4SplitFits(rows, K, block))) {
    Int4GemmAvx2(q, qp, chunk_sums, rows, K, w, w_stride, block, w_scales, block_scales, bias, N, out, out_stride);
    return;
  }
  PanelGemm(Args{q, qp, chunk_sums, K, block, out, out_stride}, rows, w, w_stride, block, w_scales, block_scales, bias, N);
}

}  // namespace tern
