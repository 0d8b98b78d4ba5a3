// The f32 row operations around the GEMMs (kernels/row_ops.h): every ISA level's table gives the portable
// table's floats bit for bit (attention with every key count and head_dim remainder, gathered keys, rows
// with -inf, NaN and masked entries, the epilogue with its row max), and the portable attention equals a
// float64 reference closely.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include <doctest/doctest.h>

#include "kernels/kernels.h"
#include "kernels/row_ops.h"

using namespace tern;

namespace {

bool Same(const std::vector<float>& a, const std::vector<float>& b) {
  // (memcmp of two empty vectors' data() would pass null pointers: undefined, and UBSan says so)
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
}

}  // namespace

TEST_CASE("row operations: every ISA level equals the portable one bit for bit") {
  Isa levels[8];
  const size_t n_levels = AvailableIsas(levels, 8);
  const RowOps& ref = RowOpsFor(Isa::kPortable);
  std::mt19937 rng(11);
  std::normal_distribution<float> nd(0.f, 1.f);
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  size_t compared = 0;
  for (size_t l = 0; l < n_levels; ++l) {
    const RowOps& ops = RowOpsFor(levels[l]);
    CAPTURE(ops.isa);
    // Attention: keys in rows (stride) and gathered through offsets, every n and head_dim remainder.
    for (size_t head_dim : {1u, 3u, 4u, 8u, 13u, 16u, 24u, 40u, 56u, 64u, 72u, 120u, 128u})
      for (size_t n : {1u, 2u, 3u, 4u, 5u, 7u, 8u, 9u, 33u, 64u}) {
        CAPTURE(head_dim);
        CAPTURE(n);
        const size_t stride = head_dim + 5, slots = n + 3;
        std::vector<float> q(head_dim), keys(slots * stride), values(slots * stride);
        for (float& v : q) v = nd(rng);
        for (float& v : keys) v = nd(rng) * 2.f;
        for (float& v : values) v = nd(rng);
        std::vector<uint32_t> offsets(n);
        for (size_t j = 0; j < n; ++j) offsets[j] = static_cast<uint32_t>(((j * 7 + 3) % slots) * stride + j % 3);
        std::vector<float> s0(n), s1(n), o0(head_dim), o1(head_dim);
        ref.attend_row(q.data(), keys.data(), values.data(), stride, n, head_dim, 0.125f, s0.data(), o0.data());
        ops.attend_row(q.data(), keys.data(), values.data(), stride, n, head_dim, 0.125f, s1.data(), o1.data());
        CHECK((Same(s0, s1) && Same(o0, o1)));
        ref.attend_gathered(q.data(), keys.data(), values.data(), offsets.data(), n, head_dim, 0.125f, s0.data(), o0.data());
        ops.attend_gathered(q.data(), keys.data(), values.data(), offsets.data(), n, head_dim, 0.125f, s1.data(), o1.data());
        CHECK((Same(s0, s1) && Same(o0, o1)));
        ++compared;
      }
    // Logits rows: max, mask, beam scores, with -inf, NaN and every length remainder.
    for (size_t n : {0u, 1u, 7u, 8u, 9u, 31u, 1000u, 54688u}) {
      CAPTURE(n);
      std::vector<float> row(n);
      std::vector<uint8_t> masked(n);
      for (size_t v = 0; v < n; ++v) {
        row[v] = nd(rng) * 10.f;
        masked[v] = (v % 11) == 3;
        if (v % 97 == 5) row[v] = -inf;
        if (v % 131 == 7) row[v] = nan;
      }
      const float m0 = ref.max_of(row.data(), n), m1 = ops.max_of(row.data(), n);
      CHECK(std::memcmp(&m0, &m1, sizeof m0) == 0);
      std::vector<float> a = row, b = row;
      ref.mask_row(a.data(), masked.data(), n);
      ops.mask_row(b.data(), masked.data(), n);
      CHECK(Same(a, b));
      a = row, b = row;
      ref.score_row(a.data(), masked.data(), 3.25f, -1.5f, n);
      ops.score_row(b.data(), masked.data(), 3.25f, -1.5f, n);
      CHECK(Same(a, b));
      // A linear layer's epilogue with the row's max in the same pass (the logits): the floats of y * scale +
      // bias, and max_of of them, at every level.
      std::vector<float> scale(n), bias(n);
      for (size_t v = 0; v < n; ++v) scale[v] = nd(rng), bias[v] = v % 131 == 8 ? nan : nd(rng);
      a = row, b = row;
      const float sm0 = ref.scale_bias_max(a.data(), n, scale.data(), bias.data());
      const float sm1 = ops.scale_bias_max(b.data(), n, scale.data(), bias.data());
      CHECK(Same(a, b));
      for (size_t v = 0; v < n; ++v)
        if (!std::isnan(a[v])) CHECK(a[v] == row[v] * scale[v] + bias[v]);
      const float want_max = ref.max_of(a.data(), n);
      CHECK(std::memcmp(&sm0, &want_max, 4) == 0);
      CHECK(std::memcmp(&sm1, &want_max, 4) == 0);
      if (n == 0) continue;
      // qd8 rows: min/max (also from a NaN first element) and the conversion, zero points at both ends.
      for (bool nan_first : {false, true}) {
        a = row;
        if (nan_first) a[0] = nan;
        float lo0, hi0, lo1, hi1;
        ref.min_max(a.data(), n, &lo0, &hi0);
        ops.min_max(a.data(), n, &lo1, &hi1);
        CHECK(std::memcmp(&lo0, &lo1, 4) == 0);
        CHECK(std::memcmp(&hi0, &hi1, 4) == 0);
      }
      for (int32_t zp : {-128, -3, 0, 77, 127}) {
        std::vector<int8_t> q0(n), q1(n);
        ref.quantize_row(row.data(), n, 7.5f, zp, q0.data());
        ops.quantize_row(row.data(), n, 7.5f, zp, q1.data());
        CHECK(q0 == q1);
      }
    }
    // int8 row sums (at load): every length remainder, the extremes, one -128 anywhere.
    for (size_t n : {1u, 15u, 16u, 31u, 32u, 33u, 64u, 511u, 512u, 2048u}) {
      CAPTURE(n);
      std::vector<int8_t> w(n);
      for (auto& v : w) v = static_cast<int8_t>(std::uniform_int_distribution<int>(-127, 127)(rng));
      int32_t want = 0;
      for (int8_t v : w) want += v;
      int32_t s0 = 0, s1 = 0;
      CHECK(ref.int8_row_sum(w.data(), n, &s0));
      CHECK(ops.int8_row_sum(w.data(), n, &s1));
      CHECK(s0 == want);
      CHECK(s1 == want);
      std::fill(w.begin(), w.end(), int8_t{127});
      CHECK(ops.int8_row_sum(w.data(), n, &s1));
      CHECK(s1 == 127 * static_cast<int32_t>(n));
      w[n / 2] = -128;
      CHECK_FALSE(ops.int8_row_sum(w.data(), n, &s1));
      CHECK_FALSE(ref.int8_row_sum(w.data(), n, &s0));
    }
    // LayerNorm: every d remainder (8 lanes), rows of one scale and of mixed ones, in place and not.
    for (size_t d : {1u, 7u, 8u, 9u, 64u, 255u, 256u, 512u, 1024u}) {
      CAPTURE(d);
      const size_t rows = 3;
      std::vector<float> x(rows * d), gamma(d), beta(d);
      for (size_t j = 0; j < x.size(); ++j) x[j] = nd(rng) * (j % 5 == 0 ? 40.f : 1.f) + 3.f;
      for (size_t j = 0; j < d; ++j) gamma[j] = nd(rng), beta[j] = nd(rng);
      std::vector<float> y0(x.size()), y1(x.size()), y2 = x;
      ref.layer_norm(x.data(), gamma.data(), beta.data(), 1e-5f, rows, d, y0.data());
      ops.layer_norm(x.data(), gamma.data(), beta.data(), 1e-5f, rows, d, y1.data());
      ops.layer_norm(y2.data(), gamma.data(), beta.data(), 1e-5f, rows, d, y2.data());
      CHECK(Same(y0, y1));
      CHECK(Same(y0, y2));
    }
  }
  CHECK(compared >= 70);
}

TEST_CASE("LayerNorm: float64 statistics in 8 lanes equal a sequential float64 reference within 1e-6 relative") {
  // The statistics' order changed from one sequential float64 sum to 8 lanes (row_ops_body.h); both are
  // float64, so the floats that come out agree to within rounding of the final float conversions.
  std::mt19937 rng(5);
  std::normal_distribution<float> nd(0.f, 1.f);
  for (size_t d : {256u, 512u, 1024u}) {
    std::vector<float> x(d), gamma(d), beta(d), y(d);
    for (size_t j = 0; j < d; ++j) x[j] = nd(rng) * 3.f + 0.5f, gamma[j] = nd(rng), beta[j] = nd(rng);
    LayerNorm(x.data(), gamma.data(), beta.data(), 1e-5f, 1, d, y.data());
    double mean = 0, var = 0;
    for (float v : x) mean += v;
    mean /= static_cast<double>(d);
    for (float v : x) var += (v - mean) * (v - mean);
    var /= static_cast<double>(d);
    const float inv = static_cast<float>(1.0 / std::sqrt(var + 1e-5)), m = static_cast<float>(mean);
    for (size_t j = 0; j < d; ++j) CHECK(y[j] == doctest::Approx((x[j] - m) * inv * gamma[j] + beta[j]).epsilon(1e-6));
  }
}

TEST_CASE("row operations: the max skips NaN, and attention equals a float64 reference within 1e-5") {
  const RowOps& ops = RowOpsFor(Isa::kPortable);
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  const float row[] = {nan, -3.f, 2.5f, nan, 1.f, -inf, 2.f, 0.f, 2.5f, nan};
  CHECK(ops.max_of(row, 10) == 2.5f);
  CHECK(ops.max_of(row, 0) == -inf);
  std::mt19937 rng(5);
  std::normal_distribution<float> nd(0.f, 1.f);
  const size_t dh = 64, n = 37;
  std::vector<float> q(dh), k(n * dh), v(n * dh), scores(n), out(dh);
  for (float& x : q) x = nd(rng);
  for (float& x : k) x = nd(rng);
  for (float& x : v) x = nd(rng);
  ops.attend_row(q.data(), k.data(), v.data(), dh, n, dh, 0.125f, scores.data(), out.data());
  std::vector<double> p(n);
  double mx = -1e300, sum = 0;
  for (size_t j = 0; j < n; ++j) {
    double s = 0;
    for (size_t i = 0; i < dh; ++i) s += double(q[i]) * k[j * dh + i];
    p[j] = 0.125 * s;
    mx = std::max(mx, p[j]);
  }
  for (double& x : p) sum += (x = std::exp(x - mx));
  for (size_t i = 0; i < dh; ++i) {
    double o = 0;
    for (size_t j = 0; j < n; ++j) o += p[j] / sum * v[j * dh + i];
    CHECK(std::fabs(out[i] - o) <= 1e-5);
  }
}
