// Weight quantization for the converter.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "tern/model.h"

namespace tern::convert {

/// Symmetric per-output-channel int8 ("qc8w"): for each row r of w [rows, cols],
/// scale[r] = max|w[r, :]| / 127 (1 for an all-zero row), q = clamp(round(w / scale), -127, 127).
/// Guarantees |w - q * scale[r]| <= scale[r] / 2 for every element.
/// Returns the worst |w - q * scale| over the tensor.
float QuantizePerRow(const float* w, size_t rows, size_t cols, int8_t* q, float* scales);

/// Rounds to IEEE float16 (nearest even); returns the worst |w - f16(w)|.
float ToHalf(const float* w, size_t n, uint16_t* out);

/// Writes f32 matrix w [rows, cols] in weight format `t` (format::FormatOf(t) gives the sizes): `data`
/// receives DataBytes(rows, cols) bytes and `scales` ScaleBytes(rows, cols) bytes (nullptr for formats
/// without scales). Returns the worst |w - stored value|. One function per DType, in a table.
float EncodeWeights(DType t, const float* w, size_t rows, size_t cols, uint8_t* data, float* scales);

}  // namespace tern::convert
