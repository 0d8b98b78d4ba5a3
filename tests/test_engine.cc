// tern::Engine (tern/engine.h): requests from many threads get their own results, equal (ids and scores, bit
// for bit) to what a Translator gives each sentence alone, whichever requests shared a call; cancellation,
// back-pressure, a bad request failing alone, chunks beyond max_batch, completion callbacks. In
// tern_thread_tests: CI's ThreadSanitizer stage runs it.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "tern/engine.h"
#include "tern/tern.h"
#include "test_util.h"

using namespace tern;
using namespace tern::test;

namespace {

const std::vector<std::string> kTexts = {
    "A man in a blue shirt is standing on a ladder.", "Two young children are playing in the sand.",
    "A woman with a red hat rides a bicycle.",        "The dog runs through the green grass.",
    "People walk down the street.",                   "A boy jumps.",
    "Three men are working on a roof in the sun while a fourth one watches them from below.",
    "A girl.",                                         "An old man sits on a bench and reads a newspaper.",
    "Two dogs play with a ball in a park."};

// What a Translator gives each text alone: ids and score of the best hypothesis.
struct Alone {
  std::vector<uint32_t> ids;
  float score;
};
std::vector<Alone> EachAlone(const std::shared_ptr<const Model>& m, const TranslateOptions& o) {
  auto t = MakeTranslator(m, TranslatorConfig{0, 0, 1, 0, 0, 1, nullptr, 0});
  std::vector<Alone> out;
  for (const std::string& s : kTexts) {
    std::string_view v = s;
    Span<const TranslationResult> r;
    REQUIRE(t->Translate(Span<const std::string_view>(&v, 1), o, &r).ok());
    out.push_back({ToVector(r[0].best().ids), r[0].best().score});
  }
  return out;
}

// An abort callback that holds its worker until released: the engine's queue fills behind it.
struct Gate {
  std::mutex mu;
  std::condition_variable cv;
  bool entered = false, open = false;
  static bool Hold(void* u) {
    auto* g = static_cast<Gate*>(u);
    std::unique_lock<std::mutex> lock(g->mu);
    g->entered = true;
    g->cv.notify_all();
    g->cv.wait(lock, [&] { return g->open; });
    return false;
  }
  void WaitEntered() {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return entered; });
  }
  void Open() {
    { std::lock_guard<std::mutex> lock(mu); open = true; }
    cv.notify_all();
  }
};

Request One(const std::string& text, const TranslateOptions& o) {
  Request r;
  r.texts = {text};
  r.options = o;
  return r;
}

}  // namespace

// Every weight format: tern's batches give each sentence what it gives alone, so sharing calls changes
// nothing. int8, qc4w, int4: ids and scores bit for bit (integer sums, tern's own epilogue). f32, f16: ids
// equal and scores within 1e-4 relative: XNNPACK's f32 GEMMs may sum in another order for another number of
// rows (bit for bit on x86 AVX2; on Cortex-A76 under qemu scores differed in the 6th digit, 2026-11-27).
TEST_CASE("engine: requests from 4 threads get each sentence's own result, bit for bit, however calls were shared") {
  for (const char* weights : {"int8", "qc4w", "int4", "f32", "f16"})
  for (uint32_t beam : {1u, 2u}) {
    const std::string format = weights;
    CAPTURE(format);
    CAPTURE(beam);
    auto m = LoadOrFail(ModelPath("post-swish", weights));
    const bool exact = weights[0] != 'f';
    TranslateOptions o;
    o.beam_size = beam;
    const std::vector<Alone> want = EachAlone(m, o);
    EngineConfig c;
    c.replicas = 2;
    c.translator.max_batch = 4;
    auto e = Engine::Create(m, c);
    REQUIRE(e.ok());
    std::vector<std::vector<Ticket>> tickets(4);
    std::vector<std::thread> threads;
    for (int k = 0; k < 4; ++k)
      threads.emplace_back([&, k] {
        for (int rep = 0; rep < 3; ++rep)
          for (size_t i = 0; i < kTexts.size(); ++i) tickets[k].push_back(e.value()->Submit(One(kTexts[i], o)).value());
      });
    for (auto& th : threads) th.join();
    for (int k = 0; k < 4; ++k)
      for (size_t j = 0; j < tickets[k].size(); ++j) {
        const RequestOutcome& out = tickets[k][j].Wait();
        REQUIRE(out.status.ok());
        REQUIRE(out.results.size() == 1);
        const size_t i = j % kTexts.size();
        CHECK(out.results[0].best().ids == want[i].ids);
        if (exact)
          CHECK(std::memcmp(&out.results[0].best().score, &want[i].score, sizeof(float)) == 0);
        else
          CHECK(out.results[0].best().score == doctest::Approx(want[i].score).epsilon(1e-4));
      }
  }
}

TEST_CASE("engine: queued requests with the same options share one call, others wait for their own") {
  auto m = LoadOrFail(ModelPath("post-swish", "int8"));
  TranslateOptions o;
  o.beam_size = 2;
  const std::vector<Alone> want = EachAlone(m, o);
  for (const bool continuous : {false, true}) {
  CAPTURE(continuous);
  EngineConfig c;
  c.replicas = 1;
  c.translator.max_batch = 8;
  c.continuous_batching = continuous;
  auto e = Engine::Create(m, c).value();
  Gate gate;
  TranslateOptions held = o;
  held.abort = &Gate::Hold, held.abort_user_data = &gate;
  Ticket first = e->Submit(One(kTexts[0], held)).value();
  gate.WaitEntered();
  std::vector<Ticket> same;
  for (size_t i = 0; i < kTexts.size(); ++i) same.push_back(e->Submit(One(kTexts[i], o)).value());
  TranslateOptions greedy;
  greedy.beam_size = 1;
  Ticket other = e->Submit(One(kTexts[1], greedy)).value();
  CHECK(e->queued() == kTexts.size() + 1);
  gate.Open();
  CHECK(first.Wait().shared_with == 0);  // a request with its own abort runs alone
  for (size_t i = 0; i < same.size(); ++i) {
    const RequestOutcome& out = same[i].Wait();
    REQUIRE(out.status.ok());
    // Static: 8 per call (max_batch), then the last 2. Continuous: the call takes 8, and the last 2 join it
    // as slots free up (shared_with counts the requests it had taken when this one completed).
    if (continuous) CHECK(out.shared_with >= 7u);
    else CHECK(out.shared_with == (i < 8 ? 7u : 1u));
    CHECK(out.results[0].best().ids == want[i].ids);
    CHECK(std::memcmp(&out.results[0].best().score, &want[i].score, sizeof(float)) == 0);
  }
  CHECK(other.Wait().shared_with == 0);  // other options: a call of its own
  CHECK(other.Wait().status.ok());
  }
}

TEST_CASE("engine: cancelling, a full queue, shutdown, a bad request and a bad text fail alone") {
  auto m = LoadOrFail(ModelPath("post-swish", "int8"));
  EngineConfig c;
  c.replicas = 1;
  c.max_queued = 3;
  auto e = Engine::Create(m, c).value();
  Gate gate;
  TranslateOptions held;
  held.abort = &Gate::Hold, held.abort_user_data = &gate;
  Ticket first = e->Submit(One(kTexts[0], held)).value();
  gate.WaitEntered();
  Ticket a = e->Submit(One(kTexts[1], {})).value();
  Request bad_text;
  bad_text.texts = {kTexts[2], std::string("\xff\xfe broken"), kTexts[3]};
  Ticket b = e->Submit(std::move(bad_text)).value();
  Ticket cancelled = e->Submit(One(kTexts[4], {})).value();
  Result<Ticket> full = e->Submit(One(kTexts[5], {}));
  CHECK(full.status().code() == StatusCode::kResourceExhausted);
  CHECK(full.status().message() == "engine: 3 requests wait (max_queued): request not queued");
  TranslateOptions wrong;
  wrong.beam_size = 1000;
  CHECK(e->Submit(One(kTexts[5], wrong)).status().code() == StatusCode::kInvalidArgument);
  Request both;
  both.texts = {"x"};
  both.ids = {{5, 0}};
  CHECK(e->Submit(std::move(both)).status().message() == "Engine::Submit: a request has texts or ids, not both");
  cancelled.Cancel();
  REQUIRE(cancelled.done());  // it was queued: complete at once
  CHECK(cancelled.Wait().status.code() == StatusCode::kCancelled);
  CHECK(cancelled.Wait().results.at(0).error == StatusCode::kCancelled);
  gate.Open();
  CHECK(first.Wait().status.ok());
  CHECK(a.Wait().status.ok());
  const RequestOutcome& ob = b.Wait();
  REQUIRE(ob.status.ok());
  REQUIRE(ob.results.size() == 3);
  CHECK(ob.results[0].ok());
  CHECK(ob.results[1].error == StatusCode::kInvalidArgument);
  CHECK(ob.results[2].ok());
  // Shutdown: what waits is cancelled, later submissions refused.
  Gate gate2;
  held.abort_user_data = &gate2;
  Ticket running = e->Submit(One(kTexts[0], held)).value();
  gate2.WaitEntered();
  Ticket waiting = e->Submit(One(kTexts[1], {})).value();
  std::thread opener([&] {  // opens the gate once the engine refuses work (it is stopping)
    while (e->Submit(One(kTexts[1], {})).status().code() != StatusCode::kCancelled) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    gate2.Open();
  });
  e->Shutdown();
  opener.join();
  CHECK(waiting.Wait().status.code() == StatusCode::kCancelled);
  CHECK(running.Wait().status.code() == StatusCode::kCancelled);  // stopped at its next decoder step
  CHECK(e->Submit(One(kTexts[1], {})).status().code() == StatusCode::kCancelled);
}

namespace {
struct Events {
  std::mutex mu;
  std::vector<size_t> index;
  std::vector<uint64_t> completed;
  static bool OnToken(const TokenEvent& ev, void* u) {
    auto* e = static_cast<Events*>(u);
    std::lock_guard<std::mutex> lock(e->mu);
    if (ev.last) e->index.push_back(ev.index);
    return true;
  }
  static void Done(uint64_t id, const RequestOutcome&, void* u) {
    auto* e = static_cast<Events*>(u);
    std::lock_guard<std::mutex> lock(e->mu);
    e->completed.push_back(id);
  }
};
}  // namespace

TEST_CASE("engine: a request beyond max_batch runs in chunks, stream indexes are the request's, callbacks once") {
  auto m = LoadOrFail(ModelPath("post-swish", "int8"));
  const std::vector<Alone> want = EachAlone(m, {});
  EngineConfig c;
  c.replicas = 2;
  c.translator.max_batch = 3;
  auto e = Engine::Create(m, c).value();
  Events ev;
  Request r;
  r.texts = kTexts;
  r.options.on_token = &Events::OnToken, r.options.on_token_user_data = &ev;
  Ticket t = e->Submit(std::move(r), &Events::Done, &ev).value();
  Ticket empty = e->Submit(Request{}, &Events::Done, &ev).value();
  const RequestOutcome& out = t.Wait();
  REQUIRE(out.status.ok());
  REQUIRE(out.results.size() == kTexts.size());
  for (size_t i = 0; i < kTexts.size(); ++i) CHECK(out.results[i].best().ids == want[i].ids);
  CHECK(empty.Wait().results.empty());
  e->Shutdown();  // every callback has run
  std::vector<size_t> idx = ev.index;
  std::sort(idx.begin(), idx.end());
  std::vector<size_t> all(kTexts.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = i;
  CHECK(idx == all);
  std::sort(ev.completed.begin(), ev.completed.end());
  CHECK(ev.completed == std::vector<uint64_t>{t.id(), empty.id()});
}

TEST_CASE("engine: cancelling a request that runs in a continuous call stops it, its results all there") {
  auto m = LoadOrFail(ModelPath("post-swish", "int8"));
  EngineConfig c;
  c.replicas = 1;
  c.translator.max_batch = 4;
  auto e = Engine::Create(m, c).value();
  for (int rep = 0; rep < 3; ++rep) {
    Request r;
    r.texts = {kTexts[0], kTexts[6], kTexts[8], kTexts[2]};
    r.options.beam_size = 2;
    Ticket t = e->Submit(std::move(r)).value();
    if (rep > 0) std::this_thread::sleep_for(std::chrono::milliseconds(rep));  // queued, or running
    t.Cancel();
    const RequestOutcome& out = t.Wait();
    CHECK((out.status.ok() || out.status.code() == StatusCode::kCancelled));
    REQUIRE(out.results.size() == 4);
    for (const OwnedResult& x : out.results) CHECK((x.ok() || x.error == StatusCode::kCancelled));
  }
  // The engine still serves.
  Ticket after = e->Submit(One(kTexts[1], {})).value();  // (the outcome lives as long as the Ticket)
  CHECK(after.Wait().status.ok());
}

// Completion order, from the completion callback (worker thread).
struct Order {
  std::mutex mu;
  std::vector<uint64_t> ids;
  static void Record(uint64_t id, const RequestOutcome&, void* u) {
    auto* o = static_cast<Order*>(u);
    std::lock_guard<std::mutex> lock(o->mu);
    o->ids.push_back(id);
  }
};

TEST_CASE("engine: a continuous call does not take requests queued behind one that cannot share it") {
  auto m = LoadOrFail(ModelPath("post-swish", "int8"));
  EngineConfig c;
  c.replicas = 1;
  c.translator.max_batch = 4;
  Order order;  // outlives the engine: its callbacks run until the engine has shut down
  auto e = Engine::Create(m, c).value();
  Gate gate;
  TranslateOptions held;
  held.abort = &Gate::Hold, held.abort_user_data = &gate;
  Ticket first = e->Submit(One(kTexts[0], held), &Order::Record, &order).value();  // holds the worker
  gate.WaitEntered();
  TranslateOptions greedy, beam;
  greedy.beam_size = 1, beam.beam_size = 2;
  Request four;  // max_batch inputs: its call starts with it alone, then looks at the queue as slots free
  four.texts = {kTexts[1], kTexts[4], kTexts[5], kTexts[7]};
  four.options = greedy;
  Ticket a = e->Submit(std::move(four), &Order::Record, &order).value();
  Ticket b = e->Submit(One(kTexts[2], beam), &Order::Record, &order).value();   // cannot share a's call
  Ticket c2 = e->Submit(One(kTexts[3], greedy), &Order::Record, &order).value();  // could, but waits behind b
  gate.Open();
  for (Ticket* t : {&first, &a, &b, &c2}) CHECK(t->Wait().status.ok());
  e->Shutdown();  // a request's callback runs after its waiters wake: every callback has run once the workers end
  std::lock_guard<std::mutex> lock(order.mu);
  REQUIRE(order.ids.size() == 4);
  CHECK(order.ids == std::vector<uint64_t>{first.id(), a.id(), b.id(), c2.id()});
  CHECK(a.Wait().shared_with == 0);  // its continuous call took nothing from behind b
}
