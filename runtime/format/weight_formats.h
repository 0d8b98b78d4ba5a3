// Weight formats as one table: what each DType means in storage. The runtime's kernel table
// (runtime/src/nn/linear_kernels.cc) is the other half: which XNNPACK operator runs each format. Adding a
// format (qc4w, qb4w) is one schema enum value, one entry here and one there; both tables are indexed by
// the enum and sized by a static_assert, so a missing entry does not compile, and nothing falls through
// a `default:` to the wrong kernel.
#pragma once

#include <cstddef>
#include <cstdint>

#include "tern/model.h"
#include "views.h"

namespace tern::format {

/// bfloat16 (the high 16 bits of an IEEE float) to float, and float to bfloat16 rounded to nearest even.
inline float Bf16ToFloat(uint16_t h) {
  const uint32_t bits = uint32_t{h} << 16;
  float f;
  __builtin_memcpy(&f, &bits, 4);
  return f;
}
inline uint16_t FloatToBf16(float f) {
  uint32_t bits;
  __builtin_memcpy(&bits, &f, 4);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((bits >> 16) | 0x40);  // NaN stays NaN
  bits += 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>(bits >> 16);
}

/// How a quantized format stores its scales next to the data (each scale an f32).
enum class ScaleLayout : uint8_t {
  kNone,         // float formats
  kPerRow,       // one f32 scale per row (output channel): scales [rows]
  kPerBlockBf16, // one bfloat16 scale per block of block_size columns: scales [rows, cols / block_size]
};

struct WeightFormat {
  DType dtype;
  const char* name;          // "f32", "f16", "int8" (tern-convert --weights, tern inspect, provenance)
  const char* description;   // how values are stored and what the runtime does with them (provenance)
  uint32_t bits;             // storage bits per element
  ScaleLayout scales;

  /// Bytes of one row of `cols` elements: sub-byte formats start each row on a byte.
  uint64_t RowBytes(uint64_t cols) const { return (cols * bits + 7) / 8; }
  /// Bytes of the element data of a [rows, cols] tensor, in 64-bit arithmetic (callers range-check first).
  uint64_t DataBytes(uint64_t rows, uint64_t cols) const { return rows * RowBytes(cols); }
  /// Bytes of the scales of a [rows, cols] tensor (0 without scales; block_size only for kPerBlockBf16,
  /// where it must divide cols).
  uint64_t ScaleBytes(uint64_t rows, uint64_t cols, uint64_t block_size = 0) const {
    switch (scales) {
      case ScaleLayout::kNone: return 0;
      case ScaleLayout::kPerRow: return rows * 4;
      case ScaleLayout::kPerBlockBf16: return block_size ? rows * (cols / block_size) * 2 : 0;
    }
    return 0;
  }

  /// out[i] = w[row, i] * scale + add[i] for i < cols, with w dequantized from this format (embedding lookup).
  void (*dequantize_row)(const TensorView& t, size_t row, float scale, const float* add, float* out);
};

/// The entry for `t`. Every DType has one. `t` must be a value of the enum (the loader range-checks every
/// dtype read from a file first); an out-of-range value returns the f32 entry instead of reading past the table.
const WeightFormat& FormatOf(DType t);

/// The format called `name` ("f32", "f16", "int8", "qc4w", "qb4w"), or nullptr.
const WeightFormat* FormatNamed(const char* name);

}  // namespace tern::format
