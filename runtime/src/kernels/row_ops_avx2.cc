// The AVX2 row operations (built with -mavx2; used only when cpuinfo reports AVX2): row_ops_body.h's
// bodies vectorized 8 wide by the compiler, and attention scores two keys per register: lanes 0-3 hold key
// j's four dot-product lanes and lanes 4-7 key j + 1's, each added up as DotBody does ((l0 + l1) + (l2 +
// l3) by two horizontal adds), so the scores are the portable ones bit for bit.
#include <immintrin.h>

#include "kernels/row_ops.h"
#include "kernels/row_ops_body.h"

namespace tern {
namespace {

// scores[j] = scale * q . k_j for j < n, k_j = keys + offset(j); head_dim a multiple of 4.
template <typename Offset>
inline void Scores(const float* q, const float* keys, Offset offset, size_t n, size_t head_dim, float scale,
                   float* scores) {
  size_t j = 0;
  for (; j + 4 <= n; j += 4) {  // keys j, j+1 in a; j+2, j+3 in b
    const float *k0 = keys + offset(j), *k1 = keys + offset(j + 1), *k2 = keys + offset(j + 2), *k3 = keys + offset(j + 3);
    __m256 a = _mm256_setzero_ps(), b = _mm256_setzero_ps();
    for (size_t i = 0; i < head_dim; i += 4) {
      const __m256 qv = _mm256_broadcast_ps(reinterpret_cast<const __m128*>(q + i));
      a = _mm256_add_ps(a, _mm256_mul_ps(qv, _mm256_set_m128(_mm_loadu_ps(k1 + i), _mm_loadu_ps(k0 + i))));
      b = _mm256_add_ps(b, _mm256_mul_ps(qv, _mm256_set_m128(_mm_loadu_ps(k3 + i), _mm_loadu_ps(k2 + i))));
    }
    // hadd(a, b) per 128-bit half: [a0+a1, a2+a3, b0+b1, b2+b3 | a4+a5, a6+a7, b4+b5, b6+b7]; again: the sums.
    const __m256 h = _mm256_hadd_ps(a, b);
    const __m256 s = _mm256_hadd_ps(h, h);  // [a_lo, b_lo, a_lo, b_lo | a_hi, b_hi, a_hi, b_hi]
    alignas(32) float t[8];
    _mm256_store_ps(t, s);
    scores[j] = scale * t[0];
    scores[j + 1] = scale * t[4];
    scores[j + 2] = scale * t[1];
    scores[j + 3] = scale * t[5];
  }
  for (; j < n; ++j) scores[j] = scale * DotBody(q, keys + offset(j), head_dim);
}

// out[head_dim] = sum_j scores[j] v_j in j order, element by element (AttendTail's loop), with
// head_dim a multiple of 8: up to 64 columns at a time held in kVecs registers across all n keys instead of
// loaded and stored once per key. Each element sees the same multiply and add as AttendTail's, so the floats
// are the same.
template <int kVecs, typename Offset>
inline void WeightedSum(const float* values, Offset offset, size_t n, const float* scores, size_t col, float* out) {
  __m256 acc[kVecs];
  for (int k = 0; k < kVecs; ++k) acc[k] = _mm256_setzero_ps();
  for (size_t j = 0; j < n; ++j) {
    const __m256 p = _mm256_broadcast_ss(scores + j);
    const float* v = values + offset(j) + col;
    for (int k = 0; k < kVecs; ++k) acc[k] = _mm256_add_ps(acc[k], _mm256_mul_ps(p, _mm256_loadu_ps(v + 8 * k)));
  }
  for (int k = 0; k < kVecs; ++k) _mm256_storeu_ps(out + col + 8 * k, acc[k]);
}

template <typename Offset>
inline void AttendTailAvx2(const float* values, Offset offset, size_t n, size_t head_dim, float* scores, float* out) {
  if (head_dim % 8 != 0) return AttendTail(values, offset, n, head_dim, scores, out);
  SoftmaxBody(scores, n);
  size_t col = 0;
  for (; col + 64 <= head_dim; col += 64) WeightedSum<8>(values, offset, n, scores, col, out);
  switch ((head_dim - col) / 8) {
    case 7: return WeightedSum<7>(values, offset, n, scores, col, out);
    case 6: return WeightedSum<6>(values, offset, n, scores, col, out);
    case 5: return WeightedSum<5>(values, offset, n, scores, col, out);
    case 4: return WeightedSum<4>(values, offset, n, scores, col, out);
    case 3: return WeightedSum<3>(values, offset, n, scores, col, out);
    case 2: return WeightedSum<2>(values, offset, n, scores, col, out);
    case 1: return WeightedSum<1>(values, offset, n, scores, col, out);
    default: return;
  }
}

// MaxOfBody's 8 lanes in one register: vmaxps(x, lane) is x > lane ? x : lane, NaN never taken.
float MaxOfAvx2(const float* x, size_t n) {
  if (n < 8) return MaxOfBody(x, n);
  __m256 lane = _mm256_set1_ps(kRowNegInf);
  size_t i = 0;
  for (; i + 8 <= n; i += 8) lane = _mm256_max_ps(_mm256_loadu_ps(x + i), lane);
  alignas(32) float l[8];
  _mm256_store_ps(l, lane);
  float m = kRowNegInf;
  for (size_t k = 0; k < 8; ++k) m = l[k] > m ? l[k] : m;
  for (; i < n; ++i) m = x[i] > m ? x[i] : m;
  return m;
}
// MinMaxBody's lanes in two registers (vminps(x, lo) is x < lo ? x : lo).
void MinMaxAvx2(const float* x, size_t n, float* min, float* max) {
  if (n < 8) return MinMaxBody(x, n, min, max);
  __m256 lo = _mm256_set1_ps(x[0]), hi = lo;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 v = _mm256_loadu_ps(x + i);
    lo = _mm256_min_ps(v, lo);
    hi = _mm256_max_ps(v, hi);
  }
  alignas(32) float l[8], h[8];
  _mm256_store_ps(l, lo);
  _mm256_store_ps(h, hi);
  float mn = l[0], mx = h[0];
  for (size_t k = 1; k < 8; ++k) {
    mn = l[k] < mn ? l[k] : mn;
    mx = h[k] > mx ? h[k] : mx;
  }
  for (; i < n; ++i) {
    mn = x[i] < mn ? x[i] : mn;
    mx = x[i] > mx ? x[i] : mx;
  }
  *min = mn;
  *max = mx;
}

// ScaleBiasMaxBody in one pass: each element's multiply and add as the body's (never fused), the max as
// MaxOfAvx2's (vmaxps(v, lane) keeps lane when v is NaN).
float ScaleBiasMaxAvx2(float* y, size_t n, const float* scale, const float* bias) {
  if (n < 8) return ScaleBiasMaxBody(y, n, scale, bias);
  __m256 lane = _mm256_set1_ps(kRowNegInf);
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 v = _mm256_add_ps(_mm256_mul_ps(_mm256_loadu_ps(y + i), _mm256_loadu_ps(scale + i)), _mm256_loadu_ps(bias + i));
    _mm256_storeu_ps(y + i, v);
    lane = _mm256_max_ps(v, lane);
  }
  alignas(32) float l[8];
  _mm256_store_ps(l, lane);
  float m = kRowNegInf;
  for (size_t k = 0; k < 8; ++k) m = l[k] > m ? l[k] : m;
  for (; i < n; ++i) {
    y[i] = y[i] * scale[i] + bias[i];
    m = y[i] > m ? y[i] : m;
  }
  return m;
}

void QuantizeRowAvx2(const float* x, size_t n, float inv_scale, int32_t zero_point, int8_t* q) {
  QuantizeRowBody(x, n, inv_scale, zero_point, q);
}

void MaskRowAvx2(float* row, const uint8_t* masked, size_t n) { MaskRowBody(row, masked, n); }
void ScoreRowAvx2(float* row, const uint8_t* masked, float lse, float base, size_t n) {
  ScoreRowBody(row, masked, lse, base, n);
}

void AttendRowAvx2(const float* q, const float* keys, const float* values, size_t key_stride, size_t n,
                   size_t head_dim, float scale, float* scores, float* out) {
  auto offset = [key_stride](size_t j) { return j * key_stride; };
  if (head_dim % 4 == 0) {
    Scores(q, keys, offset, n, head_dim, scale, scores);
  } else {
    for (size_t j = 0; j < n; ++j) scores[j] = scale * DotBody(q, keys + offset(j), head_dim);
  }
  AttendTailAvx2(values, offset, n, head_dim, scores, out);
}

void AttendGatheredAvx2(const float* q, const float* keys, const float* values, const uint32_t* offsets, size_t n,
                        size_t head_dim, float scale, float* scores, float* out) {
  auto offset = [offsets](size_t j) { return size_t{offsets[j]}; };
  if (head_dim % 4 == 0) {
    Scores(q, keys, offset, n, head_dim, scale, scores);
  } else {
    for (size_t j = 0; j < n; ++j) scores[j] = scale * DotBody(q, keys + offset(j), head_dim);
  }
  AttendTailAvx2(values, offset, n, head_dim, scores, out);
}

}  // namespace

bool Int8RowSumAvx2(const int8_t* w, size_t n, int32_t* sum) { return Int8RowSumBody(w, n, sum); }
void LayerNormAvx2(const float* x, const float* gamma, const float* beta, float eps, size_t rows, size_t d, float* y) {
  LayerNormBody(x, gamma, beta, eps, rows, d, y);
}

extern const RowOps kRowOpsAvx2;
const RowOps kRowOpsAvx2{"avx2", MaxOfAvx2, MinMaxAvx2, QuantizeRowAvx2, MaskRowAvx2, ScoreRowAvx2, AttendRowAvx2, AttendGatheredAvx2,
                         Int8RowSumAvx2, ScaleBiasMaxAvx2, LayerNormAvx2};

}  // namespace tern
