#include "quantize.h"

#include <algorithm>
#include <cmath>

#include "half.h"

namespace tern::convert {

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

}  // namespace tern::convert
