// Lexical shortlists: search over a shortlist gives the full vocabulary's greedy result whenever the
// shortlist holds every token that search picked (and the full result of beam search when it holds every
// token); a call scores exactly frequent + the candidates of its source ids + </s>; the loader refuses
// damaged tables; the converter builds shortlists from a parallel corpus (IBM Model 1) and imports
// Marian's text format, with errors that name the file and line.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>

#include "marian_checkpoint.h"
#include "shortlist.h"
#include "tern/logits_processor.h"
#include "tern/tokenize.h"
#include "tern_generated.h"
#include "tern_writer.h"
#include "test_util.h"

using namespace tern;
using namespace tern::test;

namespace {

// `variant`'s checkpoint converted to `weights` with `sl` stored as its shortlist.
std::shared_ptr<const Model> WithShortlist(const std::string& variant, const std::string& weights,
                                           const convert::ShortlistTables& sl) {
  convert::Checkpoint ck;
  Status s = convert::ReadMarianCheckpoint(ModelsDir() + "/" + variant, &ck);
  REQUIRE_MESSAGE(s.ok(), s.message());
  convert::WriteOptions opts;
  auto plan = convert::WeightPlan::Named(weights, 64);
  REQUIRE(plan.ok());
  opts.weights = plan.value();
  opts.limits.max_source_tokens = std::min(opts.limits.max_source_tokens, ck.hp.max_positions);
  opts.limits.max_target_tokens = std::min(opts.limits.max_target_tokens, ck.hp.max_positions - 1);
  opts.shortlist = &sl;
  std::vector<uint8_t> image;
  s = convert::BuildTernImage(ck, opts, &image, nullptr);
  REQUIRE_MESSAGE(s.ok(), s.message());
  auto m = Model::FromBytes(image.data(), image.size(), variant + ".shortlist.tern");
  REQUIRE_MESSAGE(m.ok(), m.status().message());
  return m.value();
}

// A shortlist of `frequent` and no candidates.
convert::ShortlistTables FrequentOnly(const Model& m, std::vector<uint32_t> frequent) {
  convert::ShortlistTables sl;
  sl.frequent = std::move(frequent);
  sl.offsets.assign(m.hparams().source_vocab_size + 1, 0);
  sl.method = "test";
  return sl;
}

struct Run {
  std::vector<std::vector<uint32_t>> ids;
  std::vector<float> scores;
};

Run Translate(Translator& t, const nlohmann::json& ref, uint32_t beam, bool use_shortlist) {
  TranslateOptions o;
  o.beam_size = beam;
  o.max_length = ref["max_length"].get<uint32_t>();
  o.use_shortlist = use_shortlist;
  Run out;
  for (const auto& c : ref["cases"]) {
    const auto src = Ids(c["src"]);
    Span<const uint32_t> one(src.data(), src.size());
    Span<const TranslationResult> r;
    REQUIRE(t.TranslateIds(Span<const Span<const uint32_t>>(&one, 1), o, &r).ok());
    REQUIRE(r[0].ok());
    out.ids.push_back(ToVector(r[0].best().ids));
    out.scores.push_back(r[0].best().score);
  }
  return out;
}

// fn(variant, weights, ref, full_model, full translator, config) for every test model in int8 (the gathered
// kernel) and f32 (the full projection's columns).
template <typename Fn>
void ForEachModel(Fn fn) {
  for (const std::string& v : Variants()) {
    for (const std::string w : {"int8", "f32"}) {
      CAPTURE(v);
      CAPTURE(w);
      const auto ref = ReadJson(ModelsDir() + "/" + v + ".ref.json");
      TranslatorConfig cfg;
      cfg.max_beam = 4;
      auto full_model = LoadOrFail(ModelPath(v, w));
      auto full = MakeTranslator(full_model, cfg);
      fn(v, w, ref, *full_model, *full, cfg);
    }
  }
}

std::string TempPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("tern-test-" + std::to_string(::getpid()) + "-" + name)).string();
}

}  // namespace

TEST_CASE("shortlist: greedy ids equal the full vocabulary's when the shortlist holds every token it picked") {
  ForEachModel([](const std::string& v, const std::string& w, const nlohmann::json& ref, const Model& full_model,
                  Translator& full, const TranslatorConfig& cfg) {
    const Run want = Translate(full, ref, 1, true);
    // Every picked token, and a few the search did not pick; </s> is added by the runtime.
    std::set<uint32_t> picked;
    for (const auto& ids : want.ids) picked.insert(ids.begin(), ids.end());
    for (uint32_t t = 3; t < full_model.hparams().target_vocab_size; t += 17) picked.insert(t);
    auto t = MakeTranslator(WithShortlist(v, w, FrequentOnly(full_model, std::vector<uint32_t>(picked.begin(), picked.end()))), cfg);
    CHECK(Translate(*t, ref, 1, true).ids == want.ids);
    CHECK(t->profile().output_columns < t->profile().decoder_steps * full_model.hparams().target_vocab_size);
    // use_shortlist = false: the full vocabulary, as the model without a shortlist.
    const Run off = Translate(*t, ref, 1, false);
    CHECK(off.ids == want.ids);
    for (size_t i = 0; i < off.scores.size(); ++i) CHECK(off.scores[i] == want.scores[i]);
  });
}

TEST_CASE("shortlist: holding every token, greedy and beam search give the full vocabulary's result") {
  ForEachModel([](const std::string& v, const std::string& w, const nlohmann::json& ref, const Model& full_model,
                  Translator& full, const TranslatorConfig& cfg) {
    std::vector<uint32_t> all(full_model.hparams().target_vocab_size);
    for (uint32_t i = 0; i < all.size(); ++i) all[i] = i;
    auto t = MakeTranslator(WithShortlist(v, w, FrequentOnly(full_model, all)), cfg);
    for (uint32_t beam : {1u, 4u}) {
      CAPTURE(beam);
      const Run want = Translate(full, ref, beam, true), got = Translate(*t, ref, beam, true);
      CHECK(got.ids == want.ids);
      // int8: the gathered kernel rounds once more than XNNPACK's fused multiply-add (last bits of a logit).
      for (size_t i = 0; i < got.scores.size(); ++i) CHECK(got.scores[i] == doctest::Approx(want.scores[i]).epsilon(1e-5));
    }
  });
}

TEST_CASE("shortlist: a call scores its frequent tokens, its source ids' candidates and </s>, nothing else") {
  auto base = LoadOrFail(ModelPath("post-swish", "int8"));
  const Hyperparameters& hp = base->hparams();
  const uint32_t eos = hp.eos_id, s0 = 5, s1 = 6;  // two source ids
  convert::ShortlistTables sl = FrequentOnly(*base, {10, 11});
  // Candidates: source id 5 -> {12, 10}, source id 6 -> {13}.
  for (uint32_t s = 0; s < hp.source_vocab_size; ++s) {
    if (s == s0) sl.candidates.push_back(12), sl.candidates.push_back(10);
    if (s == s1) sl.candidates.push_back(13);
    sl.offsets[s + 1] = static_cast<uint32_t>(sl.candidates.size());
  }
  auto model = WithShortlist("post-swish", "int8", sl);
  CHECK(model->shortlist().present);
  CHECK(model->shortlist().frequent == 2);
  CHECK(model->shortlist().candidates == 3);
  CHECK(model->shortlist().method == "test");
  auto t = MakeTranslator(model);
  auto columns_for = [&](std::vector<uint32_t> src, bool use) {
    t->ResetProfile();
    src.push_back(eos);
    Span<const uint32_t> one(src.data(), src.size());
    Span<const TranslationResult> r;
    TranslateOptions o;
    o.beam_size = 1;
    o.max_length = 6;
    o.use_shortlist = use;
    REQUIRE(t->TranslateIds(Span<const Span<const uint32_t>>(&one, 1), o, &r).ok());
    REQUIRE(r[0].ok());
    for (uint32_t id : r[0].best().ids) CHECK((!use || id == 10 || id == 11 || id == 12 || id == 13));
    return t->profile().output_columns / t->profile().decoder_steps;
  };
  CHECK(columns_for({s0}, true) == 4);       // 10, 11, 12, </s>
  CHECK(columns_for({s0, s1}, true) == 5);   // + 13
  CHECK(columns_for({7, 8}, true) == 3);     // 10, 11, </s>
  CHECK(columns_for({s0}, false) == hp.target_vocab_size);
}

TEST_CASE("shortlist: a per-call logits processor sees the shortlist's columns and bans through them") {
  auto base = LoadOrFail(ModelPath("post-swish", "int8"));
  const uint32_t eos = base->hparams().eos_id;
  auto t = MakeTranslator(WithShortlist("post-swish", "int8", FrequentOnly(*base, {10, 11, 12, 13})));
  // Checks each row's column map and bans token 10 and 11 wherever they have a column.
  struct BanThrough : LogitsProcessor {
    size_t rows = 0, bad = 0;
    void Process(LogitsRow& row) override {
      ++rows;
      if (row.columns.size() != row.scores.size() || row.columns.size() != 5) ++bad;  // 10..13 and </s>
      for (size_t c = 0; c < row.columns.size(); ++c)
        if (row.Column(row.columns[c]) != static_cast<int64_t>(c)) ++bad;
      if (row.Column(20) != -1) ++bad;  // not in the shortlist
      for (uint32_t banned : {10u, 11u}) row.scores[static_cast<size_t>(row.Column(banned))] = -INFINITY;
    }
  } ban;
  LogitsProcessor* list[] = {&ban};
  std::vector<uint32_t> src = {5, 6, eos};
  Span<const uint32_t> one(src.data(), src.size());
  for (uint32_t beam : {1u, 2u}) {
    TranslateOptions o;
    o.beam_size = beam;
    o.max_length = 6;
    o.logits_processors = list;
    Span<const TranslationResult> r;
    REQUIRE(t->TranslateIds(Span<const Span<const uint32_t>>(&one, 1), o, &r).ok());
    REQUIRE(r[0].ok());
    for (uint32_t id : r[0].best().ids) CHECK((id == 12 || id == 13));
  }
  CHECK(ban.rows > 0);
  CHECK(ban.bad == 0);
}

TEST_CASE("shortlist: damaged tables are refused with what is wrong") {
  auto base = LoadOrFail(ModelPath("post-swish", "int8"));
  convert::ShortlistTables sl = FrequentOnly(*base, {10, 11});
  convert::Checkpoint ck;
  REQUIRE(convert::ReadMarianCheckpoint(ModelsDir() + "/post-swish", &ck).ok());
  convert::WriteOptions opts;
  opts.weights = convert::WeightPlan::Named("int8", 64).value();
  opts.limits.max_source_tokens = std::min(opts.limits.max_source_tokens, ck.hp.max_positions);
  opts.limits.max_target_tokens = std::min(opts.limits.max_target_tokens, ck.hp.max_positions - 1);
  auto load = [&](const convert::ShortlistTables& tables, auto&& damage) {
    opts.shortlist = &tables;
    std::vector<uint8_t> image;
    REQUIRE(convert::BuildTernImage(ck, opts, &image, nullptr).ok());
    damage(fb::GetMutableModel(image.data())->mutable_shortlist());
    auto m = Model::FromBytes(image.data(), image.size(), "sl.tern");
    REQUIRE_FALSE(m.ok());
    return m.status().message();
  };
  CHECK(load(sl, [&](fb::Shortlist* s) { s->mutable_frequent()->Mutate(1, base->hparams().target_vocab_size); })
            .find("shortlist.frequent holds " + std::to_string(base->hparams().target_vocab_size) +
                  ", outside the target vocabulary") != std::string::npos);
  convert::ShortlistTables two = sl;
  two.candidates = {12, 13};
  for (size_t s = 3; s < two.offsets.size(); ++s) two.offsets[s] = 2;
  two.offsets[2] = 1;
  CHECK(load(two, [](fb::Shortlist* s) { s->mutable_offsets()->Mutate(2, 2), s->mutable_offsets()->Mutate(3, 1); })
            .find("shortlist.offsets decreases at source id 2") != std::string::npos);
  CHECK(load(two, [](fb::Shortlist* s) { s->mutable_offsets()->Mutate(0, 1); })
            .find("shortlist.offsets must start at 0") != std::string::npos);
  // The writer checks the offsets' length (the loader does too: tested through the fuzzers' corpus).
  convert::ShortlistTables short_offsets = sl;
  short_offsets.offsets.pop_back();
  opts.shortlist = &short_offsets;
  std::vector<uint8_t> image;
  CHECK(convert::BuildTernImage(ck, opts, &image, nullptr).message().find("offsets do not match") != std::string::npos);
}

TEST_CASE("shortlist from a parallel corpus: IBM Model 1 puts a word's translation first") {
  // The bundled en-de model's tokenizers; a corpus where 'dog' always comes with 'Hund', 'cat' with 'Katze'.
  auto model = LoadOrFail(std::string(TERN_SOURCE_DIR) + "/models/en-de/en-de.int8.tern");
  const std::string src = TempPath("corpus.en"), tgt = TempPath("corpus.de");
  {
    std::ofstream a(src), b(tgt);
    for (int i = 0; i < 20; ++i) a << "dog\ncat\nthe dog\nthe cat\n", b << "Hund\nKatze\nder Hund\ndie Katze\n";
  }
  convert::ShortlistParams p;
  p.frequent = 3;
  p.best = 2;
  convert::ShortlistTables sl;
  Status s = convert::BuildShortlist(model, src, tgt, p, &sl);
  REQUIRE_MESSAGE(s.ok(), s.message());
  auto src_tok = TextTokenizer::Create(model, TextTokenizer::Side::kSource);
  auto tgt_tok = TextTokenizer::Create(model, TextTokenizer::Side::kTarget);
  REQUIRE((src_tok.ok() && tgt_tok.ok()));
  std::vector<uint32_t> dog, hund, cat, katze;
  REQUIRE(src_tok.value()->Encode("dog", "", &dog).ok());
  REQUIRE(tgt_tok.value()->Encode("Hund", "", &hund).ok());
  REQUIRE(src_tok.value()->Encode("cat", "", &cat).ok());
  REQUIRE(tgt_tok.value()->Encode("Katze", "", &katze).ok());
  REQUIRE(sl.offsets.size() == model->hparams().source_vocab_size + 1);
  auto first_candidate = [&](uint32_t s) {
    REQUIRE(sl.offsets[s + 1] > sl.offsets[s]);
    return sl.candidates[sl.offsets[s]];
  };
  CHECK(first_candidate(dog[0]) == hund[0]);
  CHECK(first_candidate(cat[0]) == katze[0]);
  CHECK(sl.frequent.size() == 3);
  for (uint32_t t : sl.candidates) CHECK(t < model->hparams().target_vocab_size);
  CHECK(sl.method.find("IBM Model 1") != std::string::npos);
  CHECK(sl.method.find("80 sentence pairs") != std::string::npos);

  // Files whose line counts differ.
  { std::ofstream b(tgt, std::ios::app); b << "extra\n"; }
  s = convert::BuildShortlist(model, src, tgt, p, &sl);
  CHECK(s.code() == StatusCode::kIoError);
  CHECK(s.message().find("has 80 lines") != std::string::npos);
  CHECK(s.message().find("has 81") != std::string::npos);
  std::remove(src.c_str());
  std::remove(tgt.c_str());
}

TEST_CASE("shortlist from Marian's text format: best first per source piece, unknown pieces skipped, bad lines named") {
  auto model = LoadOrFail(ModelPath("post-swish", "int8"));
  const auto& sv = model->source_vocab();
  const auto& tv = model->target_vocab();
  const std::string path = TempPath("lex.s2t");
  {
    std::ofstream f(path);
    f << tv[5] << " " << sv[7] << " 0.2\n"
      << tv[6] << " " << sv[7] << " 0.7\n"
      << tv[8] << " " << sv[7] << " 0.0001\n"        // below min_prob
      << "no-such-piece " << sv[7] << " 0.9\n"       // unknown: skipped
      << tv[9] << " " << sv[3] << " 1\n";
  }
  convert::ShortlistParams p;
  p.frequent = 4;
  p.best = 5;
  convert::ShortlistTables sl;
  Status s = convert::ReadMarianShortlist(*model, path, p, &sl);
  REQUIRE_MESSAGE(s.ok(), s.message());
  CHECK(std::vector<uint32_t>(sl.candidates.begin() + sl.offsets[7], sl.candidates.begin() + sl.offsets[8]) ==
        std::vector<uint32_t>{6, 5});
  CHECK(std::vector<uint32_t>(sl.candidates.begin() + sl.offsets[3], sl.candidates.begin() + sl.offsets[4]) ==
        std::vector<uint32_t>{9});
  CHECK(sl.frequent == std::vector<uint32_t>{0, 1, 2, 3});
  CHECK(sl.method.find("1 with pieces outside the vocabularies") != std::string::npos);
  {
    std::ofstream f(path, std::ios::app);
    f << tv[5] << " " << sv[7] << " lots\n";
  }
  s = convert::ReadMarianShortlist(*model, path, p, &sl);
  CHECK(s.message().find("lex.s2t:6: probability 'lots' is not a number in [0, 1]") != std::string::npos);
  {
    std::ofstream f(path);
    f << "two fields\n";
  }
  s = convert::ReadMarianShortlist(*model, path, p, &sl);
  CHECK(s.message().find("lex.s2t:1: expected 'target source probability'") != std::string::npos);
  std::remove(path.c_str());
}
