#include "positions.h"

#include <cmath>
#include <vector>

namespace tern::format {

void SinusoidDenominators(size_t dim, double* denom) {
  for (size_t i = 0; i < dim / 2; ++i)
    denom[i] = std::pow(10000.0, 2.0 * static_cast<double>(i) / static_cast<double>(dim));
}

void FillSinusoidRows(PositionEncoding layout, size_t dim, const double* denom, size_t begin, size_t end, float* out) {
  const size_t half = dim / 2;
  for (size_t p = begin; p < end; ++p) {
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

void FillSinusoid(PositionEncoding layout, size_t n_positions, size_t dim, float* out) {
  std::vector<double> denom(dim / 2);  // 10000^(2i/dim), the same value for every position
  SinusoidDenominators(dim, denom.data());
  FillSinusoidRows(layout, dim, denom.data(), 0, n_positions, out);
}

}  // namespace tern::format
