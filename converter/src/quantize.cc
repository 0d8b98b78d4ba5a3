#include "quantize.h"

#include <algorithm>
#include <cmath>

#include <cstdlib>
#include <cstring>

#include "format.h"
#include "half.h"
#include "weight_formats.h"

namespace tern::convert {

using format::FloatToHalf;
using format::HalfToFloat;

namespace {

// Issue 59's experiment: TERN_EXPERIMENT_WEIGHT_BITS=7 quantizes int8 weights to [-63, 63] (7-bit weights,
// the alternative to a 7-bit activation grid: u8 x s7 products also fit vpmaddubsw's int16), read once; any
// other value, or none, is today's [-127, 127]. For bench/act_grid_quality.py, not a converter option.
float WeightQmax() {
  static const float qmax = [] {
    const char* v = std::getenv("TERN_EXPERIMENT_WEIGHT_BITS");
    return v && std::strcmp(v, "7") == 0 ? 63.f : 127.f;
  }();
  return qmax;
}

}  // namespace

float QuantizePerRow(const float* w, size_t rows, size_t cols, int8_t* q, float* scales) {
  const float qmax = WeightQmax();
  float worst = 0.f;
  for (size_t r = 0; r < rows; ++r) {
    const float* row = w + r * cols;
    float amax = 0.f;
    for (size_t c = 0; c < cols; ++c) amax = std::max(amax, std::fabs(row[c]));
    const float scale = amax > 0.f ? amax / qmax : 1.f;
    scales[r] = scale;
    for (size_t c = 0; c < cols; ++c) {
      const float v = std::nearbyint(row[c] / scale);
      const int8_t qi = static_cast<int8_t>(std::clamp(v, -qmax, qmax));
      q[r * cols + c] = qi;
      worst = std::max(worst, std::fabs(row[c] - qi * scale));
    }
  }
  return worst;
}

float ToHalf(const float* w, size_t n, uint16_t* out) {
  float worst = 0.f;
  for (size_t i = 0; i < n; ++i) {
    out[i] = FloatToHalf(w[i]);
    worst = std::max(worst, std::fabs(w[i] - HalfToFloat(out[i])));
  }
  return worst;
}

namespace {

// Nibble i of a row: the low half of byte i / 2 for even i, the high half for odd i.
inline void PutNibble(uint8_t* row, size_t i, int q) {
  const uint8_t v = static_cast<uint8_t>(q + 8);
  row[i / 2] = static_cast<uint8_t>(i & 1 ? (row[i / 2] & 0x0f) | (v << 4) : (row[i / 2] & 0xf0) | v);
}

inline int Round4(float x) { return static_cast<int>(std::clamp(std::nearbyint(x), -8.f, 7.f)); }

}  // namespace

float QuantizeQc4w(const float* w, size_t rows, size_t cols, uint8_t* q, float* scales) {
  const size_t stride = (cols + 1) / 2;
  float worst = 0.f;
  for (size_t r = 0; r < rows; ++r) {
    const float* row = w + r * cols;
    uint8_t* out = q + r * stride;
    std::memset(out, 0x88, stride);
    float amax = 0.f;
    for (size_t c = 0; c < cols; ++c) amax = std::max(amax, std::fabs(row[c]));
    const float scale = amax > 0.f ? amax / 7.f : 1.f;
    scales[r] = scale;
    for (size_t c = 0; c < cols; ++c) {
      const int v = Round4(row[c] / scale);
      PutNibble(out, c, v);
      worst = std::max(worst, std::fabs(row[c] - v * scale));
    }
  }
  return worst;
}

float QuantizeQb4w(const float* w, size_t rows, size_t cols, size_t block, uint8_t* q, uint16_t* scales) {
  const size_t stride = (cols + 1) / 2, nb = cols / block;
  float worst = 0.f;
  for (size_t r = 0; r < rows; ++r) {
    const float* row = w + r * cols;
    uint8_t* out = q + r * stride;
    std::memset(out, 0x88, stride);
    for (size_t b = 0; b < nb; ++b) {
      float amax = 0.f;
      for (size_t c = b * block; c < (b + 1) * block; ++c) amax = std::max(amax, std::fabs(row[c]));
      uint16_t s16 = format::FloatToBf16(amax > 0.f ? amax / 7.f : 1.f);
      if (!(format::Bf16ToFloat(s16) > 0.f) || !std::isnormal(format::Bf16ToFloat(s16))) s16 = format::FloatToBf16(1.f);
      scales[r * nb + b] = s16;
      const float scale = format::Bf16ToFloat(s16);
      for (size_t c = b * block; c < (b + 1) * block; ++c) {
        const int v = Round4(row[c] / scale);
        PutNibble(out, c, v);
        worst = std::max(worst, std::fabs(row[c] - v * scale));
      }
    }
  }
  return worst;
}

namespace {

using Encoder = float (*)(const float* w, size_t rows, size_t cols, size_t block, uint8_t* data, void* scales);

float EncodeF32(const float* w, size_t rows, size_t cols, size_t, uint8_t* data, void*) {
  std::memcpy(data, w, rows * cols * sizeof(float));
  return 0.f;
}
float EncodeF16(const float* w, size_t rows, size_t cols, size_t, uint8_t* data, void*) {
  return ToHalf(w, rows * cols, reinterpret_cast<uint16_t*>(data));
}
float EncodeQc8w(const float* w, size_t rows, size_t cols, size_t, uint8_t* data, void* scales) {
  return QuantizePerRow(w, rows, cols, reinterpret_cast<int8_t*>(data), static_cast<float*>(scales));
}
float EncodeQc4w(const float* w, size_t rows, size_t cols, size_t, uint8_t* data, void* scales) {
  return QuantizeQc4w(w, rows, cols, data, static_cast<float*>(scales));
}
float EncodeQb4w(const float* w, size_t rows, size_t cols, size_t block, uint8_t* data, void* scales) {
  return QuantizeQb4w(w, rows, cols, block, data, static_cast<uint16_t*>(scales));
}

// Indexed by DType.
constexpr Encoder kEncoders[] = {EncodeF32, EncodeF16, EncodeQc8w, EncodeQc4w, EncodeQb4w};
static_assert(sizeof(kEncoders) / sizeof(kEncoders[0]) == format::EnumCount<fb::DType>(), "one encoder per schema DType");

}  // namespace

float EncodeWeights(DType t, const float* w, size_t rows, size_t cols, size_t block, uint8_t* data, void* scales) {
  return kEncoders[static_cast<size_t>(t)](w, rows, cols, block, data, scales);
}

}  // namespace tern::convert
