#include "weight_formats.h"

#include <cstring>

#include "format.h"
#include "half.h"

namespace tern::format {
namespace {

void DequantizeF32(const TensorView& t, size_t row, float scale, const float* add, float* out) {
  const size_t d = t.cols();
  const float* w = t.f32() + row * d;
  for (size_t i = 0; i < d; ++i) out[i] = w[i] * scale + add[i];
}

void DequantizeF16(const TensorView& t, size_t row, float scale, const float* add, float* out) {
  const size_t d = t.cols();
  const uint16_t* w = static_cast<const uint16_t*>(t.data) + row * d;
  for (size_t i = 0; i < d; ++i) out[i] = HalfToFloat(w[i]) * scale + add[i];
}

void DequantizeQc8w(const TensorView& t, size_t row, float scale, const float* add, float* out) {
  const size_t d = t.cols();
  const int8_t* w = static_cast<const int8_t*>(t.data) + row * d;
  const float s = t.scales[row];
  for (size_t i = 0; i < d; ++i) out[i] = (w[i] * s) * scale + add[i];
}

// Indexed by DType.
constexpr WeightFormat kFormats[] = {
    {DType::kF32, "f32", "none (f32)", 32, ScaleLayout::kNone, DequantizeF32},
    {DType::kF16, "f16", "f16 (round to nearest even); computed in f32", 16, ScaleLayout::kNone, DequantizeF16},
    {DType::kInt8, "int8",
     "int8 symmetric per-output-channel (qc8w), scale = max|w_row| / 127; activations quantized per row at run time (qd8)",
     8, ScaleLayout::kPerRow, DequantizeQc8w},
};
static_assert(IndexedByDType(kFormats), "one WeightFormat per schema DType, kFormats[i].dtype == i");

}  // namespace

const WeightFormat& FormatOf(DType t) {
  const size_t i = static_cast<size_t>(t);
  return kFormats[i < EnumCount<fb::DType>() ? i : 0];
}

const WeightFormat* FormatNamed(const char* name) {
  for (const WeightFormat& f : kFormats)
    if (std::strcmp(f.name, name) == 0) return &f;
  return nullptr;
}

}  // namespace tern::format
