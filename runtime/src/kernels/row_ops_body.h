// The f32 row operations around the GEMMs (attention over the KV cache and the source, the max of a logits
// row, masks and beam scores), as inline bodies that each ISA's translation unit compiles: row_ops.cc for
// the portable level, row_ops_avx2.cc with -mavx2 (which also has its own two-keys-per-register dot
// products). Every body is either element by element (the compiler may vectorize it for any width: each
// element sees the same operations) or a reduction written with a fixed lane structure, so every level
// gives the same floats bit for bit (no fused multiply-add: -ffp-contract=off everywhere). Internal to
// kernels/.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>

namespace tern {
namespace {  // internal linkage: each ISA's unit keeps its own copy

constexpr float kRowNegInf = -std::numeric_limits<float>::infinity();

/// a . b over n floats in 4 lanes (lane i % 4, the tail into lane 0), summed (l0 + l1) + (l2 + l3).
inline float DotBody(const float* a, const float* b, size_t n) {
  float s0 = 0.f, s1 = 0.f, s2 = 0.f, s3 = 0.f;
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    s0 += a[i] * b[i];
    s1 += a[i + 1] * b[i + 1];
    s2 += a[i + 2] * b[i + 2];
    s3 += a[i + 3] * b[i + 3];
  }
  for (; i < n; ++i) s0 += a[i] * b[i];
  return (s0 + s1) + (s2 + s3);
}

/// The largest of x[n] in 8 lanes (NaN never taken; -inf for n = 0). Which zero is returned for a row of
/// +0 and -0 may differ from a sequential scan; nothing downstream tells them apart.
inline float MaxOfBody(const float* x, size_t n) {
  constexpr size_t kLanes = 8;
  float lane[kLanes];
  for (size_t l = 0; l < kLanes; ++l) lane[l] = kRowNegInf;
  size_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (size_t l = 0; l < kLanes; ++l) lane[l] = x[i + l] > lane[l] ? x[i + l] : lane[l];
  float m = kRowNegInf;
  for (size_t l = 0; l < kLanes; ++l) m = lane[l] > m ? lane[l] : m;
  for (; i < n; ++i) m = x[i] > m ? x[i] : m;
  return m;
}

/// The smallest and largest of x[n] (n >= 1) in 8 lanes that start at x[0], each kept unless a value compares
/// below / above it: NaN is never taken (a row starting with NaN keeps NaN, as a sequential scan would).
inline void MinMaxBody(const float* x, size_t n, float* min, float* max) {
  constexpr size_t kLanes = 8;
  float lo[kLanes], hi[kLanes];
  for (size_t l = 0; l < kLanes; ++l) lo[l] = hi[l] = x[0];
  size_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (size_t l = 0; l < kLanes; ++l) {
      lo[l] = x[i + l] < lo[l] ? x[i + l] : lo[l];
      hi[l] = x[i + l] > hi[l] ? x[i + l] : hi[l];
    }
  float mn = lo[0], mx = hi[0];
  for (size_t l = 1; l < kLanes; ++l) {
    mn = lo[l] < mn ? lo[l] : mn;
    mx = hi[l] > mx ? hi[l] : mx;
  }
  for (; i < n; ++i) {
    mn = x[i] < mn ? x[i] : mn;
    mx = x[i] > mx ? x[i] : mx;
  }
  *min = mn;
  *max = mx;
}

/// LayerNorm of `rows` rows of d floats (y may be x): each row's mean and variance in float64 over 8 lanes
/// (element i into lane i % 8, the tail into lane 0), the lanes summed ((l0 + l1) + (l2 + l3)) + ((l4 + l5) +
/// (l6 + l7)); then y = (x - mean) * inv * gamma + beta in float, element by element, inv = 1 / sqrt(var + eps)
/// (transformers' nn.LayerNorm, biased variance). The lanes keep the 4-cycle latency of a float64 add off the
/// critical path: one chain per lane instead of one per row.
inline double LaneSum8(const double* l) { return ((l[0] + l[1]) + (l[2] + l[3])) + ((l[4] + l[5]) + (l[6] + l[7])); }

inline void LayerNormBody(const float* x, const float* gamma, const float* beta, float eps, size_t rows, size_t d, float* y) {
  constexpr size_t kLanes = 8;
  for (size_t r = 0; r < rows; ++r) {
    const float* xr = x + r * d;
    float* yr = y + r * d;
    double lane[kLanes] = {0, 0, 0, 0, 0, 0, 0, 0};
    size_t i = 0;
    for (; i + kLanes <= d; i += kLanes)
      for (size_t l = 0; l < kLanes; ++l) lane[l] += static_cast<double>(xr[i + l]);
    for (; i < d; ++i) lane[0] += static_cast<double>(xr[i]);
    const double mean = LaneSum8(lane) / static_cast<double>(d);
    for (size_t l = 0; l < kLanes; ++l) lane[l] = 0;
    for (i = 0; i + kLanes <= d; i += kLanes)
      for (size_t l = 0; l < kLanes; ++l) {
        const double c = static_cast<double>(xr[i + l]) - mean;
        lane[l] += c * c;
      }
    for (; i < d; ++i) {
      const double c = static_cast<double>(xr[i]) - mean;
      lane[0] += c * c;
    }
    const double var = LaneSum8(lane) / static_cast<double>(d);
    const float inv = static_cast<float>(1.0 / std::sqrt(var + static_cast<double>(eps)));
    const float m = static_cast<float>(mean);
    for (size_t j = 0; j < d; ++j) yr[j] = (xr[j] - m) * inv * gamma[j] + beta[j];
  }
}

/// q[j] = int8(round_half_even(clamp(x[j] * inv_scale, lo, hi)) + zero_point), lo = -128 - zero_point,
/// hi = 127 - zero_point (XNNPACK's qd8 conversion; NaN becomes lo). Rounding adds and subtracts 1.5 x 2^23.
inline void QuantizeRowBody(const float* x, size_t n, float inv_scale, int32_t zero_point, int8_t* q) {
  const float lo = -128.f - static_cast<float>(zero_point), hi = 127.f - static_cast<float>(zero_point);
  constexpr float kMagic = 12582912.f;  // 1.5 * 2^23
  for (size_t j = 0; j < n; ++j) {
    float v = x[j] * inv_scale;
    v = v > lo ? v : lo;
    v = v < hi ? v : hi;
    q[j] = static_cast<int8_t>(static_cast<int32_t>((v + kMagic) - kMagic) + zero_point);
  }
}

inline bool Int8RowSumBody(const int8_t* w, size_t n, int32_t* sum) {
  int32_t s = 0;
  int8_t lowest = 0;
  for (size_t k = 0; k < n; ++k) {  // two reductions the compiler vectorizes (-O3)
    s += w[k];
    lowest = w[k] < lowest ? w[k] : lowest;
  }
  *sum = s;
  return lowest != -128;
}

/// y[j] = y[j] * scale[j] + bias[j] over one row of n (a linear layer's epilogue: nn/linear.h), returning
/// the largest result as MaxOfBody would (8 lanes, NaN never taken, -inf for n = 0).
inline float ScaleBiasMaxBody(float* y, size_t n, const float* scale, const float* bias) {
  for (size_t j = 0; j < n; ++j) y[j] = y[j] * scale[j] + bias[j];
  return MaxOfBody(y, n);
}

inline void MaskRowBody(float* row, const uint8_t* masked, size_t n) {
  for (size_t v = 0; v < n; ++v) row[v] = masked[v] ? kRowNegInf : row[v];
}

inline void ScoreRowBody(float* row, const uint8_t* masked, float lse, float base, size_t n) {
  for (size_t v = 0; v < n; ++v) row[v] = masked[v] ? kRowNegInf : (row[v] - lse) + base;
}

/// scores[j] <- softmax_j(scores[0..n)) in place, as exp(s_j - max) / sum (the one attention softmax).
inline void SoftmaxBody(float* scores, size_t n) {
  float m = kRowNegInf;
  for (size_t j = 0; j < n; ++j) m = scores[j] > m ? scores[j] : m;
  float sum = 0.f;
  for (size_t j = 0; j < n; ++j) {
    scores[j] = std::exp(scores[j] - m);
    sum += scores[j];
  }
  const float inv = 1.f / sum;
  for (size_t j = 0; j < n; ++j) scores[j] *= inv;
}

/// After scores[0..n) hold scale * q . k_j: out[head_dim] = sum_j softmax_j v_j, with v_j = values +
/// offset(j) (in j order, element by element).
template <typename Offset>
inline void AttendTail(const float* values, Offset offset, size_t n, size_t head_dim, float* scores, float* out) {
  SoftmaxBody(scores, n);
  for (size_t i = 0; i < head_dim; ++i) out[i] = 0.f;
  for (size_t j = 0; j < n; ++j) {
    const float p = scores[j];
    const float* v = values + offset(j);
    for (size_t i = 0; i < head_dim; ++i) out[i] += p * v[i];
  }
}

}  // namespace
}  // namespace tern
