// Continuous batching (Translator::TranslateContinuous, tern/continuous.h): sentences that join a running
// batch in a freed slot get what each gets alone: ids and scores bit for bit for int8 and the 4-bit formats
// (integer sums, tern's own epilogue), ids equal and scores within 1e-4 relative for f32 (XNNPACK's f32 GEMM
// may sum in another order for another number of rows). Greedy and beam, texts and ids; a bad sentence fails
// alone; what the call refuses; the abort callback.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "tern/engine.h"
#include "tern/tern.h"
#include "test_util.h"

using namespace tern;
using namespace tern::test;

namespace {

const std::vector<std::string> kTexts = {
    "A man in a blue shirt is standing on a ladder.", "Two young children are playing in the sand.",
    "A boy jumps.",                                    "The dog runs through the green grass.",
    "Three men are working on a roof in the sun while a fourth one watches them from below.",
    "A girl.",                                         "An old man sits on a bench and reads a newspaper.",
    "Two dogs play with a ball in a park.",            "People walk down the street.",
    "A woman with a red hat rides a bicycle."};

struct Got {
  StatusCode error = StatusCode::kOk;
  std::string message, text;
  std::vector<std::vector<uint32_t>> ids;
  std::vector<float> scores;
  int done = 0;
};

// Gives `texts` (or their ids) in order; records each result by tag.
class VectorSource : public SentenceSource {
 public:
  VectorSource(const std::vector<std::string>& texts, const std::vector<std::vector<uint32_t>>* ids = nullptr)
      : texts_(texts), ids_(ids), got(ids ? ids->size() : texts.size()) {}
  bool Next(PendingSentence* p) override {
    if (next_ >= got.size()) return false;
    p->tag = next_;
    if (ids_) p->by_ids = true, p->ids = Span<const uint32_t>((*ids_)[next_].data(), (*ids_)[next_].size());
    else p->text = texts_[next_];
    ++next_;
    return true;
  }
  void Done(uint64_t tag, const TranslationResult& r) override {
    Got& g = got.at(tag);
    g.done++;
    g.error = r.error;
    g.message = std::string(r.error_message);
    if (!r.ok()) return;
    for (const Hypothesis& h : r.hypotheses) g.ids.push_back(ToVector(h.ids)), g.scores.push_back(h.score);
    g.text = std::string(r.best().text);
  }
  std::vector<std::string> texts_;
  const std::vector<std::vector<uint32_t>>* ids_;
  size_t next_ = 0;
  std::vector<Got> got;
};

TranslatorConfig Continuous(uint32_t batch, uint32_t beam, uint32_t n_best) {
  TranslatorConfig c;
  c.max_batch = batch, c.max_beam = beam, c.max_n_best = n_best, c.threads = 1;
  c.continuous_batching = true;
  return c;
}

}  // namespace

TEST_CASE("continuous batching: each sentence as alone, greedy and beam, every weight format") {
  std::vector<std::string> texts;
  for (int rep = 0; rep < 2; ++rep) texts.insert(texts.end(), kTexts.begin(), kTexts.end());
  for (const char* variant : {"post-swish", "pre-relu"})
  for (const char* weights : {"int8", "qc4w", "int4", "f32"})
    for (uint32_t beam : {1u, 4u}) {
      const std::string format = weights, model = variant;
      CAPTURE(model);
      CAPTURE(format);
      CAPTURE(beam);
      auto m = LoadOrFail(ModelPath(variant, weights));
      const bool exact = weights[0] != 'f';
      TranslateOptions o;
      o.beam_size = beam;
      o.n_best = beam > 1 ? 2 : 1;
      auto alone = MakeTranslator(m, Continuous(1, 4, 2));
      auto t = MakeTranslator(m, Continuous(3, 4, 2));
      VectorSource src(texts);
      REQUIRE(t->TranslateContinuous(src, o).ok());
      const uint64_t continuous_steps = t->profile().decoder_steps;
      for (size_t i = 0; i < texts.size(); ++i) {
        CAPTURE(i);
        std::string_view v = texts[i];
        Span<const TranslationResult> r;
        REQUIRE(alone->Translate(Span<const std::string_view>(&v, 1), o, &r).ok());
        const Got& g = src.got[i];
        REQUIRE(g.done == 1);
        REQUIRE(g.error == StatusCode::kOk);
        REQUIRE(g.ids.size() == r[0].hypotheses.size());
        CHECK(g.text == r[0].best().text);
        for (size_t k = 0; k < g.ids.size(); ++k) {
          CHECK(g.ids[k] == ToVector(r[0].hypotheses[k].ids));
          if (exact) CHECK(std::memcmp(&g.scores[k], &r[0].hypotheses[k].score, sizeof(float)) == 0);
          else CHECK(g.scores[k] == doctest::Approx(r[0].hypotheses[k].score).epsilon(1e-4));
        }
      }
      // The same sentences in static batches of 3 take more decoder steps: a batch waits for its longest.
      auto fixed = MakeTranslator(m, Continuous(3, 4, 2));
      for (size_t i = 0; i < texts.size(); i += 3) {
        std::vector<std::string_view> chunk(texts.begin() + i, texts.begin() + std::min(texts.size(), i + 3));
        Span<const TranslationResult> r;
        REQUIRE(fixed->Translate(Span<const std::string_view>(chunk.data(), chunk.size()), o, &r).ok());
      }
      // (Equal when every sentence runs to the length cap, as on the random pre-relu model.)
      if (model == "post-swish") CHECK(continuous_steps < fixed->profile().decoder_steps);
      else CHECK(continuous_steps <= fixed->profile().decoder_steps);
    }
}

TEST_CASE("continuous batching: ids, a bad sentence fails alone, an empty text") {
  auto m = LoadOrFail(ModelPath("post-swish", "int8"));
  auto t = MakeTranslator(m, Continuous(2, 2, 1));
  TranslateOptions o;
  std::vector<std::vector<uint32_t>> ids;
  for (const std::string& s : kTexts) {
    std::string_view v = s;
    Span<const TranslationResult> r;
    REQUIRE(t->Translate(Span<const std::string_view>(&v, 1), o, &r).ok());
    ids.push_back(ToVector(r[0].source_ids));
  }
  std::vector<std::vector<uint32_t>> given = ids;
  given[3] = {4000000000u, 0};  // outside the source vocabulary
  given[5] = {};                // no </s>
  VectorSource src({}, &given);
  REQUIRE(t->TranslateContinuous(src, o).ok());
  for (size_t i = 0; i < given.size(); ++i) {
    CAPTURE(i);
    REQUIRE(src.got[i].done == 1);
    if (i == 3) {
      CHECK(src.got[i].error == StatusCode::kInvalidArgument);
      CHECK(src.got[i].message.find("outside the source vocabulary") != std::string::npos);
      continue;
    }
    if (i == 5) {
      CHECK(src.got[i].message == "no source ids (at least </s> is needed)");
      continue;
    }
    REQUIRE(src.got[i].error == StatusCode::kOk);
    const Span<const uint32_t> s(ids[i].data(), ids[i].size());
    Span<const TranslationResult> r;
    REQUIRE(t->TranslateIds(Span<const Span<const uint32_t>>(&s, 1), o, &r).ok());
    CHECK(src.got[i].ids[0] == ToVector(r[0].best().ids));
    CHECK(src.got[i].text.empty());
  }
  VectorSource blank({"   ", "A girl."});
  REQUIRE(t->TranslateContinuous(blank, o).ok());
  CHECK(blank.got[0].done == 1);
  CHECK(blank.got[0].error == StatusCode::kOk);
  CHECK(blank.got[0].text.empty());
  CHECK(!blank.got[1].text.empty());
}

TEST_CASE("continuous batching: what the call refuses, and the abort callback") {
  auto m = LoadOrFail(ModelPath("post-swish", "int8"));
  VectorSource none(kTexts);
  auto plain = MakeTranslator(m, TranslatorConfig{2, 2, 1, 0, 0, 1, nullptr, 0});
  Status s = plain->TranslateContinuous(none, {});
  CHECK(s.code() == StatusCode::kInvalidArgument);
  CHECK(s.message() == "TranslateContinuous: the Translator was created without TranslatorConfig::continuous_batching");
  auto t = MakeTranslator(m, Continuous(2, 2, 1));
  TranslateOptions o;
  o.markup = Markup::kHtml;
  CHECK(t->TranslateContinuous(none, o).message() == "TranslateContinuous: not with markup");
  o = {};
  o.sampling.enabled = true;
  CHECK(t->TranslateContinuous(none, o).message() == "TranslateContinuous: not with sampling");
  CHECK(none.next_ == 0);  // nothing was taken
  // Abort after a few steps: every sentence handed over once, the unfinished ones as cancelled.
  o = {};
  int steps = 0;
  o.abort = [](void* u) { return ++*static_cast<int*>(u) > 6; };
  o.abort_user_data = &steps;
  VectorSource src(kTexts);
  CHECK(t->TranslateContinuous(src, o).code() == StatusCode::kCancelled);
  int cancelled = 0;
  for (size_t i = 0; i < src.next_; ++i) {
    CHECK(src.got[i].done == 1);
    cancelled += src.got[i].error == StatusCode::kCancelled;
  }
  CHECK(cancelled >= 1);
  CHECK(src.next_ < kTexts.size());
}

TEST_CASE("continuous batching: a shortlist is refused, the engine then runs static calls") {
  auto m = LoadOrFail(ModelPath("pre-relu", "int8-shortlist"));
  auto t = MakeTranslator(m, Continuous(1, 2, 1));
  VectorSource src(kTexts);
  CHECK(t->TranslateContinuous(src, {}).message() ==
        "TranslateContinuous: not with a shortlist (use_shortlist false translates without it)");
  TranslateOptions full;
  full.use_shortlist = false;
  REQUIRE(t->TranslateContinuous(src, full).ok());
  CHECK(src.got[0].done == 1);
  // Through the engine, with the shortlist (static calls) and without it (continuous): as Translate gives.
  EngineConfig c;
  c.replicas = 1;
  c.translator.max_batch = 3;
  c.translator.max_beam = 2;
  auto e = Engine::Create(m, c).value();
  for (const bool shortlist : {true, false}) {
    CAPTURE(shortlist);
    TranslateOptions o;
    o.beam_size = 2;
    o.use_shortlist = shortlist;
    // Split into requests of one text each: they share calls.
    std::vector<Ticket> tickets;
    for (const std::string& text : kTexts) {
      Request one;
      one.texts = {text};
      one.options = o;
      tickets.push_back(e->Submit(std::move(one)).value());
    }
    for (size_t i = 0; i < kTexts.size(); ++i) {
      std::string_view v = kTexts[i];
      Span<const TranslationResult> want;
      REQUIRE(t->Translate(Span<const std::string_view>(&v, 1), o, &want).ok());
      const RequestOutcome& out = tickets[i].Wait();
      REQUIRE(out.status.ok());
      REQUIRE(out.results.size() == 1);
      if (shortlist) continue;  // a static batch's shortlist is the union of its sentences': it depends on the batch
      CHECK(out.results[0].best().text == want[0].best().text);
      CHECK(out.results[0].best().ids == ToVector(want[0].best().ids));
    }
  }
}

TEST_CASE("continuous batching: a text of several sentences is split and joined as Translate does") {
  // The source of each result: what Translate gives for the same text, field by field.
  struct Full {
    StatusCode error = StatusCode::kOk;
    std::string message;
    std::vector<std::string> texts;
    std::vector<std::vector<uint32_t>> ids;
    std::vector<float> scores, logprobs;
    std::vector<int32_t> sources;
    std::vector<size_t> token_spans, source_spans;
    std::vector<uint32_t> source_ids;
  };
  auto full = [](const TranslationResult& r) {
    Full f;
    f.error = r.error, f.message = std::string(r.error_message);
    for (const Hypothesis& h : r.hypotheses) {
      f.texts.emplace_back(h.text), f.ids.push_back(ToVector(h.ids)), f.scores.push_back(h.score);
      f.logprobs.insert(f.logprobs.end(), h.token_logprobs.begin(), h.token_logprobs.end());
      f.sources.insert(f.sources.end(), h.token_sources.begin(), h.token_sources.end());
      for (const TextSpan& s : h.token_spans) f.token_spans.push_back(s.begin), f.token_spans.push_back(s.end);
    }
    for (const TextSpan& s : r.source_spans) f.source_spans.push_back(s.begin), f.source_spans.push_back(s.end);
    f.source_ids = ToVector(r.source_ids);
    return f;
  };
  class FullSource : public SentenceSource {
   public:
    FullSource(const std::vector<std::string>& texts, decltype(full)& f) : texts_(texts), full_(f), got(texts.size()), done(texts.size()) {}
    bool Next(PendingSentence* p) override {
      if (next_ >= texts_.size()) return false;
      p->tag = next_, p->text = texts_[next_], ++next_;
      return true;
    }
    void Done(uint64_t tag, const TranslationResult& r) override { got.at(tag) = full_(r), done.at(tag)++; }
    const std::vector<std::string>& texts_;
    decltype(full)& full_;
    size_t next_ = 0;
    std::vector<Full> got;
    std::vector<int> done;
  };
  auto m = LoadOrFail(ModelPath("post-swish", "int8"));
  TranslatorConfig c = Continuous(3, 2, 2);
  c.max_source_tokens = 48;
  auto t = MakeTranslator(m, c);
  if (!t->splits_sentences()) return;  // a build without ICU translates texts whole
  const std::string too_long = "A man and a woman and a child and a dog and a cat and a horse walk on a long road by the sea "
                               "while three birds fly over them and a boat sails past the old lighthouse.";
  const std::vector<std::string> texts = {kTexts[0], kTexts[1] + " " + kTexts[2] + " " + kTexts[3], kTexts[5],
                                          kTexts[5] + "  " + kTexts[6], "   ", kTexts[2] + " " + too_long,
                                          kTexts[7] + " " + kTexts[8] + " " + kTexts[9] + " " + kTexts[2],
                                          // spans auto_protect keeps (taken out, the plain text translated with the
                                          // alignment, put back), in a text of one sentence and of several
                                          "Visit https://example.com/en/help for the manual.",
                                          "Two men carried %d boxes up the stairs. Write to help@example.org if a man needs help."};
  for (const bool aligned : {true, false})
  for (uint32_t beam : {1u, 2u}) {
    CAPTURE(beam);
    CAPTURE(aligned);
    TranslateOptions o;
    o.beam_size = beam, o.n_best = beam, o.return_alignment = aligned;
    FullSource src(texts, full);
    REQUIRE(t->TranslateContinuous(src, o).ok());
    for (size_t i = 0; i < texts.size(); ++i) {
      CAPTURE(i);
      CHECK(src.done[i] == 1);
      std::string_view v = texts[i];
      Span<const TranslationResult> want;
      REQUIRE(t->Translate(Span<const std::string_view>(&v, 1), o, &want).ok());
      const Full w = full(want[0]), g = src.got[i];
      CHECK(g.error == w.error);
      CHECK(g.message == w.message);
      CHECK(g.texts == w.texts);
      CHECK(g.ids == w.ids);
      CHECK(g.scores == w.scores);
      CHECK(g.logprobs == w.logprobs);
      CHECK(g.sources == w.sources);
      CHECK(g.token_spans == w.token_spans);
      CHECK(g.source_spans == w.source_spans);
      CHECK(g.source_ids == w.source_ids);
    }
    CHECK(src.got[1].texts.size() == beam);
    CHECK(src.got[7].texts[0].find("https://example.com/en/help") != std::string::npos);
    CHECK(src.got[8].texts[0].find("help@example.org") != std::string::npos);
    CHECK(src.got[8].texts[0].find("%d") != std::string::npos);
    // The protected texts report their alignment as Translate's do; the others only when asked.
    auto any_aligned = [](const Full& f) { return std::any_of(f.sources.begin(), f.sources.end(), [](int32_t s) { return s >= 0; }); };
    CHECK(any_aligned(src.got[7]));
    CHECK(any_aligned(src.got[0]) == aligned);
    CHECK(src.got[5].error == StatusCode::kResourceExhausted);
    CHECK(src.got[5].message.rfind("sentence 2 of 2: ", 0) == 0);
  }
  // Through the engine (its continuous call): the same translations as Translate gives.
  EngineConfig ec;
  ec.replicas = 1;
  ec.translator.max_batch = 4;
  auto e = Engine::Create(m, ec).value();
  Request r;
  r.texts = {texts[0], texts[1], texts[3], texts[6]};
  r.options.beam_size = 2;
  Ticket ticket = e->Submit(std::move(r)).value();
  const RequestOutcome& out = ticket.Wait();
  REQUIRE(out.status.ok());
  REQUIRE(out.results.size() == 4u);
  for (size_t i = 0; i < 4; ++i) {
    CAPTURE(i);
    std::string_view v = texts[i == 0 ? 0 : i == 1 ? 1 : i == 2 ? 3 : 6];
    Span<const TranslationResult> want;
    TranslateOptions o;
    o.beam_size = 2;
    REQUIRE(t->Translate(Span<const std::string_view>(&v, 1), o, &want).ok());
    REQUIRE(out.results[i].ok());
    CHECK(out.results[i].best().text == want[0].best().text);
  }
}

TEST_CASE("continuous batching: the logits rules, alignment and beam rules per sentence as alone") {
  auto m = LoadOrFail(ModelPath("post-swish", "int8"));
  std::vector<std::string> texts;
  for (int rep = 0; rep < 2; ++rep) texts.insert(texts.end(), kTexts.begin(), kTexts.end());
  const uint32_t end_token = 5;
  std::vector<TranslateOptions> cases(6);
  cases[0].beam_size = 1, cases[0].repetition_penalty = 1.5f, cases[0].no_repeat_ngram_size = 2u;
  cases[1].beam_size = 4, cases[1].min_length = 6u, cases[1].max_length_ratio = 1.5f;
  cases[2].beam_size = 4, cases[2].hf_rules = HfRules::kTransformers4, cases[2].early_stopping = EarlyStopping::kTrue,
  cases[2].length_penalty = 0.6f;
  cases[3].beam_size = 2, cases[3].return_alignment = true, cases[3].max_length = 9u;
  cases[4].beam_size = 1, cases[4].end_tokens = Span<const uint32_t>(&end_token, 1), cases[4].forced_eos = false;
  cases[5].beam_size = 4, cases[5].early_stopping = EarlyStopping::kNever, cases[5].disable_unk = true;
  for (size_t c = 0; c < cases.size(); ++c) {
    CAPTURE(c);
    const TranslateOptions& o = cases[c];
    auto alone = MakeTranslator(m, Continuous(1, 4, 1));
    auto t = MakeTranslator(m, Continuous(3, 4, 1));
    VectorSource src(texts);
    REQUIRE(t->TranslateContinuous(src, o).ok());
    for (size_t i = 0; i < texts.size(); ++i) {
      CAPTURE(i);
      std::string_view v = texts[i];
      Span<const TranslationResult> r;
      REQUIRE(alone->Translate(Span<const std::string_view>(&v, 1), o, &r).ok());
      REQUIRE(src.got[i].error == StatusCode::kOk);
      CHECK(src.got[i].ids[0] == ToVector(r[0].best().ids));
      CHECK(std::memcmp(&src.got[i].scores[0], &r[0].best().score, sizeof(float)) == 0);
    }
  }
}
