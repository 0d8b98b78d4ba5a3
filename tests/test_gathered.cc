// The output layer over a shortlist: every ISA kernel this CPU runs against the portable one (bit for bit),
// the threaded driver against one thread, and the portable kernel against XNNPACK's full projection.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include <doctest/doctest.h>

#include "kernels/gathered_kernels.h"
#include "nn/gathered_projection.h"
#include "nn/linear.h"
#include "nn/xnn_ops.h"

using namespace tern;

namespace {

struct Case {
  size_t V, d, rows;
  std::vector<int8_t> w;
  std::vector<float> scales, bias, x;
  std::vector<int32_t> sums;
  std::vector<int8_t> q;
  std::vector<xnn_quantization_params> qp;
  TensorView view, bias_view;
};

Case MakeCase(size_t V, size_t d, size_t rows, uint32_t seed) {
  Case c{V, d, rows, {}, {}, {}, {}, {}, {}, {}, {}, {}};
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> qd(-127, 127);
  std::uniform_real_distribution<float> sd(0.001f, 0.02f);
  std::normal_distribution<float> nd(0.f, 1.f);
  c.w.resize(V * d);
  for (auto& v : c.w) v = static_cast<int8_t>(qd(rng));
  c.scales.resize(V);
  for (auto& v : c.scales) v = sd(rng);
  c.bias.resize(V);
  for (auto& v : c.bias) v = nd(rng);
  c.sums.resize(V);
  for (size_t t = 0; t < V; ++t) {
    int32_t s = 0;
    for (size_t j = 0; j < d; ++j) s += c.w[t * d + j];
    c.sums[t] = s;
  }
  c.x.resize(rows * d);
  for (auto& v : c.x) v = nd(rng) * 3.f;
  c.q.resize(rows * d + 64);
  for (auto& v : c.q) v = static_cast<int8_t>(std::uniform_int_distribution<int>(-128, 127)(rng));
  c.qp.resize(rows + 16);
  for (size_t r = 0; r < rows; ++r) c.qp[r] = {static_cast<int32_t>(qd(rng)), sd(rng)};
  c.view.name = "w";
  c.view.dtype = DType::kInt8;
  c.view.rank = 2;
  c.view.shape[0] = static_cast<uint32_t>(V);
  c.view.shape[1] = static_cast<uint32_t>(d);
  c.view.data = c.w.data();
  c.view.bytes = V * d;
  c.view.scales = c.scales.data();
  c.bias_view.name = "b";
  c.bias_view.rank = 1;
  c.bias_view.shape[0] = static_cast<uint32_t>(V);
  c.bias_view.data = c.bias.data();
  c.bias_view.bytes = V * 4;
  return c;
}

std::vector<uint32_t> Tokens(size_t V, size_t K, uint32_t seed) {
  std::vector<uint32_t> t(V);
  for (size_t i = 0; i < V; ++i) t[i] = static_cast<uint32_t>(i);
  std::mt19937 rng(seed);
  std::shuffle(t.begin(), t.end(), rng);
  t.resize(K);
  std::sort(t.begin(), t.end());
  return t;
}

}  // namespace

TEST_CASE("gathered int8 projection: every ISA kernel equals the portable one bit for bit") {
  Isa levels[8];
  GatheredInt8Kernel kernels[8];
  const size_t n = AvailableIsas(levels, 8);
  for (size_t i = 0; i < n; ++i) kernels[i] = GatheredInt8For(levels[i]);
  REQUIRE(n >= 1);
  CHECK(std::string(kernels[0].isa) == "portable");
  MESSAGE("kernels on this CPU: " << n << ", active " << std::string(GatheredInt8Active().isa));
  uint32_t seed = 1;
  for (size_t d : {16u, 48u, 100u, 512u, 1024u})
    for (size_t rows : {1u, 2u, 3u, 4u, 5u, 9u})
      for (size_t K : {1u, 3u, 4u, 7u, 64u, 129u})
        for (bool with_bias : {false, true}) {
          const size_t V = 300;
          Case c = MakeCase(V, d, rows, seed++);
          const std::vector<uint32_t> tokens = Tokens(V, K, seed);
          const float* bias = with_bias ? c.bias.data() : nullptr;
          const size_t stride = K + 3;  // a window of a wider output
          std::vector<float> want(rows * stride, -7.f);
          kernels[0].fn(c.q.data(), c.qp.data(), rows, d, c.w.data(), c.scales.data(), c.sums.data(), bias, tokens.data(),
                        K, want.data(), stride);
          for (size_t i = 1; i < n; ++i)
            for (GatheredInt8Fn fn : {kernels[i].fn, kernels[i].fn_127}) {  // (weights in [-127, 127] here)
              if (!fn) continue;
              std::vector<float> got(rows * stride, -7.f);
              fn(c.q.data(), c.qp.data(), rows, d, c.w.data(), c.scales.data(), c.sums.data(), bias, tokens.data(), K,
                 got.data(), stride);
              CHECK_MESSAGE(std::memcmp(got.data(), want.data(), got.size() * sizeof(float)) == 0,
                            std::string(kernels[i].isa) << (fn == kernels[i].fn_127 ? " [-127, 127]" : "") << " d=" << d
                                                        << " rows=" << rows << " K=" << K << " bias=" << with_bias);
            }
        }
}

TEST_CASE("gathered projection: the portable kernel agrees with XNNPACK's full qd8 x qc8w projection") {
  REQUIRE(InitXnnpack().ok());
  const size_t V = 777, d = 96, rows = 3;
  Case c = MakeCase(V, d, rows, 42);
  const TensorView* wv = &c.view;
  const TensorView* bv = &c.bias_view;
  auto packed = PackLinear(&wv, &bv, 1);
  REQUIRE(packed.ok());
  auto linear = Linear::Bind(packed.value());
  REQUIRE(linear.ok());
  auto quantizer = RowQuantizer::Create();
  REQUIRE(quantizer.ok());
  std::vector<int8_t> q(QuantInputBytes(rows, d));
  std::vector<xnn_quantization_params> qp(rows + 16);
  const QuantScratch scratch{q.data(), qp.data()};
  REQUIRE(quantizer.value().Run(c.x.data(), rows, d, scratch, nullptr).ok());
  std::vector<float> full(rows * V);
  REQUIRE(linear.value().Run(c.x.data(), scratch, rows, full.data(), nullptr).ok());

  auto g = GatheredProjection::Prepare(c.view, &c.bias_view);
  REQUIRE(g.ok());
  REQUIRE(g.value().available());
  const std::vector<uint32_t> tokens = Tokens(V, 200, 5);
  std::vector<float> got(rows * tokens.size());
  g.value().Run(GatheredInt8For(Isa::kPortable), scratch, rows, tokens.data(), tokens.size(), got.data(), nullptr);
  // Same int32 sums; XNNPACK may fuse the last multiply and add (one rounding fewer).
  for (size_t r = 0; r < rows; ++r)
    for (size_t k = 0; k < tokens.size(); ++k) {
      const float want = full[r * V + tokens[k]];
      CHECK_MESSAGE(std::fabs(got[r * tokens.size() + k] - want) <= 1e-5f * std::max(1.f, std::fabs(want)),
                    "row " << r << " token " << tokens[k]);
    }
  // The fallback for other formats keeps the same columns of the full logits.
  std::vector<float> compact = full;
  CompactColumns(compact.data(), rows, V, tokens.data(), tokens.size());
  for (size_t r = 0; r < rows; ++r)
    for (size_t k = 0; k < tokens.size(); ++k) CHECK(compact[r * tokens.size() + k] == full[r * V + tokens[k]]);
}

TEST_CASE("gathered projection: threads split the tokens without changing a bit, and other formats are unavailable") {
  REQUIRE(InitXnnpack().ok());
  const size_t V = 5000, d = 64, rows = 4;
  Case c = MakeCase(V, d, rows, 9);
  auto g = GatheredProjection::Prepare(c.view, nullptr);
  REQUIRE(g.ok());
  const GatheredProjection& p = g.value();
  CHECK(p.BytesRead(10) == 10 * (64 + 4 + 4));
  const std::vector<uint32_t> tokens = Tokens(V, 3001, 3);
  const QuantScratch scratch{c.q.data(), c.qp.data()};
  std::vector<float> one(rows * tokens.size()), two(rows * tokens.size());
  p.Run(GatheredInt8Active(), scratch, rows, tokens.data(), tokens.size(), one.data(), nullptr);
  ThreadPool pool = MakeThreadPool(3);
  p.Run(GatheredInt8Active(), scratch, rows, tokens.data(), tokens.size(), two.data(), pool.get());
  CHECK(std::memcmp(one.data(), two.data(), one.size() * sizeof(float)) == 0);

  TensorView f32 = c.view;
  f32.dtype = DType::kF32;
  auto none = GatheredProjection::Prepare(f32, nullptr);
  REQUIRE(none.ok());
  CHECK_FALSE(none.value().available());
}
