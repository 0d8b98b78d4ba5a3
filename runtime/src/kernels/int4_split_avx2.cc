// AVX2 qc4w GEMM for few input rows (built with -mavx2; Int4GemmAvx2 calls it below its panel form's rows):
// the input split instead of the weights interleaved. A weight row's 32 bytes hold 64 columns, the even
// ones in the low nibbles; `and` and a shift give the even and the odd columns' nibbles as two vectors of 32
// bytes, in the order they are stored, and the input rows are split the same way once per call (each 64
// columns: the 32 even ones, then the 32 odd ones), so no byte of the weights is moved across lanes. The
// row form (int4_gemm_avx2.cc) spends two byte interleaves and a lane insert per 32 weights to put the
// nibbles in column order; this spends none.
//
// Exact, the same integers as the portable kernel: vpmaddubsw multiplies a nibble (0..15) by q and adds two
// neighbours (at most 2 x 15 x 128 = 3,840: no saturation), 4 steps of 64 columns are summed in int16 (at most
// 30,720) before vpmaddwd widens them, and the nibbles' sum (for the zero point) is kept in bytes over the same
// 4 steps (at most 4 x 30) before vpsadbw; the float epilogue is Int4QcOutput's.
#include <immintrin.h>

#include "kernels/int4_avx2_sums.h"
#include "kernels/int4_gemm_isa.h"
#include "kernels/int4_panel.h"

namespace tern {
namespace {

constexpr size_t kMR = 3;  // input rows per tile

// For the n = rows x K bytes of q (K a multiple of 64): qs[r, 64 g + j] = q[r, 64 g + 2 j] for j < 32, then
// qs[r, 64 g + 32 + j] = q[r, 64 g + 2 j + 1].
void Split(const int8_t* q, size_t n, int8_t* qs) {
  const __m256i even_odd = _mm256_setr_epi8(0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15,  //
                                            0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15);
  for (size_t i = 0; i < n; i += 64) {
    // Each: [its even columns | its odd columns], 16 bytes each (lanes in order by the 64-bit permute).
    const __m256i a = _mm256_permute4x64_epi64(
        _mm256_shuffle_epi8(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(q + i)), even_odd), 0xd8);
    const __m256i b = _mm256_permute4x64_epi64(
        _mm256_shuffle_epi8(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(q + i + 32)), even_odd), 0xd8);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(qs + i), _mm256_permute2x128_si256(a, b, 0x20));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(qs + i + 32), _mm256_permute2x128_si256(a, b, 0x31));
  }
}

// For weight row wr and split input rows qs[0..MR): sums[r] = sum_k q[r, k] x nibble[k]; *nibbles = sum_k nibble[k].
template <size_t MR>
inline void Tile(const int8_t* qs, size_t K, const uint8_t* wr, int32_t* sums, int32_t* nibbles) {
  const __m256i low = _mm256_set1_epi8(0x0f), ones = _mm256_set1_epi16(1), zero = _mm256_setzero_si256();
  __m256i acc[MR], wacc = zero;
  for (size_t r = 0; r < MR; ++r) acc[r] = zero;
  const size_t steps = K / 64;
  for (size_t s0 = 0; s0 < steps; s0 += 4) {
    const size_t s1 = steps - s0 < 4 ? steps : s0 + 4;
    __m256i a16[MR], n8 = zero;
    for (size_t r = 0; r < MR; ++r) a16[r] = zero;
    for (size_t s = s0; s < s1; ++s) {
      const __m256i wv = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(wr + s * 32));
      const __m256i even = _mm256_and_si256(wv, low), odd = _mm256_and_si256(_mm256_srli_epi16(wv, 4), low);
      n8 = _mm256_add_epi8(n8, _mm256_add_epi8(even, odd));
      for (size_t r = 0; r < MR; ++r) {
        const int8_t* x = qs + r * K + s * 64;
        const __m256i xe = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x));
        const __m256i xo = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + 32));
        a16[r] = _mm256_add_epi16(a16[r], _mm256_add_epi16(_mm256_maddubs_epi16(even, xe), _mm256_maddubs_epi16(odd, xo)));
      }
    }
    for (size_t r = 0; r < MR; ++r) acc[r] = _mm256_add_epi32(acc[r], _mm256_madd_epi16(a16[r], ones));
    wacc = _mm256_add_epi64(wacc, _mm256_sad_epu8(n8, zero));
  }
  for (size_t r = 0; r < MR; ++r) sums[r] = Sum8(acc[r]);
  *nibbles = Sum4x64(wacc);
}

}  // namespace

TERN_INT4_GEMM_KERNEL(Int4SplitAvx2) {
  alignas(32) int8_t qs[kInt4SplitBytes];
  Split(q, rows * K, qs);
  int32_t qsum[kInt4SplitBytes / 64];  // sum of q over each row (at least 64 columns a row)
  for (size_t r = 0; r < rows; ++r) qsum[r] = Int4BlockQSum(chunk_sums, r, K, K, 0);
  (void)block;  // qc4w only (the caller checks)
  for (size_t n = 0; n < N; ++n) {
    const uint8_t* wr = w + n * w_stride;
    if (n + 4 < N)  // the weight row 4 ahead
      for (size_t j = 0; j < K / 2; j += 64) __builtin_prefetch(wr + 4 * w_stride + j);
    for (size_t r0 = 0; r0 < rows; r0 += kMR) {
      const size_t m = rows - r0 < kMR ? rows - r0 : kMR;
      int32_t sums[kMR], nibbles;
      if (m == 3) Tile<3>(qs + r0 * K, K, wr, sums, &nibbles);
      else if (m == 2) Tile<2>(qs + r0 * K, K, wr, sums, &nibbles);
      else Tile<1>(qs + r0 * K, K, wr, sums, &nibbles);
      const int32_t wsum = nibbles - 8 * static_cast<int32_t>(K);  // sum of (nibble - 8)
      for (size_t i = 0; i < m; ++i) {
        const size_t r = r0 + i;
        const int32_t acc = sums[i] - 8 * qsum[r] - qp[r].zero_point * wsum;
        out[r * out_stride + n] = Int4QcOutput(acc, qp[r].scale, w_scales[n], bias ? bias[n] : 0.f);
      }
    }
  }
}

}  // namespace tern
