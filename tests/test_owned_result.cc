// The one owned result record (tern/owned_result.h): every Hypothesis field (TERN_HYPOTHESIS_FIELDS) survives a
// copy and a view, and a record filled again (the C API's result sets, call after call) holds only the new
// result. The C accessors read this record (api/c_results.cc).
#include <string_view>
#include <vector>

#include "tern/owned_result.h"
#include "test_util.h"

using namespace tern;
using namespace tern::test;

namespace {

template <typename T>
bool SameSpan(Span<const T> a, Span<const T> b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::memcmp(&a[i], &b[i], sizeof(T)) != 0) return false;
  return true;
}

}  // namespace

TEST_CASE("owned results: every hypothesis field survives a copy and a view and a record filled again holds only the new result") {
  TranslatorConfig cfg;
  cfg.max_beam = 4, cfg.max_n_best = 3, cfg.attention = true;
  auto t = MakeTranslator(LoadOrFail(BundledModel()), cfg);
  const std::vector<std::string_view> texts = {"A man in a blue shirt is standing on a ladder.", "A dog runs."};
  TranslateOptions o;
  o.beam_size = 4, o.n_best = 3, o.return_alignment = true, o.return_attention = true;
  Span<const TranslationResult> r;
  REQUIRE(t->Translate(Span<const std::string_view>(texts.data(), texts.size()), o, &r).ok());
  std::vector<OwnedResult> owned;
  CopyResults(r, &owned);
  std::vector<Hypothesis> hyps;
  std::vector<TranslationResult> views;
  ViewResults(owned, &hyps, &views);
  REQUIRE(views.size() == 2);
  for (size_t i = 0; i < 2; ++i) {
    REQUIRE(views[i].hypotheses.size() == 3);
    CHECK(SameSpan(views[i].source_ids, r[i].source_ids));
    CHECK(SameSpan(views[i].source_spans, r[i].source_spans));
    for (size_t k = 0; k < 3; ++k) {
      const Hypothesis &a = r[i].hypotheses[k], &b = views[i].hypotheses[k];
      CHECK(a.text == b.text);
      CHECK(a.score == b.score);
      CHECK(SameSpan(a.ids, b.ids));
      CHECK(SameSpan(a.tokens, b.tokens));
      CHECK(SameSpan(a.token_logprobs, b.token_logprobs));
      CHECK(SameSpan(a.token_sources, b.token_sources));
      CHECK(SameSpan(a.token_spans, b.token_spans));
      CHECK(!b.attention.empty());
      CHECK(SameSpan(a.attention, b.attention));
    }
  }
  // The first record filled again with a 1-best result without attention: nothing of the old one is left.
  o.n_best = 1, o.return_attention = false, o.return_alignment = false;
  REQUIRE(t->Translate(Span<const std::string_view>(texts.data() + 1, 1), o, &r).ok());
  AssignResult(r[0], &owned[0]);
  REQUIRE(owned[0].hypotheses.size() == 1);
  CHECK(owned[0].hypotheses[0].text == r[0].best().text);
  CHECK(owned[0].hypotheses[0].attention.empty());
  CHECK(owned[0].source_ids.size() == r[0].source_ids.size());
  const Hypothesis v = ViewHypothesis(owned[0].hypotheses[0]);
  CHECK(SameSpan(v.tokens, r[0].best().tokens));
}
