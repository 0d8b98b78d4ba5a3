#include "quantize.h"

#include <algorithm>
#include <cmath>

#include <cstring>

#include "format.h"
#include "half.h"

namespace tern::convert {

using format::FloatToHalf;
using format::HalfToFloat;

float QuantizePerRow(const float* w, size_t rows, size_t cols, int8_t* q, float* scales) {
  float worst = 0.f;
  for (size_t r = 0; r < rows; ++r) {
    const float* row = w + r * cols;
    float amax = 0.f;
    for (size_t c = 0; c < cols; ++c) amax = std::max(amax, std::fabs(row[c]));
    const float scale = amax > 0.f ? amax / 127.f : 1.f;
    scales[r] = scale;
    for (size_t c = 0; c < cols; ++c) {
      const float v = std::nearbyint(row[c] / scale);
      const int8_t qi = static_cast<int8_t>(std::clamp(v, -127.f, 127.f));
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

using Encoder = float (*)(const float* w, size_t rows, size_t cols, uint8_t* data, float* scales);

float EncodeF32(const float* w, size_t rows, size_t cols, uint8_t* data, float*) {
  std::memcpy(data, w, rows * cols * sizeof(float));
  return 0.f;
}
float EncodeF16(const float* w, size_t rows, size_t cols, uint8_t* data, float*) {
  return ToHalf(w, rows * cols, reinterpret_cast<uint16_t*>(data));
}
float EncodeQc8w(const float* w, size_t rows, size_t cols, uint8_t* data, float* scales) {
  return QuantizePerRow(w, rows, cols, reinterpret_cast<int8_t*>(data), scales);
}

// Indexed by DType.
constexpr Encoder kEncoders[] = {EncodeF32, EncodeF16, EncodeQc8w};
static_assert(sizeof(kEncoders) / sizeof(kEncoders[0]) == format::EnumCount<fb::DType>(), "one encoder per schema DType");

}  // namespace

float EncodeWeights(DType t, const float* w, size_t rows, size_t cols, uint8_t* data, float* scales) {
  return kEncoders[static_cast<size_t>(t)](w, rows, cols, data, scales);
}

}  // namespace tern::convert
