// Streaming and cancellation (TranslateOptions::on_token / abort), through C++ and the C API; a model
// file truncated under a running Translator loaded with map_file = false.
#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>
#include <unistd.h>
#include <vector>

#include "tern/tern.h"
#include "test_util.h"

using namespace tern;
using namespace tern::test;

namespace {

struct Recorder {
  std::map<std::pair<size_t, size_t>, std::string> text;  // (index, part) -> concatenated text
  std::map<std::pair<size_t, size_t>, std::vector<uint32_t>> tokens;
  std::map<std::pair<size_t, size_t>, int> lasts;
  std::vector<size_t> order;  // index of each event
  bool after_last = false;    // an event for a sentence after its last one
  size_t stop_after = 0, events = 0;

  static bool On(const TokenEvent& e, void* self) {
    auto& r = *static_cast<Recorder*>(self);
    const auto key = std::make_pair(e.index, e.part);
    if (r.lasts[key] > 0) r.after_last = true;
    r.text[key].append(e.text);
    r.tokens[key].push_back(e.token);
    r.lasts[key] += e.last;
    r.order.push_back(e.index);
    ++r.events;
    return r.stop_after == 0 || r.events < r.stop_after;
  }
};

const std::vector<std::string> kSentences = {"A man in a blue shirt is standing on a ladder.", "Two dogs play in the snow.",
                                             "A woman reads a book in the park, and a child laughs.", "People sit."};

// Options that stream to `rec`.
TranslateOptions Streaming(Recorder& rec, uint32_t beam) {
  TranslateOptions o;
  o.beam_size = beam;
  o.on_token = Recorder::On;
  o.on_token_user_data = &rec;
  return o;
}

std::vector<std::string_view> Views(const std::vector<std::string>& v) { return {v.begin(), v.end()}; }


}  // namespace

TEST_CASE("streaming: each sentence's texts make up its translation, tokens in order, one last event") {
  for (const std::string& path : {BundledModel(), ModelPath("post-rules", "int8")}) {
    CAPTURE(path);
    TranslatorConfig c;
    c.max_beam = 4;
    auto t = MakeTranslator(LoadOrFail(path), c);
    for (uint32_t beam : {1u, 4u}) {
      CAPTURE(beam);
      Recorder rec;
      TranslateOptions o = Streaming(rec, beam);
      o.split_sentences = false;
      const auto texts = Views(kSentences);
      Span<const TranslationResult> r;
      REQUIRE(t->Translate(Span<const std::string_view>(texts.data(), texts.size()), o, &r).ok());
      CHECK_FALSE(rec.after_last);
      for (size_t i = 0; i < texts.size(); ++i) {
        REQUIRE(r[i].ok());
        const auto key = std::make_pair(i, size_t{0});
        CHECK(rec.text[key] == r[i].best().text);
        CHECK(rec.lasts[key] == 1);
        // The streamed tokens are the result's ids, then </s> when the sentence ended with it.
        std::vector<uint32_t> ids = ToVector(r[i].best().ids);
        std::vector<uint32_t> got = rec.tokens[key];
        if (got.size() == ids.size() + 1) got.pop_back();
        CHECK(got == ids);
      }
      if (beam == 1) {  // greedy: the sentences of the batch interleave, step by step
        CHECK(rec.order.size() > texts.size());
      }
    }
  }
}

TEST_CASE("streaming split texts: each part streams its sentence, and the parts joined make the result") {
  auto t = MakeTranslator(LoadOrFail(BundledModel()));
  if (!t->splits_sentences()) return;  // a build without ICU
  const std::vector<std::string> in = {"A dog runs. Two children play with a ball.", "A woman reads."};
  const auto texts = Views(in);
  Recorder rec;
  const TranslateOptions o = Streaming(rec, 1);
  Span<const TranslationResult> r;
  REQUIRE(t->Translate(Span<const std::string_view>(texts.data(), texts.size()), o, &r).ok());
  REQUIRE(r[0].ok());
  const std::string joined = rec.text[{0, 0}] + " " + rec.text[{0, 1}];
  CHECK(std::string(r[0].best().text) == joined);
  CHECK(rec.text[{1, 0}] == r[1].best().text);
  CHECK(rec.lasts[{0, 1}] == 1);
}

TEST_CASE("cancellation mid-batch: kCancelled, finished sentences keep their results, nothing after stop") {
  auto t = MakeTranslator(LoadOrFail(BundledModel()));
  const auto texts = Views(kSentences);
  TranslateOptions o;
  o.beam_size = 1;
  o.split_sentences = false;
  Span<const TranslationResult> full;
  REQUIRE(t->Translate(Span<const std::string_view>(texts.data(), texts.size()), o, &full).ok());
  // The shortest sentence ("People sit.") finishes first; stop one step after it did.
  size_t shortest = 0;
  for (size_t i = 0; i < full.size(); ++i)
    if (full[i].best().ids.size() < full[shortest].best().ids.size()) shortest = i;
  const std::string want_short(full[shortest].best().text);
  const size_t stop_at = (full[shortest].best().ids.size() + 2) * texts.size();
  Recorder rec;
  rec.stop_after = stop_at;
  o.on_token = Recorder::On;
  o.on_token_user_data = &rec;
  Span<const TranslationResult> r;
  Status s = t->Translate(Span<const std::string_view>(texts.data(), texts.size()), o, &r);
  CHECK(s.code() == StatusCode::kCancelled);
  REQUIRE(r.size() == texts.size());
  CHECK(rec.events == stop_at);  // no event after the callback said stop
  CHECK(r[shortest].ok());
  CHECK(std::string(r[shortest].best().text) == want_short);
  size_t cancelled = 0;
  for (size_t i = 0; i < r.size(); ++i)
    if (!r[i].ok()) {
      CHECK(r[i].error == StatusCode::kCancelled);
      CHECK(r[i].error_message == "cancelled by the caller");
      ++cancelled;
    }
  CHECK(cancelled >= 1);
  // The abort callback stops before the next decoder step (beam search too); the session goes on.
  int checks = 0;
  TranslateOptions a;
  a.beam_size = 4;
  a.abort = [](void* n) { return ++*static_cast<int*>(n) > 3; };
  a.abort_user_data = &checks;
  CHECK(t->Translate(Span<const std::string_view>(texts.data(), 2), a, &r).code() == StatusCode::kCancelled);
  CHECK(checks == 4);
  REQUIRE(t->Translate(Span<const std::string_view>(texts.data(), texts.size()), TranslateOptions(), &r).ok());
}

TEST_CASE("streaming ids: TranslateIds streams text too") {
  auto t = MakeTranslator(LoadOrFail(ModelPath("post-swish", "int8")));
  const std::vector<uint32_t> src = {5, 6, 7, 0};
  Span<const uint32_t> one(src.data(), src.size());
  Recorder rec;
  const TranslateOptions o = Streaming(rec, 1);
  Span<const TranslationResult> r;
  REQUIRE(t->TranslateIds(Span<const Span<const uint32_t>>(&one, 1), o, &r).ok());
  CHECK(rec.lasts[{0, 0}] == 1);
  std::vector<uint32_t> got = rec.tokens[{0, 0}];
  if (got.size() == r[0].best().ids.size() + 1) got.pop_back();
  CHECK(got == ToVector(r[0].best().ids));
}

TEST_CASE("C API: a token callback that throws never lets the exception cross into C") {
  tern_error err;
  tern_model* model = tern_model_load(BundledModel().c_str(), &err);
  REQUIRE(model != nullptr);
  tern_translator_params tp = tern_translator_default_params();
  tp.threads = 1;
  tern_translator* tr = tern_translator_create(model, &tp, &err);
  tern_model_free(model);
  REQUIRE(tr != nullptr);
  const char* in[] = {"A dog runs."};
  tern_translate_params p = tern_translate_default_params();
  p.token_callback = [](const tern_token_event*, void*) -> int { throw std::runtime_error("callback failed"); };
  tern_results* res = tern_results_create();
  CHECK(tern_translate(tr, in, 1, &p, res, &err) == TERN_INTERNAL);
  CHECK(std::string(err.message).find("callback failed") != std::string::npos);
  p.token_callback = nullptr;
  CHECK(tern_translate(tr, in, 1, &p, res, &err) == TERN_OK);  // the translator works afterwards
  CHECK(tern_result_error(res, 0) == nullptr);
  tern_results_free(res);
  tern_translator_free(tr);
}

TEST_CASE("a model read into memory survives its file being truncated and rewritten under it") {
  const std::string copy = (std::filesystem::temp_directory_path() / ("tern-trunc-" + std::to_string(getpid()) + ".tern")).string();
  std::filesystem::copy_file(BundledModel(), copy, std::filesystem::copy_options::overwrite_existing);
  LoadOptions o;
  o.map_file = false;
  auto model = Model::Load(copy, o);
  REQUIRE(model.ok());
  auto t = MakeTranslator(model.value());
  const auto texts = Views(kSentences);
  Span<const TranslationResult> before;
  REQUIRE(t->Translate(Span<const std::string_view>(texts.data(), texts.size()), TranslateOptions(), &before).ok());
  const std::string want(before[0].best().text);
  std::filesystem::resize_file(copy, 4096);  // an app update truncating the file in place
  { std::ofstream(copy, std::ios::binary | std::ios::trunc) << std::string(10000, 'x'); }
  for (int i = 0; i < 20; ++i) {
    Span<const TranslationResult> r;
    REQUIRE(t->Translate(Span<const std::string_view>(texts.data(), texts.size()), TranslateOptions(), &r).ok());
    CHECK(std::string(r[0].best().text) == want);
  }
  // A second Translator on the same Model needs no page of the file either.
  auto t2 = MakeTranslator(model.value());
  Span<const TranslationResult> r2;
  REQUIRE(t2->Translate(Span<const std::string_view>(texts.data(), 1), TranslateOptions(), &r2).ok());
  CHECK(std::string(r2[0].best().text) == want);
  std::filesystem::remove(copy);
}

TEST_CASE("streaming a text whose later sentence fails: nothing of it is streamed or decoded, it fails whole") {
  // With --stream the first sentence's translation was printed although the line then failed (its second
  // sentence is longer than max_source_tokens): a text of several sentences is now checked first.
  if (!Translator::Create(LoadOrFail(ModelPath("post-swish", "int8")), {}).value()->splits_sentences()) return;
  auto t = MakeTranslator(LoadOrFail(ModelPath("post-swish", "int8")), TranslatorConfig{4, 4, 1, 24, 32, 1, nullptr, 0});
  std::string long_sentence = "Then";
  for (int i = 0; i < 40; ++i) long_sentence += " a man runs";
  long_sentence += ".";
  const std::string doomed = "A dog runs. " + long_sentence;
  for (uint32_t beam : {1u, 4u}) {
    CAPTURE(beam);
    Recorder rec;
    std::string_view in[] = {"A man in a blue shirt.", doomed, "Two dogs play. They run."};
    t->ResetProfile();
    Span<const TranslationResult> r;
    REQUIRE(t->Translate(in, Streaming(rec, beam), &r).ok());
    CHECK(r[0].ok());
    CHECK(r[2].ok());
    REQUIRE_FALSE(r[1].ok());
    CHECK(r[1].error == StatusCode::kResourceExhausted);
    CHECK(std::string(r[1].error_message).rfind("sentence 2 of 2: ", 0) == 0);
    for (const auto& [key, text] : rec.text) CHECK(key.first != 1);  // no event of the failing text
    CHECK(rec.lasts[{0, 0}] == 1);
    CHECK(rec.lasts[{2, 1}] == 1);
  }
}
