// The f32 kernels beam search relies on: LogSumExp (own vectorizable exp), MaxOf, ScoreRow.
#include <algorithm>
#include <cmath>
#include <iterator>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include <doctest/doctest.h>

#include "kernels/digest.h"
#include "kernels/isa.h"
#include "kernels/kernels.h"

using namespace tern;

TEST_CASE("LogSumExp matches a float64 reference within 2e-6 over logit-like rows") {
  std::mt19937 rng(7);
  for (size_t n : {1u, 7u, 8u, 255u, 256u, 257u, 8000u}) {
    for (float spread : {0.1f, 5.f, 40.f, 200.f}) {
      std::normal_distribution<float> dist(0.f, spread);
      std::vector<float> x(n);
      for (float& v : x) v = dist(rng);
      double m = -INFINITY, sum = 0;
      for (float v : x) m = std::max(m, double(v));
      for (float v : x) sum += std::exp(double(v) - m);
      const double want = m + std::log(sum);
      CHECK_MESSAGE(std::fabs(LogSumExp(x.data(), n) - want) <= 2e-6 * std::max(1.0, std::fabs(want)),
                    "n=" << n << " spread=" << spread);
    }
  }
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> all_masked(10, -inf);
  CHECK(LogSumExp(all_masked.data(), all_masked.size()) == -inf);
  CHECK(LogSumExp(nullptr, 0) == -inf);
  std::vector<float> some_masked = {-inf, 0.f, -inf, 0.f};
  CHECK(LogSumExp(some_masked.data(), 4) == doctest::Approx(std::log(2.0)).epsilon(1e-7));
}

TEST_CASE("MaxOf and ScoreRow") {
  std::vector<float> x = {3, -1, 9, 2, 8, 7, 6, 5, 4, 10.5f, 1};
  CHECK(MaxOf(x.data(), x.size()) == 10.5f);
  CHECK(MaxOf(x.data(), 3) == 9.f);
  CHECK(MaxOf(x.data(), 0) == -std::numeric_limits<float>::infinity());
  std::vector<float> with_nan = x;
  with_nan[2] = with_nan[10] = std::numeric_limits<float>::quiet_NaN();  // one in the lanes, one in the tail
  CHECK(MaxOf(with_nan.data(), with_nan.size()) == 10.5f);
  std::vector<uint8_t> masked(x.size(), 0);
  masked[9] = 1;
  std::vector<float> row = x;
  ScoreRow(row.data(), masked.data(), 2.f, -0.5f, row.size());
  CHECK(row[9] == -std::numeric_limits<float>::infinity());
  for (size_t v = 0; v < x.size(); ++v)
    if (v != 9) CHECK(row[v] == (x[v] - 2.f) + -0.5f);
}

TEST_CASE("the exp pass of log-sum-exp gives the same floats at every ISA level this CPU runs") {
  Isa levels[8];
  const size_t n = AvailableIsas(levels, 8);
  REQUIRE(n >= 1);
  CHECK(levels[0] == Isa::kPortable);
  std::mt19937 rng(7);
  std::normal_distribution<float> logit(0.f, 6.f);
  for (size_t len : {1u, 7u, 8u, 15u, 16u, 33u, 255u, 256u}) {
    std::vector<float> x(len);
    for (float& v : x) v = logit(rng);
    x[len / 2] = -200.f;  // below the clamp
    const float m = MaxOf(x.data(), len);
    std::vector<float> want(len), got(len);
    ExpShiftedFor(Isa::kPortable)(x.data(), len, m, want.data());
    for (size_t i = 1; i < n; ++i) {
      CAPTURE(IsaName(levels[i]));
      ExpShiftedFor(levels[i])(x.data(), len, m, got.data());
      CHECK(std::memcmp(want.data(), got.data(), len * sizeof(float)) == 0);
      CHECK(LogSumExpWithMax(x.data(), len, m, ExpShiftedFor(levels[i])) ==
            LogSumExpWithMax(x.data(), len, m, ExpShiftedFor(Isa::kPortable)));
    }
  }
  MESSAGE("ISA levels on this CPU: " << n << "; active: " << IsaSummary());
}

TEST_CASE("swish gives the same floats at every ISA level, within 4 ulp of x / (1 + exp(-x)) in double") {
  Isa levels[8];
  const size_t n = AvailableIsas(levels, 8);
  std::mt19937 rng(9);
  std::normal_distribution<float> act(0.f, 4.f);
  std::vector<float> x(1037);
  for (float& v : x) v = act(rng);
  const float special[] = {0.f, -0.f, 1e-30f, -1e-30f, 86.f, -86.f, 88.f, -88.f, 200.f, -200.f, 1e30f, -1e30f};
  std::copy(std::begin(special), std::end(special), x.begin());
  std::vector<float> want = x;
  SwishFor(Isa::kPortable)(want.data(), want.size());
  for (size_t k = 0; k < x.size(); ++k) {
    CAPTURE(x[k]);
    const double r = double(x[k]) / (1.0 + std::exp(-double(x[k])));
    if (x[k] >= -87.f)
      CHECK(std::fabs(want[k] - r) <= 4.0 * std::numeric_limits<float>::epsilon() * std::fabs(r) + 1e-37);
    else  // e^-x past the clamp: x e^-87, at most 2e-38 |x|, in place of about 0
      CHECK(std::fabs(want[k]) <= 2e-38 * std::fabs(double(x[k])));
  }
  for (size_t i = 1; i < n; ++i) {
    CAPTURE(IsaName(levels[i]));
    std::vector<float> got = x;
    SwishFor(levels[i])(got.data(), got.size());
    CHECK(std::memcmp(want.data(), got.data(), x.size() * sizeof(float)) == 0);
  }
  float nan = std::numeric_limits<float>::quiet_NaN();
  SwishFor(levels[n - 1])(&nan, 1);
  CHECK(std::isnan(nan));
}

TEST_CASE("digest: XXH3-128's AVX2 loop gives the portable loop's digest for every length and alignment") {
  std::vector<uint8_t> bytes(70000 + 64);
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>((i * 2654435761u) >> 13);
  const Digest128 empty = DigestPortable(bytes.data(), 0);
  CHECK(empty.low == 0x6001c324468d497full);  // XXH3-128 of "" (xxHash's own test vector)
  CHECK(empty.high == 0x99aa06d3014798d8ull);
  Isa isas[8];
  const size_t n = AvailableIsas(isas, 8);
  const bool avx2 = std::find(isas, isas + n, Isa::kAvx2) != isas + n;
  for (size_t len : {size_t{0}, size_t{1}, size_t{16}, size_t{17}, size_t{128}, size_t{129}, size_t{240}, size_t{241},
                     size_t{1024}, size_t{1025}, size_t{4096}, size_t{65537}, size_t{70000}})
    for (size_t offset : {size_t{0}, size_t{1}, size_t{7}, size_t{63}}) {
      CAPTURE(len);
      CAPTURE(offset);
      const Digest128 p = DigestPortable(bytes.data() + offset, len);
      CHECK(Digest(bytes.data() + offset, len) == p);
#if defined(__x86_64__) || defined(__i386__)
      if (avx2) CHECK(DigestAvx2(bytes.data() + offset, len) == p);
#endif
    }
  if (!avx2) MESSAGE("no AVX2 on this CPU: the portable loop only");
}
