// More calls that allocate nothing once a Translator exists (tern_no_heap_tests; the counter: no_heap.h).
#include "no_heap.h"
#include "test_util.h"

using namespace tern;
using namespace tern::test;

TEST_CASE("alternatives allocate nothing: both passes, greedy and beam, a sentence failing alone") {
  TranslatorConfig c;
  c.max_batch = 6;
  c.max_beam = 4;
  c.max_n_best = 3;
  c.threads = 1;
  auto t = MakeTranslator(LoadOrFail(ModelPath("post-swish", "int8")), c);
  const std::vector<uint32_t> a = {5, 6, 0}, b = {7, 8, 9, 10, 0}, pa = {11, 12}, bad = {0};
  const Span<const uint32_t> srcs[] = {{a.data(), a.size()}, {b.data(), b.size()}};
  const Span<const uint32_t> prefixes[] = {{pa.data(), pa.size()}, {bad.data(), bad.size()}};  // </s>: fails alone
  for (uint32_t beam : {1u, 4u}) {
    CAPTURE(beam);
    TranslateOptions o;
    o.beam_size = beam;
    o.alternatives = 3;
    o.target_prefix_ids = prefixes;
    Span<const TranslationResult> r;
    g_allocations = 0;
    g_counting = true;
    const Status s = t->TranslateIds(srcs, o, &r);
    g_counting = false;
    REQUIRE(s.ok());
    CHECK(g_allocations.load() == 0);
    REQUIRE(r[0].ok());
    CHECK(r[0].hypotheses.size() == 3);
    CHECK(r[0].best().ids[0] == 11);
    CHECK(r[1].error == StatusCode::kInvalidArgument);
  }
}

TEST_CASE("return_attention allocates nothing: the pass after the search, greedy and beam") {
  TranslatorConfig c;
  c.max_batch = 4;
  c.max_beam = 4;
  c.max_n_best = 2;
  c.threads = 1;
  c.attention = true;
  auto t = MakeTranslator(LoadOrFail(ModelPath("post-swish", "int8")), c);
  const std::vector<uint32_t> a = {5, 6, 0}, b = {7, 8, 9, 10, 0};
  const Span<const uint32_t> srcs[] = {{a.data(), a.size()}, {b.data(), b.size()}};
  for (uint32_t beam : {1u, 4u}) {
    TranslateOptions o;
    o.beam_size = beam;
    o.n_best = beam == 4 ? 2 : 1;
    o.return_attention = true;
    Span<const TranslationResult> r;
    g_allocations = 0;
    g_counting = true;
    const Status s = t->TranslateIds(srcs, o, &r);
    g_counting = false;
    REQUIRE(s.ok());
    CHECK(g_allocations.load() == 0);
    CHECK(r[1].best().attention.size() == r[1].best().tokens.size() * 5);
  }
}
