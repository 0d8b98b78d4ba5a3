// A glossary at its limits (docs/reliability.md, round three): early_stopping true never gives a hypothesis at
// -inf, a term matches its own text only (next to brackets, quotes, apostrophes), a glossary made for other
// vocabularies fails the call, and terms that cannot all fit before the output cap fail their sentence alone.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "marian_checkpoint.h"
#include "markup/html.h"
#include "markup/protect.h"
#include "markup/transfer.h"
#include "tern/glossary.h"
#include "tern/logits_processor.h"
#include "tern/tern.h"
#include "tern/tokenize.h"
#include "glossary_util.h"
#include "test_util.h"

using namespace tern;
using namespace tern::test;

namespace {


}  // namespace

TEST_CASE("a glossary with early_stopping true gives whole translations, never a hypothesis at -inf") {
  auto m = LoadOrFail(BundledModel());
  auto t = MakeTranslator(m, [] {
    TranslatorConfig c;
    c.max_n_best = 4;
    return c;
  }());
  auto g = GlossaryOf(*m, "dog\tKöter\n");
  std::string_view in[] = {"A dog runs through the snow."};
  for (EarlyStopping es : {EarlyStopping::kTrue, EarlyStopping::kFalse, EarlyStopping::kNever}) {
    CAPTURE(static_cast<int>(es));
    TranslateOptions o;
    o.glossary = g.get();
    o.beam_size = 4;
    o.n_best = 4;
    o.early_stopping = es;
    Span<const TranslationResult> r;
    REQUIRE(t->Translate(in, o, &r).ok());
    REQUIRE(r[0].ok());
    for (const Hypothesis& h : r[0].hypotheses) {
      CAPTURE(h.text);
      CHECK(std::isfinite(h.score));
      CHECK(h.score > -1e3f);
      CHECK(Count(h.text, "Köter") == 1);
      CHECK(h.text.size() > 10);  // a whole sentence, not "Ein"
    }
  }
}

TEST_CASE("a term matches its own text only, also next to brackets, quotes and apostrophes") {
  auto m = LoadOrFail(BundledModel());
  auto t = MakeTranslator(m);
  auto g = GlossaryOf(*m, "☃\tSchneemann\ndog\tKöter\n");
  std::string_view in[] = {"A ✈ flies over the city.", "A ☃ stands in the garden.", "A (dog) runs.", "A \"dog\" runs.",
                           "The dog's ball is red.", "Visit www.dog.org or mail dog@example.org today.",
                           "The hot-dog stand is open.", "They sell dog-food here."};
  TranslateOptions o;
  o.glossary = g.get();
  o.split_sentences = false;
  Span<const TranslationResult> r;
  REQUIRE(t->Translate(in, o, &r).ok());
  for (const auto& x : r) REQUIRE(x.ok());
  CHECK(Count(r[0].best().text, "Schneemann") == 0);  // ✈ is another unknown character, not ☃
  CHECK(Count(r[1].best().text, "Schneemann") == 1);
  CHECK(Count(r[2].best().text, "Köter") == 1);
  CHECK(Count(r[3].best().text, "Köter") == 1);
  CHECK(Count(r[4].best().text, "Köter") == 1);
  CHECK(Count(r[5].best().text, "Köter") == 0);  // inside a URL and an e-mail address
  CHECK(Count(r[6].best().text, "Köter") == 0);  // inside hyphenated names
  CHECK(Count(r[7].best().text, "Köter") == 0);
}

TEST_CASE("a glossary made for other vocabularies fails the call (C++ and C)") {
  auto tiny = LoadOrFail(ModelPath("post-swish", "int8"));
  auto bundled = LoadOrFail(BundledModel());
  auto g = Glossary::Parse(*tiny, "man\tman\n", "g.tsv");
  REQUIRE_MESSAGE(g.ok(), g.status().message());
  auto t = MakeTranslator(bundled);
  TranslateOptions o;
  o.glossary = g.value().get();
  std::string_view in[] = {"A man runs."};
  Span<const TranslationResult> r;
  const Status s = t->Translate(in, o, &r);
  CHECK(s.code() == StatusCode::kInvalidArgument);
  CHECK(s.message().find("glossary: made for a model with other vocabularies") != std::string::npos);
  CHECK(t->CheckOptions(o).code() == StatusCode::kInvalidArgument);
  const uint32_t ids[] = {5, 0};
  Span<const uint32_t> src[] = {Span<const uint32_t>(ids, 2)};
  CHECK(t->TranslateIds(src, o, &r).code() == StatusCode::kInvalidArgument);

  // The same through the C API.
  tern_error err{};
  tern_model* cm = tern_model_load(BundledModel().c_str(), &err);
  REQUIRE(cm);
  tern_model* ctiny = tern_model_load(ModelPath("post-swish", "int8").c_str(), &err);
  REQUIRE(ctiny);
  const char* sources[] = {"man"};
  const char* targets[] = {"man"};
  tern_glossary* cg = tern_glossary_create(ctiny, sources, targets, 1, 0, &err);
  REQUIRE(cg);
  tern_translator_params tp = tern_translator_default_params();
  tp.threads = 1;
  tern_translator* ct = tern_translator_create(cm, &tp, &err);
  REQUIRE(ct);
  tern_translate_params p = tern_translate_default_params();
  p.glossary = cg;
  const char* texts[] = {"A man runs."};
  tern_results* res = tern_results_create();
  CHECK(tern_translate(ct, texts, 1, &p, res, &err) == TERN_INVALID_ARGUMENT);
  CHECK(std::string(err.message).find("other vocabularies") != std::string::npos);
  tern_results_free(res);
  tern_translator_free(ct);
  tern_glossary_free(cg);
  tern_model_free(ctiny);
  tern_model_free(cm);
}

TEST_CASE("terms that cannot all fit before the output cap fail their sentence alone, with the reason") {
  auto m = LoadOrFail(BundledModel());
  auto t = MakeTranslator(m);
  std::string target;  // a term of 30 tokens
  for (int i = 0; i < 30; ++i) target += std::string(i ? " " : "") + "Hund";
  auto g = GlossaryOf(*m, "dog\t" + target + "\n");
  std::string_view in[] = {"A dog, a dog, a dog, a dog and a dog.", "A dog sleeps."};
  TranslateOptions o;
  o.glossary = g.get();
  o.split_sentences = false;
  Span<const TranslationResult> r;
  REQUIRE(t->Translate(in, o, &r).ok());
  CHECK(r[0].error == StatusCode::kResourceExhausted);
  CHECK(std::string(r[0].error_message).find("glossary terms need 150 target tokens; this sentence may generate 128") == 0);
  REQUIRE(r[1].ok());
  CHECK(Count(r[1].best().text, "Hund") == 30);
}

