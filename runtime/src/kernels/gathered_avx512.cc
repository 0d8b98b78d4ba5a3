// AVX-512 VNNI gathered int8 projection (built with -mavx512f -mavx512bw -mavx512vnni; called only when
// cpuinfo reports AVX-512 VNNI). A register tile of up to 4 input rows x 4 tokens: 16 zmm accumulators,
// one vpdpbusd per (row, token) per 64 bytes, the tokens' weight rows loaded once per tile and the next
// tiles' rows prefetched. vpdpbusd multiplies unsigned by signed bytes: the input is flipped to unsigned
// (x ^ 0x80 = x + 128) and 128 x row_sum taken off again, so the int32 sums are exact and equal to the
// portable kernel's; the float epilogue is the same operations in the same order.
#include <immintrin.h>

#include "kernels/gathered_x86_driver.h"

namespace tern {
namespace {

// [sum(a0), sum(a1), sum(a2), sum(a3)].
inline __m128i Reduce4(__m512i a0, __m512i a1, __m512i a2, __m512i a3) {
  const __m256i b0 = _mm256_add_epi32(_mm512_castsi512_si256(a0), _mm512_extracti64x4_epi64(a0, 1));
  const __m256i b1 = _mm256_add_epi32(_mm512_castsi512_si256(a1), _mm512_extracti64x4_epi64(a1, 1));
  const __m256i b2 = _mm256_add_epi32(_mm512_castsi512_si256(a2), _mm512_extracti64x4_epi64(a2, 1));
  const __m256i b3 = _mm256_add_epi32(_mm512_castsi512_si256(a3), _mm512_extracti64x4_epi64(a3, 1));
  const __m256i h = _mm256_hadd_epi32(_mm256_hadd_epi32(b0, b1), _mm256_hadd_epi32(b2, b3));
  return _mm_add_epi32(_mm256_castsi256_si128(h), _mm256_extracti128_si256(h, 1));
}

// Rows [0, MR) of q against the 4 weight rows w[0..3]: out[r] = the 4 exact dot products (+128 x row sums).
template <size_t MR>
inline void Tile(const int8_t* q, size_t d, const int8_t* const* w, __mmask64 tail_mask, __m128i* out) {
  const __m512i flip = _mm512_set1_epi8(static_cast<char>(0x80));
  __m512i acc[MR][kNR];
  #pragma GCC unroll 4
  for (size_t r = 0; r < MR; ++r)
    #pragma GCC unroll 4
    for (size_t i = 0; i < kNR; ++i) acc[r][i] = _mm512_setzero_si512();
  size_t j = 0;
  for (; j + 64 <= d; j += 64) {
    __m512i wv[kNR];
    #pragma GCC unroll 4
    for (size_t i = 0; i < kNR; ++i) wv[i] = _mm512_loadu_si512(w[i] + j);
    #pragma GCC unroll 4
    for (size_t r = 0; r < MR; ++r) {
      const __m512i xv = _mm512_xor_si512(_mm512_loadu_si512(q + r * d + j), flip);
      #pragma GCC unroll 4
      for (size_t i = 0; i < kNR; ++i) acc[r][i] = _mm512_dpbusd_epi32(acc[r][i], xv, wv[i]);
    }
  }
  if (tail_mask) {  // masked lanes load 0: their flipped x is 0x80 but their w is 0
    __m512i wv[kNR];
    #pragma GCC unroll 4
    for (size_t i = 0; i < kNR; ++i) wv[i] = _mm512_maskz_loadu_epi8(tail_mask, w[i] + j);
    #pragma GCC unroll 4
    for (size_t r = 0; r < MR; ++r) {
      const __m512i xv = _mm512_xor_si512(_mm512_maskz_loadu_epi8(tail_mask, q + r * d + j), flip);
      #pragma GCC unroll 4
      for (size_t i = 0; i < kNR; ++i) acc[r][i] = _mm512_dpbusd_epi32(acc[r][i], xv, wv[i]);
    }
  }
  #pragma GCC unroll 4
  for (size_t r = 0; r < MR; ++r) out[r] = Reduce4(acc[r][0], acc[r][1], acc[r][2], acc[r][3]);
}

}  // namespace

TERN_GATHERED_KERNEL(GatheredInt8Avx512Vnni) {
  const size_t tail = d % 64;
  const __mmask64 tail_mask = tail ? (~uint64_t{0} >> (64 - tail)) : 0;
  auto tile = [tail_mask, d](const int8_t* qr, size_t m, const int8_t* const* wr, __m128i* sums) {
    switch (m) {
      case 4: Tile<4>(qr, d, wr, tail_mask, sums); break;
      case 3: Tile<3>(qr, d, wr, tail_mask, sums); break;
      case 2: Tile<2>(qr, d, wr, tail_mask, sums); break;
      default: Tile<1>(qr, d, wr, tail_mask, sums); break;
    }
  };
  RunTiles<4>(tile, 128, q, qp, rows, d, w, w_scales, row_sums, bias, tokens, K, out, out_stride);
}

}  // namespace tern
