// A call's own logits rules (TranslateOptions::repetition_penalty, no_repeat_ngram_size, min_length) in
// place of the file's: greedy and beam search equal the PyTorch reference with the same rules (reference.py
// CALL_RULES), the file's rules come back for the next call, and bad values fail the call.
#include "tern/logits_processor.h"
#include "test_util.h"

using namespace tern;
using namespace tern::test;

namespace {

// Greedy, then beam 4 with 2-best, of `src` under `o` equal the reference's {"greedy": [ids, score], "beam":
// [[ids, score], ...]} (scores within 1e-3 relative).
void CheckAgainstReference(Translator& t, const std::vector<uint32_t>& src, TranslateOptions o, const nlohmann::json& want) {
  const Span<const uint32_t> one(src.data(), src.size());
  const Span<const Span<const uint32_t>> in(&one, 1);
  Span<const TranslationResult> r;
  o.beam_size = 1, o.n_best = 1;
  REQUIRE(t.TranslateIds(in, o, &r).ok());
  CHECK(ToVector(r[0].best().ids) == Ids(want["greedy"][0]));
  CHECK(r[0].best().score == doctest::Approx(want["greedy"][1].get<float>()).epsilon(1e-3));
  o.beam_size = 4, o.n_best = 2;
  REQUIRE(t.TranslateIds(in, o, &r).ok());
  REQUIRE(r[0].hypotheses.size() == want["beam"].size());
  for (size_t h = 0; h < want["beam"].size(); ++h) {
    CHECK(ToVector(r[0].hypotheses[h].ids) == Ids(want["beam"][h][0]));
    CHECK(r[0].hypotheses[h].score == doctest::Approx(want["beam"][h][1].get<float>()).epsilon(1e-3));
  }
}

// Runs check(translator, reference file, case) on every case of every tiny model (f32, max beam 4, 2-best);
// returns how many.
template <typename Check>
size_t ForEachCase(Check check) {
  size_t n = 0;
  for (const std::string& v : Variants()) {
    CAPTURE(v);
    const auto ref = ReadJson(ModelsDir() + "/" + v + ".ref.json");
    TranslatorConfig cfg;
    cfg.max_beam = 4;
    cfg.max_n_best = 2;
    auto t = MakeTranslator(LoadOrFail(ModelPath(v, "f32")), cfg);
    for (const auto& c : ref["cases"]) check(*t, ref, c), ++n;
  }
  return n;
}

}  // namespace

TEST_CASE("f32: a call's own repetition penalty, no-repeat n-grams and min length equal the reference") {
  const size_t n = ForEachCase([](Translator& t, const nlohmann::json& ref, const nlohmann::json& c) {
    TranslateOptions o;
    o.max_length = ref["max_length"].get<uint32_t>();
    o.repetition_penalty = 1.3f;
    o.no_repeat_ngram_size = 3;
    o.min_length = 5;  // transformers' min_length 6 (it counts the start token)
    CheckAgainstReference(t, Ids(c["src"]), o, c["call_rules"]);
    // The next call without rules of its own has the file's again.
    const auto src = Ids(c["src"]);
    const Span<const uint32_t> one(src.data(), src.size());
    TranslateOptions plain;
    plain.max_length = o.max_length;
    plain.beam_size = 1;
    Span<const TranslationResult> r;
    REQUIRE(t.TranslateIds(Span<const Span<const uint32_t>>(&one, 1), plain, &r).ok());
    CHECK(ToVector(r[0].best().ids) == Ids(c["greedy"]));
  });
  CHECK(n == Variants().size() * 8);
}

TEST_CASE("a call's own logits rules: bad values fail the call") {
  auto t = MakeTranslator(LoadOrFail(ModelPath("post-swish", "int8")));
  TranslateOptions o;
  o.repetition_penalty = 0.f;
  CHECK(t->CheckOptions(o).message() == "repetition_penalty 0: must be finite and > 0");
  o.repetition_penalty = NAN;
  CHECK(t->CheckOptions(o).code() == StatusCode::kInvalidArgument);
  o.repetition_penalty = 1.1f;
  o.no_repeat_ngram_size = 2;
  o.min_length = 3;
  CHECK(t->CheckOptions(o).ok());
}

TEST_CASE("max_input_length cuts a long source to its first tokens and </s> instead of failing it") {
  TranslatorConfig cfg;
  cfg.max_source_tokens = 8;
  auto t = MakeTranslator(LoadOrFail(ModelPath("post-swish", "int8")), cfg);
  const uint32_t eos = t->model().hparams().eos_id;
  std::vector<uint32_t> longer;
  for (uint32_t k = 0; k < 19; ++k) longer.push_back(5 + k % 20);
  longer.push_back(eos);
  std::vector<uint32_t> cut(longer.begin(), longer.begin() + 5);
  cut.push_back(eos);
  const Span<const uint32_t> both[] = {{longer.data(), longer.size()}, {cut.data(), cut.size()}};
  TranslateOptions o;
  o.beam_size = 1;
  Span<const TranslationResult> r;
  REQUIRE(t->TranslateIds(both, o, &r).ok());
  CHECK(r[0].error == StatusCode::kResourceExhausted);  // the default: a sentence over the limit fails alone
  o.max_input_length = 6;
  REQUIRE(t->TranslateIds(both, o, &r).ok());
  REQUIRE(r[0].ok());
  CHECK(ToVector(r[0].source_ids) == cut);
  const auto first = ToVector(r[0].best().ids);
  CHECK(first == ToVector(r[1].best().ids));  // the same as the cut source given as such
  o.max_input_length = 1000;  // beyond max_source_tokens: cut to it
  REQUIRE(t->TranslateIds(both, o, &r).ok());
  REQUIRE(r[0].ok());
  CHECK(r[0].source_ids.size() == 8);
  CHECK(r[0].source_ids[7] == eos);
  // Text: the same rule after SentencePiece.
  const std::string_view text[] = {"a b c d e f g h i j k l m n o p q r s t u v w x y z a b c d e f g h"};
  o.max_input_length = 0;
  REQUIRE(t->Translate(Span<const std::string_view>(text, 1), o, &r).ok());
  CHECK(r[0].error == StatusCode::kResourceExhausted);
  o.max_input_length = 4;
  REQUIRE(t->Translate(Span<const std::string_view>(text, 1), o, &r).ok());
  REQUIRE(r[0].ok());
  CHECK(r[0].source_ids.size() == 4);
  CHECK(r[0].source_ids[3] == eos);
  CHECK(r[0].source_spans.size() == 4);
}

TEST_CASE("f32: suppress_sequences (one token and two) equal the reference's NoBadWords, greedy and beam") {
  const size_t n = ForEachCase([](Translator& t, const nlohmann::json& ref, const nlohmann::json& c) {
    std::vector<std::vector<uint32_t>> seqs;
    for (const auto& s : c["suppress"]["sequences"]) seqs.push_back(Ids(s));
    std::vector<Span<const uint32_t>> views;
    for (const auto& s : seqs) views.emplace_back(s.data(), s.size());
    TranslateOptions o;
    o.max_length = ref["max_length"].get<uint32_t>();
    o.suppress_sequences = Span<const Span<const uint32_t>>(views.data(), views.size());
    CheckAgainstReference(t, Ids(c["src"]), o, c["suppress"]);
  });
  CHECK(n == Variants().size() * 8);
}

TEST_CASE("disable_unk keeps <unk> out and bad suppress_sequences fail the call") {
  auto t = MakeTranslator(LoadOrFail(ModelPath("post-swish", "f32")));
  const Hyperparameters& hp = t->model().hparams();
  const std::vector<uint32_t> src = {5, 6, 7, hp.eos_id};
  const Span<const uint32_t> one(src.data(), src.size());
  // A logits processor (after the rules) that adds 1000 to <unk>: the best token, unless a rule made it -inf.
  struct FavourUnk : LogitsProcessor {
    uint32_t unk = 0;
    void Process(LogitsRow& row) override {
      const int64_t c = row.Column(unk);
      if (c >= 0) row.scores[static_cast<size_t>(c)] += 1000.f;
    }
  } favour;
  favour.unk = hp.unk_id;
  LogitsProcessor* const procs[] = {&favour};
  TranslateOptions o;
  o.max_length = 10;
  o.beam_size = 1;
  o.logits_processors = Span<LogitsProcessor* const>(procs, 1);
  Span<const TranslationResult> r;
  REQUIRE(t->TranslateIds(Span<const Span<const uint32_t>>(&one, 1), o, &r).ok());
  REQUIRE(r[0].ok());
  CHECK(r[0].best().ids[0] == hp.unk_id);  // without disable_unk: the processor wins
  o.disable_unk = true;
  REQUIRE(t->TranslateIds(Span<const Span<const uint32_t>>(&one, 1), o, &r).ok());
  REQUIRE(r[0].ok());
  for (uint32_t id : r[0].best().ids) CHECK(id != hp.unk_id);
  const std::vector<uint32_t> empty, bad = {hp.target_vocab_size};
  const Span<const uint32_t> seqs[] = {{empty.data(), 0}};
  o.suppress_sequences = Span<const Span<const uint32_t>>(seqs, 1);
  CHECK(t->CheckOptions(o).message() == "suppress_sequences: sequence 0 is empty");
  const Span<const uint32_t> seqs2[] = {{src.data(), 1}, {bad.data(), 1}};
  o.suppress_sequences = Span<const Span<const uint32_t>>(seqs2, 2);
  CHECK(t->CheckOptions(o).message() == "suppress_sequences: id " + std::to_string(hp.target_vocab_size) +
                                            " at position 0 of sequence 1 is outside the target vocabulary (" +
                                            std::to_string(hp.target_vocab_size) + ")");
}

TEST_CASE("f32: end_tokens end hypotheses as </s> does (with the call's rules) and equal the reference") {
  const size_t n = ForEachCase([](Translator& t, const nlohmann::json& ref, const nlohmann::json& c) {
    const auto ends = Ids(c["end_tokens"]["tokens"]);
    TranslateOptions o;
    o.max_length = ref["max_length"].get<uint32_t>();
    o.repetition_penalty = 1.3f;
    o.no_repeat_ngram_size = 3;
    o.min_length = 5;
    o.end_tokens = Span<const uint32_t>(ends.data(), ends.size());
    CheckAgainstReference(t, Ids(c["src"]), o, c["end_tokens"]);
  });
  CHECK(n == Variants().size() * 8);
  auto t = MakeTranslator(LoadOrFail(ModelPath("post-swish", "f32")));
  const uint32_t bad[] = {t->model().hparams().target_vocab_size};
  TranslateOptions o;
  o.end_tokens = Span<const uint32_t>(bad, 1);
  CHECK(t->CheckOptions(o).message() == "end_tokens: id " + std::to_string(bad[0]) +
                                            " at position 0 is outside the target vocabulary (" + std::to_string(bad[0]) + ")");
}

TEST_CASE("f32: forced_eos switched per call equals the reference with forced_eos_token_id switched") {
  size_t cut = 0;  // hypotheses max_length cut without </s>: the switch must matter somewhere
  const size_t n = ForEachCase([&cut](Translator& t, const nlohmann::json&, const nlohmann::json& c) {
    const auto& f = c["forced_eos"];
    TranslateOptions o;
    o.max_length = f["max_length"].get<uint32_t>();
    o.forced_eos = f["on"].get<bool>();
    CheckAgainstReference(t, Ids(c["src"]), o, f);
    for (const auto& h : f["beam"]) cut += h[0].size() == o.max_length;
  });
  CHECK(n == Variants().size() * 8);
  CHECK(cut > 0);
}
