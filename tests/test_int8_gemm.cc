// tern's int8 GEMM for CPUs without int8 dot products (kernels/int8_gemm.h): every ISA kernel this CPU runs
// against the portable one, bit for bit, on every remainder of the row tile (4), the weight-row tile (2)
// and the column step (16 / 32), with the extreme values (-128 inputs, +-127 weights); a layer run by it
// equals XNNPACK's operator plus tern's epilogue bit for bit (so int8 output does not depend on which runs);
// a weight of -128 keeps the layer on XNNPACK.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include <doctest/doctest.h>

#include "kernels/int4_gemm.h"
#include "kernels/int8_gemm.h"
#include "nn/int4_probe.h"
#include "nn/linear.h"
#include "nn/xnn_ops.h"

using namespace tern;

namespace {

struct GemmCase {
  size_t rows, N, K;
  std::vector<int8_t> q, w;
  std::vector<xnn_quantization_params> qp;
  std::vector<float> scales, bias;
  std::vector<int32_t> sums;
};

GemmCase Make(size_t rows, size_t N, size_t K, uint32_t seed, bool extreme) {
  GemmCase c{rows, N, K, {}, {}, {}, {}, {}, {}};
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> wq(-127, 127), xq(-128, 127), coin(0, 1);
  c.q.resize(rows * K);
  for (auto& v : c.q) v = static_cast<int8_t>(extreme ? (coin(rng) ? -128 : 127) : xq(rng));
  c.w.resize(N * K);
  for (auto& v : c.w) v = static_cast<int8_t>(extreme ? (coin(rng) ? -127 : 127) : wq(rng));
  c.qp.resize(rows);
  for (auto& p : c.qp) p = {xq(rng), std::uniform_real_distribution<float>(1e-3f, 0.05f)(rng)};
  c.scales.resize(N);
  for (auto& s : c.scales) s = std::uniform_real_distribution<float>(1e-3f, 0.02f)(rng);
  c.bias.resize(N);
  for (auto& b : c.bias) b = std::normal_distribution<float>(0.f, 1.f)(rng);
  c.sums.resize(N);
  REQUIRE(Int8RowSums(c.w.data(), N, K, K, c.sums.data()));
  return c;
}

std::vector<float> Run(const Int8GemmKernel& k, const GemmCase& c, size_t out_stride, bool bias) {
  std::vector<float> out(c.rows * out_stride, -7.f);
  k.fn(c.q.data(), c.qp.data(), c.rows, c.K, c.w.data(), c.K, c.scales.data(), c.sums.data(),
       bias ? c.bias.data() : nullptr, c.N, out.data(), out_stride);
  return out;
}

}  // namespace

TEST_CASE("int8 GEMM: every ISA kernel equals the portable one bit for bit, on every remainder and extreme value") {
  Isa isas[8];
  const size_t n_isas = AvailableIsas(isas, 8);
  const Int8GemmKernel portable = Int8GemmFor(Isa::kPortable);
  size_t compared = 0;
  uint32_t seed_big = 1000;
  for (size_t i = 0; i < n_isas; ++i) {
    const Int8GemmKernel k = Int8GemmFor(isas[i]);
    CAPTURE(k.isa);
    uint32_t seed = 1;
    for (size_t rows : {1u, 2u, 3u, 4u, 5u, 7u, 9u, 64u})
      for (size_t N : {1u, 2u, 3u, 5u, 8u})
        for (size_t K : {1u, 15u, 16u, 17u, 31u, 32u, 33u, 48u, 100u, 512u})
          for (bool extreme : {false, true}) {
            CAPTURE(rows);
            CAPTURE(N);
            CAPTURE(K);
            const GemmCase c = Make(rows, N, K, seed++, extreme);
            const size_t stride = N + 3;  // a window of a wider output
            const std::vector<float> want = Run(portable, c, stride, seed % 2), got = Run(k, c, stride, seed % 2);
            REQUIRE(std::memcmp(want.data(), got.data(), want.size() * sizeof(float)) == 0);
            ++compared;
          }
  }
  CHECK(compared >= 800);
  // Larger shapes: many token tiles, odd row counts, large K.
  struct Shape {
    size_t rows, N, K;
  };
  for (const Shape s : {Shape{33, 200, 512}, Shape{17, 97, 520}, Shape{9, 191, 2048}, Shape{5, 7, 8192}, Shape{64, 300, 64}})
    for (size_t i = 0; i < n_isas; ++i) {
      CAPTURE(s.rows);
      CAPTURE(s.N);
      CAPTURE(s.K);
      const GemmCase c = Make(s.rows, s.N, s.K, seed_big++, true);
      const std::vector<float> want = Run(portable, c, s.N, true), got = Run(Int8GemmFor(isas[i]), c, s.N, true);
      CHECK(std::memcmp(want.data(), got.data(), want.size() * sizeof(float)) == 0);
    }
  // Extreme sums at the largest K: |sum| <= 128 x 127 x K stays an exact int32.
  const GemmCase big = Make(4, 2, kMaxInt8GemmK, 99, true);
  for (size_t i = 0; i < n_isas; ++i) {
    const std::vector<float> want = Run(portable, big, 2, true), got = Run(Int8GemmFor(isas[i]), big, 2, true);
    CHECK(std::memcmp(want.data(), got.data(), want.size() * sizeof(float)) == 0);
  }
}

TEST_CASE("int8 GEMM: row sums, and a weight of -128 refused (its layer stays on XNNPACK)") {
  std::vector<int8_t> w = {1, 2, 3, -4, 127, -127};
  int32_t sums[2];
  CHECK(Int8RowSums(w.data(), 2, 3, 3, sums));
  CHECK(sums[0] == 6);
  CHECK(sums[1] == -4);
  w[4] = -128;
  CHECK_FALSE(Int8RowSums(w.data(), 2, 3, 3, sums));
  TensorView v;
  v.name = "w";
  v.dtype = DType::kInt8;
  v.rank = 2;
  v.shape[0] = 2;
  v.shape[1] = 3;
  v.data = w.data();
  v.bytes = w.size();
  const TensorView* views[] = {&v};
  auto own = OwnInt8Linear::Make(views, 1);
  REQUIRE(own.ok());
  CHECK_FALSE(own.value().available());
}

TEST_CASE("int8 layer: tern's own GEMM gives XNNPACK's operator and tern's epilogue bit for bit (fused, threads)") {
  if (!OwnInt8GemmActive()) {
    MESSAGE("this CPU runs int8 layers on XNNPACK (" << IsaName(ActiveIsa()) << "): nothing to compare");
    return;
  }
  std::mt19937 rng(5);
  const size_t in = 96;
  std::vector<std::vector<int8_t>> ws;
  std::vector<std::vector<float>> ss, bs;
  std::vector<TensorView> wv(3), bv(3);
  for (size_t i = 0; i < 3; ++i) {  // Q|K|V-like: 3 fused weights of 40, 24 and 33 rows
    const size_t out = i == 0 ? 40 : i == 1 ? 24 : 33;
    ws.emplace_back(out * in);
    for (auto& x : ws.back()) x = static_cast<int8_t>(std::uniform_int_distribution<int>(-127, 127)(rng));
    ss.emplace_back(out);
    for (auto& x : ss.back()) x = std::uniform_real_distribution<float>(1e-3f, 0.02f)(rng);
    bs.emplace_back(out);
    for (auto& x : bs.back()) x = std::normal_distribution<float>(0.f, 1.f)(rng);
  }
  for (size_t i = 0; i < 3; ++i) {
    wv[i].name = "w";
    wv[i].dtype = DType::kInt8;
    wv[i].rank = 2;
    wv[i].shape[0] = static_cast<uint32_t>(ss[i].size());
    wv[i].shape[1] = static_cast<uint32_t>(in);
    wv[i].data = ws[i].data();
    wv[i].bytes = ws[i].size();
    wv[i].scales = ss[i].data();
    bv[i].name = "b";
    bv[i].rank = 1;
    bv[i].shape[0] = static_cast<uint32_t>(bs[i].size());
    bv[i].data = bs[i].data();
    bv[i].bytes = bs[i].size() * 4;
  }
  const TensorView* w[] = {&wv[0], &wv[1], &wv[2]};
  const TensorView* b[] = {&bv[0], &bv[1], &bv[2]};
  auto packed = PackLinear(w, b, 3, LinearBackends::kBoth);
  REQUIRE_MESSAGE(packed.ok(), packed.status().message());
  REQUIRE(packed.value().own.available());
  auto lin = Linear::Bind(packed.value());
  REQUIRE(lin.ok());
  auto quant = RowQuantizer::Create();
  REQUIRE(quant.ok());
  auto pool = MakeThreadPool(2);
  for (size_t rows : {1u, 3u, 4u, 17u, 64u}) {
    CAPTURE(rows);
    std::vector<float> x(rows * in);
    for (auto& v : x) v = std::normal_distribution<float>(0.f, 2.f)(rng);
    std::vector<int8_t> qbuf(rows * in + 64);
    std::vector<xnn_quantization_params> params(rows + 16);
    QuantScratch q{qbuf.data(), params.data()};
    REQUIRE(quant.value().Run(x.data(), rows, in, q, nullptr).ok());
    const size_t out = packed.value().out;
    // tern's kernel at every row count (what Run takes on this CPU), on one thread and on the
    // pool, XNNPACK's operator, and Run.
    const PackedLinear& p = packed.value();
    std::vector<float> own(rows * out), own_pooled(rows * out), xnn(rows * out), run(rows * out);
    p.own.Run(Int8GemmFor(ActiveIsa()), q, rows, p.epilogue_scales.data(), p.epilogue_bias.data(), own.data(), nullptr);
    p.own.Run(Int8GemmFor(ActiveIsa()), q, rows, p.epilogue_scales.data(), p.epilogue_bias.data(), own_pooled.data(),
              pool.get());
    REQUIRE(lin.value().RunXnnpack(x.data(), q, rows, xnn.data(), nullptr).ok());
    REQUIRE(lin.value().Run(x.data(), q, rows, run.data(), pool.get()).ok());
    CHECK(std::memcmp(own.data(), xnn.data(), own.size() * 4) == 0);
    CHECK(std::memcmp(run.data(), xnn.data(), run.size() * 4) == 0);
    CHECK(std::memcmp(own.data(), own_pooled.data(), own.size() * 4) == 0);
  }
}

namespace {

struct Int4Case {
  size_t rows, N, K, block;
  std::vector<int8_t> q;
  std::vector<xnn_quantization_params> qp;
  std::vector<uint8_t> w;  // [N, K / 2]
  std::vector<float> scales, bias;
  std::vector<uint16_t> bscales;  // [N, K / block] bfloat16
  std::vector<int32_t> chunk_sums;
};

Int4Case Make4(size_t rows, size_t N, size_t K, size_t block, uint32_t seed, bool extreme) {
  Int4Case c{rows, N, K, block, {}, {}, {}, {}, {}, {}, {}};
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> xq(-128, 127), nib(0, 15), coin(0, 1);
  c.q.resize(rows * K);
  for (auto& v : c.q) v = static_cast<int8_t>(extreme ? (coin(rng) ? -128 : 127) : xq(rng));
  c.qp.resize(rows);
  for (auto& p : c.qp) p = {xq(rng), std::uniform_real_distribution<float>(1e-3f, 0.05f)(rng)};
  c.w.resize(N * K / 2);
  for (auto& b : c.w) b = static_cast<uint8_t>(extreme ? (coin(rng) ? 0x00 : 0xff) : nib(rng) | nib(rng) << 4);
  c.scales.resize(N);
  for (auto& s : c.scales) s = std::uniform_real_distribution<float>(1e-3f, 0.02f)(rng);
  c.bias.resize(N);
  for (auto& b : c.bias) b = std::normal_distribution<float>(0.f, 1.f)(rng);
  if (block) {
    c.bscales.resize(N * (K / block));
    for (auto& s : c.bscales) {
      const float f = std::uniform_real_distribution<float>(1e-3f, 0.05f)(rng);
      uint32_t bits;
      std::memcpy(&bits, &f, 4);
      s = static_cast<uint16_t>(bits >> 16);
    }
  }
  c.chunk_sums.resize(rows * K / 32);
  Int4ChunkSums(c.q.data(), rows, K, c.chunk_sums.data());
  return c;
}

std::vector<float> Run4(const Int4GemmKernel& k, const Int4Case& c, size_t stride, bool bias) {
  std::vector<float> out(c.rows * stride, -7.f);
  k.fn(c.q.data(), c.qp.data(), c.chunk_sums.data(), c.rows, c.K, c.w.data(), c.K / 2, c.block, c.scales.data(),
       c.block ? c.bscales.data() : nullptr, bias ? c.bias.data() : nullptr, c.N, out.data(), stride);
  return out;
}

}  // namespace

TEST_CASE("4-bit GEMM: every ISA kernel equals the portable one bit for bit (qc4w and qb4w, every remainder, extremes)") {
  Isa isas[8];
  const size_t n_isas = AvailableIsas(isas, 8);
  const Int4GemmKernel portable = Int4GemmFor(Isa::kPortable);
  size_t compared = 0;
  uint32_t seed = 11;
  for (size_t i = 0; i < n_isas; ++i) {
    const Int4GemmKernel k = Int4GemmFor(isas[i]);
    CAPTURE(k.isa);
    // Rows and weight rows on both sides of the panel kernel's thresholds and widths (kernels/int4_panel.h:
    // 8 or 16 weight rows in the lanes, 4 or 8 input rows at a time, from 1, 4 or 8 rows); below them the
    // AVX2 split kernel's row tiles of 3 (1 to 7 rows) and its steps of 64 columns summed 4 at a time in int16
    // (K 64 to 512: 1, 2, 5 and 8 steps; 32 and 96 not a multiple of 64, which the row form keeps); its qb4w
    // form at 1 and 2 rows with blocks of 32 (8 weight rows in the lanes: N 1 to 33 fills some of them).
    for (size_t rows : {1u, 2u, 3u, 4u, 5u, 7u, 8u, 13u, 17u})
      for (size_t N : {1u, 2u, 3u, 7u, 8u, 9u, 16u, 33u})
        for (size_t K : {32u, 64u, 96u, 128u, 320u, 512u})
          for (size_t block : {0u, 32u, 64u, 128u})
            for (bool extreme : {false, true}) {
              if (block > K) continue;
              CAPTURE(rows);
              CAPTURE(N);
              CAPTURE(K);
              CAPTURE(block);
              const Int4Case c = Make4(rows, N, K, block, seed++, extreme);
              const auto want = Run4(portable, c, N + 2, seed % 2), got = Run4(k, c, N + 2, seed % 2);
              REQUIRE(std::memcmp(want.data(), got.data(), want.size() * 4) == 0);
              ++compared;
            }
  }
  // Inner dimensions whose 16-row panel passes 64 KiB (the VNNI kernel hands them to the AVX2 one) and the
  // widest K the kernels take.
  for (size_t i = 0; i < n_isas; ++i) {
    const Int4GemmKernel k = Int4GemmFor(isas[i]);
    CAPTURE(k.isa);
    for (size_t K : {4096u, 4128u, 8192u})
      for (size_t block : {0u, 32u})
        for (size_t rows : {1u, 9u}) {
          CAPTURE(K);
          CAPTURE(block);
          CAPTURE(rows);
          const bool extreme = seed % 3 == 0;
          const Int4Case c = Make4(rows, 17, K, block, seed++, extreme);
          const auto want = Run4(portable, c, 19, true), got = Run4(k, c, 19, true);
          REQUIRE(std::memcmp(want.data(), got.data(), want.size() * 4) == 0);
          ++compared;
        }
  }
  // The int16 sums at their bounds: every nibble 15 (and every one 0) against every q -128 (and 127), so each
  // vpmaddubsw pair is +-3,840 and a kernel summing one step more in int16 than its bound allows wraps.
  for (size_t i = 0; i < n_isas; ++i) {
    const Int4GemmKernel k = Int4GemmFor(isas[i]);
    CAPTURE(k.isa);
    for (uint8_t wb : {uint8_t{0xff}, uint8_t{0x00}})
      for (int8_t qv : {int8_t{-128}, int8_t{127}})
        for (size_t rows : {1u, 4u, 9u})
          for (size_t K : {512u, 4096u})
            for (size_t block : {0u, 32u, 256u}) {
              CAPTURE(int{wb});
              CAPTURE(int{qv});
              CAPTURE(rows);
              CAPTURE(K);
              CAPTURE(block);
              Int4Case c = Make4(rows, 5, K, block, seed++, false);
              std::fill(c.w.begin(), c.w.end(), wb);
              std::fill(c.q.begin(), c.q.end(), qv);
              Int4ChunkSums(c.q.data(), rows, K, c.chunk_sums.data());
              const auto want = Run4(portable, c, 5, true), got = Run4(k, c, 5, true);
              REQUIRE(std::memcmp(want.data(), got.data(), want.size() * 4) == 0);
              ++compared;
            }
  }
  CHECK(compared >= 300);
  // The portable kernel is the formula: against a double-precision reference of the dequantized product.
  const Int4Case c = Make4(3, 5, 256, 64, 77, false);
  const auto got = Run4(portable, c, 5, true);
  for (size_t r = 0; r < 3; ++r)
    for (size_t n = 0; n < 5; ++n) {
      double ref = 0;
      for (size_t k = 0; k < 256; ++k) {
        const uint8_t b = c.w[n * 128 + k / 2];
        const int wk = (k % 2 ? b >> 4 : b & 15) - 8;
        uint32_t bits = uint32_t{c.bscales[n * 4 + k / 64]} << 16;
        float s;
        std::memcpy(&s, &bits, 4);
        ref += double(c.q[r * 256 + k] - c.qp[r].zero_point) * c.qp[r].scale * wk * s;
      }
      ref += c.bias[n];
      CHECK(std::fabs(got[r * 5 + n] - ref) <= 1e-4 * std::max(1.0, std::fabs(ref)));
    }
}

TEST_CASE("qc4w layer: tern's own 4-bit GEMM gives XNNPACK's operator and tern's epilogue bit for bit") {
  if (!OwnInt4GemmAvailable()) {
    MESSAGE("tern has no 4-bit GEMM for this CPU (" << IsaName(ActiveIsa()) << "): nothing to compare");
    return;
  }
  std::mt19937 rng(9);
  const size_t in = 128, out = 40;
  std::vector<uint8_t> w(out * in / 2);
  for (auto& b : w) b = static_cast<uint8_t>(rng() & 0xff);
  std::vector<float> scales(out), bias(out);
  for (auto& s : scales) s = std::uniform_real_distribution<float>(1e-3f, 0.02f)(rng);
  for (auto& b : bias) b = std::normal_distribution<float>(0.f, 1.f)(rng);
  TensorView wv, bv;
  wv.name = "w";
  wv.dtype = DType::kQc4w;
  wv.rank = 2;
  wv.shape[0] = out;
  wv.shape[1] = in;
  wv.data = w.data();
  wv.bytes = w.size();
  wv.scales = scales.data();
  bv.name = "b";
  bv.rank = 1;
  bv.shape[0] = out;
  bv.data = bias.data();
  bv.bytes = out * 4;
  const TensorView* wp[] = {&wv};
  const TensorView* bp[] = {&bv};
  auto packed = PackLinear(wp, bp, 1, LinearBackends::kBoth);
  REQUIRE_MESSAGE(packed.ok(), packed.status().message());
  REQUIRE(packed.value().own4.available());
  auto lin = Linear::Bind(packed.value());
  REQUIRE(lin.ok());
  auto quant = RowQuantizer::Create();
  REQUIRE(quant.ok());
  for (size_t rows : {1u, 4u, 9u, 33u}) {
    std::vector<float> x(rows * in);
    for (auto& v : x) v = std::normal_distribution<float>(0.f, 2.f)(rng);
    std::vector<int8_t> qbuf(rows * in + 64);
    std::vector<xnn_quantization_params> params(rows + 16);
    std::vector<int32_t> sums(rows * in / 32);
    QuantScratch q{qbuf.data(), params.data(), sums.data()};
    REQUIRE(quant.value().Run(x.data(), rows, in, q, nullptr).ok());
    // tern's kernel at every row count, XNNPACK's operator, and Run (tern's kernel beside XNNPACK's: kBoth).
    const PackedLinear& p = packed.value();
    std::vector<float> own(rows * out), xnn(rows * out), run(rows * out);
    p.own4.Run(Int4GemmFor(ActiveIsa()), q, rows, p.epilogue_bias.empty() ? p.own4_bias.data() : p.epilogue_bias.data(),
               own.data(), nullptr);
    REQUIRE(lin.value().RunXnnpack(x.data(), q, rows, xnn.data(), nullptr).ok());
    REQUIRE(lin.value().Run(x.data(), q, rows, run.data(), nullptr).ok());
    CHECK(std::memcmp(run.data(), own.data(), run.size() * 4) == 0);
    if (XnnpackInt4Wrong(DType::kQc4w)) continue;  // XNNPACK's operator is wrong here (nn/int4_probe.h)
    CHECK(std::memcmp(own.data(), xnn.data(), own.size() * 4) == 0);
  }
}
