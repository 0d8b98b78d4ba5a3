// Weight formats as one table: what each DType means in storage. The runtime's kernel table
// (runtime/src/linear_kernels.cc) is the other half: which XNNPACK operator runs each format. Adding a
// format (qc4w, qb4w) is one schema enum value, one entry here and one there; both tables are indexed by
// the enum and sized by a static_assert, so a missing entry does not compile, and nothing falls through
// a `default:` to the wrong kernel.
#pragma once

#include <cstddef>
#include <cstdint>

#include "tern/model.h"

namespace tern::format {

/// How a quantized format stores its scales next to the data (each scale an f32).
enum class ScaleLayout : uint8_t {
  kNone,    // float formats
  kPerRow,  // one scale per row (output channel): scales [rows]
};

struct WeightFormat {
  DType dtype;
  const char* name;          // "f32", "f16", "int8" (tern-convert --weights, tern inspect, provenance)
  const char* description;   // how values are stored and what the runtime does with them (provenance)
  uint32_t bits;             // storage bits per element
  ScaleLayout scales;

  /// Bytes of the element data of a [rows, cols] tensor, in 64-bit arithmetic (callers range-check first).
  uint64_t DataBytes(uint64_t rows, uint64_t cols) const { return (rows * cols * bits + 7) / 8; }
  /// Bytes of the scales of a [rows, cols] tensor (0 without scales).
  uint64_t ScaleBytes(uint64_t rows, uint64_t cols) const { return scales == ScaleLayout::kPerRow ? rows * 4 : 0; }

  /// out[i] = w[row, i] * scale + add[i] for i < cols, with w dequantized from this format (embedding lookup).
  void (*dequantize_row)(const TensorView& t, size_t row, float scale, const float* add, float* out);
};

/// The entry for `t`. Every DType has one. `t` must be a value of the enum (the loader range-checks every
/// dtype read from a file first); an out-of-range value returns the f32 entry instead of reading past the table.
const WeightFormat& FormatOf(DType t);

/// The format called `name` ("f32", "f16", "int8"), or nullptr.
const WeightFormat* FormatNamed(const char* name);

}  // namespace tern::format
