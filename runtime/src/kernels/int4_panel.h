// Internal to the x86 4-bit GEMM kernels (int4_gemm_avx2.cc, int4_gemm_avx512.cc): the weight panel. The
// row-at-a-time kernel unpacks a weight row's nibbles once per tile of 4 input rows and reduces each
// (input row, weight row) sum across its vector lanes at the end of every block; at 16 or 64 input rows
// that unpacking, and for qb4w the per-block reductions, cost more than the multiplies. The panel kernels
// unpack NP weight rows once into a panel in which a vector holds NP weight rows' 4 consecutive columns:
//
//   pan[((k / 4) * NP + j) * 4 + k % 4] = nibble of weight row n0 + j, column k (unsigned, 0..15)
//
// then run every input row over the panel with the weight rows in the lanes: a broadcast of 4 input bytes
// times a panel vector adds 4 products into each lane (vpmaddubsw + vpmaddwd, or vpdpbusd), so a block's
// sums come out one weight row per lane, ready for the scales, with no reduction across lanes. The integer
// sums are the row kernel's exactly, and the float operations are the portable kernel's, lane by lane.
//
// Built into each file with that file's ISA flags (internal linkage); needs AVX2.
#pragma once

#include <immintrin.h>

#include <cstddef>
#include <cstdint>

#include "kernels/int4_gemm_isa.h"

namespace tern {
namespace {

/// Panels hold at most this many bytes (on the stack of the calling thread): NP x K <= kInt4PanelBytes.
constexpr size_t kInt4PanelBytes = 64 * 1024;
/// The widest K the 4-bit kernels take (int4_gemm.h), and so the most blocks (of 32 columns) a row has.
constexpr size_t kInt4MaxK = 8192, kInt4MaxBlocks = kInt4MaxK / 32;

/// Input rows from which the panel kernel runs (below, the row kernel): qb4w at every number of rows (the
/// row kernel's per-block reductions made it 2.2x slower at one row and 4x at 16 to 64); qc4w from 8 rows on
/// AVX2 and from 4 with VNNI, where the two crossed in `bench/int4_kernels.cc` (docs/performance.md, "4-bit
/// weights at 4 to 64 rows").
inline size_t Int4PanelRows(bool vnni, size_t block) { return block ? 1 : vnni ? 4 : 8; }

/// 32 nibbles of a row from 16 bytes, in column order (the even column in the low nibble).
inline __m256i PanelNibbles(const uint8_t* p) {
  const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  const __m128i m = _mm_set1_epi8(0x0f);
  const __m128i lo = _mm_and_si128(x, m), hi = _mm_and_si128(_mm_srli_epi16(x, 4), m);
  return _mm256_set_m128i(_mm_unpackhi_epi8(lo, hi), _mm_unpacklo_epi8(lo, hi));
}

/// Transposes 8 x 8 int32: v[j][d] -> v[d][j].
inline void Transpose8x8(__m256i* v) {
  const __m256i t0 = _mm256_unpacklo_epi32(v[0], v[1]), t1 = _mm256_unpackhi_epi32(v[0], v[1]);
  const __m256i t2 = _mm256_unpacklo_epi32(v[2], v[3]), t3 = _mm256_unpackhi_epi32(v[2], v[3]);
  const __m256i t4 = _mm256_unpacklo_epi32(v[4], v[5]), t5 = _mm256_unpackhi_epi32(v[4], v[5]);
  const __m256i t6 = _mm256_unpacklo_epi32(v[6], v[7]), t7 = _mm256_unpackhi_epi32(v[6], v[7]);
  const __m256i u0 = _mm256_unpacklo_epi64(t0, t2), u1 = _mm256_unpackhi_epi64(t0, t2);
  const __m256i u2 = _mm256_unpacklo_epi64(t1, t3), u3 = _mm256_unpackhi_epi64(t1, t3);
  const __m256i u4 = _mm256_unpacklo_epi64(t4, t6), u5 = _mm256_unpackhi_epi64(t4, t6);
  const __m256i u6 = _mm256_unpacklo_epi64(t5, t7), u7 = _mm256_unpackhi_epi64(t5, t7);
  v[0] = _mm256_permute2x128_si256(u0, u4, 0x20), v[4] = _mm256_permute2x128_si256(u0, u4, 0x31);
  v[1] = _mm256_permute2x128_si256(u1, u5, 0x20), v[5] = _mm256_permute2x128_si256(u1, u5, 0x31);
  v[2] = _mm256_permute2x128_si256(u2, u6, 0x20), v[6] = _mm256_permute2x128_si256(u2, u6, 0x31);
  v[3] = _mm256_permute2x128_si256(u3, u7, 0x20), v[7] = _mm256_permute2x128_si256(u3, u7, 0x31);
}

/// What one panel of weight rows n0 .. n0 + NP - 1 needs besides the panel (weight rows past N repeat row
/// N - 1; their lanes are computed and never stored): for block b and lane j, wsum[b * NP + j] = sum over the
/// block of (nibble - 8); scale[b * NP + j] the block's scale (qb4w) or scale[j] the row's (qc4w); bias[j]
/// (0 without a bias: the portable kernel adds 0.f too).
struct Int4PanelTables {
  int32_t* wsum;
  float* scale;
  float* bias;
};

/// Fills pan (NP x K bytes, NP a multiple of 8) and the tables for weight rows n0 .. n0 + NP - 1 of w.
template <size_t NP>
inline void Int4MakePanel(const uint8_t* w, size_t w_stride, size_t n0, size_t N, size_t K, size_t block,
                          const float* w_scales, const uint16_t* block_scales, const float* bias, uint8_t* pan,
                          const Int4PanelTables& t) {
  size_t row[NP];
  for (size_t j = 0; j < NP; ++j) row[j] = n0 + j < N ? n0 + j : N - 1;
  for (size_t j0 = 0; j0 < NP; j0 += 8)
    for (size_t k = 0; k < K; k += 32) {
      __m256i v[8];
      for (size_t j = 0; j < 8; ++j) v[j] = PanelNibbles(w + row[j0 + j] * w_stride + k / 2);
      Transpose8x8(v);
      for (size_t d = 0; d < 8; ++d)
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(pan + ((k / 4 + d) * NP + j0) * 4), v[d]);
    }
  // Block sums of the nibbles, lane by lane: vpmaddubsw by ones sums pairs, vpmaddwd by ones the 4 columns.
  const size_t bl = block ? block : K, blocks = K / bl;
  const __m256i ones8 = _mm256_set1_epi8(1), ones16 = _mm256_set1_epi16(1);
  for (size_t b = 0; b < blocks; ++b)
    for (size_t j0 = 0; j0 < NP; j0 += 8) {
      __m256i s = _mm256_setzero_si256();
      for (size_t g = b * bl / 4; g < (b + 1) * bl / 4; ++g) {
        const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(pan + (g * NP + j0) * 4));
        s = _mm256_add_epi32(s, _mm256_madd_epi16(_mm256_maddubs_epi16(v, ones8), ones16));
      }
      s = _mm256_sub_epi32(s, _mm256_set1_epi32(static_cast<int32_t>(8 * bl)));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(t.wsum + b * NP + j0), s);
    }
  for (size_t j = 0; j < NP; ++j) {
    t.bias[j] = bias ? bias[row[j]] : 0.f;
    if (!block) {
      t.scale[j] = w_scales[row[j]];
      continue;
    }
    for (size_t b = 0; b < blocks; ++b) t.scale[b * NP + j] = Bf16(block_scales[row[j] * blocks + b]);
  }
}

/// sum of q[r, k] over block b (from the 32-column chunk sums).
inline int32_t Int4BlockQSum(const int32_t* chunk_sums, size_t r, size_t K, size_t bl, size_t b) {
  const int32_t* cs = chunk_sums + r * (K / 32) + b * (bl / 32);
  int32_t s = 0;
  for (size_t c = 0; c < bl / 32; ++c) s += cs[c];
  return s;
}

inline int32_t Int4Load4(const int8_t* p) {
  int32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

}  // namespace
}  // namespace tern
