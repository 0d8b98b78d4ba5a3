#include "kernels/kernels.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "kernels/exp_pass.h"
#include "kernels/row_ops.h"
#include "kernels/row_ops_body.h"
#include "weight_formats.h"

namespace tern {

float Dot(const float* a, const float* b, size_t n) { return DotBody(a, b, n); }

void LayerNorm(const float* x, const float* gamma, const float* beta, float eps, size_t rows, size_t d, float* y) {
  ActiveRowOps().layer_norm(x, gamma, beta, eps, rows, d, y);  // row_ops_body.h: the same floats at every level
}

void AddInPlace(float* y, const float* x, size_t n) {
  for (size_t i = 0; i < n; ++i) y[i] += x[i];
}

void AddScalar(float* y, float c, size_t n) {
  for (size_t i = 0; i < n; ++i) y[i] += c;
}

void Activate(Activation a, float* x, size_t n) {
  switch (a) {
    case Activation::kRelu:
      for (size_t i = 0; i < n; ++i) x[i] = std::max(x[i], 0.f);
      break;
    case Activation::kSwish: {
      static const SwishFn swish = SwishFor(ActiveIsa());
      swish(x, n);
      break;
    }
    case Activation::kGelu:
      for (size_t i = 0; i < n; ++i) x[i] = 0.5f * x[i] * (1.f + std::erf(x[i] * 0.70710678118654752f));
      break;
  }
}

#if defined(__x86_64__) || defined(__i386__)
void ExpShiftedAvx2(const float* x, size_t n, float m, float* e);    // exp_avx2.cc
void ExpShiftedAvx512(const float* x, size_t n, float m, float* e);  // exp_avx512.cc
void SwishAvx2(float* x, size_t n);                                   // exp_avx2.cc
void SwishAvx512(float* x, size_t n);                                 // exp_avx512.cc
#endif

namespace {
void ExpShiftedPortable(const float* x, size_t n, float m, float* e) { ExpShiftedBody(x, n, m, e); }
void SwishPortable(float* x, size_t n) { SwishBody(x, n); }
}  // namespace

SwishFn SwishFor(Isa isa) {
#if defined(__x86_64__) || defined(__i386__)
  if (isa == Isa::kAvx512Vnni) return SwishAvx512;
  if (isa == Isa::kAvx2) return SwishAvx2;
#endif
  (void)isa;
  return SwishPortable;
}

ExpShiftedFn ExpShiftedFor(Isa isa) {
#if defined(__x86_64__) || defined(__i386__)
  if (isa == Isa::kAvx512Vnni) return ExpShiftedAvx512;
  if (isa == Isa::kAvx2) return ExpShiftedAvx2;
#endif
  (void)isa;
  return ExpShiftedPortable;
}

float LogSumExp(const float* x, size_t n) { return n == 0 ? -std::numeric_limits<float>::infinity() : LogSumExpWithMax(x, n, MaxOf(x, n)); }

float LogSumExpWithMax(const float* x, size_t n, float m) { return LogSumExpWithMax(x, n, m, ActiveExpShifted()); }

ExpShiftedFn ActiveExpShifted() {
  static const ExpShiftedFn fn = ExpShiftedFor(ActiveIsa());
  return fn;
}

float LogSumExpWithMax(const float* x, size_t n, float m, ExpShiftedFn exp_shifted) {
  if (n == 0) return -std::numeric_limits<float>::infinity();
  constexpr size_t kChunk = 256, kLanes = 8;
  if (!std::isfinite(m)) return m;  // all -inf (nothing to normalize) or a +inf logit
  float e[kChunk];
  double lane[kLanes] = {};
  for (size_t i = 0; i < n; i += kChunk) {
    const size_t c = std::min(kChunk, n - i);
    exp_shifted(x + i, c, m, e);
    size_t k = 0;
    for (; k + kLanes <= c; k += kLanes)
      for (size_t l = 0; l < kLanes; ++l) lane[l] += e[k + l];
    for (; k < c; ++k) lane[0] += e[k];
  }
  double sum = 0.0;
  for (size_t l = 0; l < kLanes; ++l) sum += lane[l];
  return m + static_cast<float>(std::log(sum));
}

void ScoreRow(float* row, const uint8_t* masked, float lse, float base, size_t n) {
  ActiveRowOps().score_row(row, masked, lse, base, n);
}

float MaxOf(const float* x, size_t n) { return ActiveRowOps().max_of(x, n); }

float ScaleBiasMax(float* y, size_t n, const float* scale, const float* bias) {
  return ActiveRowOps().scale_bias_max(y, n, scale, bias);
}

void MaskRow(float* row, const uint8_t* masked, size_t n) { ActiveRowOps().mask_row(row, masked, n); }

uint32_t ArgMax(const float* x, size_t n, uint32_t fallback) {
  // Two vectorizable passes (the largest value, then its first index) instead of one branchy scan.
  const float m = MaxOf(x, n);
  if (!(m > -std::numeric_limits<float>::infinity())) return fallback;
  for (size_t v = 0; v < n; ++v)
    if (x[v] == m) return static_cast<uint32_t>(v);
  return fallback;
}

void AttendRow(const float* q, const float* keys, const float* values, size_t key_stride, size_t n, size_t head_dim,
               float scale, float* scores, float* out) {
  ActiveRowOps().attend_row(q, keys, values, key_stride, n, head_dim, scale, scores, out);
}

void AttendGathered(const float* q, const float* keys, const float* values, const uint32_t* offsets, size_t n,
                    size_t head_dim, float scale, float* scores, float* out) {
  ActiveRowOps().attend_gathered(q, keys, values, offsets, n, head_dim, scale, scores, out);
}

void EmbedRow(const TensorView& e, uint32_t id, float scale, const float* position, float* out) {
  format::FormatOf(e.dtype).dequantize_row(e, id, scale, position, out);
}

}  // namespace tern
