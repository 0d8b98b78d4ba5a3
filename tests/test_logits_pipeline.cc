// The one logits-processor pipeline (search/logits_pipeline.h): its stages per search in transformers' order,
// and what a call's own processor sees in each search (the mask and the file's rules before it; raw logits
// in greedy search, log-probabilities in beam search; glossary constraints after it).
#include <cmath>
#include <string>
#include <vector>

#include "search/logits_pipeline.h"
#include "search/search.h"
#include "tern/logits_processor.h"
#include "test_util.h"

using namespace tern;
using namespace tern::test;

namespace {

std::vector<std::string> Names(const LogitsPipeline& p) {
  std::vector<std::string> v;
  for (const LogitsRule* r : p.stages()) v.push_back(r->name());
  return v;
}

class Nothing final : public LogitsProcessor {
 public:
  void Process(LogitsRow&) override {}
};

}  // namespace

TEST_CASE("logits pipeline: one ordered list per search, transformers' order, the call's processors after the file's") {
  const auto model = LoadOrFail(ModelPath(Variants()[0], "f32"));
  LogitsProcessors processors;
  processors.Init(*model);
  LogitsRules rules = processors.file_rules();
  rules.repetition_penalty = 1.2f, rules.no_repeat_ngram_size = 3, rules.min_length = 2, rules.forced_eos = true;
  const uint32_t banned[] = {5, 6};
  const Span<const uint32_t> seq(banned, 2);
  rules.suppress_sequences = Span<const Span<const uint32_t>>(&seq, 1);
  RuleSet call_rules;
  call_rules.Build(rules, model->hparams().eos_id);

  Dims dims;
  SearchBuffers s;
  ResultBuffers out;
  Profiler prof;
  Nothing user;
  LogitsProcessor* const call[] = {&user};
  SearchContext c{dims, SentenceInfo{}, s, out, processors, Span<LogitsProcessor* const>(call, 1),
                  FinishedSet<TrackPlanes>(s.finished, 1, 1), prof, 0, 0, SearchOptions{}, 0, nullptr, VocabMap{}};
  c.rules = &call_rules;
  const std::vector<std::string> file = {"RepetitionPenalty", "NoRepeatNGram", "NoBadWords (the call's sequences)",
                                         "MinLength", "ForcedEOSToken"};
  auto with = [&](std::vector<std::string> head, std::vector<std::string> tail) {
    head.insert(head.end(), file.begin(), file.end());
    head.insert(head.end(), tail.begin(), tail.end());
    return head;
  };
  CHECK(Names(LogitsPipeline::For(c, RowPass::kGreedy)) ==
        with({"token mask (NoBadWords: pad, bad_words_ids)"}, {"the call's processors"}));
  CHECK(Names(LogitsPipeline::For(c, RowPass::kBeam)) == with({"log_softmax + token mask"}, {"the call's processors"}));
  CHECK(Names(LogitsPipeline::For(c, RowPass::kExpansion)) ==
        with({"token mask (NoBadWords: pad, bad_words_ids)"}, {"the call's processors", "end tokens banned (expansion)"}));

  // Constraints and sampling: after the call's processors; warpers last, in greedy search only.
  ConstraintBuffers constraints;
  c.constraints = &constraints;
  c.opt.sampling.enabled = true;
  CHECK(Names(LogitsPipeline::For(c, RowPass::kGreedy)) ==
        with({"token mask (NoBadWords: pad, bad_words_ids)"},
             {"the call's processors", "glossary constraints", "sampling warpers (temperature, top-k, top-p)"}));
  CHECK(Names(LogitsPipeline::For(c, RowPass::kBeam)) ==
        with({"log_softmax + token mask"}, {"the call's processors", "glossary constraints"}));
  CHECK(Names(LogitsPipeline::For(c, RowPass::kExpansion)) ==
        with({"token mask (NoBadWords: pad, bad_words_ids)"}, {"the call's processors", "end tokens banned (expansion)"}));
}

namespace {

// Records, at every row it sees, whether the pad token's column is already -inf and the row's log-sum-exp.
class Observer final : public LogitsProcessor {
 public:
  explicit Observer(uint32_t pad) : pad_(pad) {}
  void Process(LogitsRow& row) override {
    const int64_t col = row.Column(pad_);
    pad_masked = pad_masked && col >= 0 && std::isinf(row.scores[static_cast<size_t>(col)]);
    float m = -INFINITY;
    for (float v : row.scores) m = std::max(m, v);
    double sum = 0;
    for (float v : row.scores) sum += std::exp(static_cast<double>(v - m));
    lse.push_back(m + static_cast<float>(std::log(sum)));
  }
  bool pad_masked = true;
  std::vector<float> lse;

 private:
  uint32_t pad_;
};

}  // namespace

TEST_CASE("logits pipeline: a call's processor sees the masked row, raw logits in greedy search, log-probabilities in beam") {
  const auto model = LoadOrFail(BundledModel());
  auto t = MakeTranslator(model);
  const std::vector<std::string_view> texts = {"A man in a blue shirt is standing on a ladder."};
  Span<const TranslationResult> r;
  for (const uint32_t beam : {1u, 4u}) {
    CAPTURE(beam);
    Observer seen(model->hparams().pad_id);
    LogitsProcessor* const list[] = {&seen};
    TranslateOptions o;
    o.beam_size = beam;
    o.logits_processors = Span<LogitsProcessor* const>(list, 1);
    REQUIRE(t->Translate(Span<const std::string_view>(texts.data(), texts.size()), o, &r).ok());
    REQUIRE(r[0].ok());
    REQUIRE(!seen.lse.empty());
    CHECK(seen.pad_masked);
    size_t normalized = 0;
    for (float l : seen.lse) normalized += std::fabs(l) < 1e-3f;
    if (beam == 1) CHECK(normalized == 0);                // logits: nothing normalizes them
    else CHECK(normalized == seen.lse.size());           // log-probabilities (the file's rules only set -inf here)
  }
}
