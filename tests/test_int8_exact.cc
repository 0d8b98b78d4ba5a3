// The same int8 output on every CPU (docs/design.md "Identical int8 output on every CPU"): tern's row quantization
// and its epilogue after XNNPACK's integer GEMM give the specified values bit for bit on whatever core runs
// the suite (CI runs these on x86-64 and under qemu as Cortex-A53, A55, A72, A76 and armhf).
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include <doctest/doctest.h>

#include "kernels/gathered_kernels.h"
#include "kernels/kernels.h"
#include "nn/gathered_projection.h"
#include "nn/linear.h"
#include "nn/xnn_ops.h"

using namespace tern;

namespace {

std::vector<float> Activations(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> nd(0.f, 1.f);
  std::vector<float> x(n);
  for (auto& v : x) v = nd(rng) * (rng() % 9 == 0 ? 12.f : 1.f);  // outliers widen the row's range
  return x;
}

// A random int8 linear layer [out, in] (qc8w weights, f32 scales, bias) packed and bound as the runtime does.
struct Int8Layer {
  std::vector<int8_t> w;
  std::vector<float> scales, bias;
  TensorView wv, bv;
  Result<PackedLinear> packed = Status(StatusCode::kInternal, "not packed");

  Int8Layer(size_t out, size_t in, std::mt19937& rng) : w(out * in), scales(out), bias(out) {
    for (auto& v : w) v = static_cast<int8_t>(std::uniform_int_distribution<int>(-127, 127)(rng));
    for (auto& v : scales) v = std::uniform_real_distribution<float>(0.001f, 0.03f)(rng);
    for (auto& v : bias) v = std::normal_distribution<float>(0.f, 1.f)(rng);
    wv.name = "w", wv.dtype = DType::kInt8, wv.rank = 2, wv.data = w.data(), wv.bytes = w.size(), wv.scales = scales.data();
    wv.shape[0] = static_cast<uint32_t>(out), wv.shape[1] = static_cast<uint32_t>(in);
    bv.name = "b", bv.rank = 1, bv.data = bias.data(), bv.bytes = out * 4, bv.shape[0] = static_cast<uint32_t>(out);
    const TensorView* wp = &wv;
    const TensorView* bp = &bv;
    packed = PackLinear(&wp, &bp, 1);
  }
};

}  // namespace

TEST_CASE("int8 identical on every CPU: row quantization follows its specification and pads the params") {
  const size_t rows = 37, cols = 200;
  const std::vector<float> x = Activations(rows * cols, 7);
  std::vector<int8_t> q(QuantInputBytes(rows, cols));
  std::vector<xnn_quantization_params> qp(QuantParamsCount(rows), xnn_quantization_params{99, 99.f});
  auto quantizer = RowQuantizer::Create();
  REQUIRE(quantizer.ok());
  REQUIRE(quantizer.value().Run(x.data(), rows, cols, QuantScratch{q.data(), qp.data()}, nullptr).ok());
  for (size_t r = 0; r < rows; ++r) {
    const float* row = x.data() + r * cols;
    float mn = row[0], mx = row[0];
    for (size_t j = 0; j < cols; ++j) mn = std::min(mn, row[j]), mx = std::max(mx, row[j]);
    const QuantParams p = QuantizationParamsOf(mn, mx);
    CHECK(qp[r].zero_point == p.zero_point);
    CHECK(qp[r].scale == p.scale);
    CHECK(p.zero_point >= -128);
    CHECK(p.zero_point <= 127);
    for (size_t j = 0; j < cols; ++j) {
      // std::nearbyint rounds half to even in the default mode: an independent route to the same value.
      const double v = std::nearbyint(static_cast<double>(row[j] * p.inv_scale));
      const long want = std::lround(std::min(127.0, std::max(-128.0, v + p.zero_point)));
      REQUIRE_MESSAGE(q[r * cols + j] == want, "row " << r << " col " << j << " x " << row[j]);
    }
  }
  // Rows past the last one read by a GEMM tile: the last row's params (XNNPACK's convert pads them so).
  for (size_t i = rows; i < QuantParamsCount(rows); ++i) {
    CHECK(qp[i].zero_point == qp[rows - 1].zero_point);
    CHECK(qp[i].scale == qp[rows - 1].scale);
  }
  // Degenerate rows: all zero, NaN, infinities: finite params, no undefined conversion.
  const float bad[4] = {0.f, NAN, INFINITY, -INFINITY};
  for (float b : bad) {
    std::vector<float> r(cols, b);
    xnn_quantization_params p{};
    QuantizeRowQd8(r.data(), cols, q.data(), &p);
    CHECK(std::isfinite(p.scale));
  }
}

TEST_CASE("int8 identical on every CPU: an int8 linear layer is (float(acc) * x_scale) * w_scale + bias bit for bit") {
  REQUIRE(InitXnnpack().ok());
  std::mt19937 rng(11);
  for (size_t out : {1u, 7u, 64u, 333u})
    for (size_t in : {16u, 96u, 256u}) {
      Int8Layer layer(out, in, rng);
      REQUIRE(layer.packed.ok());
      const auto& w = layer.w;
      const auto& scales = layer.scales;
      const auto& bias = layer.bias;
      auto linear = Linear::Bind(layer.packed.value());
      REQUIRE(linear.ok());
      auto quantizer = RowQuantizer::Create();
      for (size_t rows = 1; rows <= 9; ++rows) {  // every remainder of the GEMM kernels' row tiles
        const std::vector<float> x = Activations(rows * in, static_cast<uint32_t>(rows * 1000 + in));
        std::vector<int8_t> q(QuantInputBytes(rows, in));
        // Stale params from an earlier, wider call: a tile must not read them.
        std::vector<xnn_quantization_params> qp(QuantParamsCount(16), xnn_quantization_params{-77, 3.5f});
        const QuantScratch scratch{q.data(), qp.data()};
        REQUIRE(quantizer.value().Run(x.data(), rows, in, scratch, nullptr).ok());
        std::vector<float> y(rows * out);
        REQUIRE(linear.value().Run(x.data(), scratch, rows, y.data(), nullptr).ok());
        // With a row_max buffer: the same floats, and each row's MaxOf where the epilogue gives it (else the
        // buffer is left as it was).
        std::vector<float> y2(rows * out), row_max(rows, 12345.f);
        REQUIRE(linear.value().Run(x.data(), scratch, rows, y2.data(), nullptr, row_max.data()).ok());
        CHECK(std::memcmp(y.data(), y2.data(), y.size() * sizeof(float)) == 0);
        for (size_t r = 0; r < rows; ++r) {
          const float want_max = linear.value().fuses_row_max() ? MaxOf(y.data() + r * out, out) : 12345.f;
          CHECK(std::memcmp(&row_max[r], &want_max, sizeof want_max) == 0);
        }
        for (size_t r = 0; r < rows; ++r)
          for (size_t n = 0; n < out; ++n) {
            int32_t acc = 0;
            for (size_t j = 0; j < in; ++j) acc += (int32_t{q[r * in + j]} - qp[r].zero_point) * int32_t{w[n * in + j]};
            const float want = (static_cast<float>(acc) * qp[r].scale) * scales[n] + bias[n];
            REQUIRE_MESSAGE(std::memcmp(&y[r * out + n], &want, sizeof want) == 0,
                            "out " << out << " in " << in << " rows " << rows << " [" << r << ", " << n << "]: " << y[r * out + n]
                                   << " != " << want);
          }
      }
    }
}

TEST_CASE("int8 identical on every CPU: logits with a shortlist equal the full projection's bit for bit") {
  REQUIRE(InitXnnpack().ok());
  const size_t V = 500, d = 64, rows = 5;
  std::mt19937 rng(3);
  Int8Layer layer(V, d, rng);
  REQUIRE(layer.packed.ok());
  auto linear = Linear::Bind(layer.packed.value());
  REQUIRE(linear.ok());
  const std::vector<float> x = Activations(rows * d, 5);
  std::vector<int8_t> q(QuantInputBytes(rows, d));
  std::vector<xnn_quantization_params> qp(QuantParamsCount(rows));
  const QuantScratch scratch{q.data(), qp.data()};
  REQUIRE(RowQuantizer::Create().value().Run(x.data(), rows, d, scratch, nullptr).ok());
  std::vector<float> full(rows * V);
  REQUIRE(linear.value().Run(x.data(), scratch, rows, full.data(), nullptr).ok());
  auto g = GatheredProjection::Prepare(layer.wv, &layer.bv);
  REQUIRE(g.ok());
  std::vector<uint32_t> tokens;
  for (uint32_t t = 0; t < V; t += 3) tokens.push_back(t);
  std::vector<float> got(rows * tokens.size());
  g.value().Run(GatheredInt8Active(), scratch, rows, tokens.data(), tokens.size(), got.data(), nullptr);
  for (size_t r = 0; r < rows; ++r)
    for (size_t k = 0; k < tokens.size(); ++k)
      REQUIRE_MESSAGE(std::memcmp(&got[r * tokens.size() + k], &full[r * V + tokens[k]], sizeof(float)) == 0,
                      "row " << r << " token " << tokens[k]);
}

TEST_CASE("experiment: activation rows on the grid TERN_EXPERIMENT_ACT_BITS names, [-64, 63] for 7, else [-128, 127]") {
  // CTest runs this once more with the variable set to 7 (tests/CMakeLists.txt). Each row reaches an end of its
  // grid (the end of its range maps there, within a level), so the wrong grid fails either way.
  const char* bits = std::getenv("TERN_EXPERIMENT_ACT_BITS");
  const bool seven = bits && std::strcmp(bits, "7") == 0;
  const int qmin = seven ? -64 : -128, qmax = seven ? 63 : 127;
  std::mt19937 rng(59);
  std::normal_distribution<float> dist(0.f, 3.f);
  for (size_t cols : {5u, 64u, 1000u})
    for (float shift : {0.f, 4.f, -9.f}) {
      std::vector<float> row(cols);
      for (float& x : row) x = dist(rng) + shift;
      std::vector<int8_t> q(cols);
      xnn_quantization_params p{};
      QuantizeRowQd8(row.data(), cols, q.data(), &p);
      CAPTURE(cols);
      CAPTURE(shift);
      CHECK(p.zero_point >= qmin);
      CHECK(p.zero_point <= qmax);
      REQUIRE(std::isfinite(p.scale));
      int lo = 127, hi = -128;
      for (size_t j = 0; j < cols; ++j) {
        lo = std::min<int>(lo, q[j]), hi = std::max<int>(hi, q[j]);
        // Every value lies in the grid's range (0 included), so it is within half a step of its level.
        CHECK(std::fabs(row[j] - (q[j] - p.zero_point) * p.scale) <= 0.5f * p.scale * 1.0001f + 1e-6f);
      }
      CHECK(lo >= qmin);
      CHECK(hi <= qmax);
      CHECK((lo <= qmin + 1 || hi >= qmax - 1));  // within one level: the zero point is rounded
    }
}
