#include "nn/xnn_ops.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "kernels/row_ops.h"

namespace tern {
namespace {

// Comparisons written so that a NaN never passes: it becomes the bound (no undefined float -> int cast).
inline float AtLeast(float v, float lo) { return v > lo ? v : lo; }
inline float AtMost(float v, float hi) { return v < hi ? v : hi; }

// Round to nearest, ties to even, for |v| <= 2^22: adding and subtracting 1.5 * 2^23 leaves the integer
// part in the float's last bits; two IEEE additions, so every ISA and vectorization gives the same value.
inline float RoundEven(float v) {
  constexpr float kMagic = 12582912.f;  // 1.5 * 2^23
  return (v + kMagic) - kMagic;
}

// Issue 59's experiment: TERN_EXPERIMENT_ACT_BITS=7 puts every activation row on a grid of 128 levels,
// [-64, 63], instead of qd8's 256 (read once; any other value, or none, is the 8-bit grid). Its conversion is
// portable C++ on every ISA, so outputs stay identical across CPUs. An experiment switch for stating the 7-bit
// grid's quality (docs/performance.md, "A 7-bit grid: quality first"), not an API: the grid is to become a
// property of the int8 format that the converter records.
// TERN_EXPERIMENT_ACT_LAYERS=a,b (with it) keeps the 7-bit grid to the linear layers whose weight's name contains
// one of the comma-separated parts (issue 70: the grid per layer, for the layers where it costs no agreement).
bool SevenBitActivations(const char* layer) {
  static const bool on = [] {
    const char* v = std::getenv("TERN_EXPERIMENT_ACT_BITS");
    return v && std::strcmp(v, "7") == 0;
  }();
  if (!on) return false;
  static const char* const layers = std::getenv("TERN_EXPERIMENT_ACT_LAYERS");
  if (!layers || !*layers) return true;
  if (!layer) return false;
  const std::string_view name(layer), list(layers);
  for (size_t at = 0; at <= list.size();) {
    const size_t end = std::min(list.find(',', at), list.size());
    const std::string_view part = list.substr(at, end - at);
    if (!part.empty() && name.find(part) != std::string_view::npos) return true;
    at = end + 1;
  }
  return false;
}

// XNNPACK's xnn_f32_qd8_asymmetric_quantization_params (2024-11-08), step by step, for the grid [qmin, qmax].
QuantParams ParamsOnGrid(float min, float max, float kQmin, float kQmax) {
  const float rmin = AtMost(min, 0.f), rmax = AtLeast(max, 0.f);
  float multiplier = rmin == rmax ? 1.f : (kQmax - kQmin) / (rmax - rmin);
  if (!(multiplier > 0.f)) multiplier = 1.f;  // an infinite range (XNNPACK would give an infinite scale)
  const float descaled_min = rmin * multiplier, descaled_max = rmax * multiplier;
  float zero_point = (kQmin + descaled_min) + (kQmax + descaled_max) > 0 ? kQmin - descaled_min : kQmax - descaled_max;
  zero_point = AtMost(AtLeast(zero_point, kQmin), kQmax);
  QuantParams p;
  p.zero_point = static_cast<int32_t>(RoundEven(zero_point));
  p.scale = 1.f / multiplier;         // dequantization: x ~ (q - zero_point) * scale
  p.inv_scale = 1.f / p.scale;        // quantization multiplier, as XNNPACK's convert recomputes it
  return p;
}

}  // namespace

QuantParams QuantizationParamsOf(float min, float max) { return ParamsOnGrid(min, max, -128.f, 127.f); }

void QuantizeRowQd8(const float* x, size_t cols, int8_t* q, xnn_quantization_params* params, const char* layer) {
  // The min/max and conversion loops run at the CPU's ISA level (kernels/row_ops.h), equal on every level.
  const RowOps& ops = ActiveRowOps();
  float mn = 0.f, mx = 0.f;
  if (cols) ops.min_max(x, cols, &mn, &mx);
  if (SevenBitActivations(layer)) {
    // kernels/row_ops_body.h's conversion with the bounds of [-64, 63] (the ISA loops' are [-128, 127]).
    const QuantParams p = ParamsOnGrid(mn, mx, -64.f, 63.f);
    const float lo = -64.f - static_cast<float>(p.zero_point), hi = 63.f - static_cast<float>(p.zero_point);
    for (size_t j = 0; j < cols; ++j)
      q[j] = static_cast<int8_t>(static_cast<int32_t>(RoundEven(AtMost(AtLeast(x[j] * p.inv_scale, lo), hi))) + p.zero_point);
    params->zero_point = p.zero_point;
    params->scale = p.scale;
    return;
  }
  const QuantParams p = QuantizationParamsOf(mn, mx);
  ops.quantize_row(x, cols, p.inv_scale, p.zero_point, q);
  params->zero_point = p.zero_point;
  params->scale = p.scale;
}

Result<RowQuantizer> RowQuantizer::Create() { return RowQuantizer(); }

Status RowQuantizer::Run(const float* in, size_t rows, size_t cols, const QuantScratch& scratch, pthreadpool_t,
                         const char* layer) const {
  for (size_t r = 0; r < rows; ++r) QuantizeRowQd8(in + r * cols, cols, scratch.q + r * cols, scratch.params + r, layer);
  // XNNPACK's GEMM microkernels compute MR rows at a time: for a tile with fewer rows, the missing rows
  // read the last row's input and store to its output, with the params that follow it in the array. Those
  // must be the last row's (XNNPACK's own convert operator pads them so: xnn_compute_pad_qd8_params), or
  // a tile whose missing rows are stored last overwrites the last row with wrong values.
  if (rows > 0)
    for (size_t i = 0; i < XNN_EXTRA_QUANTIZATION_PARAMS; ++i) scratch.params[rows + i] = scratch.params[rows - 1];
  return Status::Ok();
}

}  // namespace tern
