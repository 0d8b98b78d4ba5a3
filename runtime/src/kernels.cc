#include "kernels.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "half.h"

namespace tern {

float Dot(const float* a, const float* b, size_t n) {
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

void LayerNorm(const float* x, const float* gamma, const float* beta, float eps, size_t rows, size_t d, float* y) {
  for (size_t r = 0; r < rows; ++r) {
    const float* xr = x + r * d;
    float* yr = y + r * d;
    double mean = 0.0;
    for (size_t i = 0; i < d; ++i) mean += xr[i];
    mean /= static_cast<double>(d);
    double var = 0.0;
    for (size_t i = 0; i < d; ++i) {
      const double c = xr[i] - mean;
      var += c * c;
    }
    var /= static_cast<double>(d);
    const float inv = static_cast<float>(1.0 / std::sqrt(var + eps));
    const float m = static_cast<float>(mean);
    for (size_t i = 0; i < d; ++i) yr[i] = (xr[i] - m) * inv * gamma[i] + beta[i];
  }
}

void AddInPlace(float* y, const float* x, size_t n) {
  for (size_t i = 0; i < n; ++i) y[i] += x[i];
}

void Activate(Activation a, float* x, size_t n) {
  switch (a) {
    case Activation::kRelu:
      for (size_t i = 0; i < n; ++i) x[i] = std::max(x[i], 0.f);
      break;
    case Activation::kSwish:
      for (size_t i = 0; i < n; ++i) x[i] = x[i] / (1.f + std::exp(-x[i]));
      break;
    case Activation::kGelu:
      for (size_t i = 0; i < n; ++i) x[i] = 0.5f * x[i] * (1.f + std::erf(x[i] * 0.70710678118654752f));
      break;
  }
}

void LogSoftmaxInPlace(float* x, size_t n) {
  float m = -std::numeric_limits<float>::infinity();
  for (size_t i = 0; i < n; ++i) m = std::max(m, x[i]);
  double sum = 0.0;
  for (size_t i = 0; i < n; ++i) sum += std::exp(static_cast<double>(x[i] - m));
  const float lse = m + static_cast<float>(std::log(sum));
  for (size_t i = 0; i < n; ++i) x[i] -= lse;
}

void AttendRow(const float* q, const float* keys, const float* values, size_t key_stride, size_t n, size_t head_dim,
               float scale, float* scores, float* out) {
  float m = -std::numeric_limits<float>::infinity();
  for (size_t j = 0; j < n; ++j) {
    scores[j] = scale * Dot(q, keys + j * key_stride, head_dim);
    m = std::max(m, scores[j]);
  }
  float sum = 0.f;
  for (size_t j = 0; j < n; ++j) {
    scores[j] = std::exp(scores[j] - m);
    sum += scores[j];
  }
  const float inv = 1.f / sum;
  std::fill(out, out + head_dim, 0.f);
  for (size_t j = 0; j < n; ++j) {
    const float p = scores[j] * inv;
    const float* v = values + j * key_stride;
    for (size_t i = 0; i < head_dim; ++i) out[i] += p * v[i];
  }
}

void EmbedRow(const TensorView& e, uint32_t id, float scale, const float* position, float* out) {
  const size_t d = e.cols();
  switch (e.dtype) {
    case DType::kF32: {
      const float* row = e.f32() + size_t{id} * d;
      for (size_t i = 0; i < d; ++i) out[i] = row[i] * scale + position[i];
      break;
    }
    case DType::kF16: {
      const uint16_t* row = static_cast<const uint16_t*>(e.data) + size_t{id} * d;
      for (size_t i = 0; i < d; ++i) out[i] = HalfToFloat(row[i]) * scale + position[i];
      break;
    }
    case DType::kInt8: {
      const int8_t* row = static_cast<const int8_t*>(e.data) + size_t{id} * d;
      const float s = e.scales[id];
      for (size_t i = 0; i < d; ++i) out[i] = (row[i] * s) * scale + position[i];
      break;
    }
  }
}

}  // namespace tern
