// AVX2 gathered int8 projection (built with -mavx2; called only when cpuinfo reports AVX2). A register
// tile of up to 2 input rows x 4 tokens (8 ymm accumulators): pairwise products summed exactly into int32
// (int8 widened to int16 and vpmaddwd; or, for weights in [-127, 127], the sign trick below), so the sums
// equal the portable kernel's; the float epilogue is the same operations in the same order. The next
// tiles' rows are prefetched.
#include <immintrin.h>

#include "kernels/gathered_x86_driver.h"

namespace tern {
namespace {

constexpr size_t kMR = 2;  // rows per tile

inline __m256i Widen(const int8_t* p) { return _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))); }

// [sum(a0), sum(a1), sum(a2), sum(a3)].
inline __m128i Reduce4(__m256i a0, __m256i a1, __m256i a2, __m256i a3) {
  const __m256i h = _mm256_hadd_epi32(_mm256_hadd_epi32(a0, a1), _mm256_hadd_epi32(a2, a3));
  return _mm_add_epi32(_mm256_castsi256_si128(h), _mm256_extracti128_si256(h, 1));
}

// kSign: weights in [-127, 127] (the caller knows): 32 columns per step by the sign trick, x * w =
// |x| * (w * sign(x)) with vpabsb and vpsignb, vpmaddubsw summing two products into int16 (at most
// 2 x 128 x 127 = 32,512: no saturation), vpmaddwd by ones widening to int32. No byte shuffles, so it runs
// ~1.2x the widening loop below (which handles any weight, and the last 16-column step).
template <size_t MR, bool kSign>
inline void Tile(const int8_t* q, size_t d, const int8_t* const* w, __m128i* out) {
  __m256i acc[MR][kNR];
  #pragma GCC unroll 4
  for (size_t r = 0; r < MR; ++r)
    #pragma GCC unroll 4
    for (size_t i = 0; i < kNR; ++i) acc[r][i] = _mm256_setzero_si256();
  size_t j = 0;
  if constexpr (kSign) {
    const __m256i ones = _mm256_set1_epi16(1);
    for (; j + 32 <= d; j += 32) {
      __m256i wv[kNR];
      #pragma GCC unroll 4
      for (size_t i = 0; i < kNR; ++i) wv[i] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w[i] + j));
      #pragma GCC unroll 4
      for (size_t r = 0; r < MR; ++r) {
        const __m256i xv = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q + r * d + j));
        const __m256i ax = _mm256_abs_epi8(xv);
        #pragma GCC unroll 4
        for (size_t i = 0; i < kNR; ++i)
          acc[r][i] = _mm256_add_epi32(
              acc[r][i], _mm256_madd_epi16(_mm256_maddubs_epi16(ax, _mm256_sign_epi8(wv[i], xv)), ones));
      }
    }
  }
  for (; j + 16 <= d; j += 16) {
    __m256i wv[kNR];
    #pragma GCC unroll 4
    for (size_t i = 0; i < kNR; ++i) wv[i] = Widen(w[i] + j);
    #pragma GCC unroll 4
    for (size_t r = 0; r < MR; ++r) {
      const __m256i xv = Widen(q + r * d + j);
      #pragma GCC unroll 4
      for (size_t i = 0; i < kNR; ++i) acc[r][i] = _mm256_add_epi32(acc[r][i], _mm256_madd_epi16(xv, wv[i]));
    }
  }
  #pragma GCC unroll 4
  for (size_t r = 0; r < MR; ++r) {
    out[r] = Reduce4(acc[r][0], acc[r][1], acc[r][2], acc[r][3]);
    if (j < d) {  // d not a multiple of 16: the last columns one by one
      alignas(16) int32_t s[kNR];
      _mm_store_si128(reinterpret_cast<__m128i*>(s), out[r]);
      #pragma GCC unroll 4
      for (size_t i = 0; i < kNR; ++i)
        for (size_t c = j; c < d; ++c) s[i] += int32_t{q[r * d + c]} * int32_t{w[i][c]};
      out[r] = _mm_load_si128(reinterpret_cast<const __m128i*>(s));
    }
  }
}

}  // namespace

TERN_GATHERED_KERNEL(GatheredInt8Avx2) {
  auto tile = [d](const int8_t* qr, size_t m, const int8_t* const* wr, __m128i* sums) {
    if (m == 2) Tile<2, false>(qr, d, wr, sums);
    else Tile<1, false>(qr, d, wr, sums);
  };
  RunTiles<kMR>(tile, 0, q, qp, rows, d, w, w_scales, row_sums, bias, tokens, K, out, out_stride);
}

TERN_GATHERED_KERNEL(GatheredInt8Avx2Sign) {
  auto tile = [d](const int8_t* qr, size_t m, const int8_t* const* wr, __m128i* sums) {
    if (m == 2) Tile<2, true>(qr, d, wr, sums);
    else Tile<1, true>(qr, d, wr, sums);
  };
  RunTiles<kMR>(tile, 0, q, qp, rows, d, w, w_scales, row_sums, bias, tokens, K, out, out_stride);
}

}  // namespace tern
