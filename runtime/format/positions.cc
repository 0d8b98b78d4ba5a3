#include "positions.h"

#include <cmath>
#include <vector>

namespace tern::format {

void FillSinusoid(PositionEncoding layout, size_t n_positions, size_t dim, float* out) {
  const size_t half = dim / 2;
  std::vector<double> denom(half);  // 10000^(2i/dim), the same value for every position
  for (size_t i = 0; i < half; ++i) denom[i] = std::pow(10000.0, 2.0 * static_cast<double>(i) / static_cast<double>(dim));
  for (size_t p = 0; p < n_positions; ++p) {
    float* row = out + p * dim;
    if (dim % 2) row[dim - 1] = 0.f;  // odd dim: the last column stays zero, as in transformers
    for (size_t i = 0; i < half; ++i) {
      const double angle = static_cast<double>(p) / denom[i];
      const float s = static_cast<float>(std::sin(angle)), c = static_cast<float>(std::cos(angle));
      if (layout == PositionEncoding::kSinusoidalInterleaved) {
        row[2 * i] = s;
        row[2 * i + 1] = c;
      } else {
        row[i] = s;
        row[half + i] = c;
      }
    }
  }
}

}  // namespace tern::format
