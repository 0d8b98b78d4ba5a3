// The Translator API on text and ids: per-sentence errors, options, limits, arena, threads.
#include <cstdlib>
#include <cstring>

#include "model/model_impl.h"
#include "test_util.h"

using namespace tern;
using namespace tern::test;

namespace {

std::shared_ptr<const Model> Tiny(const char* w = "int8") { return LoadOrFail(ModelPath("post-swish", w)); }

}  // namespace

TEST_CASE("text in, text out: tokenized with the model's SentencePiece, results in input order") {
  auto t = MakeTranslator(Tiny());
  std::string_view in[] = {"A man in a blue shirt.", "Zwei Kinder spielen.", "The dog runs."};
  Span<const TranslationResult> r;
  REQUIRE(t->Translate(in, {}, &r).ok());
  REQUIRE(r.size() == 3);
  for (const TranslationResult& x : r) {
    REQUIRE(x.ok());
    REQUIRE(x.hypotheses.size() == 1);
    // The text is the detokenized ids: no </s>, no pad.
    for (uint32_t id : x.best().ids) CHECK(id != t->model().hparams().pad_id);
  }
  // Each sentence alone gives the same text.
  for (size_t i = 0; i < 3; ++i) {
    const std::string batch_text(r[i].best().text);
    Span<const TranslationResult> one;
    REQUIRE(t->Translate(Span<const std::string_view>(&in[i], 1), {}, &one).ok());
    CHECK(std::string(one[0].best().text) == batch_text);
  }
}

TEST_CASE("a bad sentence fails alone, the rest of the batch is translated") {
  TranslatorConfig c;
  c.max_source_tokens = 12;
  auto t = MakeTranslator(Tiny(), c);
  const std::string nul("with a \0 byte", 13);
  std::string long_line;
  for (int i = 0; i < 50; ++i) long_line += "a man in the street ";
  std::string_view in[] = {"A dog.", "bad \xff utf8", nul, long_line, "", "   ", "Two children."};
  Span<const TranslationResult> r;
  REQUIRE(t->Translate(in, {}, &r).ok());
  CHECK(r[0].ok());
  CHECK(r[1].error == StatusCode::kInvalidArgument);
  CHECK(r[1].error_message == "invalid UTF-8 at byte 4");
  CHECK(r[2].error_message == "NUL byte at byte 7");
  CHECK(r[3].error == StatusCode::kResourceExhausted);
  CHECK(std::string(r[3].error_message).find("source tokens exceed max_source_tokens 12") != std::string::npos);
  CHECK(r[4].ok());  // an empty line, or one of only spaces: an empty translation, the model not run
  CHECK(r[4].best().text.empty());
  CHECK(r[4].best().ids.size() == 0);
  CHECK(r[5].ok());
  CHECK(r[5].best().text.empty());
  CHECK(r[6].ok());
  Span<const TranslationResult> alone;
  std::string_view dog = "A dog.";
  REQUIRE(t->Translate(Span<const std::string_view>(&dog, 1), {}, &alone).ok());
  CHECK(alone[0].best().text == r[0].best().text);
}

TEST_CASE("ids API: ids out of range and empty sources fail alone") {
  auto t = MakeTranslator(Tiny());
  const uint32_t good[] = {5, 6, 0}, bad[] = {5, 100000, 0};
  Span<const uint32_t> srcs[] = {Span<const uint32_t>(good, 3), Span<const uint32_t>(bad, 3), Span<const uint32_t>()};
  Span<const TranslationResult> r;
  REQUIRE(t->TranslateIds(srcs, {}, &r).ok());
  CHECK(r[0].ok());
  CHECK(r[1].error_message == "id 100000 at position 1 is outside the source vocabulary (102)");
  CHECK(r[2].error == StatusCode::kInvalidArgument);
}

TEST_CASE("call-level errors: too many sentences, n_best above beam, beam above the limit") {
  TranslatorConfig c;
  c.max_batch = 2;
  c.max_beam = 4;
  c.max_n_best = 2;
  auto t = MakeTranslator(Tiny(), c);
  std::string_view three[] = {"a", "b", "c"};
  Span<const TranslationResult> r;
  CHECK(t->Translate(three, {}, &r).message() == "3 sentences exceed max_batch 2");
  TranslateOptions o;
  o.beam_size = 2;
  o.n_best = 3;
  CHECK(t->Translate(Span<const std::string_view>(three, 1), o, &r).message().find("n_best 3 must be in 1..") != std::string::npos);
  o.beam_size = 8;
  o.n_best = 1;
  CHECK(t->Translate(Span<const std::string_view>(three, 1), o, &r).message() == "beam_size 8 exceeds the Translator's max_beam 4");
}

TEST_CASE("creation errors: limits beyond the model, n-best above beam, a small caller arena") {
  auto m = Tiny();
  TranslatorConfig c;
  c.max_source_tokens = 1000;
  auto t = Translator::Create(m, c);
  CHECK(t.status().code() == StatusCode::kInvalidArgument);
  CHECK(t.status().message().find("exceed the model's max_positions 128") != std::string::npos);
  c = {};
  c.max_beam = 2;
  c.max_n_best = 3;
  CHECK(Translator::Create(m, c).status().message() == "Translator: max_n_best 3 exceeds max_beam 2");
  c = {};
  alignas(64) static uint8_t small[1024];
  c.arena = small;
  c.arena_bytes = sizeof small;
  CHECK(Translator::Create(m, c).status().message().find("caller's arena has 1024 bytes") != std::string::npos);
}

TEST_CASE("a caller-provided arena gives the same results as an owned one") {
  auto m = Tiny();
  TranslatorConfig c;
  c.threads = 1;
  auto need = Translator::RequiredArenaBytes(*m, c);
  REQUIRE(need.ok());
  void* mem = nullptr;  // posix_memalign: Android before API 28 has no aligned_alloc
  REQUIRE(posix_memalign(&mem, 64, (need.value() + 63) / 64 * 64) == 0);
  TranslatorConfig c2 = c;
  c2.arena = mem;
  c2.arena_bytes = need.value();
  auto owned = MakeTranslator(m, c);
  auto borrowed = MakeTranslator(m, c2);
  CHECK(owned->arena_bytes() == need.value());
  CHECK(owned->arena_bytes() < owned->arena_unshared_bytes());  // lifetimes let buffers share
  std::string_view in[] = {"A man in a blue shirt.", "The dog runs."};
  Span<const TranslationResult> a, b;
  REQUIRE(owned->Translate(in, {}, &a).ok());
  REQUIRE(borrowed->Translate(in, {}, &b).ok());
  for (size_t i = 0; i < 2; ++i) CHECK(a[i].best().text == b[i].best().text);
  borrowed.reset();
  std::free(mem);
}

TEST_CASE("threads: 2 threads give the same ids as 1") {
  auto m = Tiny("f32");
  TranslatorConfig c1, c2;
  c1.threads = 1;
  c2.threads = 2;
  auto t1 = MakeTranslator(m, c1), t2 = MakeTranslator(m, c2);
  CHECK(t2->threads() == 2);
  std::string_view in[] = {"A man in a blue shirt is standing on a ladder.", "Zwei kleine Kinder spielen am Strand."};
  Span<const TranslationResult> a, b;
  REQUIRE(t1->Translate(in, {}, &a).ok());
  REQUIRE(t2->Translate(in, {}, &b).ok());
  for (size_t i = 0; i < 2; ++i) CHECK(ToVector(a[i].best().ids) == ToVector(b[i].best().ids));
}

TEST_CASE("max_length and max_length_ratio cap the generated tokens") {
  auto t = MakeTranslator(Tiny("f32"));
  const uint32_t src[] = {20, 0};
  Span<const uint32_t> s(src, 2);
  TranslateOptions o;
  o.beam_size = 1;
  o.max_length = 5;
  Span<const TranslationResult> r;
  REQUIRE(t->TranslateIds(Span<const Span<const uint32_t>>(&s, 1), o, &r).ok());
  CHECK(r[0].best().ids.size() <= 4);  // 5 generated tokens with the forced </s> last
  o.max_length = 100;
  o.max_length_ratio = 1.0f;  // ceil(1.0 * 2) + 10 = 12
  REQUIRE(t->TranslateIds(Span<const Span<const uint32_t>>(&s, 1), o, &r).ok());
  CHECK(r[0].best().ids.size() <= 11);
}

TEST_CASE("released weight pages read back the file's bytes, and Translators made after a release translate the same") {
  // Model::ReleasePages drops mapped pages from the resident set (what the Translator does once XNNPACK
  // has packed a weight). The tiny models' tensors are smaller than a page, so release the span of the
  // whole weight segment here and check that every byte comes back and decoding is unchanged.
  auto m = Tiny("int8");
  std::string_view in[] = {"A man in a blue shirt is standing on a ladder.", "Two young children are playing in the sand."};
  TranslateOptions o;
  o.beam_size = 2;
  auto texts = [&] {
    auto t = MakeTranslator(m);
    Span<const TranslationResult> r;
    REQUIRE(t->Translate(in, o, &r).ok());
    std::vector<std::string> s;
    for (const auto& x : r) s.emplace_back(x.best().text);
    return s;
  };
  const std::vector<std::string> before = texts();
  const uint8_t* lo = nullptr;
  const uint8_t* hi = nullptr;
  std::vector<std::vector<uint8_t>> copies;
  for (const TensorView& t : m->impl().tensors()) {
    const auto* p = static_cast<const uint8_t*>(t.data);
    lo = lo && lo < p ? lo : p;
    hi = hi && hi > p + t.bytes ? hi : p + t.bytes;
    copies.emplace_back(p, p + t.bytes);
  }
  REQUIRE(hi - lo > 4 * 4096);  // spans several pages, so something is released
  m->impl().ReleasePages(lo, hi - lo);
  for (size_t i = 0; i < copies.size(); ++i)
    CHECK_MESSAGE(std::memcmp(copies[i].data(), m->impl().tensors()[i].data, copies[i].size()) == 0, m->impl().tensors()[i].name);
  CHECK(texts() == before);
  m->impl().ReleasePages(nullptr, 1);  // outside the mapping: ignored
  auto bytes = ReadBytes(ModelPath("post-swish", "int8"));
  auto copy = Model::FromBytes(bytes.data(), bytes.size(), "copy.tern");
  REQUIRE(copy.ok());
  const TensorView& t0 = copy.value()->impl().tensors()[0];
  std::vector<uint8_t> saved(static_cast<const uint8_t*>(t0.data), static_cast<const uint8_t*>(t0.data) + t0.bytes);
  copy.value()->impl().ReleasePages(t0.data, t0.bytes);  // heap copy: never advised away
  CHECK(std::memcmp(saved.data(), t0.data, t0.bytes) == 0);
}
