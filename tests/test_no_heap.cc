// After a Translator is created, TranslateIds performs no heap allocation at all: this executable
// replaces malloc and friends (so every allocation of tern, XNNPACK, pthreadpool, libstdc++'s operator
// new is seen) and counts them across many translations of different lengths, batch sizes and beams.
// Not built under sanitizers, which own malloc themselves.
#include <malloc.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <new>

#include "nn/xnn_ops.h"
#include "tern/glossary.h"
#include "tern/logits_processor.h"
#include "tern/tokenize.h"
#include "no_heap.h"
#include "test_util.h"

extern "C" {
void* __libc_malloc(size_t);
void* __libc_calloc(size_t, size_t);
void* __libc_realloc(void*, size_t);
void* __libc_memalign(size_t, size_t);
void __libc_free(void*);
}

std::atomic<bool> g_counting{false};      // tests/no_heap.h
std::atomic<size_t> g_allocations{0};
namespace {
inline void Count() {
  if (g_counting.load(std::memory_order_relaxed)) g_allocations.fetch_add(1, std::memory_order_relaxed);
}
}  // namespace

extern "C" {
void* malloc(size_t n) { Count(); return __libc_malloc(n); }
void* calloc(size_t a, size_t b) { Count(); return __libc_calloc(a, b); }
void* realloc(void* p, size_t n) { Count(); return __libc_realloc(p, n); }
void free(void* p) { __libc_free(p); }
void* memalign(size_t al, size_t n) { Count(); return __libc_memalign(al, n); }
void* aligned_alloc(size_t al, size_t n) { Count(); return __libc_memalign(al, n); }
int posix_memalign(void** out, size_t al, size_t n) {
  Count();
  *out = __libc_memalign(al, n);
  return *out ? 0 : ENOMEM;
}
}

using namespace tern;
using namespace tern::test;

namespace {
// A per-call processor that allocates nothing: favours token 7 wherever the row has it.
class NudgeToken : public LogitsProcessor {
 public:
  void Process(LogitsRow& row) override {
    const int64_t c = row.Column(7);
    if (c >= 0) row.scores[static_cast<size_t>(c)] += 0.5f;
  }
};
}  // namespace

TEST_CASE("TranslateIds allocates nothing: many calls, lengths, batch sizes, beams, n-best, threads, per-call processors, alignment") {
  // Every weight format, and shortlists (the per-call map and the gathered output layer).
  for (const char* w : {"int8", "f32", "f16", "int4", "int8-shortlist", "int4-shortlist"}) {
    for (uint32_t threads : {1u, 2u}) {
      CAPTURE(w);
      CAPTURE(threads);
      TranslatorConfig c;
      c.max_batch = 6;
      c.max_beam = 5;
      c.max_n_best = 3;
      c.threads = threads;
      auto t = MakeTranslator(LoadOrFail(ModelPath("pre-relu", w)), c);
      std::vector<std::vector<uint32_t>> pool;
      for (uint32_t len = 1; len <= 30; len += 5) {
        std::vector<uint32_t> s;
        for (uint32_t k = 0; k + 1 < len; ++k) s.push_back(2 + (k * 7 + len) % 90);
        s.push_back(0);
        pool.push_back(s);
      }
      std::vector<Span<const uint32_t>> spans;
      for (const auto& s : pool) spans.emplace_back(s.data(), s.size());
      NudgeToken nudge;
      LogitsProcessor* processors[] = {&nudge};
      const size_t xnn_before = XnnpackAllocationCount();
      g_allocations = 0;
      g_counting = true;
      size_t calls = 0, tokens = 0;
      for (uint32_t beam : {1u, 4u, 5u}) {
        for (size_t batch : {1u, 3u, 6u}) {
          for (size_t start = 0; start + batch <= spans.size(); start += 2) {
            TranslateOptions o;
            o.beam_size = beam;
            o.n_best = std::min<uint32_t>(beam, 3);
            o.max_length = 10 + static_cast<uint32_t>(start);
            // Every other call: alignment, and a per-call processor that allocates nothing.
            o.return_alignment = start % 4 == 0;
            if (start % 4 == 0) o.logits_processors = processors;
            Span<const TranslationResult> r;
            Status s = t->TranslateIds(Span<const Span<const uint32_t>>(spans.data() + start, batch), o, &r);
            if (!s.ok()) break;
            ++calls;
            for (const auto& x : r) tokens += x.best().ids.size();
          }
        }
      }
      g_counting = false;
      CHECK(calls > 15);
      CHECK(tokens > 0);
      CHECK(g_allocations.load() == 0);
      CHECK(XnnpackAllocationCount() == xnn_before);
    }
  }
}

TEST_CASE("sentences that fail allocate nothing either: their messages are formatted into the arena") {
  TranslatorConfig c;
  c.max_batch = 4;
  c.max_source_tokens = 8;
  c.threads = 1;
  auto t = MakeTranslator(LoadOrFail(ModelPath("post-swish", "int8")), c);
  const std::vector<uint32_t> good = {5, 6, 0}, too_long(20, 5), bad_id = {5, 4000000000u, 0};
  const Span<const uint32_t> spans[] = {{good.data(), good.size()}, {too_long.data(), too_long.size()},
                                        {bad_id.data(), bad_id.size()}, {nullptr, 0}};
  g_allocations = 0;
  g_counting = true;
  Span<const TranslationResult> r;
  Status s = t->TranslateIds(spans, {}, &r);
  g_counting = false;
  REQUIRE(s.ok());
  CHECK(g_allocations.load() == 0);
  CHECK(r[0].ok());
  CHECK(r[1].error_message == "20 source tokens exceed max_source_tokens 8");
  CHECK(r[2].error_message == "id 4000000000 at position 1 is outside the source vocabulary (102)");
  CHECK(r[3].error_message == "no source ids (at least </s> is needed)");
}

TEST_CASE("the counting allocator sees allocations (the test above can fail)") {
  g_allocations = 0;
  g_counting = true;
  auto* p = new std::vector<int>(100);
  void* q = std::malloc(10);
  g_counting = false;
  delete p;
  std::free(q);
  CHECK(g_allocations.load() >= 2);
}

TEST_CASE("streaming and cancelling allocate nothing either: the token callback path and a stopped call") {
  TranslatorConfig c;
  c.max_batch = 3;
  c.max_beam = 4;
  c.threads = 1;
  auto t = MakeTranslator(LoadOrFail(ModelPath("pre-relu", "int8")), c);
  const std::vector<uint32_t> a = {5, 6, 7, 8, 0}, b = {9, 10, 0}, d = {11, 0};
  const Span<const uint32_t> spans[] = {{a.data(), a.size()}, {b.data(), b.size()}, {d.data(), d.size()}};
  struct Count {
    size_t events = 0, bytes = 0, stop_after = 0;
  };
  auto on_token = [](const TokenEvent& e, void* user) {
    auto& n = *static_cast<Count*>(user);
    ++n.events;
    n.bytes += e.text.size();
    return n.stop_after == 0 || n.events < n.stop_after;
  };
  for (uint32_t beam : {1u, 4u}) {
    for (size_t stop_after : {size_t{0}, size_t{2}}) {
      Count count;  // the warm-up runs to the end
      TranslateOptions o;
      o.beam_size = beam;
      o.max_length = 12;
      o.on_token = on_token;
      o.on_token_user_data = &count;
      Span<const TranslationResult> r;
      REQUIRE(t->TranslateIds(spans, o, &r).ok());  // warm-up
      count = Count();
      count.stop_after = stop_after;
      g_allocations = 0;
      g_counting = true;
      Status s = t->TranslateIds(spans, o, &r);
      g_counting = false;
      CHECK((s.ok() || s.code() == StatusCode::kCancelled));
      CHECK(g_allocations.load() == 0);
      CHECK(count.events > 0);
    }
  }
}

TEST_CASE("constrained decoding allocates nothing: glossary matching, constraint rows, dynamic beam allocation") {
  auto model = LoadOrFail(BundledModel());
  TranslatorConfig c;
  c.max_batch = 4;
  c.max_beam = 4;
  c.threads = 1;
  auto t = MakeTranslator(model, c);
  GlossaryEntry e[] = {{"dog", "Köter"}, {"snow", "Schneedecke"}};
  auto g = Glossary::Create(*model, e);
  REQUIRE(g.ok());
  auto src = TextTokenizer::Create(model);
  auto tgt = TextTokenizer::Create(model, TextTokenizer::Side::kTarget);
  REQUIRE((src.ok() && tgt.ok()));
  std::vector<std::vector<uint32_t>> ids(3);
  REQUIRE(src.value()->Encode("A dog runs through the snow.", {}, &ids[0]).ok());
  REQUIRE(src.value()->Encode("Two men talk.", {}, &ids[1]).ok());
  REQUIRE(src.value()->Encode("The dog and the other dog play.", {}, &ids[2]).ok());
  std::vector<uint32_t> term;
  REQUIRE(tgt.value()->Encode("Köter", {}, &term).ok());
  term.pop_back();  // </s>
  std::vector<Span<const uint32_t>> spans;
  for (const auto& s : ids) spans.emplace_back(s.data(), s.size());
  for (uint32_t beam : {1u, 4u}) {
    CAPTURE(beam);
    TranslateOptions o;
    o.beam_size = beam;
    o.glossary = g.value().get();
    Span<const TranslationResult> r;
    g_allocations = 0;
    g_counting = true;
    const Status s = t->TranslateIds(Span<const Span<const uint32_t>>(spans.data(), spans.size()), o, &r);
    g_counting = false;
    REQUIRE(s.ok());
    CHECK(g_allocations.load() == 0);
    auto count = [&](Span<const uint32_t> out) {
      size_t n = 0;
      for (size_t k = 0; k + term.size() <= out.size(); ++k)
        n += std::equal(term.begin(), term.end(), out.begin() + k);
      return n;
    };
    CHECK(count(r[0].best().ids) == 1);
    CHECK(count(r[1].best().ids) == 0);
    CHECK(count(r[2].best().ids) == 2);
  }
}

TEST_CASE("target prefixes and scoring allocate nothing: forced tokens through greedy and beam search, ScoreIds") {
  TranslatorConfig c;
  c.max_batch = 4;
  c.max_beam = 4;
  c.threads = 1;
  auto t = MakeTranslator(LoadOrFail(ModelPath("post-swish", "int8")), c);
  const std::vector<uint32_t> a = {5, 6, 0}, b = {7, 8, 9, 10, 0}, pa = {11, 12}, pb = {13}, bad = {0};
  const Span<const uint32_t> srcs[] = {{a.data(), a.size()}, {b.data(), b.size()}, {a.data(), a.size()}};
  const Span<const uint32_t> prefixes[] = {{pa.data(), pa.size()}, {}, {bad.data(), bad.size()}};  // </s>: fails alone
  for (uint32_t beam : {1u, 4u}) {
    CAPTURE(beam);
    TranslateOptions o;
    o.beam_size = beam;
    o.target_prefix_ids = prefixes;
    Span<const TranslationResult> r;
    g_allocations = 0;
    g_counting = true;
    Status s = t->TranslateIds(srcs, o, &r);
    g_counting = false;
    REQUIRE(s.ok());
    CHECK(g_allocations.load() == 0);
    CHECK(r[0].ok());
    CHECK(r[0].best().ids[0] == 11);
    CHECK(r[1].ok());
    CHECK(r[2].error == StatusCode::kInvalidArgument);
  }
  const Span<const uint32_t> targets[] = {{pa.data(), pa.size()}, {pb.data(), pb.size()}, {}};
  Span<const TranslationResult> r;
  g_allocations = 0;
  g_counting = true;
  const Status s = t->ScoreIds(srcs, targets, {}, &r);
  g_counting = false;
  REQUIRE(s.ok());
  CHECK(g_allocations.load() == 0);
  CHECK(r[0].ok());
  CHECK(r[1].best().token_logprobs.size() == 2);
}

TEST_CASE("sampling allocates nothing: temperature, top-k and top-p warping and the draw") {
  TranslatorConfig c;
  c.max_batch = 4;
  c.threads = 1;
  auto t = MakeTranslator(LoadOrFail(ModelPath("post-swish", "int8")), c);
  const std::vector<uint32_t> a = {5, 6, 0}, b = {7, 8, 9, 10, 0};
  const Span<const uint32_t> srcs[] = {{a.data(), a.size()}, {b.data(), b.size()}};
  for (uint32_t top_k : {0u, 50u}) {
    TranslateOptions o;
    o.sampling.enabled = true;
    o.sampling.top_k = top_k;
    o.sampling.top_p = 0.9f;
    o.sampling.temperature = 0.8f;
    Span<const TranslationResult> r;
    g_allocations = 0;
    g_counting = true;
    const Status s = t->TranslateIds(srcs, o, &r);
    g_counting = false;
    REQUIRE(s.ok());
    CHECK(g_allocations.load() == 0);
    CHECK(r[0].ok());
  }
}
