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

// 4-bit: element i of the row is the low nibble of byte i / 2 for even i, the high one for odd i.
inline int Nibble(const uint8_t* row, size_t i) { return ((row[i / 2] >> ((i & 1) * 4)) & 0xf) - 8; }

void DequantizeQc4w(const TensorView& t, size_t row, float scale, const float* add, float* out) {
  const size_t d = t.cols();
  const uint8_t* w = static_cast<const uint8_t*>(t.data) + row * ((d + 1) / 2);
  const float s = t.scales[row];
  for (size_t i = 0; i < d; ++i) out[i] = (Nibble(w, i) * s) * scale + add[i];
}

void DequantizeQb4w(const TensorView& t, size_t row, float scale, const float* add, float* out) {
  const size_t d = t.cols(), nb = d / t.block_size;
  const uint8_t* w = static_cast<const uint8_t*>(t.data) + row * ((d + 1) / 2);
  const uint16_t* sb = t.block_scales + row * nb;
  for (size_t i = 0; i < d; ++i) out[i] = (Nibble(w, i) * Bf16ToFloat(sb[i / t.block_size])) * scale + add[i];
}

// Indexed by DType.
constexpr WeightFormat kFormats[] = {
    {DType::kF32, "f32", "none (f32)", 32, ScaleLayout::kNone, DequantizeF32},
    {DType::kF16, "f16", "f16 (round to nearest even); computed in f32", 16, ScaleLayout::kNone, DequantizeF16},
    {DType::kInt8, "int8",
     "int8 symmetric per-output-channel (qc8w), scale = max|w_row| / 127; activations quantized per row at run time (qd8)",
     8, ScaleLayout::kPerRow, DequantizeQc8w},
    {DType::kQc4w, "qc4w",
     "int4 symmetric per-output-channel (qc4w), scale = max|w_row| / 7, stored unsigned with zero point 8; activations "
     "quantized per row at run time (qd8)",
     4, ScaleLayout::kPerRow, DequantizeQc4w},
    {DType::kQb4w, "qb4w",
     "int4 symmetric blockwise (qb4w), scale = max|w_block| / 7 in bfloat16 per block of block_size columns, stored "
     "unsigned with zero point 8; activations quantized per row at run time (qd8)",
     4, ScaleLayout::kPerBlockBf16, DequantizeQb4w},
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
