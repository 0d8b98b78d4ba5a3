// Internal to the x86 4-bit GEMM kernels (int4_gemm_avx2.cc, int4_gemm_avx512.cc): the weight panel. The
// row-at-a-time kernel unpacks a weight row's nibbles once per tile of 4 input rows and reduces each
// (input row, weight row) sum across its vector lanes at the end of every block; at 16 or 64 input rows
// that unpacking, and for qb4w the per-block reductions, cost more than the multiplies. The panel kernels
// unpack 8 weight rows (j = 0..7) once into a panel in which each 32-bit lane holds 4 nibbles of one weight
// row, for each 8 columns k = 8d .. 8d + 7 two 256-bit vectors:
//
//   A[d] lanes: row 0 k 8d+0..3, row 0 k 8d+4..7, row 1 (the same two), row 4, row 5   (4 nibbles a lane)
//   B[d] lanes: rows 2, 3, 6, 7 in the same way
//
// which is what the stored bytes give with few shuffles: 4-byte words of the 8 rows are transposed
// (vpunpck*), then the low and high nibbles of each byte are interleaved (column order within a word). An
// input row's 8 bytes at k = 8d broadcast as a 64-bit pattern then meet the right 4 columns in every lane
// (vpmaddubsw + vpmaddwd, or vpdpbusd: 4 products into each lane), and at a block's end adding each lane
// pair gives one sum per weight row (vphaddd, or two permutes), ready for the scales. The integer sums are
// the row kernel's exactly, and the float operations are the portable kernel's, lane by lane.
//
// With 16 weight rows (512-bit vectors) the second 8 rows take the upper 256 bits of each A and B.
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
/// row kernel's per-block reductions made it 2-3.3x slower with AVX2 and 3.2-7.5x with VNNI, 1 to 64 rows);
/// qc4w from 8 rows on AVX2 and from 4 with VNNI, where the two crossed in `bench/int4_kernels.cc`
/// (docs/performance.md, "4-bit weights at 4 to 64 rows").
inline size_t Int4PanelRows(bool vnni, size_t block) { return block ? 1 : vnni ? 4 : 8; }

/// What one panel of weight rows n0 .. n0 + NP - 1 needs besides the panel (weight rows past N repeat row
/// N - 1; their lanes are computed and never stored): for block b and lane j, wsum[b * NP + j] = sum over the
/// block of (nibble - 8); scale[b * NP + j] the block's scale (qb4w) or scale[j] the row's (qc4w); bias[j]
/// (0 without a bias: the portable kernel adds 0.f too).
struct Int4PanelTables {
  int32_t* wsum;
  float* scale;
  float* bias;
};

/// Fills pan (NP x K bytes, NP 8 or 16: for each d, A then B, each NP x 4 bytes) and the tables for weight
/// rows n0 .. n0 + NP - 1 of w.
template <size_t NP>
inline void Int4MakePanel(const uint8_t* w, size_t w_stride, size_t n0, size_t N, size_t K, size_t block,
                          const float* w_scales, const uint16_t* block_scales, const float* bias, uint8_t* pan,
                          const Int4PanelTables& t) {
  size_t row[NP];
  for (size_t j = 0; j < NP; ++j) row[j] = n0 + j < N ? n0 + j : N - 1;
  const size_t bl = block ? block : K, blocks = K / bl;
  const __m256i m = _mm256_set1_epi8(0x0f), ones8 = _mm256_set1_epi8(1), ones16 = _mm256_set1_epi16(1);
  for (size_t j0 = 0; j0 < NP; j0 += 8) {
    const uint8_t* r[8];
    for (size_t j = 0; j < 8; ++j) r[j] = w + row[j0 + j] * w_stride;
    for (size_t b = 0; b < blocks; ++b) {
      __m256i wsum = _mm256_setzero_si256();
      // 32 columns (16 bytes of each row) at a time; nibble sums gathered in bytes over up to 8 words (<= 240)
      for (size_t k = b * bl; k < (b + 1) * bl; k += 32) {
        __m256i v[4];  // v[i] low half: rows 0..3, high half: rows 4..7 (16 bytes each)
        for (size_t i = 0; i < 4; ++i)
          v[i] = _mm256_loadu2_m128i(reinterpret_cast<const __m128i*>(r[i + 4] + k / 2),
                                     reinterpret_cast<const __m128i*>(r[i] + k / 2));
        const __m256i t0 = _mm256_unpacklo_epi32(v[0], v[1]), t1 = _mm256_unpackhi_epi32(v[0], v[1]);
        const __m256i t2 = _mm256_unpacklo_epi32(v[2], v[3]), t3 = _mm256_unpackhi_epi32(v[2], v[3]);
        // u[d]: word d (columns k + 8d .. k + 8d + 7) of rows 0..7 in lanes 0..7
        const __m256i u[4] = {_mm256_unpacklo_epi64(t0, t2), _mm256_unpackhi_epi64(t0, t2),
                              _mm256_unpacklo_epi64(t1, t3), _mm256_unpackhi_epi64(t1, t3)};
        __m256i bytes = _mm256_setzero_si256();
        for (size_t d = 0; d < 4; ++d) {
          const __m256i lo = _mm256_and_si256(u[d], m), hi = _mm256_and_si256(_mm256_srli_epi16(u[d], 4), m);
          uint8_t* at = pan + (k / 8 + d) * 2 * NP * 4 + j0 * 4;
          _mm256_storeu_si256(reinterpret_cast<__m256i*>(at), _mm256_unpacklo_epi8(lo, hi));
          _mm256_storeu_si256(reinterpret_cast<__m256i*>(at + NP * 4), _mm256_unpackhi_epi8(lo, hi));
          bytes = _mm256_add_epi8(bytes, _mm256_add_epi8(lo, hi));
        }
        wsum = _mm256_add_epi32(wsum, _mm256_madd_epi16(_mm256_maddubs_epi16(bytes, ones8), ones16));
      }
      wsum = _mm256_sub_epi32(wsum, _mm256_set1_epi32(static_cast<int32_t>(8 * bl)));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(t.wsum + b * NP + j0), wsum);
    }
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

inline int64_t Int4Load8(const int8_t* p) {
  int64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

}  // namespace
}  // namespace tern
