// tern::CallChunks (tern/call_chunks.h), the one chunker of the engine and every binding: chunk sizes, each
// chunk's per-input options (sliced or renumbered as the field table's per_input column says), sampling keys
// that do not depend on the chunking, and per-input data that does not fit the call.
#include "tern/call_chunks.h"

#include <string_view>
#include <vector>

#include "test_util.h"

using namespace tern;

TEST_CASE("call chunks: sizes, each chunk's prefixes, keep_spans and sampling keys") {
  CHECK(CallChunks::InputsPerChunk(8, 0) == 8);
  CHECK(CallChunks::InputsPerChunk(8, 3) == 2);  // return_alternatives: each input is 3 sentences
  CHECK(CallChunks::InputsPerChunk(2, 3) == 1);

  const std::vector<std::string_view> prefixes = {"", "Ein", "", "Der", "", "", "Die"};
  const std::vector<KeepSpan> spans = {{1, TextSpan{0, 3}}, {3, TextSpan{2, 5}}, {4, TextSpan{0, 1}}, {6, TextSpan{1, 2}}};
  TranslateOptions whole;
  whole.target_prefix = Span<const std::string_view>(prefixes.data(), prefixes.size());
  whole.keep_spans = Span<const KeepSpan>(spans.data(), spans.size());
  whole.beam_size = 3;
  CallChunks c(whole, 7, 3);
  REQUIRE(c.status().ok());
  CHECK(c.count() == 3);
  CHECK(c.begin(2) == 6);
  CHECK(c.end(2) == 7);
  const TranslateOptions& o = c.Options(c.begin(1), c.end(1));  // inputs 3, 4, 5
  CHECK(o.beam_size == 3);
  REQUIRE(o.target_prefix.size() == 3);
  CHECK(o.target_prefix[0] == "Der");
  REQUIRE(o.keep_spans.size() == 2);
  CHECK(o.keep_spans[0].text == 0);  // input 3, renumbered
  CHECK(o.keep_spans[0].span.begin == 2);
  CHECK(o.keep_spans[1].text == 1);  // input 4
  REQUIRE(o.sampling_keys.size() == 3);
  CHECK(o.sampling_keys[0] == 3);  // each input's index in the whole call
  CHECK(o.sampling_keys[2] == 5);
  const TranslateOptions& last = c.Options(6, 7);
  CHECK(last.target_prefix.size() == 1);
  CHECK(last.target_prefix[0] == "Die");
  CHECK(last.keep_spans.size() == 1);
  CHECK(last.keep_spans[0].text == 0);

  // The caller's own keys are sliced as they are.
  const std::vector<uint64_t> keys = {70, 71, 72, 73, 74, 75, 76};
  whole.sampling_keys = Span<const uint64_t>(keys.data(), keys.size());
  CallChunks keyed(whole, 7, 3);
  CHECK(keyed.Options(3, 6).sampling_keys[1] == 74);
}

TEST_CASE("call chunks: per-input data that does not fit the call fails it, naming the field") {
  const std::vector<std::string_view> prefixes = {"Ein", "Der"};
  TranslateOptions whole;
  whole.target_prefix = Span<const std::string_view>(prefixes.data(), prefixes.size());
  CHECK(CallChunks(whole, 3, 8).status().message() == "target_prefix: 2 entries for 3 inputs (one per input, or none)");
  TranslateOptions keyed;
  const std::vector<uint64_t> keys = {1};
  keyed.sampling_keys = Span<const uint64_t>(keys.data(), keys.size());
  CHECK(CallChunks(keyed, 2, 8).status().message() == "sampling_keys: 1 entries for 2 inputs (one per input, or none)");
  TranslateOptions spanned;
  const std::vector<KeepSpan> spans = {{2, TextSpan{0, 1}}};
  spanned.keep_spans = Span<const KeepSpan>(spans.data(), spans.size());
  CHECK(CallChunks(spanned, 2, 8).status().message() == "keep_spans: text 2 of 2");
  CHECK(CallChunks(TranslateOptions{}, 0, 8).count() == 0);
}

TEST_CASE("call chunks: a Translator's call through the C++ chunker equals one call per input") {
  auto t = test::MakeTranslator(test::LoadOrFail(test::BundledModel()), [] {
    TranslatorConfig c;
    c.max_batch = 2;
    return c;
  }());
  const std::vector<std::string_view> texts = {"A dog runs.", "Two men are talking.", "A girl in a red dress.",
                                               "The cat sleeps.", "People walk on the street."};
  std::vector<std::string> alone;
  Span<const TranslationResult> r;
  for (std::string_view s : texts) {
    REQUIRE(t->Translate(Span<const std::string_view>(&s, 1), {}, &r).ok());
    alone.emplace_back(r[0].best().text);
  }
  TranslateOptions whole;
  CallChunks c(whole, texts.size(), t->max_batch());
  CHECK(c.count() == 3);
  std::vector<std::string> chunked;
  for (size_t k = 0; k < c.count(); ++k) {
    REQUIRE(t->Translate(Span<const std::string_view>(texts.data() + c.begin(k), c.end(k) - c.begin(k)),
                         c.Options(c.begin(k), c.end(k)), &r).ok());
    for (const TranslationResult& x : r) chunked.emplace_back(x.best().text);
  }
  CHECK(chunked == alone);
}
