#include "search/sampling.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace tern {

double DeterministicExp(double x) {
  if (!(x > -745.0)) return 0.0;  // also NaN and -inf
  if (x > 709.0) return std::numeric_limits<double>::infinity();
  constexpr double kLog2e = 1.4426950408889634, kLn2Hi = 0.6931471803691238, kLn2Lo = 1.9082149292705877e-10;
  const double k = std::floor(x * kLog2e + 0.5);
  const double r = (x - k * kLn2Hi) - k * kLn2Lo;  // |r| <= 0.35
  double p = 1.0;
  for (int i = 12; i >= 1; --i) p = 1.0 + p * r / i;  // Horner on the Taylor series
  return std::ldexp(p, static_cast<int>(k));
}

namespace {
uint64_t SplitMix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// max over the finite entries (-inf when none).
float FiniteMax(const float* row, size_t n) {
  float m = -INFINITY;
  for (size_t i = 0; i < n; ++i)
    if (row[i] > m) m = row[i];
  return m;
}
}  // namespace

double CounterUniform(uint64_t seed, uint64_t sentence, uint64_t pos) {
  const uint64_t h = SplitMix64(SplitMix64(SplitMix64(seed) ^ sentence) ^ (pos * 0xD1B54A32D192ED03ull));
  return static_cast<double>(h >> 11) * 0x1.0p-53;
}

void WarpRow(const SamplingOptions& o, float* row, size_t n, uint32_t* order) {
  if (o.temperature != 1.f)
    for (size_t i = 0; i < n; ++i) row[i] = row[i] / o.temperature;
  const size_t keep_min = std::max<size_t>(1, o.min_tokens_to_keep);
  // Descending by score, ties by column: both warpers read ranks from it.
  auto before = [row](uint32_t a, uint32_t b) { return row[a] > row[b] || (row[a] == row[b] && a < b); };
  size_t live = 0;
  for (size_t i = 0; i < n; ++i)
    if (row[i] != -INFINITY) order[live++] = static_cast<uint32_t>(i);
  if (o.top_k > 0) {
    const size_t k = std::max<size_t>(o.top_k, keep_min);
    if (k < live) {
      std::nth_element(order, order + (k - 1), order + live, before);
      const float kth = row[order[k - 1]];
      size_t kept = 0;
      for (size_t i = 0; i < n; ++i) {
        if (row[i] < kth) row[i] = -INFINITY;
        else if (row[i] != -INFINITY) order[kept++] = static_cast<uint32_t>(i);
      }
      live = kept;
    }
  }
  if (o.top_p < 1.f && live > 0) {
    std::sort(order, order + live, before);
    const double m = row[order[0]];
    double total = 0;
    for (size_t j = 0; j < live; ++j) total += DeterministicExp(row[order[j]] - m);
    // Keep a token while the probability of those ranked above it is below top_p (transformers removes
    // the ascending prefix whose cumulative probability is <= 1 - top_p), and the first min_tokens_to_keep.
    double above = 0;
    for (size_t j = 0; j < live; ++j) {
      const double p = DeterministicExp(row[order[j]] - m) / total;
      if (j >= keep_min && above >= o.top_p) row[order[j]] = -INFINITY;
      above += p;
    }
  }
}

size_t DrawColumn(const float* row, size_t n, double u) {
  const float m = FiniteMax(row, n);
  if (m == -INFINITY) return 0;
  double total = 0;
  for (size_t i = 0; i < n; ++i) total += DeterministicExp(static_cast<double>(row[i]) - m);
  const double target = u * total;
  double cum = 0;
  size_t last = 0;
  for (size_t i = 0; i < n; ++i) {
    if (row[i] == -INFINITY) continue;
    cum += DeterministicExp(static_cast<double>(row[i]) - m);
    last = i;
    if (cum > target) return i;
  }
  return last;  // rounding left u * total at the very end
}

}  // namespace tern
