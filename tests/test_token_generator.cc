// tern::TokenGenerator (CTranslate2's generate_tokens): the steps of one sentence, in lockstep with the
// search; their texts make up the translation, their log-probabilities are the hypothesis'; stopping early
// cancels the call and leaves the Translator usable.
#include <cmath>

#include "tern/token_generator.h"
#include "test_util.h"

using namespace tern;
using namespace tern::test;

TEST_CASE("TokenGenerator: greedy and beam steps add up to the translation, with its log-probabilities") {
  TranslatorConfig cfg;
  cfg.max_beam = 4;
  auto t = MakeTranslator(LoadOrFail(BundledModel()), cfg);
  const std::string_view src[] = {"Two dogs play in the snow."};
  for (uint32_t beam : {1u, 4u}) {
    CAPTURE(beam);
    TranslateOptions o;
    o.beam_size = beam;
    Span<const TranslationResult> r;
    REQUIRE(t->Translate(Span<const std::string_view>(src, 1), o, &r).ok());
    const std::string want(r[0].best().text);
    const std::vector<float> lps(r[0].best().token_logprobs.begin(), r[0].best().token_logprobs.end());
    const std::vector<uint32_t> tokens(r[0].best().tokens.begin(), r[0].best().tokens.end());
    std::string text;
    std::vector<float> got_lps;
    std::vector<uint32_t> got_tokens;
    size_t lasts = 0;
    {
      TokenGenerator g(*t, std::string(src[0]), o);
      TokenGenerator::Step step;
      while (g.Next(&step)) {
        text += step.text;
        got_lps.push_back(step.logprob);
        got_tokens.push_back(step.token);
        lasts += step.last;
      }
      CHECK(g.status().ok());
    }
    CHECK(text == want);
    CHECK(got_tokens == tokens);
    REQUIRE(got_lps.size() == lps.size());
    for (size_t k = 0; k < lps.size(); ++k) CHECK(got_lps[k] == doctest::Approx(lps[k]).epsilon(1e-6));
    CHECK(lasts == 1);
  }
}

TEST_CASE("TokenGenerator: stopping early cancels the call, ids work, bad options fail") {
  auto t = MakeTranslator(LoadOrFail(BundledModel()));
  TranslateOptions o;
  o.beam_size = 1;
  {
    TokenGenerator g(*t, std::string("A man in a blue shirt is standing on a ladder and cleaning a window."), o);
    TokenGenerator::Step step;
    REQUIRE(g.Next(&step));
    CHECK(!step.last);
  }  // destroyed after one step: the translation stops
  const std::string_view src[] = {"A dog."};
  Span<const TranslationResult> r;
  REQUIRE(t->Translate(Span<const std::string_view>(src, 1), o, &r).ok());  // usable again (not busy)
  const std::vector<uint32_t> ids(r[0].source_ids.begin(), r[0].source_ids.end());
  const std::string want(r[0].best().text);
  std::vector<uint32_t> got;
  {
    TokenGenerator g(*t, ids, o);
    TokenGenerator::Step step;
    while (g.Next(&step)) got.push_back(step.token);
    CHECK(g.status().ok());
  }
  CHECK(got.size() == r[0].best().tokens.size());
  TranslateOptions bad = o;
  bad.n_best = 2;
  TokenGenerator g(*t, std::string("A dog."), bad);
  TokenGenerator::Step step;
  CHECK(!g.Next(&step));
  CHECK(g.status().code() == StatusCode::kInvalidArgument);
  // A sentence that fails: its error.
  TokenGenerator g2(*t, std::vector<uint32_t>{}, o);
  CHECK(!g2.Next(&step));
  CHECK(g2.status().message() == "no source ids (at least </s> is needed)");
}
