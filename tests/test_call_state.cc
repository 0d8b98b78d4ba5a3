// The running call's state on its Translator (session/call_state.h): every entry point's CallScope leaves it
// as a new call expects it, whether the call ended normally, was stopped by its own callback, or ran
// return_alternatives' two passes.
#include <string_view>
#include <vector>

#include "test_util.h"

using namespace tern;
using namespace tern::test;

namespace tern {
Translator::Impl& ImplOf(Translator& t);
}

#include "session/session.h"

TEST_CASE("call state: what a call sets on its Translator is as before a call after it, however it ended") {
  TranslatorConfig cfg;
  cfg.max_beam = 4, cfg.max_n_best = 3, cfg.max_batch = 8;
  auto t = MakeTranslator(LoadOrFail(BundledModel()), cfg);
  const std::vector<std::string_view> texts = {"A man in a blue shirt. A dog runs.", "Two men."};
  Span<const TranslationResult> r;
  auto check_reset = [&] {
    const CallState& c = ImplOf(*t).call;
    CHECK(c.origins == nullptr);
    CHECK(c.expand == 0);
    CHECK(c.alternatives == 0);
    CHECK(c.attention == nullptr);
    CHECK(c.alignment_layer == -1);
    CHECK_FALSE(c.streaming);
  };
  // Paragraphs (origins), streaming, alignment: a whole call.
  TranslateOptions o;
  o.return_alignment = true;
  o.on_token = [](const TokenEvent&, void*) { return true; };
  REQUIRE(t->Translate(Span<const std::string_view>(texts.data(), 2), o, &r).ok());
  check_reset();
  // Stopped by its own callback in the middle.
  o.on_token = [](const TokenEvent&, void*) { return false; };
  CHECK(t->Translate(Span<const std::string_view>(texts.data(), 2), o, &r).code() == StatusCode::kCancelled);
  check_reset();
  // return_alternatives (expansion, then sampling keys by alternative).
  TranslateOptions alt;
  alt.alternatives = 3;
  REQUIRE(t->Translate(Span<const std::string_view>(texts.data() + 1, 1), alt, &r).ok());
  check_reset();
}
