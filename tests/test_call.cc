// The Call (session/call.h): a call's own state lives on its entry point's stack and travels to the stages that
// need it; the session holds none of it. A call that streamed, split texts, returned alignment or attention,
// was stopped by its own callback, or ran return_alternatives' two passes leaves nothing behind: the next call
// on the same Translator gives what a fresh Translator gives, every result field bit for bit
// (base/results_echo.h's format).
#include <string_view>
#include <type_traits>
#include <vector>

#include "base/results_echo.h"
#include "test_util.h"

using namespace tern;
using namespace tern::test;

#include "session/session.h"

namespace {

std::string Plain(Translator& t, Span<const std::string_view> texts) {
  TranslateOptions o;
  o.beam_size = 2, o.n_best = 2, o.return_alignment = true;
  Span<const TranslationResult> r;
  REQUIRE(t.Translate(texts, o, &r).ok());
  return EchoResultsText("plain", r);
}

}  // namespace

TEST_CASE("call: a call leaves nothing on its Translator however it ended") {
  TranslatorConfig cfg;
  cfg.max_beam = 4, cfg.max_n_best = 3, cfg.max_batch = 8, cfg.attention = true;
  auto m = LoadOrFail(BundledModel());
  const std::vector<std::string_view> texts = {"A man in a blue shirt. A dog runs.", "Two men."};
  const Span<const std::string_view> both(texts.data(), 2);
  const std::string want = Plain(*MakeTranslator(m, cfg), both);
  auto t = MakeTranslator(m, cfg);
  Span<const TranslationResult> r;
  // Paragraphs (origins), streaming, alignment: a whole call.
  TranslateOptions o;
  o.return_alignment = true;
  o.on_token = [](const TokenEvent&, void*) { return true; };
  REQUIRE(t->Translate(both, o, &r).ok());
  CHECK(Plain(*t, both) == want);
  // Stopped by its own callback in the middle.
  o.on_token = [](const TokenEvent&, void*) { return false; };
  CHECK(t->Translate(both, o, &r).code() == StatusCode::kCancelled);
  CHECK(Plain(*t, both) == want);
  // Attention (its own decoding pass), on one sentence per text.
  TranslateOptions att;
  att.return_attention = true, att.split_sentences = false;
  REQUIRE(t->Translate(both, att, &r).ok());
  CHECK(!r[1].best().attention.empty());
  CHECK(Plain(*t, both) == want);
  // return_alternatives (expansion, then sampling keys by alternative).
  TranslateOptions alt;
  alt.alternatives = 3;
  REQUIRE(t->Translate(Span<const std::string_view>(texts.data() + 1, 1), alt, &r).ok());
  CHECK(Plain(*t, both) == want);
}

TEST_CASE("call: every entry point states a request and an error leaves no results behind") {
  TranslatorConfig cfg;
  cfg.max_batch = 4;
  auto m = LoadOrFail(BundledModel());
  auto t = MakeTranslator(m, cfg);
  const std::vector<std::string_view> texts = {"A dog runs.", "Two men."};
  const Span<const std::string_view> both(texts.data(), 2);
  Span<const TranslationResult> r;
  REQUIRE(t->Translate(both, TranslateOptions(), &r).ok());
  REQUIRE(r.size() == 2);
  // Each kind, with an option out of its range: the error names it, and *results holds none of the last call's.
  TranslateOptions bad;
  bad.beam_size = 0;
  const Status st = t->Translate(both, bad, &r);
  CHECK(st.code() == StatusCode::kInvalidArgument);
  CHECK(st.message().find("beam_size") != std::string::npos);
  CHECK(r.empty());
  REQUIRE(t->Translate(both, TranslateOptions(), &r).ok());
  CHECK(!t->Score(both, both, bad, &r).ok());
  CHECK(r.empty());
  const std::vector<uint32_t> ids = {42, 7, 0};
  const Span<const uint32_t> one(ids.data(), ids.size());
  const Span<const Span<const uint32_t>> sources(&one, 1);
  REQUIRE(t->TranslateIds(sources, TranslateOptions(), &r).ok());
  CHECK(r.size() == 1);
  CHECK(!t->TranslateIds(sources, bad, &r).ok());
  CHECK(r.empty());
  REQUIRE(t->ScoreIds(sources, sources, TranslateOptions(), &r).ok());
  CHECK(r.size() == 1);
  CHECK(!t->ScoreIds(sources, sources, bad, &r).ok());
  CHECK(r.empty());
  // Too many inputs: refused as a whole, nothing left either.
  const std::vector<std::string_view> five(5, "A dog.");
  REQUIRE(t->Translate(both, TranslateOptions(), &r).ok());
  CHECK(t->Translate(Span<const std::string_view>(five.data(), 5), TranslateOptions(), &r).code() == StatusCode::kInvalidArgument);
  CHECK(r.empty());
}
