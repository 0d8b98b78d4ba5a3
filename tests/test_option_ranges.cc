// Float options refuse NaN and the infinities, in C++ and C (docs/reliability.md, round three); every other
// range is the field table's (test_fields.cc).
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
#include "test_util.h"

using namespace tern;
using namespace tern::test;

TEST_CASE("float options refuse NaN and the infinities (C++, and in C the infinities: NAN is the file value there)") {
  auto m = LoadOrFail(ModelPath("post-swish", "int8"));
  auto t = MakeTranslator(m);
  std::string_view in[] = {"a man"};
  Span<const TranslationResult> r;
  for (float bad : {std::nanf(""), std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity()}) {
    TranslateOptions o;
    o.length_penalty = bad;
    CHECK(t->Translate(in, o, &r).code() == StatusCode::kInvalidArgument);
    CHECK(t->CheckOptions(o).code() == StatusCode::kInvalidArgument);
    TranslateOptions o2;
    o2.max_length_ratio = bad;
    CHECK(t->Translate(in, o2, &r).code() == StatusCode::kInvalidArgument);
  }
  tern_error err{};
  tern_model* cm = tern_model_load(ModelPath("post-swish", "int8").c_str(), &err);
  REQUIRE(cm);
  tern_translator_params tp = tern_translator_default_params();
  tp.threads = 1;
  tern_translator* ct = tern_translator_create(cm, &tp, &err);
  REQUIRE(ct);
  tern_results* res = tern_results_create();
  const char* texts[] = {"a man"};
  // C: NAN is the documented "the file's value" of these fields (tern.h), so it is not a value to refuse.
  for (float bad : {std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity()}) {
    tern_translate_params p = tern_translate_default_params();
    p.length_penalty = bad;
    CHECK(tern_translate(ct, texts, 1, &p, res, &err) == TERN_INVALID_ARGUMENT);
    p = tern_translate_default_params();
    p.max_length_ratio = bad;
    CHECK(tern_translate(ct, texts, 1, &p, res, &err) == TERN_INVALID_ARGUMENT);
  }
  tern_results_free(res);
  tern_translator_free(ct);
  tern_model_free(cm);
}

