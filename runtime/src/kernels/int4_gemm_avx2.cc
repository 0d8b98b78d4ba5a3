// AVX2 4-bit GEMM (built with -mavx2; called only when cpuinfo reports AVX2): register tiles of 4 input rows
// x 2 weight rows, 32 columns per step. A weight row's 16 bytes become 32 unsigned nibbles in column order
// (and, shift, and, two byte interleaves); vpmaddubsw multiplies them by q and adds neighbours into int16
// (at most 2 x 15 x 128: no saturation), up to 8 steps are added in int16 (at most 30,720), vpmaddwd widens
// to int32, vpsadbw sums the nibbles for the zero-point terms. qb4w: at the end of each block the 8 (row, weight row) sums are reduced together (one vphaddd tree)
// and added into 8 float lanes with the block's scale, lane by lane as the portable kernel does each one.
#include <immintrin.h>

#include "kernels/int4_avx2_sums.h"
#include "kernels/int4_gemm_isa.h"
#include "kernels/int4_panel.h"

namespace tern {
namespace {

constexpr size_t kMR = 4, kNR = 2;

inline __m256i Nibbles(const uint8_t* p) {
  const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  const __m128i m = _mm_set1_epi8(0x0f);
  const __m128i lo = _mm_and_si128(x, m), hi = _mm_and_si128(_mm_srli_epi16(x, 4), m);
  return _mm256_set_m128i(_mm_unpackhi_epi8(lo, hi), _mm_unpacklo_epi8(lo, hi));
}

// [sum(v[0]), ..., sum(v[7])] of eight int32 vectors.
inline __m256i Reduce8(const __m256i* v) {
  const __m256i t0 = _mm256_hadd_epi32(v[0], v[1]), t1 = _mm256_hadd_epi32(v[2], v[3]);
  const __m256i t2 = _mm256_hadd_epi32(v[4], v[5]), t3 = _mm256_hadd_epi32(v[6], v[7]);
  const __m256i u0 = _mm256_hadd_epi32(t0, t1), u1 = _mm256_hadd_epi32(t2, t3);
  const __m128i x0 = _mm_add_epi32(_mm256_castsi256_si128(u0), _mm256_extracti128_si256(u0, 1));
  const __m128i x1 = _mm_add_epi32(_mm256_castsi256_si128(u1), _mm256_extracti128_si256(u1, 1));
  return _mm256_set_m128i(x1, x0);
}

struct Args {
  const int8_t* q;
  const xnn_quantization_params* qp;
  const int32_t* chunk_sums;
  size_t K, block;
  const float* w_scales;
  const uint16_t* block_scales;
  const float* bias;
  float* out;
  size_t out_stride;
};

// Rows r0..r0+MR-1 against weight rows n..n+NR-1.
template <size_t MR, size_t NR>
void Tile(const Args& a, size_t r0, const uint8_t* const* wr, size_t n) {
  const size_t K = a.K;
  const size_t block = a.block ? a.block : K, chunks = block / 32, blocks = K / block;
  const __m256i ones = _mm256_set1_epi16(1), zero = _mm256_setzero_si256();
  __m256 f = _mm256_setzero_ps();   // qb4w, full tiles: lane r * 2 + c
  float fs[MR][NR] = {};            // qb4w, other tiles
  for (size_t b = 0; b < blocks; ++b) {
    __m256i acc[kMR * kNR], wacc[NR];
    for (size_t i = 0; i < MR * NR; ++i) acc[i] = zero;
    for (size_t c = 0; c < NR; ++c) wacc[c] = zero;
    // Up to 8 chunks' vpmaddubsw results are summed in int16 before one vpmaddwd widens them (each is at
    // most 2 x 15 x 128 = 3,840 in magnitude: 8 of them stay below 32,767); qb4w blocks of 32 columns are
    // one chunk each.
    for (size_t ch0 = 0; ch0 < chunks; ch0 += 8) {
      const size_t ch_end = chunks - ch0 < 8 ? chunks : ch0 + 8;
      __m256i acc16[kMR * kNR];
      for (size_t i = 0; i < MR * NR; ++i) acc16[i] = zero;
      for (size_t ch = ch0; ch < ch_end; ++ch) {
        const size_t k = (b * chunks + ch) * 32;
        __m256i wv[NR];
        for (size_t c = 0; c < NR; ++c) {
          wv[c] = Nibbles(wr[c] + k / 2);
          wacc[c] = _mm256_add_epi64(wacc[c], _mm256_sad_epu8(wv[c], zero));
        }
        for (size_t r = 0; r < MR; ++r) {
          const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a.q + (r0 + r) * K + k));
          for (size_t c = 0; c < NR; ++c)
            acc16[r * NR + c] = _mm256_add_epi16(acc16[r * NR + c], _mm256_maddubs_epi16(wv[c], x));
        }
      }
      for (size_t i = 0; i < MR * NR; ++i) acc[i] = _mm256_add_epi32(acc[i], _mm256_madd_epi16(acc16[i], ones));
    }
    // sum over the block of (q - zp) * (nibble - 8) = S - 8 * sum(q) - zp * (sum(nibbles) - 8 * block)
    int32_t qsum[MR], wsum[NR];
    for (size_t r = 0; r < MR; ++r) qsum[r] = Int4BlockQSum(a.chunk_sums, r0 + r, K, block, b);
    for (size_t c = 0; c < NR; ++c) wsum[c] = Sum4x64(wacc[c]) - 8 * static_cast<int32_t>(block);
    if (a.block == 0) {  // qc4w: one block, the int8 epilogue
      for (size_t r = 0; r < MR; ++r) {
        const xnn_quantization_params& p = a.qp[r0 + r];
        for (size_t c = 0; c < NR; ++c) {
          const int32_t acc_rc = Sum8(acc[r * NR + c]) - 8 * qsum[r] - p.zero_point * wsum[c];
          a.out[(r0 + r) * a.out_stride + n + c] =
              Int4QcOutput(acc_rc, p.scale, a.w_scales[n + c], a.bias ? a.bias[n + c] : 0.f);
        }
      }
      return;
    }
    const size_t nb = K / a.block;
    if constexpr (MR == kMR && NR == kNR) {
      const __m256i s = Reduce8(acc);
      const __m256i qv = _mm256_setr_epi32(qsum[0], qsum[0], qsum[1], qsum[1], qsum[2], qsum[2], qsum[3], qsum[3]);
      const __m256i zv = _mm256_setr_epi32(a.qp[r0].zero_point, a.qp[r0].zero_point, a.qp[r0 + 1].zero_point,
                                           a.qp[r0 + 1].zero_point, a.qp[r0 + 2].zero_point, a.qp[r0 + 2].zero_point,
                                           a.qp[r0 + 3].zero_point, a.qp[r0 + 3].zero_point);
      const __m256i wv = _mm256_setr_epi32(wsum[0], wsum[1], wsum[0], wsum[1], wsum[0], wsum[1], wsum[0], wsum[1]);
      const __m256i ib = _mm256_sub_epi32(_mm256_sub_epi32(s, _mm256_slli_epi32(qv, 3)), _mm256_mullo_epi32(zv, wv));
      const float s0 = Bf16(a.block_scales[n * nb + b]), s1 = Bf16(a.block_scales[(n + 1) * nb + b]);
      const __m256 sv = _mm256_setr_ps(s0, s1, s0, s1, s0, s1, s0, s1);
      f = _mm256_add_ps(f, _mm256_mul_ps(_mm256_cvtepi32_ps(ib), sv));
    } else {
      for (size_t r = 0; r < MR; ++r)
        for (size_t c = 0; c < NR; ++c) {
          const int32_t ib = Sum8(acc[r * NR + c]) - 8 * qsum[r] - a.qp[r0 + r].zero_point * wsum[c];
          fs[r][c] = Int4BlockAdd(fs[r][c], ib, a.block_scales[(n + c) * nb + b]);
        }
    }
  }
  if constexpr (MR == kMR && NR == kNR) {
    alignas(32) float lanes[8];
    _mm256_store_ps(lanes, f);
    for (size_t r = 0; r < MR; ++r)
      for (size_t c = 0; c < NR; ++c) fs[r][c] = lanes[r * 2 + c];
  }
  for (size_t r = 0; r < MR; ++r)
    for (size_t c = 0; c < NR; ++c)
      a.out[(r0 + r) * a.out_stride + n + c] = Int4QbOutput(fs[r][c], a.qp[r0 + r].scale, a.bias ? a.bias[n + c] : 0.f);
}

template <size_t NR>
void Rows(const Args& a, size_t rows, const uint8_t* const* wr, size_t n) {
  for (size_t r = 0; r < rows; r += kMR) {
    const size_t m = rows - r < kMR ? rows - r : kMR;
    if (m == 4) Tile<4, NR>(a, r, wr, n);
    else if (m == 3) Tile<3, NR>(a, r, wr, n);
    else if (m == 2) Tile<2, NR>(a, r, wr, n);
    else Tile<1, NR>(a, r, wr, n);
  }
}

// The panel kernel (kernels/int4_panel.h): 8 weight rows in the lanes, 3 input rows at a time. Up to 8
// words' vpmaddubsw results (64 columns) are summed in int16 (at most 8 x 2 x 15 x 128 = 30,720).
constexpr size_t kPanelNP = 8;

template <size_t MR>
void PanelTile(const Args& a, size_t r0, const uint8_t* pan, const Int4PanelTables& t, size_t n0, size_t cols) {
  const size_t K = a.K, bl = a.block ? a.block : K, blocks = K / bl;
  const __m256i ones16 = _mm256_set1_epi16(1);
  __m256 f[MR];
  for (size_t r = 0; r < MR; ++r) f[r] = _mm256_setzero_ps();
  for (size_t b = 0; b < blocks; ++b) {
    __m256i acc[MR];
    for (size_t r = 0; r < MR; ++r) acc[r] = _mm256_setzero_si256();
    const size_t g_end = (b + 1) * bl / 8;
    for (size_t g0 = b * bl / 8; g0 < g_end; g0 += 8) {
      __m256i sa[MR], sb[MR];
      for (size_t r = 0; r < MR; ++r) sa[r] = sb[r] = _mm256_setzero_si256();
      for (size_t g = g0; g < g0 + 8 && g < g_end; ++g) {
        const __m256i wa = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(pan + g * 2 * kPanelNP * 4));
        const __m256i wb = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(pan + (g * 2 + 1) * kPanelNP * 4));
        for (size_t r = 0; r < MR; ++r) {
          const __m256i qv = _mm256_set1_epi64x(Int4Load8(a.q + (r0 + r) * K + g * 8));
          sa[r] = _mm256_add_epi16(sa[r], _mm256_maddubs_epi16(wa, qv));
          sb[r] = _mm256_add_epi16(sb[r], _mm256_maddubs_epi16(wb, qv));
        }
      }
      // lane pairs into one sum per weight row: rows 0, 1, 2, 3 | 4, 5, 6, 7
      for (size_t r = 0; r < MR; ++r)
        acc[r] = _mm256_add_epi32(acc[r], _mm256_hadd_epi32(_mm256_madd_epi16(sa[r], ones16),
                                                            _mm256_madd_epi16(sb[r], ones16)));
    }
    // sum over the block of q * (nibble - 8) = acc - 8 * sum(q); minus zero_point * sum(nibble - 8)
    const __m256i ws = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(t.wsum + b * kPanelNP));
    for (size_t r = 0; r < MR; ++r) {
      const xnn_quantization_params& p = a.qp[r0 + r];
      const int32_t qs = Int4BlockQSum(a.chunk_sums, r0 + r, K, bl, b);
      const __m256i ib = _mm256_sub_epi32(_mm256_sub_epi32(acc[r], _mm256_set1_epi32(8 * qs)),
                                          _mm256_mullo_epi32(_mm256_set1_epi32(p.zero_point), ws));
      const __m256 fi = _mm256_cvtepi32_ps(ib);
      if (a.block == 0) {  // qc4w: ((float(acc) * x_scale) * w_scale) + bias
        f[r] = _mm256_add_ps(_mm256_mul_ps(_mm256_mul_ps(fi, _mm256_set1_ps(p.scale)), _mm256_loadu_ps(t.scale)),
                             _mm256_loadu_ps(t.bias));
      } else {  // qb4w: f + float(ib) * scale, block by block
        f[r] = _mm256_add_ps(f[r], _mm256_mul_ps(fi, _mm256_loadu_ps(t.scale + b * kPanelNP)));
      }
    }
  }
  for (size_t r = 0; r < MR; ++r) {
    __m256 v = f[r];
    if (a.block) v = _mm256_add_ps(_mm256_mul_ps(v, _mm256_set1_ps(a.qp[r0 + r].scale)), _mm256_loadu_ps(t.bias));
    float* o = a.out + (r0 + r) * a.out_stride + n0;
    if (cols == kPanelNP) {
      _mm256_storeu_ps(o, v);
    } else {
      alignas(32) float lanes[kPanelNP];
      _mm256_store_ps(lanes, v);
      for (size_t j = 0; j < cols; ++j) o[j] = lanes[j];
    }
  }
}

// Its own frame (the panel and tables, 80 KiB): the row form's calls do not carry it.
__attribute__((noinline)) void PanelGemm(const Args& a, size_t rows, const uint8_t* w, size_t w_stride, size_t N) {
  alignas(32) uint8_t pan[kInt4PanelBytes];
  alignas(32) int32_t wsum[kPanelNP * kInt4MaxBlocks];
  alignas(32) float scale[kPanelNP * kInt4MaxBlocks], bias[kPanelNP];
  const Int4PanelTables t{wsum, scale, bias};
  for (size_t n0 = 0; n0 < N; n0 += kPanelNP) {
    Int4MakePanel<kPanelNP>(w, w_stride, n0, N, a.K, a.block, a.w_scales, a.block_scales, a.bias, pan, t);
    const size_t cols = N - n0 < kPanelNP ? N - n0 : kPanelNP;
    size_t r = 0;  // 3 rows a tile: 4 kept 19 vectors live (16 registers) and ran 0.7-0.8x as fast
    for (; r + 3 <= rows; r += 3) PanelTile<3>(a, r, pan, t, n0, cols);
    if (rows - r == 2) PanelTile<2>(a, r, pan, t, n0, cols);
    else if (rows - r == 1) PanelTile<1>(a, r, pan, t, n0, cols);
  }
}

}  // namespace

TERN_INT4_GEMM_KERNEL(Int4GemmAvx2) {
  const Args a{q, qp, chunk_sums, K, block, w_scales, block_scales, bias, out, out_stride};
  if ((block || rows < Int4PanelRows(false, block)) && Int4SplitFits(rows, K, block)) {
    Int4SplitAvx2(q, qp, chunk_sums, rows, K, w, w_stride, block, w_scales, block_scales, bias, N, out, out_stride);
    return;
  }
  if (rows >= Int4PanelRows(false, block) && kPanelNP * K <= kInt4PanelBytes) {
    PanelGemm(a, rows, w, w_stride, N);
    return;
  }
  size_t n = 0;
  for (; n + kNR <= N; n += kNR) {
    const uint8_t* wr[kNR] = {w + n * w_stride, w + (n + 1) * w_stride};
    for (size_t i = 2 * kNR; i < 3 * kNR && n + i < N; ++i)  // the weight rows two tiles ahead
      for (size_t j = 0; j < K / 2; j += 64) __builtin_prefetch(w + (n + i) * w_stride + j);
    Rows<kNR>(a, rows, wr, n);
  }
  if (n < N) {
    const uint8_t* wr[kNR] = {w + n * w_stride, w + n * w_stride};
    Rows<1>(a, rows, wr, n);
  }
}

}  // namespace tern
