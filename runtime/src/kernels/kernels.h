// f32 kernels of the Transformer that are not matrix products: LayerNorm, activations, softmax,
// attention over one query row, embedding lookup. Single-threaded, no allocation.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/isa.h"
#include "tern/model.h"
#include "views.h"

namespace tern {

/// sum_i a[i] * b[i] (four partial sums, fixed order: the same result for the same inputs everywhere).
float Dot(const float* a, const float* b, size_t n);

/// y[rows, d] = (x - mean) / sqrt(var + eps) * gamma + beta per row (biased variance, as torch.nn.LayerNorm).
/// Mean and variance are accumulated in double. y may alias x.
void LayerNorm(const float* x, const float* gamma, const float* beta, float eps, size_t rows, size_t d, float* y);

/// y[i] += x[i].
void AddInPlace(float* y, const float* x, size_t n);

/// y[i] += c.
void AddScalar(float* y, float c, size_t n);

/// In place: relu, swish (SiLU, x * sigmoid(x); SwishFor(ActiveIsa()), tern's exp polynomial, the same floats on
/// every CPU) or exact gelu (0.5 x (1 + erf(x / sqrt 2))).
void Activate(Activation a, float* x, size_t n);

/// log(sum_i exp(x[i])) over x[n], with the max subtracted first; the exponentials are summed in double
/// (relative error of each about 1 ulp of float). -inf for n = 0 or all -inf.
float LogSumExp(const float* x, size_t n);
/// The same with m = MaxOf(x, n) already known (e.g. the value at the argmax): one pass fewer.
float LogSumExpWithMax(const float* x, size_t n, float m);

/// The exp pass of log-sum-exp, e[k] = exp(x[k] - m) for k < n (x[k] <= m), at one ISA level
/// (kernels/isa.h): every level gives the same floats (kernels/exp_pass.h). ActiveExpShifted() is the
/// level of ActiveIsa(); the others are for tests and benchmarks.
using ExpShiftedFn = void (*)(const float* x, size_t n, float m, float* e);
ExpShiftedFn ExpShiftedFor(Isa isa);
/// x[n] <- swish(x) in place (Activate's kSwish) at ISA level `isa`: the same floats at every level
/// (kernels/exp_pass.h's SwishBody).
using SwishFn = void (*)(float* x, size_t n);
SwishFn SwishFor(Isa isa);
ExpShiftedFn ActiveExpShifted();
/// LogSumExpWithMax with a given exp pass.
float LogSumExpWithMax(const float* x, size_t n, float m, ExpShiftedFn exp_shifted);

/// One row's epilogue y[j] = y[j] * scale[j] + bias[j] (two IEEE operations, never fused) and MaxOf(y, n)
/// of the result, in one pass; the same floats at every ISA level.
float ScaleBiasMax(float* y, size_t n, const float* scale, const float* bias);

/// Largest of x[n]: -inf for n = 0; NaN elements are ignored.
float MaxOf(const float* x, size_t n);

/// A beam-search score row in place: row[v] <- masked[v] ? -inf : (row[v] - lse) + base, i.e. the
/// log-probability (lse = LogSumExp of the logits) plus the beam's running score base.
void ScoreRow(float* row, const uint8_t* masked, float lse, float base, size_t n);

/// row[v] <- -inf where masked[v] (a token mask applied to logits).
void MaskRow(float* row, const uint8_t* masked, size_t n);

/// Index of the first largest element of x[n] (as torch.argmax); `fallback` when n = 0 or every element is
/// -inf or NaN.
uint32_t ArgMax(const float* x, size_t n, uint32_t fallback);

/// Attention for one query row of one head over n keys:
///   out[head_dim] = sum_j softmax_j(scale * q . k_j) v_j
/// k_j = keys + j * key_stride, v_j = values + j * key_stride (floats). `scores` is scratch of n floats.
void AttendRow(const float* q, const float* keys, const float* values, size_t key_stride, size_t n, size_t head_dim,
               float scale, float* scores, float* out);

/// The same with keys and values gathered: k_j = keys + offsets[j], v_j = values + offsets[j] (the KV cache
/// read through a hypothesis' ancestry). Same softmax, same order of operations as AttendRow.
void AttendGathered(const float* q, const float* keys, const float* values, const uint32_t* offsets, size_t n,
                    size_t head_dim, float scale, float* scores, float* out);

/// out[d] = embedding[id] * scale + position, the row dequantized by its weight format (format::FormatOf).
void EmbedRow(const TensorView& embedding, uint32_t id, float scale, const float* position, float* out);

}  // namespace tern
