// tern against CTranslate2 itself where tern follows it: tests/data/ct2_coverage.json (bench/ct2_goldens.py says
// how it was made: CTranslate2 4.8.1 on the bundled checkpoint converted by its own MarianMTLoader in float32,
// beam 4 x 2 hypotheses, one sentence per call). The coverage penalty (search/coverage.h) is CTranslate2's term
// with its alignment head and its end of search: with coverage_penalty 0.2 and 1.0 tern f32 gives CTranslate2's
// ids for every sentence and its scores within 1e-4 (their GEMMs sum in other orders). Without the penalty the
// two beam searches end differently (tern's are transformers' rules: docs/python.md); those are not compared.
#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include "test_util.h"

using namespace tern;
using namespace tern::test;

TEST_CASE("CTranslate2 goldens: coverage_penalty 0.2 and 1.0 give CTranslate2's hypotheses and scores") {
  std::ifstream f(std::string(TERN_SOURCE_DIR) + "/tests/data/ct2_coverage.json");
  REQUIRE(f.good());
  const nlohmann::json golden = nlohmann::json::parse(f);
  auto m = LoadOrFail(TERN_BUNDLED_F32);
  TranslatorConfig c;
  c.max_beam = 4, c.max_n_best = 2, c.attention = true, c.threads = 1;
  auto t = MakeTranslator(m, c);
  size_t changed = 0, compared = 0;
  for (const auto& x : golden["cases"]) {
    const std::vector<uint32_t> src = x["source_ids"].get<std::vector<uint32_t>>();
    const Span<const uint32_t> one[] = {Span<const uint32_t>(src.data(), src.size())};
    for (const char* beta : {"0.2", "1.0"}) {
      CAPTURE(x["text"].get<std::string>());
      CAPTURE(beta);
      TranslateOptions o;
      o.beam_size = 4, o.n_best = 2, o.length_penalty = 1.f, o.min_length = 1, o.max_length = 256;
      o.coverage_penalty = std::stof(beta);
      Span<const TranslationResult> r;
      REQUIRE(t->TranslateIds(one, o, &r).ok());
      REQUIRE(r[0].ok());
      const auto& want = x["coverage"][beta];
      REQUIRE(r[0].hypotheses.size() == want.size());
      for (size_t k = 0; k < want.size(); ++k) {
        CHECK(ToVector(r[0].hypotheses[k].ids) == want[k]["ids"].get<std::vector<uint32_t>>());
        CHECK(r[0].hypotheses[k].score == doctest::Approx(want[k]["score"].get<double>()).epsilon(1e-4));
      }
      changed += want[0]["ids"] != x["coverage"]["0.0"][0]["ids"];
      ++compared;
    }
  }
  MESSAGE(compared << " translations compared; the penalty changed " << changed << " of them in CTranslate2");
  CHECK(changed >= 10);  // the golden exercises the penalty
}
