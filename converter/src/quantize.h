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

/// Symmetric per-output-channel int4 ("qc4w"): scale[r] = max|w[r, :]| / 7 (1 for an all-zero row),
/// q = clamp(round(w / scale), -8, 7) stored as the nibble q + 8, two per byte (the even column in the low
/// nibble; each row starts on a byte: (cols + 1) / 2 bytes). Returns the worst |w - q * scale|.
float QuantizeQc4w(const float* w, size_t rows, size_t cols, uint8_t* q, float* scales);

/// Symmetric blockwise int4 ("qb4w"): for each block of `block` columns of a row, scale = max|w_block| / 7
/// rounded to bfloat16 (1 for an all-zero block), q = clamp(round(w / scale), -8, 7) as for qc4w; scales
/// [rows, cols / block] in bfloat16. `block` divides cols. Returns the worst |w - q * scale|.
float QuantizeQb4w(const float* w, size_t rows, size_t cols, size_t block, uint8_t* q, uint16_t* scales);

/// Writes f32 matrix w [rows, cols] in weight format `t` (format::FormatOf(t) gives the sizes): `data`
/// receives DataBytes(rows, cols) bytes and `scales` ScaleBytes(rows, cols, block) bytes (nullptr for
/// formats without scales); `block` is qb4w's block size. Returns the worst |w - stored value|. One
/// function per DType, in a table.
float EncodeWeights(DType t, const float* w, size_t rows, size_t cols, size_t block, uint8_t* data, void* scales);

}  // namespace tern::convert
