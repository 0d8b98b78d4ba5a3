// TranslateOptions::alternatives (CTranslate2's return_alternatives, session/alternatives_call.h) against the
// PyTorch reference (converter/pytorch/generate.py alternatives()) on the tiny models, greedy and beam;
// distinct first tokens in order; per-sentence and whole-call errors; the bundled model's texts; the engine.
#include <cmath>
#include <set>

#include "tern/engine.h"
#include "test_util.h"

using namespace tern;
using namespace tern::test;

TEST_CASE("f32: alternatives after a target prefix, greedy and beam 4, equal the reference (all inputs in one call)") {
  size_t compared = 0;
  for (const std::string& v : Variants()) {
    CAPTURE(v);
    const auto ref = ReadJson(ModelsDir() + "/" + v + ".ref.json");
    TranslatorConfig cfg;
    cfg.max_beam = 4;
    cfg.max_n_best = 4;
    cfg.max_batch = 24;
    auto t = MakeTranslator(LoadOrFail(ModelPath(v, "f32")), cfg);
    std::vector<std::vector<uint32_t>> srcs, prefixes;
    for (const auto& c : ref["cases"]) srcs.push_back(Ids(c["src"])), prefixes.push_back(Ids(c["prefix"]));
    std::vector<Span<const uint32_t>> s1, p1;
    for (uint32_t beam : {1u, 4u}) {
      CAPTURE(beam);
      TranslateOptions o;
      o.max_length = ref["max_length"].get<uint32_t>();
      o.beam_size = beam;
      o.alternatives = 3;
      o.target_prefix_ids = Spans(prefixes, &p1);
      Span<const TranslationResult> r;
      REQUIRE(t->TranslateIds(Spans(srcs, &s1), o, &r).ok());
      REQUIRE(r.size() == srcs.size());
      for (size_t i = 0; i < srcs.size(); ++i) {
        CAPTURE(i);
        const auto& want = ref["cases"][i]["alternatives"][beam == 1 ? "greedy" : "beam"];
        REQUIRE(r[i].ok());
        REQUIRE(r[i].hypotheses.size() == want.size());
        std::set<uint32_t> firsts;
        for (size_t h = 0; h < want.size(); ++h) {
          const auto ids = ToVector(r[i].hypotheses[h].ids);
          CHECK(ids == Ids(want[h][0]));
          CHECK(r[i].hypotheses[h].score == doctest::Approx(want[h][1].get<float>()).epsilon(1e-3));
          REQUIRE(ids.size() > prefixes[i].size());
          CHECK(std::equal(prefixes[i].begin(), prefixes[i].end(), ids.begin()));
          firsts.insert(ids[prefixes[i].size()]);
          ++compared;
        }
        CHECK(firsts.size() == want.size());  // distinct
        // In the first token's order: its log-probability (the score less the continuation's, which
        // hypothesis h's token_logprobs hold) does not rise.
      }
    }
  }
  CHECK(compared == Variants().size() * 8 * 3 * 2);
}

TEST_CASE("alternatives: each is the prefixed translation of prefix + its first token, in that token's order") {
  for (const char* w : {"f32", "int8"}) {
    CAPTURE(w);
    TranslatorConfig cfg;
    cfg.max_n_best = 4;
    cfg.max_beam = 4;
    cfg.max_batch = 8;
    auto t = MakeTranslator(LoadOrFail(ModelPath("post-rules", w)), cfg);
    const uint32_t eos = t->model().hparams().eos_id;
    const std::vector<std::vector<uint32_t>> srcs = {{5, 6, 7, eos}, {11, 12, eos}};
    const std::vector<std::vector<uint32_t>> prefixes = {{9}, {}};
    std::vector<Span<const uint32_t>> s1, p1;
    TranslateOptions o;
    o.max_length = 20;
    o.beam_size = 1;
    o.alternatives = 4;
    o.target_prefix_ids = Spans(prefixes, &p1);
    Span<const TranslationResult> r;
    REQUIRE(t->TranslateIds(Spans(srcs, &s1), o, &r).ok());
    std::vector<std::vector<std::vector<uint32_t>>> got(2);
    std::vector<std::vector<float>> scores(2);
    for (size_t i = 0; i < 2; ++i) {
      REQUIRE(r[i].ok());
      REQUIRE(r[i].hypotheses.size() == 4);
      for (const Hypothesis& h : r[i].hypotheses) got[i].push_back(ToVector(h.ids)), scores[i].push_back(h.score);
    }
    for (size_t i = 0; i < 2; ++i) {
      float last = 0.f;
      for (size_t j = 0; j < 4; ++j) {
        const std::vector<std::vector<uint32_t>> one_prefix = {
            std::vector<uint32_t>(got[i][j].begin(), got[i][j].begin() + prefixes[i].size() + 1)};
        TranslateOptions p;
        p.max_length = 20;
        p.beam_size = 1;
        std::vector<Span<const uint32_t>> pp, ss;
        p.target_prefix_ids = Spans(one_prefix, &pp);
        Span<const TranslationResult> one;
        REQUIRE(t->TranslateIds(Spans({srcs[i]}, &ss), p, &one).ok());
        REQUIRE(one[0].ok());
        CHECK(ToVector(one[0].best().ids) == got[i][j]);
        const float first = scores[i][j] - one[0].best().score;  // the first token's log-probability
        CHECK(first < 0.f);
        if (j > 0) CHECK(first <= last + 1e-5f);
        last = first;
      }
    }
  }
}

TEST_CASE("alternatives: a sentence without room or with a bad prefix fails alone, wrong calls fail whole") {
  TranslatorConfig cfg;
  cfg.max_n_best = 3;
  cfg.max_beam = 3;
  cfg.max_batch = 9;
  auto t = MakeTranslator(LoadOrFail(ModelPath("pre-relu", "f32")), cfg);
  const Hyperparameters& hp = t->model().hparams();
  const std::vector<uint32_t> src = {5, 6, 7, hp.eos_id};
  const std::vector<std::vector<uint32_t>> prefixes = {{9}, std::vector<uint32_t>(19, 9), {hp.target_vocab_size}};
  std::vector<std::vector<uint32_t>> srcs(3, src);
  std::vector<Span<const uint32_t>> s1, p1;
  TranslateOptions o;
  o.max_length = 20;
  o.alternatives = 3;
  o.target_prefix_ids = Spans(prefixes, &p1);
  Span<const TranslationResult> r;
  REQUIRE(t->TranslateIds(Spans(srcs, &s1), o, &r).ok());
  CHECK(r[0].ok());
  CHECK(r[0].hypotheses.size() == 3);
  CHECK(r[1].error == StatusCode::kInvalidArgument);  // 19 tokens: the 20th may only be </s>
  CHECK(std::string(r[1].error_message).rfind("return_alternatives: no token may follow the target prefix", 0) == 0);
  CHECK(r[2].error == StatusCode::kInvalidArgument);
  CHECK(std::string(r[2].error_message).find("is outside the target vocabulary") != std::string::npos);
  o.min_alternative_expansion_prob = 1.f;
  REQUIRE(t->TranslateIds(Spans(srcs, &s1), o, &r).ok());
  CHECK(std::string(r[0].error_message) == "return_alternatives: no first token reaches min_alternative_expansion_prob");
  o.min_alternative_expansion_prob = 0.f;
  // Wrong as a whole.
  o.n_best = 2;
  CHECK(t->CheckOptions(o).message() == "return_alternatives: n_best 2: the alternatives are the hypotheses (n_best 1)");
  o.n_best = 1;
  o.alternatives = 4;
  CHECK(t->CheckOptions(o).message() == "return_alternatives: 4 alternatives exceed max_n_best 3");
  o.alternatives = 3;
  std::vector<std::vector<uint32_t>> four(4, src), four_prefixes(4, {9});
  o.target_prefix_ids = Spans(four_prefixes, &p1);
  const Status s = t->TranslateIds(Spans(four, &s1), o, &r);
  CHECK(s.message() == "return_alternatives: 4 inputs x 3 alternatives exceed max_batch 9 (each alternative is a sentence of "
                       "the second pass): give at most 3 inputs");
  o.min_alternative_expansion_prob = 2.f;
  CHECK(t->CheckOptions(o).message() == "min_alternative_expansion_prob 2: must be in [0, 1]");
  o.min_alternative_expansion_prob = 0.f;
  o.target_prefix_ids = {};
  o.markup = Markup::kHtml;
  CHECK(t->CheckOptions(o).message() == "return_alternatives: not with markup, keep_placeholders, keep_spans or a glossary");
  o.markup = Markup::kNone;
  TranslateOptions so;
  so.alternatives = 2;
  const std::vector<std::vector<uint32_t>> tg = {{9}};
  std::vector<Span<const uint32_t>> t1;
  CHECK(t->ScoreIds(Spans({src}, &s1), Spans(tg, &t1), so, &r).code() == StatusCode::kInvalidArgument);
}

TEST_CASE("bundled model: alternatives to a text prefix, a blank text, and the engine gives the same") {
  auto model = LoadOrFail(BundledModel());
  TranslatorConfig cfg;
  cfg.max_n_best = 3;
  cfg.max_beam = 4;
  cfg.max_batch = 6;
  auto t = MakeTranslator(model, cfg);
  const std::string_view src[] = {"A man rides a bike on the street.", "  "};
  const std::string_view prefix[] = {"Ein", ""};
  TranslateOptions o;
  o.alternatives = 3;
  o.beam_size = 2;
  o.target_prefix = Span<const std::string_view>(prefix, 2);
  Span<const TranslationResult> r;
  REQUIRE(t->Translate(Span<const std::string_view>(src, 2), o, &r).ok());
  REQUIRE(r[0].ok());
  REQUIRE(r[0].hypotheses.size() == 3);
  std::set<std::string> texts;
  std::vector<std::string> want;
  for (const Hypothesis& h : r[0].hypotheses) {
    MESSAGE("alternative: " << h.text << " (" << h.score << ")");
    CHECK(std::string(h.text).rfind("Ein", 0) == 0);
    texts.insert(std::string(h.text));
    want.emplace_back(h.text);
  }
  CHECK(texts.size() == 3);
  REQUIRE(r[1].ok());
  CHECK(r[1].best().text.empty());
  EngineConfig ec;
  ec.translator = cfg;
  ec.replicas = 1;
  auto engine = Engine::Create(model, ec);
  REQUIRE(engine.ok());
  Request req;
  req.texts = {std::string(src[0])};
  const std::string_view one_prefix[] = {"Ein"};
  req.options = o;
  req.options.target_prefix = Span<const std::string_view>(one_prefix, 1);
  auto ticket = (*engine)->Submit(std::move(req));
  REQUIRE(ticket.ok());
  const RequestOutcome& outcome = ticket->Wait();
  REQUIRE(outcome.status.ok());
  REQUIRE(outcome.results.size() == 1);
  REQUIRE(outcome.results[0].hypotheses.size() == 3);
  for (size_t j = 0; j < 3; ++j) CHECK(outcome.results[0].hypotheses[j].text == want[j]);
}
