// A callback may call anything (docs/reliability.md, rounds three and four): calling back into its own
// Translator gets kBusy and nothing deadlocks; destroying its own Translator defers the session's end to the
// end of the call. The engine's callbacks: test_engine_callbacks.cc (ThreadSanitizer runs them).
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

namespace {

// A logits processor and callbacks that call back into their own Translator: each gets kBusy.
struct Reentry {
  Translator* t = nullptr;
  std::vector<StatusCode> codes;
  void Call() {
    std::string_view in[] = {"A dog."};
    Span<const TranslationResult> r;
    codes.push_back(t->Translate(in, TranslateOptions(), &r).code());
  }
};

struct ReentrantProcessor : LogitsProcessor {
  Reentry* re = nullptr;
  void Process(LogitsRow& row) override {
    if (row.step == 0 && row.hypothesis == 0) re->Call();
  }
};

}  // namespace

TEST_CASE("a callback that calls back into its own Translator gets kBusy, and nothing deadlocks") {
  auto m = LoadOrFail(BundledModel());
  auto t = MakeTranslator(m);
  Reentry re;
  re.t = t.get();
  std::string_view in[] = {"A dog runs."};
  Span<const TranslationResult> r;
  {  // token callback
    TranslateOptions o;
    o.on_token = [](const TokenEvent&, void* u) {
      static_cast<Reentry*>(u)->Call();
      return true;
    };
    o.on_token_user_data = &re;
    REQUIRE(t->Translate(in, o, &r).ok());
  }
  {  // abort callback
    TranslateOptions o;
    o.abort = [](void* u) {
      static_cast<Reentry*>(u)->Call();
      return false;
    };
    o.abort_user_data = &re;
    REQUIRE(t->Translate(in, o, &r).ok());
  }
  {  // logits processor
    ReentrantProcessor p;
    p.re = &re;
    LogitsProcessor* ps[] = {&p};
    TranslateOptions o;
    o.logits_processors = Span<LogitsProcessor* const>(ps, 1);
    REQUIRE(t->Translate(in, o, &r).ok());
  }
  REQUIRE(re.codes.size() >= 3);
  for (StatusCode c : re.codes) CHECK(c == StatusCode::kBusy);
  CHECK(r[0].ok());
}

TEST_CASE("a callback may destroy its own Translator, the session going when the call returns") {
  auto m = LoadOrFail(BundledModel());
  struct Ctx {
    std::unique_ptr<Translator> t;
    int events = 0;
  } ctx;
  ctx.t = MakeTranslator(m);
  Translator* raw = ctx.t.get();
  TranslateOptions o;
  o.beam_size = 1;
  o.on_token = [](const TokenEvent&, void* u) {
    auto* c = static_cast<Ctx*>(u);
    ++c->events;
    c->t.reset();  // the Translator goes; its session stays until this call returns
    return true;
  };
  o.on_token_user_data = &ctx;
  std::string_view in[] = {"A dog runs on the beach."};
  Span<const TranslationResult> r;
  const Status s = raw->Translate(in, o, &r);
  CHECK(s.ok());
  CHECK(ctx.events > 1);  // the call went on to the end
  CHECK(ctx.t == nullptr);
}

