// Several threads: one Model shared by several Translators, and two threads on one Translator (kBusy).
// Its own executable, so the ThreadSanitizer stage of CI builds only the runtime and this file.
#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "session/session.h"
#include "tern/tern.h"
#include "test_util.h"

using namespace tern;
using namespace tern::test;

namespace tern {
Translator::Impl& ImplOf(Translator& t);
}  // namespace tern

TEST_CASE("one Model shared by several Translators in several threads gives the serial results") {
  auto m = LoadOrFail(ModelPath("post-swish", "int8"));
  std::string_view in[] = {"A man in a blue shirt is standing on a ladder.", "Two young children are playing in the sand.",
                           "A woman with a red hat rides a bicycle.", "The dog runs through the green grass."};
  TranslateOptions o;
  o.beam_size = 2;
  std::vector<std::string> serial;
  {
    auto t = MakeTranslator(m);
    Span<const TranslationResult> r;
    REQUIRE(t->Translate(in, o, &r).ok());
    for (const auto& x : r) serial.emplace_back(x.best().text);
  }
  constexpr int kThreads = 3;
  std::vector<std::vector<std::string>> got(kThreads);
  std::vector<std::thread> threads;
  for (int k = 0; k < kThreads; ++k) {
    threads.emplace_back([&, k] {
      auto t = Translator::Create(m, TranslatorConfig{0, 0, 1, 0, 0, 1, nullptr, 0});
      if (!t.ok()) return;
      for (int rep = 0; rep < 3; ++rep) {
        Span<const TranslationResult> r;
        if (!t.value()->Translate(in, o, &r).ok()) return;
        got[k].clear();
        for (const auto& x : r) got[k].emplace_back(x.best().text);
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int k = 0; k < kThreads; ++k) CHECK(got[k] == serial);
}

TEST_CASE("two threads on one Translator: the second call fails with kBusy, nothing is corrupted") {
  auto t = MakeTranslator(LoadOrFail(ModelPath("post-swish", "int8")));
  const std::vector<uint32_t> src = {5, 6, 7, 0};
  Span<const uint32_t> one(src.data(), src.size());
  Span<const TranslationResult> r;
  // Deterministic: a call is marked as running.
  ImplOf(*t).busy = true;
  Status s = t->TranslateIds(Span<const Span<const uint32_t>>(&one, 1), {}, &r);
  CHECK(s.code() == StatusCode::kBusy);
  CHECK(s.message() == "Translator: busy with another call (in another thread, or this is one of its own callbacks): use one Translator per thread");
  ImplOf(*t).busy = false;
  REQUIRE(t->TranslateIds(Span<const Span<const uint32_t>>(&one, 1), {}, &r).ok());
  const std::vector<uint32_t> want = ToVector(r[0].best().ids);
  // Real contention (TSan in CI): every call either runs or reports kBusy. (A caller may not read a
  // result while another thread calls: results live in the arena until the next call.)
  std::atomic<int> busy{0}, ok{0}, other{0};
  auto worker = [&] {
    for (int i = 0; i < 200; ++i) {
      Span<const TranslationResult> out;
      Status st = t->TranslateIds(Span<const Span<const uint32_t>>(&one, 1), {}, &out);
      if (st.code() == StatusCode::kBusy) ++busy;
      else if (st.ok()) ++ok;
      else ++other;
    }
  };
  std::thread a(worker), b(worker);
  a.join();
  b.join();
  CHECK(other.load() == 0);
  CHECK(ok.load() + busy.load() == 400);
  // And the Translator still translates as before.
  REQUIRE(t->TranslateIds(Span<const Span<const uint32_t>>(&one, 1), {}, &r).ok());
  CHECK(ToVector(r[0].best().ids) == want);
  MESSAGE("calls: " << ok.load() << " ran, " << busy.load() << " were refused as busy");
}

// The C API from two threads on one translator (issue: the C wrapper wrote its per-call buffers before the
// busy check, so a call could translate the other thread's text, and its error copies raced to a SIGSEGV).
// Each thread calls 2,000 times with a valid and an invalid-UTF-8 sentence: every call is TERN_BUSY or
// returns that thread's own translation and error, read from its own result set after the call.
TEST_CASE("C API: two threads x 2,000 calls on one translator, each call TERN_BUSY or its own translation") {
  tern_error err;
  tern_model* model = tern_model_load(ModelPath("post-swish", "int8").c_str(), &err);
  REQUIRE_MESSAGE(model != nullptr, err.message);
  tern_translator_params tp = tern_translator_default_params();
  tp.threads = 1;
  tp.max_batch = 2;
  tern_translator* tr = tern_translator_create(model, &tp, &err);
  REQUIRE_MESSAGE(tr != nullptr, err.message);
  tern_model_free(model);
  tern_translate_params p = tern_translate_default_params();
  p.beam_size = 1;
  const char* in[2][2] = {{"A man in a blue shirt is standing on a ladder.", "bad \xff one"},
                          {"Two young children are playing in the sand.", "worse \xc3\x28 two"}};
  std::string want[2], want_error[2];
  tern_results* r = tern_results_create();
  for (int k = 0; k < 2; ++k) {
    REQUIRE(tern_translate(tr, in[k], 2, &p, r, &err) == TERN_OK);
    size_t len = 0;
    const char* text = tern_result_text(r, 0, 0, &len);
    REQUIRE(text != nullptr);
    want[k].assign(text, len);
    want_error[k] = tern_result_error(r, 1);
  }
  tern_results_free(r);
  REQUIRE(want[0] != want[1]);
  std::atomic<int> busy{0}, own{0}, wrong{0};
  auto worker = [&](int k) {
    tern_results* mine = tern_results_create();
    for (int i = 0; i < 2000; ++i) {
      tern_error e;
      const tern_status_code rc = tern_translate(tr, in[k], 2, &p, mine, &e);
      if (rc == TERN_BUSY) {
        ++busy;
        if (tern_result_count(mine) != 0) ++wrong;  // a refused call leaves the set empty
        continue;
      }
      size_t len = 0;
      const char* text = rc == TERN_OK ? tern_result_text(mine, 0, 0, &len) : nullptr;
      const char* error = rc == TERN_OK ? tern_result_error(mine, 1) : nullptr;
      if (text && std::string(text, len) == want[k] && error && want_error[k] == error) ++own;
      else ++wrong;
    }
    tern_results_free(mine);
  };
  std::thread a(worker, 0), b(worker, 1);
  a.join();
  b.join();
  CHECK(wrong.load() == 0);
  CHECK(own.load() + busy.load() == 4000);
  MESSAGE("C API calls: " << own.load() << " returned their own translation, " << busy.load() << " were TERN_BUSY");
  tern_translator_free(tr);
}
