// The per-token track and per-call logits processors: a toy channel added to a channel list of its own is
// carried by the same templates as the real ones; each result's per-token log-probabilities add up to its
// score and its alignment points into its source; a per-call processor (C++ here, C in test_c_api.c) bans
// a token in greedy and beam search and sees every live hypothesis at every step.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "memory/arena.h"
#include "search/hypotheses.h"
#include "search/track.h"
#include "tern/logits_processor.h"
#include "tern/tokenize.h"
#include "test_util.h"

using namespace tern;
using namespace tern::test;

// The real channels plus a toy one: the whole change a new channel needs inside the search.
#define TOY_CHANNELS(X) TERN_TRACK_CHANNELS(X) X(float, toy)
TERN_DEFINE_TRACK_PLANES(ToyPlanes, TOY_CHANNELS)

namespace {

// Real translations (a random tiny model often generates nothing).
std::shared_ptr<const Model> EnDe() {
  static std::shared_ptr<const Model> m = LoadOrFail(BundledModel());
  return m;
}

// A processor that bans one token: -inf in its column (when the row has one).
class Ban : public LogitsProcessor {
 public:
  explicit Ban(uint32_t token) : token_(token) {}
  void Process(LogitsRow& row) override {
    const int64_t c = row.Column(token_);
    if (c >= 0) row.scores[static_cast<size_t>(c)] = -INFINITY;
  }

 private:
  uint32_t token_;
};

// A processor that records what it sees.
class Recorder : public LogitsProcessor {
 public:
  struct Seen {
    size_t input, part, hypothesis, step, prefix, columns;
  };
  std::vector<Seen> seen;
  void Process(LogitsRow& row) override {
    seen.push_back({row.input, row.part, row.hypothesis, row.step, row.prefix.size(), row.scores.size()});
  }
};

std::vector<uint32_t> Vec(Span<const uint32_t> s) { return std::vector<uint32_t>(s.begin(), s.end()); }

}  // namespace

TEST_CASE("a toy channel added to the track is carried by the same templates: rows, finished sets, ranking") {
  static_assert(ToyPlanes::kChannels == TrackPlanes::kChannels + 1, "one more channel");
  constexpr size_t kT = 6, kRows = 4, kBeam = 2;
#define TOY_NAME(T, name) "toy." #name,
  static const char* const kNames[] = {TOY_CHANNELS(TOY_NAME)};
  static const char* const kFinishedNames[] = {TOY_CHANNELS(TOY_NAME)};
#undef TOY_NAME
  ArenaPlan plan;
  ToyPlanes running;
  FinishedStorage<ToyPlanes> storage;
  ToyPlanes::Declare(&running, &plan, kNames, kRows * kT, Phase::kDecoder, Phase::kDecoder);
  ToyPlanes::Declare(&storage.planes, &plan, kFinishedNames, kBeam * kT, Phase::kDecoder, Phase::kDecoder);
  plan.Add(&storage.score, "toy.score", kBeam, Phase::kDecoder, Phase::kDecoder);
  plan.Add(&storage.length, "toy.length", kBeam, Phase::kDecoder, Phase::kDecoder);
  plan.Add(&storage.ended_eos, "toy.ended_eos", kBeam, Phase::kDecoder, Phase::kDecoder);
  plan.Add(&storage.count, "toy.count", 1, Phase::kDecoder, Phase::kDecoder);
  plan.Plan();
  CHECK(plan.Describe().size() == 2 * ToyPlanes::kChannels + 4);
  std::vector<uint8_t> arena(plan.total_bytes() + 64);
  plan.Bind(reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(arena.data()) + 63) & ~uintptr_t{63}));
  // Row r: token 100 r + p, toy 0.5 r + p.
  for (size_t r = 0; r < kRows; ++r)
    for (size_t p = 0; p < kT; ++p) {
      running.token[r * kT + p] = static_cast<uint32_t>(100 * r + p);
      running.kv_slot[r * kT + p] = static_cast<uint32_t>(r);
      running.logprob[r * kT + p] = -0.1f * p;
      running.source[r * kT + p] = static_cast<int32_t>(p);
      running.toy[r * kT + p] = 0.5f * r + p;
    }
  // Reordering beams copies every channel of a row.
  CopyTrackRow(running, 0, running, 3, 4, kT);
  for (size_t p = 0; p < 4; ++p) {
    CHECK(running.token[p] == 300 + p);
    CHECK(running.toy[p] == doctest::Approx(1.5 + p));
  }
  CHECK(running.toy[4] == doctest::Approx(4.0));  // entries past n are left alone
  for (HfRules rules : {HfRules::kTransformers5, HfRules::kTransformers4}) {
    CAPTURE(static_cast<int>(rules));
    FinishedSet<ToyPlanes> set(storage, kBeam, kT, rules);
    set.Reset(1);
    set.Add(0, running, 1, 3, true, -2.f);   // rows 1, 2, 0 offered with scores -2, -1, -3
    set.Add(0, running, 2, 5, false, -1.f);
    set.Add(0, running, 0, 2, true, -3.f);   // worse than both: not kept
    REQUIRE(set.count(0) == 2);
    uint32_t idx[kBeam];
    set.Ranked(0, idx);
    CHECK(set.score(0, idx[0]) == -1.f);
    CHECK(set.length(0, idx[0]) == 5);
    CHECK_FALSE(set.ended_eos(0, idx[0]));
    CHECK(set.score(0, idx[1]) == -2.f);
    const size_t best = set.row(0, idx[0]), second = set.row(0, idx[1]);
    for (size_t p = 0; p < 5; ++p) CHECK(set.planes().toy[best * kT + p] == doctest::Approx(1.0 + p));
    for (size_t p = 0; p < 3; ++p) {
      CHECK(set.planes().toy[second * kT + p] == doctest::Approx(0.5 + p));
      CHECK(set.planes().token[second * kT + p] == 100 + p);
    }
  }
}

TEST_CASE("per-token results: log-probabilities add up to the score, tokens are the ids and </s>, alignment points into the source") {
  auto model = EnDe();
  auto t = MakeTranslator(model, [] {
    TranslatorConfig c;
    c.max_beam = 4;
    c.max_n_best = 4;
    return c;
  }());
  const uint32_t eos = t->model().hparams().eos_id;
  std::string_view in[] = {"A man in a blue shirt is standing on a ladder.", "Two dogs play in the snow.", "Hi."};
  auto tok = TextTokenizer::Create(model);
  REQUIRE(tok.ok());
  std::vector<size_t> src_len;
  for (std::string_view s : in) {
    std::vector<uint32_t> ids;
    REQUIRE(tok.value()->Encode(s, "", &ids).ok());
    src_len.push_back(ids.size());
  }
  for (uint32_t beam : {1u, 4u}) {
    CAPTURE(beam);
    TranslateOptions o;
    o.beam_size = beam;
    o.n_best = beam == 1 ? 1 : 3;
    o.length_penalty = 0.7f;
    o.return_alignment = true;
    Span<const TranslationResult> r;
    REQUIRE(t->Translate(in, o, &r).ok());
    for (size_t i = 0; i < 3; ++i) {
      REQUIRE(r[i].ok());
      for (const Hypothesis& h : r[i].hypotheses) {
        const size_t n = h.tokens.size();
        REQUIRE((n == h.ids.size() || n == h.ids.size() + 1));
        CHECK(h.token_logprobs.size() == n);
        CHECK(h.token_sources.size() == n);
        for (size_t k = 0; k < h.ids.size(); ++k) CHECK(h.tokens[k] == h.ids[k]);
        if (n > h.ids.size()) CHECK(h.tokens[n - 1] == eos);
        double sum = 0;
        for (float lp : h.token_logprobs) {
          CHECK(lp <= 0.f);
          sum += lp;
        }
        // Greedy: the score is the sum; beam: the sum / generated_len ^ length_penalty (</s> counted).
        const double want = beam == 1 ? sum : sum / std::pow(static_cast<double>(n), 0.7);
        CHECK(h.score == doctest::Approx(want).epsilon(1e-4));
        // Sources: positions of the sentence's own source tokens (</s> included).
        for (int32_t s : h.token_sources) {
          CHECK(s >= 0);
          CHECK(static_cast<size_t>(s) < src_len[i]);
        }
      }
    }
    // Without scores or alignment: zeros and -1s, same tokens.
    TranslateOptions plain = o;
    plain.return_scores = false;
    plain.return_alignment = false;
    std::vector<std::vector<uint32_t>> tokens;
    for (size_t i = 0; i < 3; ++i) tokens.push_back(Vec(r[i].best().tokens));
    Span<const TranslationResult> p;
    REQUIRE(t->Translate(in, plain, &p).ok());
    for (size_t i = 0; i < 3; ++i) {
      CHECK(Vec(p[i].best().tokens) == tokens[i]);
      for (float lp : p[i].best().token_logprobs) CHECK(lp == 0.f);
      for (int32_t s : p[i].best().token_sources) CHECK(s == -1);
    }
  }
}

TEST_CASE("a per-call logits processor bans a token in greedy and beam search and sees every live hypothesis at every step") {
  auto t = MakeTranslator(EnDe(), [] {
    TranslatorConfig c;
    c.max_beam = 4;
    return c;
  }());
  std::string_view in[] = {"A man in a blue shirt is standing on a ladder.", "Two dogs play in the snow."};
  for (uint32_t beam : {1u, 4u}) {
    CAPTURE(beam);
    TranslateOptions o;
    o.beam_size = beam;
    Span<const TranslationResult> r;
    REQUIRE(t->Translate(in, o, &r).ok());
    const std::vector<uint32_t> before0 = Vec(r[0].best().ids), before1 = Vec(r[1].best().ids);
    REQUIRE(!before0.empty());
    const uint32_t banned = before0[0];
    Ban ban(banned);
    Recorder rec;
    LogitsProcessor* list[] = {&ban, &rec};
    o.logits_processors = list;
    REQUIRE(t->Translate(in, o, &r).ok());
    const std::vector<uint32_t> after0 = Vec(r[0].best().ids);
    CHECK(after0 != before0);
    for (size_t i = 0; i < 2; ++i)
      for (uint32_t id : r[i].best().ids) CHECK(id != banned);
    // The recorder runs after the ban, on every live hypothesis: at step s of a sentence, its prefix has s
    // tokens; hypothesis slots < beam; inputs 0 and 1 both seen; the first step has one hypothesis.
    std::map<std::pair<size_t, size_t>, std::set<size_t>> hyps_per_step;
    for (const Recorder::Seen& s : rec.seen) {
      CHECK(s.prefix == s.step);
      CHECK(s.hypothesis < beam);
      CHECK(s.part == 0);
      CHECK(s.columns == t->model().hparams().target_vocab_size);
      hyps_per_step[{s.input, s.step}].insert(s.hypothesis);
    }
    CHECK(hyps_per_step.count({0, 0}) == 1);
    CHECK(hyps_per_step.count({1, 0}) == 1);
    CHECK(hyps_per_step[{0, 0}].size() == 1);
    if (beam > 1) CHECK(hyps_per_step[{0, 1}].size() == beam);
    // Processors are per call: the next call without them gives the original output.
    o.logits_processors = {};
    REQUIRE(t->Translate(in, o, &r).ok());
    CHECK(Vec(r[0].best().ids) == before0);
    CHECK(Vec(r[1].best().ids) == before1);
  }
  // A null entry is the call's error.
  LogitsProcessor* null_list[] = {nullptr};
  TranslateOptions bad;
  bad.logits_processors = null_list;
  Span<const TranslationResult> r;
  const Status s = t->Translate(in, bad, &r);
  CHECK(s.code() == StatusCode::kInvalidArgument);
  CHECK(s.message() == "logits_processors holds a null pointer");
}

TEST_CASE("split texts: a text's per-token data is each sentence's in turn, every </s> included") {
  auto t = MakeTranslator(EnDe());
  if (!t->splits_sentences()) return;  // a build without ICU does not split
  std::string_view one[] = {"A dog runs.", "Two children play."};
  std::string_view both[] = {"A dog runs. Two children play."};
  TranslateOptions o;
  o.beam_size = 1;
  o.return_alignment = true;
  Span<const TranslationResult> r;
  REQUIRE(t->Translate(one, o, &r).ok());
  std::vector<uint32_t> tokens;
  std::vector<float> logprobs;
  std::vector<int32_t> sources;
  std::vector<uint32_t> source_ids;
  for (size_t i = 0; i < 2; ++i) {
    const Hypothesis& h = r[i].best();
    tokens.insert(tokens.end(), h.tokens.begin(), h.tokens.end());
    logprobs.insert(logprobs.end(), h.token_logprobs.begin(), h.token_logprobs.end());
    // A text's alignment points into the text's source tokens: the second sentence's come after the first's.
    for (int32_t s : h.token_sources) sources.push_back(s + static_cast<int32_t>(source_ids.size()));
    source_ids.insert(source_ids.end(), r[i].source_ids.begin(), r[i].source_ids.end());
  }
  REQUIRE(t->Translate(both, o, &r).ok());
  const Hypothesis& h = r[0].best();
  CHECK(Vec(h.tokens) == tokens);
  CHECK(std::vector<float>(h.token_logprobs.begin(), h.token_logprobs.end()) == logprobs);
  CHECK(std::vector<uint32_t>(r[0].source_ids.begin(), r[0].source_ids.end()) == source_ids);
  CHECK(std::vector<int32_t>(h.token_sources.begin(), h.token_sources.end()) == sources);
}

TEST_CASE("source tokens in results: every input of a full batch, after beam search has used the arena") {
  auto model = EnDe();
  TranslatorConfig c;
  c.max_batch = 8;
  c.max_beam = 4;
  auto t = MakeTranslator(model, c);
  auto tok = TextTokenizer::Create(model);
  REQUIRE(tok.ok());
  std::vector<std::string> lines = {
      "A man in a blue shirt is standing on a ladder and cleaning windows.", "Two dogs play in the snow.",
      "A group of people standing in front of an igloo.", "Hi.",
      "A little girl climbing into a wooden playhouse while her father watches from the garden.",
      "A woman with a large purse is walking by a gate.", "Boys dancing on poles in the middle of the night.",
      "A black dog and a spotted dog are fighting."};
  std::vector<std::string_view> in(lines.begin(), lines.end());
  TranslateOptions o;
  o.beam_size = 4;
  o.return_alignment = true;
  for (int round = 0; round < 2; ++round) {
    Span<const TranslationResult> r;
    REQUIRE(t->Translate(Span<const std::string_view>(in.data(), in.size()), o, &r).ok());
    for (size_t i = 0; i < in.size(); ++i) {
      CAPTURE(i);
      std::vector<uint32_t> ids;
      REQUIRE(tok.value()->Encode(in[i], "", &ids).ok());
      REQUIRE(r[i].ok());
      CHECK(std::vector<uint32_t>(r[i].source_ids.begin(), r[i].source_ids.end()) == ids);
      REQUIRE(r[i].source_spans.size() == ids.size());
      for (const TextSpan& s : r[i].source_spans) CHECK((s.begin <= s.end && s.end <= in[i].size()));
      for (int32_t s : r[i].best().token_sources) CHECK((s >= 0 && static_cast<size_t>(s) < ids.size()));
    }
  }
}

TEST_CASE("what results point to lives through the whole call in the arena plan") {
  auto plan = Translator::DescribeArena(*EnDe(), {});
  REQUIRE(plan.ok());
  size_t checked = 0;
  for (const ArenaBufferInfo& b : plan.value()) {
    const bool viewed = b.name.rfind("results.", 0) == 0 || b.name == "batch.staged_ids" || b.name == "batch.in_len" ||
                        b.name == "batch.src_spans";
    if (!viewed) continue;
    CAPTURE(b.name);
    CHECK(b.lifetime == "encoder..decoder");
    ++checked;
  }
  CHECK(checked >= 10);
}
