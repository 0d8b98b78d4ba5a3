// Round four (docs/reliability.md): a callback of the engine may call anything on any object and nothing
// hangs, aborts or joins its own thread. A completion callback that shuts down or destroys its Engine (it
// joined the thread it ran on: std::system_error "Resource deadlock avoided", then std::terminate at exit),
// one that waits on another request of the same replica (it could never complete), Ticket::Cancel of a
// queued request (it completes at once, never runs, and says so). In tern_thread_tests: ThreadSanitizer.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "tern/engine.h"
#include "test_util.h"

using namespace tern;
using namespace tern::test;

namespace {

// An abort callback that holds its worker until opened: the queue fills behind it.
struct Hold {
  std::mutex mu;
  std::condition_variable cv;
  bool entered = false, open = false;
  static bool Abort(void* u) {
    auto* h = static_cast<Hold*>(u);
    std::unique_lock<std::mutex> lock(h->mu);
    h->entered = true;
    h->cv.notify_all();
    h->cv.wait(lock, [&] { return h->open; });
    return false;
  }
  void WaitEntered() {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return entered; });
  }
  void Open() {
    std::lock_guard<std::mutex> lock(mu);
    open = true;
    cv.notify_all();
  }
};

Request Texts(std::vector<std::string> texts) {
  Request r;
  r.texts = std::move(texts);
  return r;
}

// Waits (polling, at most 60 s) until `flag` is set.
bool Eventually(const std::atomic<bool>& flag) {
  for (int i = 0; i < 6000 && !flag.load(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return flag.load();
}

}  // namespace

TEST_CASE("round 4, #1: a completion callback may shut down or destroy its own engine (static and continuous)") {
  auto m = LoadOrFail(BundledModel());
  for (bool continuous : {false, true}) {
    CAPTURE(continuous);
    {  // Shutdown from the callback: returns without joining; the owner's destructor joins later
      struct Ctx {
        Engine* e;
        std::atomic<bool> called{false};
      } ctx;
      auto e = Engine::Create(m, {1, {}, 0, continuous}).value();
      ctx.e = e.get();
      auto cb = [](uint64_t, const RequestOutcome&, void* u) {
        auto* c = static_cast<Ctx*>(u);
        c->e->Shutdown();
        c->called.store(true);
      };
      Ticket t = e->Submit(Texts({"A dog runs."}), cb, &ctx).value();
      CHECK(t.Wait().status.ok());
      REQUIRE(Eventually(ctx.called));
      CHECK(e->Submit(Texts({"A cat."})).status().code() == StatusCode::kCancelled);
    }
    {  // the engine destroyed by its own callback (fire and forget): its workers end by themselves
      struct Ctx {
        std::unique_ptr<Engine> e;
        std::atomic<bool> done{false};
        std::string text;
      } ctx;
      ctx.e = Engine::Create(m, {2, {}, 0, continuous}).value();
      auto cb = [](uint64_t, const RequestOutcome& out, void* u) {
        auto* c = static_cast<Ctx*>(u);
        c->text = std::string(out.results.at(0).best().text);
        c->e.reset();
        c->done.store(true);
      };
      REQUIRE(ctx.e->Submit(Texts({"A dog runs on the beach.", "Two cats."}), cb, &ctx).ok());
      REQUIRE(Eventually(ctx.done));
      CHECK(ctx.text == "Ein Hund läuft am Strand.");
    }
  }
}

TEST_CASE("round 4, general rule: in a completion callback, waiting on another request does not wait, and cancelling works") {
  auto m = LoadOrFail(BundledModel());
  EngineConfig c;
  c.replicas = 1;
  c.translator.max_batch = 1;  // so that the second request cannot share the first one's call
  auto e = Engine::Create(m, c).value();
  Hold hold;
  Request first = Texts({"A dog runs."});
  first.options.abort = &Hold::Abort, first.options.abort_user_data = &hold;
  Ticket held = e->Submit(std::move(first)).value();
  hold.WaitEntered();
  struct Ctx {
    Ticket other, third;
    StatusCode waited = StatusCode::kOk;
    bool timed = true, cancelled = false, own_ready = false;
    Ticket* self = nullptr;
  } ctx;
  Ticket a = e->Submit(Texts({"A woman reads."}), [](uint64_t, const RequestOutcome&, void* u) {
    auto* c = static_cast<Ctx*>(u);
    c->waited = c->other.Wait().status.code();  // queued behind this thread: would never complete
    c->timed = c->other.WaitFor(5000);
    c->cancelled = c->third.Cancel();           // still queued: taken out, completes here
  }, &ctx).value();
  ctx.other = e->Submit(Texts({"Two men."})).value();
  ctx.third = e->Submit(Texts({"A boy jumps."})).value();
  hold.Open();
  CHECK(a.Wait().status.ok());
  CHECK(ctx.waited == StatusCode::kBusy);
  CHECK_FALSE(ctx.timed);
  CHECK(ctx.cancelled);
  CHECK(ctx.third.done());
  CHECK(ctx.third.Wait().status.code() == StatusCode::kCancelled);
  CHECK(ctx.third.Wait().replica == 0);
  CHECK(ctx.other.Wait().status.ok());  // this thread may wait
  CHECK(held.Wait().status.ok());
}

TEST_CASE("round 4, #10: Ticket::Cancel says whether the request was still queued, and such a request never runs") {
  auto m = LoadOrFail(BundledModel());
  auto e = Engine::Create(m, {1, {}, 0, true}).value();
  Hold hold;
  Request first = Texts({"A dog runs."});
  first.options.abort = &Hold::Abort, first.options.abort_user_data = &hold;
  Ticket held = e->Submit(std::move(first)).value();
  hold.WaitEntered();
  std::atomic<int> tokens{0};
  Request streamed = Texts({"A cat sleeps."});
  streamed.options.on_token = [](const TokenEvent&, void* u) {
    static_cast<std::atomic<int>*>(u)->fetch_add(1);
    return true;
  };
  streamed.options.on_token_user_data = &tokens;
  Ticket queued = e->Submit(std::move(streamed)).value();
  CHECK(queued.Cancel());
  CHECK(queued.done());
  CHECK(queued.Wait().status.code() == StatusCode::kCancelled);
  CHECK_FALSE(held.Cancel());  // running: asked to stop, not taken out
  hold.Open();
  held.Wait();
  CHECK_FALSE(queued.Cancel());  // complete
  CHECK(Ticket().Cancel() == false);
  e.reset();
  CHECK(tokens.load() == 0);  // it never ran
}

TEST_CASE("round 4, #7: a seeded sampling request samples the same alone, first, last or in the middle of a shared call") {
  auto m = LoadOrFail(BundledModel());
  TranslateOptions o;
  o.beam_size = 1;
  o.sampling.enabled = true;
  o.sampling.seed = 7;
  o.sampling.top_k = 0;
  o.sampling.temperature = 1.5f;  // draws that differ from key to key
  const std::vector<std::string> mine = {"A man in a blue shirt is standing on a ladder.", "Two dogs play with a ball in a park."};
  std::vector<std::string> alone;
  {
    auto t = MakeTranslator(m, TranslatorConfig{0, 0, 1, 0, 0, 1, nullptr, 0});
    std::vector<std::string_view> in(mine.begin(), mine.end());
    Span<const TranslationResult> r;
    REQUIRE(t->Translate(Span<const std::string_view>(in.data(), in.size()), o, &r).ok());
    for (const auto& x : r) alone.push_back(std::string(x.best().text));
  }
  const std::vector<std::string> others = {"A woman with a red hat rides a bicycle.", "People walk down the street.",
                                           "A boy jumps.", "An old man sits on a bench and reads a newspaper."};
  for (size_t place = 0; place <= others.size(); ++place) {
    CAPTURE(place);
    EngineConfig c;
    c.replicas = 1;
    auto e = Engine::Create(m, c).value();
    Hold hold;
    Request first = Texts({"A girl."});
    first.options.abort = &Hold::Abort, first.options.abort_user_data = &hold;
    Ticket held = e->Submit(std::move(first)).value();
    hold.WaitEntered();
    Ticket ours;
    std::vector<Ticket> rest;
    for (size_t k = 0; k <= others.size(); ++k) {
      Request r = Texts(k == place ? mine : std::vector<std::string>{others[k < place ? k : k - 1]});
      r.options = o;
      (k == place ? ours : rest.emplace_back()) = e->Submit(std::move(r)).value();
    }
    hold.Open();
    const RequestOutcome& out = ours.Wait();
    REQUIRE(out.status.ok());
    CHECK(out.shared_with > 0);  // it did share its call
    for (size_t i = 0; i < mine.size(); ++i) CHECK(out.results[i].best().text == alone[i]);
  }
}
