// The field table (runtime/fields/fields.py) reaches the library: a non-default value of every option, set
// through C++, arrives in each call as the library's echo shows it (TERN_ECHO_OPTIONS, base/options_echo.h),
// also through both engine paths (static and continuous calls), and the engine's sharing rule keeps requests
// that differ in an option apart. Every result field an engine request returns, static or continuous, is what
// the synchronous call returns (compared in the results echo's format, base/results_echo.h). The other
// bindings' fields tests: tests/test_c_fields.c,
// tests/python_package/test_fields.py, the Java test, tests/fields/cli_fields_test.py.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "base/results_echo.h"
#include "tern/engine.h"
#include "tern/glossary.h"
#include "tern/logits_processor.h"
#include "test_util.h"

using namespace tern;
using namespace tern::test;

namespace {

#include "fields/cpp_values.inc"

// TERN_ECHO_OPTIONS pointed at a fresh file for the scope; Lines() reads what the calls echoed.
struct Echo {
  std::string path;
  Echo() {
    path = (std::filesystem::temp_directory_path() / ("tern-echo-" + std::to_string(getpid()))).string();
    std::filesystem::remove(path);
    setenv("TERN_ECHO_OPTIONS", path.c_str(), 1);
  }
  ~Echo() {
    unsetenv("TERN_ECHO_OPTIONS");
    std::filesystem::remove(path);
  }
  std::vector<std::string> Lines() const {
    std::vector<std::string> out;
    std::ifstream in(path);
    for (std::string l; std::getline(in, l);) out.push_back(l);
    return out;
  }
  // The first line of `entry`, or "".
  std::string Line(const std::string& entry) const {
    for (const std::string& l : Lines())
      if (l.rfind(entry + " ", 0) == 0) return l;
    return "";
  }
};

bool Has(const std::string& line, const std::string& pair) { return (" " + line + " ").find(" " + pair + " ") != std::string::npos; }

struct Noop : LogitsProcessor {
  void Process(LogitsRow&) override {}
};

}  // namespace

TEST_CASE("fields: every option set through C++ arrives in the call") {
  auto m = LoadOrFail(BundledModel());
  auto t = MakeTranslator(m, TranslatorConfig{0, 0, 4, 0, 0, 1, nullptr, 0, true});
  Echo echo;
  TranslateOptions o;
  SetFieldValues(&o);
  // The special rows, set by hand: callbacks, the glossary, per-input data (one input).
  auto glossary = Glossary::Parse(*m, "dog\tHund\n", "g.tsv").value();
  Noop p;
  LogitsProcessor* ps[] = {&p};
  int user = 0;
  std::string_view prefix[] = {"Ein"};
  const uint32_t ids[] = {5};
  Span<const uint32_t> prefix_ids[] = {Span<const uint32_t>(ids, 1)};
  const uint32_t ends[] = {7};
  Span<const uint32_t> suppress[] = {Span<const uint32_t>(ids, 1)};
  KeepSpan keep[] = {{0, {0, 1}}};
  const uint64_t keys[] = {42};
  o.on_token = [](const TokenEvent&, void*) { return true; };
  o.on_token_user_data = &user;
  o.abort = [](void*) { return false; };
  o.abort_user_data = &user;
  o.logits_processors = ps;
  o.glossary = glossary.get();
  o.target_prefix = prefix;
  o.target_prefix_ids = prefix_ids;
  o.suppress_sequences = suppress;
  o.end_tokens = Span<const uint32_t>(ends, 1);
  o.keep_spans = keep;
  o.sampling_keys = Span<const uint64_t>(keys, 1);
  std::string_view in[] = {"A dog runs."};
  Span<const TranslationResult> r;
  CHECK_FALSE(t->Translate(in, o, &r).ok());  // the values together are no valid call: the echo came first
  const std::string line = echo.Line("translate");
  REQUIRE_FALSE(line.empty());
  for (const std::string& pair : FieldEcho()) CHECK_MESSAGE(Has(line, pair), pair);
  for (const char* pair : {"on_token=set", "on_token_user_data=set", "abort=set", "abort_user_data=set", "logits_processors=1",
                           "glossary=set", "target_prefix=1", "target_prefix_ids=1", "suppress_sequences=1", "end_tokens=1",
                           "keep_spans=1", "sampling_keys=1"})
    CHECK_MESSAGE(Has(line, pair), pair);
}

TEST_CASE("fields: each option reaches the engine's call, static or continuous, and requests that differ in it do not share one") {
  auto m = LoadOrFail(BundledModel());
  const std::vector<std::string>& pairs = FieldEcho();
  TranslateOptions all;
  SetFieldValues(&all);
  for (bool continuous : {false, true}) {
    EngineConfig c;
    c.replicas = 1, c.continuous_batching = continuous;
    c.translator.max_n_best = 4, c.translator.attention = true;
    auto e = Engine::Create(m, c).value();
    for (size_t f = 0; f < pairs.size(); ++f) {
      const std::string name = pairs[f].substr(0, pairs[f].find('='));
      CAPTURE(continuous);
      CAPTURE(name);
      // This option alone at its test value, the others at their defaults.
      TranslateOptions one;
      REQUIRE(CopyField(name, all, &one));
      const std::string want = pairs[f];
      Echo echo;
      Request a, b;
      a.texts = {"A dog runs on the beach."};
      b.texts = a.texts;
      b.options = one;
      Result<Ticket> ta = e->Submit(std::move(a));
      Result<Ticket> tb = e->Submit(std::move(b));
      REQUIRE(ta.ok());
      bool received = false;  // the engine received it (b's submission; a worker may have begun a already)
      for (const std::string& l : echo.Lines()) received |= l.rfind("submit ", 0) == 0 && Has(l, want);
      CHECK(received);
      if (!tb.ok()) {  // refused at submission (a value the bundled model has no use for: a language)
        CHECK(name == "target_lang");
        continue;
      }
      const RequestOutcome& ob = tb.value().Wait();
      ta.value().Wait();
      // The worker's call carried it (a translate, or a continuous call).
      bool carried = false;
      for (const std::string& l : echo.Lines())
        if (l.rfind("submit ", 0) != 0 && l.rfind("check ", 0) != 0 && Has(l, want)) carried = true;
      CHECK(carried);
      CHECK(ob.shared_with == 0);  // it differs from the first request in this option: never in one call
    }
  }
}

TEST_CASE("fields: every result field of an engine request is the synchronous call's, static or continuous") {
  auto m = LoadOrFail(BundledModel());
  const std::vector<std::string> texts = {"A dog runs on the grass.", "", "Two men play music.", "A girl reads a book."};
  const std::vector<std::string_view> views(texts.begin(), texts.end());
  TranslatorConfig tc;
  tc.max_n_best = 2, tc.attention = true;
  auto t = Translator::Create(m, tc).value();
  for (bool continuous : {false, true}) {
    CAPTURE(continuous);
    TranslateOptions o;
    o.beam_size = 2, o.n_best = 2, o.return_scores = true, o.return_alignment = true;
    o.return_attention = !continuous;  // a continuous call refuses it (the table's CONTINUOUS column)
    Span<const TranslationResult> sync;
    REQUIRE(t->Translate(Span<const std::string_view>(views.data(), views.size()), o, &sync).ok());
    const std::string want = EchoResultsText("x", sync);
    EngineConfig c;
    c.replicas = 1, c.continuous_batching = continuous, c.translator = tc;
    auto e = Engine::Create(m, c).value();
    Request r;
    r.texts = texts;
    r.options = o;
    Result<Ticket> ticket = e->Submit(std::move(r));
    REQUIRE(ticket.ok());
    const RequestOutcome& out = ticket.value().Wait();
    REQUIRE(out.status.ok());
    std::vector<Hypothesis> hyps;
    std::vector<TranslationResult> got;
    ViewResults(out.results, &hyps, &got);
    CHECK(EchoResultsText("x", Span<const TranslationResult>(got.data(), got.size())) == want);
    // The fields asked for were filled, not left empty: attention in the static call, the alignment in both.
    if (!continuous) CHECK(want.find(" attention=3") != std::string::npos);
    CHECK(want.find(" token_sources=0") != std::string::npos);  // a token aligned to source position 0 (or more)
    CHECK(want.find("token_sources=-1") == std::string::npos);  // none left unaligned (-1: not asked)
  }
}
