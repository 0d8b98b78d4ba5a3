// Target prefixes (TranslateOptions::target_prefix / target_prefix_ids) and scoring (Translator::Score /
// ScoreIds) against the PyTorch reference (converter/pytorch/generate.py: greedy and beam search with
// prefixes = transformers' generate() with decoder_input_ids = [start] + prefix; score()), on the tiny
// models; batches equal to sentences alone; every per-sentence error.
#include <cmath>

#include "test_util.h"

using namespace tern;
using namespace tern::test;

namespace {

// Log-probabilities from the reference (null: -inf, which JSON cannot hold).
std::vector<float> Logprobs(const nlohmann::json& j) {
  std::vector<float> v;
  for (const auto& x : j) v.push_back(x.is_null() ? -INFINITY : x.get<float>());
  return v;
}

// Within tol, relative beyond magnitude 1 (a log-probability of -18 holds 6 significant digits in float).
bool Near(float a, float b, float tol) {
  return (std::isinf(a) && a == b) || std::fabs(a - b) <= tol * std::max(1.f, std::fabs(b));
}

}  // namespace

TEST_CASE("f32: target prefixes, greedy and beam (transformers 5.x and 4.x rules), equal the reference") {
  struct Config {
    const char* name;
    HfRules rules;
    EarlyStopping early;
    float length_penalty;
  };
  const Config configs[] = {
      {"hf5", HfRules::kTransformers5, EarlyStopping::kFalse, 1.f},
      {"hf4", HfRules::kTransformers4, EarlyStopping::kFalse, 1.f},
      {"hf5_never_lp2", HfRules::kTransformers5, EarlyStopping::kNever, 2.f},
      {"hf4_never_lp0.6", HfRules::kTransformers4, EarlyStopping::kNever, 0.6f},
  };
  size_t compared = 0;
  for (const std::string& v : Variants()) {
    CAPTURE(v);
    const auto ref = ReadJson(ModelsDir() + "/" + v + ".ref.json");
    TranslatorConfig cfg;
    cfg.max_beam = 4;
    cfg.max_n_best = 4;
    auto t = MakeTranslator(LoadOrFail(ModelPath(v, "f32")), cfg);
    for (const auto& c : ref["cases"]) {
      const auto src = Ids(c["src"]), prefix = Ids(c["prefix"]);
      const Span<const uint32_t> one(src.data(), src.size()), pre(prefix.data(), prefix.size());
      TranslateOptions o;
      o.max_length = ref["max_length"].get<uint32_t>();
      o.beam_size = 1;
      o.target_prefix_ids = Span<const Span<const uint32_t>>(&pre, 1);
      Span<const TranslationResult> r;
      REQUIRE(t->TranslateIds(Span<const Span<const uint32_t>>(&one, 1), o, &r).ok());
      REQUIRE(r[0].ok());
      const auto& g = c["prefix_greedy"];
      CHECK(ToVector(r[0].best().ids) == Ids(g[0]));
      CHECK(r[0].best().score == doctest::Approx(g[1].get<float>()).epsilon(1e-3));
      const auto lps = Logprobs(g[2]);
      REQUIRE(r[0].best().token_logprobs.size() == lps.size());
      for (size_t k = 0; k < lps.size(); ++k) CHECK(Near(r[0].best().token_logprobs[k], lps[k], 1e-4f));
      for (const Config& k : configs) {
        CAPTURE(k.name);
        o.beam_size = 4;
        o.n_best = 4;
        o.hf_rules = k.rules;
        o.early_stopping = k.early;
        o.length_penalty = k.length_penalty;
        REQUIRE(t->TranslateIds(Span<const Span<const uint32_t>>(&one, 1), o, &r).ok());
        const auto& want = c["prefix_beam"][k.name];
        REQUIRE(r[0].hypotheses.size() == want.size());
        for (size_t h = 0; h < want.size(); ++h) {
          const auto ids = ToVector(r[0].hypotheses[h].ids);
          CHECK(ids == Ids(want[h][0]));
          CHECK(std::equal(prefix.begin(), prefix.end(), ids.begin()));
          CHECK(r[0].hypotheses[h].score == doctest::Approx(want[h][1].get<float>()).epsilon(1e-3));
        }
        ++compared;
      }
    }
  }
  CHECK(compared == Variants().size() * 8 * 4);
}

TEST_CASE("target prefixes: a batch with and without prefixes gives what each sentence gives alone") {
  for (const char* w : {"f32", "int8", "qc4w"}) {
    for (const std::string& v : Variants()) {
      CAPTURE(v);
      CAPTURE(w);
      const auto ref = ReadJson(ModelsDir() + "/" + v + ".ref.json");
      TranslatorConfig cfg;
      cfg.max_beam = 4;
      cfg.max_n_best = 2;
      auto t = MakeTranslator(LoadOrFail(ModelPath(v, w)), cfg);
      std::vector<std::vector<uint32_t>> srcs, prefixes;
      size_t i = 0;
      for (const auto& c : ref["cases"]) {
        srcs.push_back(Ids(c["src"]));
        prefixes.push_back(i++ % 3 == 1 ? std::vector<uint32_t>() : Ids(c["prefix"]));  // some without
      }
      std::vector<Span<const uint32_t>> s1, p1;
      const auto S = Spans(srcs, &s1);
      const auto P = Spans(prefixes, &p1);
      for (uint32_t beam : {1u, 4u}) {
        TranslateOptions o;
        o.beam_size = beam;
        o.n_best = beam == 4 ? 2 : 1;
        o.max_length = ref["max_length"].get<uint32_t>();
        Span<const TranslationResult> all;
        o.target_prefix_ids = P;
        REQUIRE(t->TranslateIds(S, o, &all).ok());
        std::vector<std::vector<std::vector<uint32_t>>> got;
        for (const auto& r : all) {
          REQUIRE(r.ok());
          std::vector<std::vector<uint32_t>> hyps;
          for (const Hypothesis& h : r.hypotheses) hyps.push_back(ToVector(h.ids));
          got.push_back(hyps);
        }
        for (size_t k = 0; k < srcs.size(); ++k) {
          o.target_prefix_ids = Span<const Span<const uint32_t>>(&P[k], 1);
          Span<const TranslationResult> r;
          REQUIRE(t->TranslateIds(Span<const Span<const uint32_t>>(&S[k], 1), o, &r).ok());
          std::vector<std::vector<uint32_t>> hyps;
          for (const Hypothesis& h : r[0].hypotheses) hyps.push_back(ToVector(h.ids));
          CHECK(hyps == got[k]);
        }
      }
    }
  }
}

TEST_CASE("f32: Score equals the reference within 1e-4 (relative beyond 1) and a greedy output scores its greedy score") {
  size_t compared = 0;
  for (const std::string& v : Variants()) {
    CAPTURE(v);
    const auto ref = ReadJson(ModelsDir() + "/" + v + ".ref.json");
    auto t = MakeTranslator(LoadOrFail(ModelPath(v, "f32")));
    TranslateOptions o;
    o.max_length = ref["max_length"].get<uint32_t>();
    for (const auto& c : ref["cases"]) {
      const auto src = Ids(c["src"]);
      const Span<const uint32_t> one(src.data(), src.size());
      for (const auto& sc : c["score"]) {
        const auto tgt = Ids(sc["tgt"]);
        const Span<const uint32_t> target(tgt.data(), tgt.size());
        Span<const TranslationResult> r;
        REQUIRE(t->ScoreIds(Span<const Span<const uint32_t>>(&one, 1), Span<const Span<const uint32_t>>(&target, 1), o, &r).ok());
        if (sc["score"].is_null()) {  // a token the rules ban: the pair fails alone
          CHECK(r[0].error == StatusCode::kInvalidArgument);
          ++compared;
          continue;
        }
        REQUIRE(r[0].ok());
        const Hypothesis& h = r[0].best();
        CHECK(ToVector(h.ids) == tgt);
        const auto lps = Logprobs(sc["logprobs"]);
        REQUIRE(h.token_logprobs.size() == lps.size());  // the target's tokens and </s>
        REQUIRE(h.tokens.size() == tgt.size() + 1);
        for (size_t k = 0; k < lps.size(); ++k) {
          CAPTURE(k);
          CHECK_MESSAGE(Near(h.token_logprobs[k], lps[k], 1e-4f), h.token_logprobs[k], " vs ", lps[k]);
        }
        CHECK(std::fabs(h.score - sc["score"].get<float>()) <= 1e-4f * std::max(1.f, std::fabs(h.score)));
        ++compared;
      }
    }
  }
  CHECK(compared == Variants().size() * 8 * 2);
  // tern's own greedy outputs, every weight format, scored in one batch: their greedy scores and
  // token log-probabilities exactly (the same forward passes).
  for (const char* w : {"f32", "int8", "f16", "qc4w", "int4"}) {
    for (const std::string& v : Variants()) {
      CAPTURE(w);
      CAPTURE(v);
      const auto ref = ReadJson(ModelsDir() + "/" + v + ".ref.json");
      auto t = MakeTranslator(LoadOrFail(ModelPath(v, w)));
      std::vector<std::vector<uint32_t>> srcs, outs;
      std::vector<float> scores;
      std::vector<std::vector<float>> lps;
      for (const auto& c : ref["cases"]) srcs.push_back(Ids(c["src"]));
      std::vector<Span<const uint32_t>> s1, o1;
      const auto S = Spans(srcs, &s1);
      TranslateOptions o;
      o.beam_size = 1;
      Span<const TranslationResult> r;
      REQUIRE(t->TranslateIds(S, o, &r).ok());
      for (const auto& x : r) {
        outs.push_back(ToVector(x.best().ids));
        scores.push_back(x.best().score);
        lps.emplace_back(x.best().token_logprobs.begin(), x.best().token_logprobs.end());
      }
      REQUIRE(t->ScoreIds(S, Spans(outs, &o1), o, &r).ok());
      for (size_t i = 0; i < r.size(); ++i) {
        REQUIRE(r[i].ok());
        CHECK(r[i].best().score == scores[i]);
        CHECK(std::vector<float>(r[i].best().token_logprobs.begin(), r[i].best().token_logprobs.end()) == lps[i]);
      }
    }
  }
}

TEST_CASE("target prefixes and scoring: a bad prefix or target fails its sentence alone and wrong calls fail whole") {
  auto t = MakeTranslator(LoadOrFail(ModelPath("pre-relu", "f32")));
  const Hyperparameters& hp = t->model().hparams();
  const std::vector<uint32_t> src = {5, 6, 7, hp.eos_id};
  const std::vector<std::vector<uint32_t>> prefixes = {
      {9, 10}, {9, hp.eos_id}, {hp.target_vocab_size}, std::vector<uint32_t>(300, 9), {}};
  std::vector<std::vector<uint32_t>> srcs(prefixes.size(), src);
  std::vector<Span<const uint32_t>> s1, p1;
  TranslateOptions o;
  o.max_length = 20;
  o.target_prefix_ids = Spans(prefixes, &p1);
  Span<const TranslationResult> r;
  REQUIRE(t->TranslateIds(Spans(srcs, &s1), o, &r).ok());
  CHECK(r[0].ok());
  CHECK(ToVector(r[0].best().ids).size() >= 2);
  CHECK(r[0].best().ids[0] == 9);
  CHECK(r[0].best().ids[1] == 10);
  CHECK(r[1].error == StatusCode::kInvalidArgument);
  CHECK(std::string(r[1].error_message) == "target_prefix: </s> at position 1 (give the tokens before it)");
  CHECK(r[2].error == StatusCode::kInvalidArgument);
  CHECK(std::string(r[2].error_message).find("is outside the target vocabulary") != std::string::npos);
  CHECK(r[3].error == StatusCode::kResourceExhausted);
  CHECK(std::string(r[3].error_message).find("exceed") != std::string::npos);
  CHECK(r[4].ok());
  // The cap: a prefix of 19 tokens leaves room for </s> within max_length 20, one of 20 does not.
  const std::vector<std::vector<uint32_t>> edge = {std::vector<uint32_t>(19, 9), std::vector<uint32_t>(20, 9)};
  std::vector<std::vector<uint32_t>> two(2, src);
  o.target_prefix_ids = Spans(edge, &p1);
  REQUIRE(t->TranslateIds(Spans(two, &s1), o, &r).ok());
  CHECK(r[0].ok());
  CHECK(r[0].best().ids.size() == 19);
  CHECK(r[0].best().tokens.size() == 20);
  CHECK(r[1].error == StatusCode::kResourceExhausted);
  CHECK(std::string(r[1].error_message) ==
        "target_prefix: 20 tokens and </s> exceed this sentence's cap of 20 generated tokens (max_length or max_length_ratio)");
  // Wrong as a whole: not one prefix per sentence; both kinds; with markup.
  o.target_prefix_ids = Span<const Span<const uint32_t>>(p1.data(), 1);
  Status s = t->TranslateIds(Spans(two, &s1), o, &r);
  CHECK(s.code() == StatusCode::kInvalidArgument);
  CHECK(s.message() == "target_prefix_ids: 1 entries for 2 inputs (one per input, or none)");
  const std::string_view text_prefix[] = {"x"};
  o.target_prefix = Span<const std::string_view>(text_prefix, 1);
  CHECK(t->CheckOptions(o).message() == "target_prefix and target_prefix_ids: give one of them");
  o.target_prefix_ids = {};
  o.markup = Markup::kHtml;
  CHECK(t->CheckOptions(o).message() == "target_prefix is for plain texts: not with markup, keep_placeholders or keep_spans");
  // Scoring: counts must match; a pad in the target scores -inf and fails alone; a target too long too.
  TranslateOptions so;
  so.max_length = 20;
  const std::vector<std::vector<uint32_t>> targets = {{9, 10}, {9, hp.pad_id, 10}, std::vector<uint32_t>(20, 9)};
  std::vector<std::vector<uint32_t>> three(3, src);
  std::vector<Span<const uint32_t>> t1;
  REQUIRE(t->ScoreIds(Spans(three, &s1), Spans(targets, &t1), so, &r).ok());
  CHECK(r[0].ok());
  CHECK(std::isfinite(r[0].best().score));
  CHECK(r[0].best().score < 0.f);
  CHECK(r[1].error == StatusCode::kInvalidArgument);
  CHECK(std::string(r[1].error_message).rfind("score -inf: the logits rules ban a token of this target", 0) == 0);
  CHECK(r[2].error == StatusCode::kResourceExhausted);
  CHECK(std::string(r[2].error_message).rfind("target: 20 tokens and </s> exceed", 0) == 0);
  s = t->ScoreIds(Spans(three, &s1), Span<const Span<const uint32_t>>(t1.data(), 2), so, &r);
  CHECK(s.code() == StatusCode::kInvalidArgument);
  CHECK(s.message() == "score: 3 sources and 2 targets (one target per source)");
}

TEST_CASE("bundled model: a text prefix is continued and a translation scores what greedy search gave it") {
  auto t = MakeTranslator(LoadOrFail(BundledModel()));
  const std::string_view src[] = {"A man rides a bike on the street.", "Two dogs play in the snow."};
  TranslateOptions o;
  o.beam_size = 1;  // greedy: Score gives the same tokens greedy search's score
  Span<const TranslationResult> r;
  REQUIRE(t->Translate(Span<const std::string_view>(src, 2), o, &r).ok());
  const std::string plain0(r[0].best().text), plain1(r[1].best().text);
  const float score0 = r[0].best().score;
  MESSAGE("plain: " << plain0 << " | " << plain1);
  const std::string_view prefix[] = {"Eine Frau", ""};
  o.target_prefix = Span<const std::string_view>(prefix, 2);
  REQUIRE(t->Translate(Span<const std::string_view>(src, 2), o, &r).ok());
  MESSAGE("prefixed: " << r[0].best().text << " | " << r[1].best().text);
  CHECK(std::string(r[0].best().text).rfind("Eine Frau ", 0) == 0);
  CHECK(std::string(r[1].best().text) == plain1);  // an empty prefix: as without
  o.beam_size = 4;
  REQUIRE(t->Translate(Span<const std::string_view>(src, 2), o, &r).ok());
  CHECK(std::string(r[0].best().text).rfind("Eine Frau ", 0) == 0);
  o.beam_size = 1;
  const std::string_view targets[] = {plain0, "Ein Hund schläft."};
  TranslateOptions so;
  REQUIRE(t->Score(Span<const std::string_view>(src, 2), Span<const std::string_view>(targets, 2), so, &r).ok());
  CHECK(std::string(r[0].best().text) == plain0);
  CHECK(r[0].best().score == doctest::Approx(score0).epsilon(1e-5));
  CHECK(r[1].ok());
  CHECK(r[1].best().score < score0);  // a wrong translation scores lower
  MESSAGE("score of the greedy translation " << r[0].best().score << ", of a wrong one " << r[1].best().score);
}

TEST_CASE("an empty or blank source is scored from its </s> (not 0 for nothing), and keeps a target prefix") {
  auto m = LoadOrFail(BundledModel());
  auto t = MakeTranslator(m);
  const uint32_t eos = m->hparams().eos_id;
  const std::vector<uint32_t> target = {m->target_vocab().size() > 100 ? 100u : 5u, 7u};
  // The reference: the same target scored against the source ids [</s>] (what MarianTokenizer makes of "").
  const uint32_t eos_only[] = {eos};
  Span<const uint32_t> src_ids[] = {Span<const uint32_t>(eos_only, 1)};
  Span<const uint32_t> tgt_ids[] = {Span<const uint32_t>(target.data(), target.size())};
  Span<const TranslationResult> r;
  REQUIRE(t->ScoreIds(src_ids, tgt_ids, {}, &r).ok());
  REQUIRE(r[0].ok());
  const float want = r[0].best().score;
  CHECK(want < -1.f);
  // As text: the target's pieces.
  std::string_view targets[] = {"Ein Hund läuft.", "Ein Hund läuft.", "Ein Hund läuft.", ""};
  std::string_view sources[] = {"", " \t", "A dog runs.", ""};
  REQUIRE(t->Score(sources, targets, {}, &r).ok());
  for (size_t i : {0, 1}) {
    CAPTURE(i);
    REQUIRE(r[i].ok());
    CHECK(r[i].best().score < -1.f);                      // was exactly 0 (probability 1) with no tokens
    CHECK(r[i].best().token_logprobs.size() == r[2].best().token_logprobs.size());  // every token and </s>
    CHECK(r[i].best().score == r[0].best().score);
    CHECK(ToVector(r[i].source_ids) == std::vector<uint32_t>{eos});
  }
  CHECK(r[0].best().score < r[2].best().score);  // the source helps
  REQUIRE(r[3].ok());
  CHECK(r[3].best().token_logprobs.size() == 1);  // an empty target: its </s> alone, scored
  CHECK(r[3].best().score < 0.f);
  // A target prefix on an empty source stays (it was dropped with the source).
  TranslateOptions o;
  std::string_view prefix[] = {"Eine Frau", ""};
  o.target_prefix = prefix;
  std::string_view in[] = {"", ""};
  REQUIRE(t->Translate(in, o, &r).ok());
  CHECK(std::string(r[0].best().text).rfind("Eine Frau", 0) == 0);
  CHECK(r[1].best().text.empty());  // no prefix, nothing to translate: still the empty translation
  CHECK(r[1].best().score == 0.f);
}

