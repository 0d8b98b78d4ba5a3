// Sampling (search/sampling.h): the deterministic exp, the warpers against transformers' formulas, drawn
// frequencies against the warped distribution (chi-square), and sampled translations: the same call and
// seed give the same output, whatever the thread count; bad options fail the call.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "search/sampling.h"
#include "test_util.h"

using namespace tern;
using namespace tern::test;

namespace {

// transformers' warpers, written from their definitions in double (generation/logits_process.py):
// TemperatureLogitsWarper, TopKLogitsWarper (scores < k-th largest -> -inf), TopPLogitsWarper (ascending
// sort, cumulative softmax, remove where <= 1 - top_p, keep the last min_tokens_to_keep); softmax.
std::vector<double> WarpedDistribution(std::vector<double> s, const SamplingOptions& o) {
  const size_t n = s.size();
  for (double& x : s) x /= o.temperature;
  if (o.top_k > 0 && o.top_k < n) {
    std::vector<double> sorted = s;
    std::sort(sorted.rbegin(), sorted.rend());
    const double kth = sorted[std::max<size_t>(o.top_k, o.min_tokens_to_keep) - 1];
    for (double& x : s)
      if (x < kth) x = -INFINITY;
  }
  if (o.top_p < 1.f) {
    std::vector<size_t> idx(n);
    std::iota(idx.begin(), idx.end(), 0);
    std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return s[a] < s[b] || (s[a] == s[b] && a > b); });
    const double m = s[idx[n - 1]];
    double total = 0;
    for (double x : s) total += std::exp(x - m);
    double cum = 0;
    std::vector<bool> remove(n, false);
    for (size_t j = 0; j < n; ++j) {
      cum += std::exp(s[idx[j]] - m) / total;
      remove[idx[j]] = cum <= 1.0 - o.top_p && j < n - o.min_tokens_to_keep;
    }
    for (size_t i = 0; i < n; ++i)
      if (remove[i]) s[i] = -INFINITY;
  }
  const double m = *std::max_element(s.begin(), s.end());
  double total = 0;
  for (double x : s) total += std::exp(x - m);
  std::vector<double> p(n);
  for (size_t i = 0; i < n; ++i) p[i] = std::exp(s[i] - m) / total;
  return p;
}

}  // namespace

TEST_CASE("DeterministicExp is exp within 1e-14 (relative) from -745 to 0") {
  double worst = 0;
  for (double x = -745.0; x <= 0.0; x += 0.0137) {
    const double want = std::exp(x);
    if (want < 1e-300) continue;  // subnormal: absolute error only
    worst = std::max(worst, std::fabs(DeterministicExp(x) - want) / want);
  }
  MESSAGE("max relative error " << worst);
  CHECK(worst < 1e-14);
  CHECK(DeterministicExp(-1000.0) == 0.0);
  CHECK(DeterministicExp(-INFINITY) == 0.0);
  CHECK(DeterministicExp(0.0) == 1.0);
}

TEST_CASE("the warpers keep what transformers' temperature and top-k and top-p keep") {
  const std::vector<float> logits = {2.0f, 1.5f, 1.5f, 0.3f, -0.7f, 3.1f, -2.0f, 0.9f, 0.0f, 1.1f, -INFINITY, 2.4f};
  const SamplingOptions cases[] = {
      {true, 1.f, 0, 1.f, 1, 0},   {true, 0.7f, 4, 1.f, 1, 0},  {true, 1.f, 0, 0.8f, 1, 0},
      {true, 1.3f, 6, 0.9f, 1, 0}, {true, 1.f, 2, 1.f, 3, 0},   {true, 0.5f, 0, 0.3f, 2, 0},
  };
  for (const SamplingOptions& o : cases) {
    CAPTURE(o.temperature);
    CAPTURE(o.top_k);
    CAPTURE(o.top_p);
    std::vector<float> row = logits;
    std::vector<uint32_t> order(row.size());
    WarpRow(o, row.data(), row.size(), order.data());
    const auto want = WarpedDistribution(std::vector<double>(logits.begin(), logits.end()), o);
    for (size_t i = 0; i < row.size(); ++i) {
      CAPTURE(i);
      CHECK((row[i] == -INFINITY) == (want[i] == 0.0));
    }
  }
}

TEST_CASE("10000 draws match the warped distribution (chi-square below the 99.9% quantile)") {
  std::vector<float> logits(40);
  for (size_t i = 0; i < logits.size(); ++i) logits[i] = static_cast<float>(std::sin(1.7 * i) * 2.5);
  // chi-square 0.999 quantiles by degrees of freedom (df = kept tokens - 1)
  auto bound = [](size_t df) {
    static const double q[] = {0, 10.83, 13.82, 16.27, 18.47, 20.52, 22.46, 24.32, 26.12, 27.88, 29.59, 31.26, 32.91,
                               34.53, 36.12, 37.70, 39.25, 40.79, 42.31, 43.82, 45.31};
    return df < sizeof(q) / sizeof(q[0]) ? q[df] : df + 4.0 * std::sqrt(2.0 * df);
  };
  const SamplingOptions cases[] = {{true, 1.f, 0, 1.f, 1, 11}, {true, 0.8f, 10, 1.f, 1, 12}, {true, 1.2f, 0, 0.9f, 1, 13},
                                   {true, 1.f, 12, 0.7f, 1, 14}};
  for (const SamplingOptions& o : cases) {
    CAPTURE(o.seed);
    std::vector<float> row = logits;
    std::vector<uint32_t> order(row.size());
    WarpRow(o, row.data(), row.size(), order.data());
    const auto p = WarpedDistribution(std::vector<double>(logits.begin(), logits.end()), o);
    constexpr size_t kDraws = 10000;
    std::vector<size_t> count(row.size(), 0);
    for (size_t d = 0; d < kDraws; ++d) ++count[DrawColumn(row.data(), row.size(), CounterUniform(o.seed, 0, d))];
    double chi2 = 0;
    size_t kept = 0;
    for (size_t i = 0; i < row.size(); ++i) {
      if (p[i] == 0) {
        CHECK(count[i] == 0);  // a token the warpers removed is never drawn
        continue;
      }
      ++kept;
      const double e = p[i] * kDraws;
      chi2 += (count[i] - e) * (count[i] - e) / e;
    }
    MESSAGE("kept " << kept << " tokens, chi-square " << chi2 << " (bound " << bound(kept - 1) << ")");
    CHECK(chi2 < bound(kept - 1));
  }
}

TEST_CASE("sampled translations: the same seed gives the same output at any thread count and another seed another") {
  const auto model = LoadOrFail(ModelPath("post-swish", "int8"));
  const auto ref = ReadJson(ModelsDir() + "/post-swish.ref.json");
  std::vector<std::vector<uint32_t>> srcs;
  for (const auto& c : ref["cases"]) srcs.push_back(Ids(c["src"]));
  std::vector<Span<const uint32_t>> spans;
  for (const auto& s : srcs) spans.emplace_back(s.data(), s.size());
  const Span<const Span<const uint32_t>> in(spans.data(), spans.size());
  auto run = [&](uint32_t threads, uint64_t seed) {
    TranslatorConfig c;
    c.threads = threads;
    auto t = MakeTranslator(model, c);
    TranslateOptions o;
    o.sampling.enabled = true;
    o.sampling.top_k = 0;
    o.sampling.temperature = 1.5f;
    o.sampling.seed = seed;
    Span<const TranslationResult> r;
    REQUIRE(t->TranslateIds(in, o, &r).ok());
    std::vector<std::vector<uint32_t>> out;
    for (const auto& x : r) {
      REQUIRE(x.ok());
      const Hypothesis& h = x.best();
      // the token log-probabilities are those of the warped distribution: each <= 0, their sum the score
      float sum = 0;
      for (float lp : h.token_logprobs) {
        CHECK(lp <= 0.f);
        sum += lp;
      }
      CHECK(h.score == doctest::Approx(sum).epsilon(1e-5));
      out.push_back(ToVector(h.ids));
    }
    return out;
  };
  const auto a = run(1, 7), b = run(2, 7), c = run(1, 8);
  CHECK(a == b);
  CHECK(a != c);
  TranslateOptions greedy;
  greedy.beam_size = 1;
  auto t = MakeTranslator(model);
  Span<const TranslationResult> r;
  REQUIRE(t->TranslateIds(in, greedy, &r).ok());
  size_t differ = 0;
  for (size_t i = 0; i < r.size(); ++i) differ += ToVector(r[i].best().ids) != a[i];
  CHECK(differ > 0);  // at temperature 1.5 over the whole vocabulary, sampling is not argmax
}

TEST_CASE("sampling options a call refuses") {
  auto t = MakeTranslator(LoadOrFail(ModelPath("post-swish", "int8")));
  TranslateOptions o;
  o.sampling.enabled = true;
  o.beam_size = 4;
  CHECK(t->CheckOptions(o).message() == "sampling is for greedy search (beam_size 1): beam sampling is not supported");
  o.beam_size.reset();  // unset: greedy
  CHECK(t->CheckOptions(o).ok());
  o.sampling.temperature = 0.f;
  CHECK(t->CheckOptions(o).message() == "sampling_temperature 0: must be finite and >= 1e-06 (a smaller one overflows the scores; greedy search is its limit)");
  o.sampling.temperature = 1.f;
  o.sampling.top_p = 0.f;
  CHECK(t->CheckOptions(o).message() == "sampling_topp 0: must be in (0, 1]");
  o.sampling.top_p = 1.f;
  o.sampling.min_tokens_to_keep = 0;
  CHECK(t->CheckOptions(o).message() == "sampling_min_tokens_to_keep 0: must be at least 1");
}
