// AVX2 4-bit GEMM for few input rows (built with -mavx2; Int4GemmAvx2 calls it where Int4SplitFits):
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
// 4 steps (at most 4 x 30) before vpsadbw; the float epilogue is Int4QcOutput's. qb4w (blocks of 32) keeps 8
// weight rows in the lanes, as the panel form does, so that each lane adds its row's blocks in order.
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

// Lanes 0..3 of v[i] summed into lane i of *lo, lanes 4..7 into lane i of *hi (i < 8): with v[i] one weight
// row's products over 64 columns, the first 32 columns' block and the next one's, 8 weight rows in the lanes.
inline void Tree8(const __m256i* v, __m256i* lo, __m256i* hi) {
  const __m256i a = _mm256_hadd_epi32(_mm256_hadd_epi32(v[0], v[1]), _mm256_hadd_epi32(v[2], v[3]));
  const __m256i b = _mm256_hadd_epi32(_mm256_hadd_epi32(v[4], v[5]), _mm256_hadd_epi32(v[6], v[7]));
  *lo = _mm256_permute2x128_si256(a, b, 0x20);
  *hi = _mm256_permute2x128_si256(a, b, 0x31);
}

// qb4w with blocks of 32 columns, 8 weight rows wr[0..8) in the lanes and one split input row x: lane i of the
// result is (..((0 + float(ib_0) * s_0) + float(ib_1) * s_1) + ..) for weight row i, the blocks in order as
// Int4BlockAdd adds them; ib_b = sum over block b of (q - zp) x (nibble - 8) = products - 8 x sum(q) - zp x
// (sum(nibble) - 256). sc: [K / 32][8] the blocks' scales, lane by lane; cs: the row's chunk sums.
inline __m256 Qb32Row(const int8_t* x, size_t K, const uint8_t* const* wr, const float* sc, const int32_t* cs,
                      int32_t zero_point) {
  const __m256i low = _mm256_set1_epi8(0x0f), ones = _mm256_set1_epi16(1), zero = _mm256_setzero_si256();
  const __m256i zp = _mm256_set1_epi32(zero_point), block_bias = _mm256_set1_epi32(8 * 32);
  __m256 f = _mm256_setzero_ps();
  for (size_t s = 0; s < K / 64; ++s) {
    const __m256i xe = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + s * 64));
    const __m256i xo = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + s * 64 + 32));
    __m256i prod[8], nib[8];
    for (size_t i = 0; i < 8; ++i) {
      const __m256i wv = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(wr[i] + s * 32));
      const __m256i even = _mm256_and_si256(wv, low), odd = _mm256_and_si256(_mm256_srli_epi16(wv, 4), low);
      prod[i] = _mm256_madd_epi16(_mm256_add_epi16(_mm256_maddubs_epi16(even, xe), _mm256_maddubs_epi16(odd, xo)), ones);
      nib[i] = _mm256_sad_epu8(_mm256_add_epi8(even, odd), zero);  // [bytes 0-7, 8-15 | 16-23, 24-31] as int32 lanes 0, 2, 4, 6
    }
    __m256i p[2], n[2];
    Tree8(prod, &p[0], &p[1]);
    Tree8(nib, &n[0], &n[1]);
    for (size_t h = 0; h < 2; ++h) {
      const size_t b = 2 * s + h;
      const __m256i ib = _mm256_sub_epi32(_mm256_sub_epi32(p[h], _mm256_set1_epi32(8 * cs[b])),
                                          _mm256_mullo_epi32(zp, _mm256_sub_epi32(n[h], block_bias)));
      f = _mm256_add_ps(f, _mm256_mul_ps(_mm256_cvtepi32_ps(ib), _mm256_load_ps(sc + b * 8)));
    }
  }
  return f;
}

// qb4w, blocks of 32: tiles of 8 weight rows (the blocks' scales transposed into lanes once per tile), each
// input row over them.
void Qb32(const int8_t* qs, const xnn_quantization_params* qp, const int32_t* chunk_sums, size_t rows, size_t K,
          const uint8_t* w, size_t w_stride, const uint16_t* block_scales, const float* bias, size_t N, float* out,
          size_t out_stride) {
  const size_t blocks = K / 32;
  alignas(32) float sc[kInt4MaxBlocks * 8];
  for (size_t n0 = 0; n0 < N; n0 += 8) {
    const size_t nn = N - n0 < 8 ? N - n0 : 8;  // rows past N repeat row n0; their lanes are not stored
    const uint8_t* wr[8];
    for (size_t i = 0; i < 8; ++i) wr[i] = w + (n0 + (i < nn ? i : 0)) * w_stride;
    for (size_t b = 0; b < blocks; ++b)
      for (size_t i = 0; i < 8; ++i) sc[b * 8 + i] = Bf16(block_scales[(n0 + (i < nn ? i : 0)) * blocks + b]);
    alignas(32) float bv[8] = {};
    for (size_t i = 0; i < nn && bias; ++i) bv[i] = bias[n0 + i];
    for (size_t r = 0; r < rows; ++r) {
      const __m256 f = Qb32Row(qs + r * K, K, wr, sc, chunk_sums + r * blocks, qp[r].zero_point);
      // (f * x_scale) + bias, lane by lane as Int4QbOutput
      const __m256 v = _mm256_add_ps(_mm256_mul_ps(f, _mm256_set1_ps(qp[r].scale)), _mm256_load_ps(bv));
      float* o = out + r * out_stride + n0;
      if (nn == 8) {
        _mm256_storeu_ps(o, v);
      } else {
        alignas(32) float lanes[8];
        _mm256_store_ps(lanes, v);
        for (size_t i = 0; i < nn; ++i) o[i] = lanes[i];
      }
    }
  }
}

}  // namespace

TERN_INT4_GEMM_KERNEL(Int4SplitAvx2) {
  alignas(32) int8_t qs[kInt4SplitBytes];
  Split(q, rows * K, qs);
  if (block) {  // qb4w with blocks of 32 (Int4SplitFits)
    Qb32(qs, qp, chunk_sums, rows, K, w, w_stride, block_scales, bias, N, out, out_stride);
    return;
  }
  int32_t qsum[kInt4SplitBytes / 64];  // sum of q over each row (at least 64 columns a row)
  for (size_t r = 0; r < rows; ++r) qsum[r] = Int4BlockQSum(chunk_sums, r, K, K, 0);
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
