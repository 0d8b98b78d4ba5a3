// Round four's options for CTranslate2's clients (issue 57 #11, #14; added as rows of the field table, issue
// 58): the coverage penalty (search/coverage.h) is exactly Wu et al.'s term on each finished hypothesis, and
// replace_unknowns gives a generated <unk> the bytes of the source token it aligns to (session/unknowns.cc).
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "tern/logits_processor.h"
#include "test_util.h"

using namespace tern;
using namespace tern::test;

namespace {

// Bans every token but `token` at step `step` (greedy search's first tokens: a forced <unk>).
struct Force : LogitsProcessor {
  uint32_t token = 0;
  size_t step = 0;
  void Process(LogitsRow& row) override {
    if (row.step != step) return;
    const int64_t c = row.Column(token);
    for (size_t k = 0; k < row.scores.size(); ++k)
      if (static_cast<int64_t>(k) != c) row.scores[k] = -std::numeric_limits<float>::infinity();
  }
};

}  // namespace

TEST_CASE("coverage_penalty: a hypothesis' score is its length-normalized sum plus a non-positive term, 0 without the penalty") {
  // The term itself is CTranslate2's (its alignment head: tests/test_ct2_goldens.cc compares with CTranslate2).
  auto m = LoadOrFail(BundledModel());
  TranslatorConfig c;
  c.max_n_best = 4, c.attention = true, c.threads = 1;
  auto t = MakeTranslator(m, c);
  std::string_view in[] = {"A man in a blue shirt is standing on a ladder cleaning windows.", "Two dogs play in the snow.",
                           "An old man sits on a bench."};
  for (float beta : {0.f, 0.2f, 1.0f}) {
    for (HfRules rules : {HfRules::kTransformers5, HfRules::kTransformers4}) {
      CAPTURE(beta);
      TranslateOptions o;
      o.beam_size = 4, o.n_best = 3, o.length_penalty = 0.6f, o.coverage_penalty = beta;
      o.hf_rules = rules, o.split_sentences = false;
      Span<const TranslationResult> r;
      REQUIRE(t->Translate(in, o, &r).ok());
      for (const TranslationResult& x : r) {
        REQUIRE(x.ok());
        for (const Hypothesis& h : x.hypotheses) {
          double sum = 0;
          for (float lp : h.token_logprobs) sum += lp;
          const double normalized = sum / std::pow(static_cast<double>(h.tokens.size()), 0.6);
          if (beta == 0.f) CHECK(h.score == doctest::Approx(normalized).epsilon(1e-5));
          else CHECK(h.score <= normalized + 1e-5);
        }
      }
    }
  }
  // Without the attention buffers planned: refused, naming the Translator's config; greedy: no effect.
  auto plain = MakeTranslator(m);
  TranslateOptions o;
  o.beam_size = 4, o.coverage_penalty = 0.2f;
  Span<const TranslationResult> r;
  CHECK(plain->Translate(in, o, &r).message().find("TranslatorConfig::attention") != std::string::npos);
  o.beam_size = 1;
  REQUIRE(t->Translate(in, o, &r).ok());
  const std::string greedy_cp(r[0].best().text);
  o.coverage_penalty = 0.f;
  REQUIRE(t->Translate(in, o, &r).ok());
  CHECK(greedy_cp == r[0].best().text);
  o.coverage_penalty = NAN;  // a negative one is taken (CTranslate2 takes it); a non-finite one is not
  CHECK(t->Translate(in, o, &r).message() == "coverage_penalty nan: must be finite");
}

TEST_CASE("replace_unknowns: a generated <unk> becomes the bytes of the source token it aligns to") {
  auto m = LoadOrFail(BundledModel());
  auto t = MakeTranslator(m);
  Force force;
  force.token = m->hparams().unk_id, force.step = 1;
  LogitsProcessor* ps[] = {&force};
  std::string_view in[] = {"The Xyzzyq dog runs on the beach."};
  TranslateOptions o;
  o.beam_size = 1, o.logits_processors = ps;
  Span<const TranslationResult> r;
  REQUIRE(t->Translate(in, o, &r).ok());
  const std::string plain(r[0].best().text);
  REQUIRE(r[0].best().tokens[1] == m->hparams().unk_id);
  o.replace_unknowns = true;
  REQUIRE(t->Translate(in, o, &r).ok());
  const Hypothesis& h = r[0].best();
  REQUIRE(h.tokens[1] == m->hparams().unk_id);  // the ids keep the unknown token
  const int32_t src = h.token_sources[1];
  REQUIRE(src >= 0);
  const TextSpan s = r[0].source_spans[static_cast<size_t>(src)];
  const std::string copied(in[0].substr(s.begin, s.end - s.begin));
  CHECK(std::string(h.text.substr(h.token_spans[1].begin, h.token_spans[1].end - h.token_spans[1].begin)) == copied);
  CHECK(std::string(h.text) != plain);
  CHECK(plain.find("\u2047") != std::string::npos);  // SentencePiece's " ⁇ " for <unk> without the option
  CHECK(std::string(h.text).find("\u2047") == std::string::npos);
  // Every token's span still points at its own bytes.
  for (size_t p = 0; p + 1 < h.tokens.size(); ++p) CHECK(h.token_spans[p].end <= h.text.size());
}
