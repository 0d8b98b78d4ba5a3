// tern::Engine (tern/engine.h): a worker thread per replica takes one call's requests from the queue, runs
// them on its Translator and completes each with owned results.
#include "tern/engine.h"

#include <algorithm>
#include <atomic>
#include <string_view>
#include <thread>
#include <vector>

#include "base/options_echo.h"
#include "serving/continuous_run.h"
#include "serving/request_queue.h"
#include "serving/sharing.h"
#include "tern/call_chunks.h"
#include "serving/ticket_state.h"

namespace tern {

using serving::TicketState;
using Call = std::vector<std::shared_ptr<TicketState>>;

namespace {

// The abort callback of every call the engine makes: the engine shutting down, the request's own abort
// (a request with one runs alone), or every request of the call cancelled.
struct AbortContext {
  const Call* call;
  const std::atomic<bool>* stopping;
  AbortCallback user = nullptr;
  void* user_data = nullptr;
};
bool AbortCall(void* u) {
  const auto* c = static_cast<const AbortContext*>(u);
  if (c->stopping->load(std::memory_order_relaxed)) return true;
  if (c->user && c->user(c->user_data)) return true;
  for (const auto& t : *c->call)
    if (!t->cancelled.load(std::memory_order_relaxed)) return false;
  return true;
}

// A request's own on_token, its events' index made the request's (a request runs in chunks of max_batch).
struct TokenContext {
  TokenCallback user;
  void* user_data;
  size_t offset = 0;
};
bool OnToken(const TokenEvent& e, void* u) {
  const auto* c = static_cast<const TokenContext*>(u);
  TokenEvent x = e;
  x.index += c->offset;
  return c->user(x, c->user_data);
}

// The requests' concatenated inputs (all texts or all ids) as views, built once per call: a call runs them in
// chunks of max_batch, and rebuilding per chunk would cost O(inputs^2 / max_batch).
struct InputViews {
  std::vector<std::string_view> texts;
  std::vector<Span<const uint32_t>> ids;
  explicit InputViews(const Call& call) {
    const bool text = !call[0]->request.texts.empty();
    for (const auto& t : call) {
      if (text)
        for (const std::string& s : t->request.texts) texts.emplace_back(s);
      else
        for (const auto& v : t->request.ids) ids.emplace_back(v.data(), v.size());
    }
  }
  // Runs inputs [begin, end) as one call.
  Status Run(Translator& tr, size_t begin, size_t end, const TranslateOptions& o,
             Span<const TranslationResult>* results) const {
    if (!texts.empty())
      return tr.Translate(Span<const std::string_view>(texts.data() + begin, end - begin), o, results);
    return tr.TranslateIds(Span<const Span<const uint32_t>>(ids.data() + begin, end - begin), o, results);
  }
};

// Every worker thread, for as long as it runs: the engine it serves (Engine::OnWorkerThread, and Shutdown
// never waiting for the thread it runs on).
thread_local const void* tls_engine = nullptr;

}  // namespace

// Owned by the Engine and by each worker thread (a shared_ptr each): a worker whose completion callback
// destroys the Engine keeps it alive until it returns, and the last owner releases it.
struct Engine::Impl {
  std::shared_ptr<const Model> model;
  std::vector<std::unique_ptr<Translator>> replicas;
  std::shared_ptr<serving::RequestQueue> queue;
  std::atomic<bool> stopping{false};
  std::atomic<uint64_t> next_id{1};
  std::mutex shutdown_mu;
  bool shut_down = false;
  bool continuous = false;  // EngineConfig::continuous_batching
  std::mutex workers_mu;               // the thread objects: joined by one thread, detached by a worker
  std::vector<std::thread> workers;

  void Work(uint32_t r) {
    tls_engine = this;
    for (;;) {
      Call call = queue->PopCall(replicas[r]->max_batch());
      if (call.empty()) break;  // closed and empty
      Run(r, std::move(call));
    }
    tls_engine = nullptr;
  }

  void Run(uint32_t r, Call call) {
    const auto now = std::chrono::steady_clock::now();
    Call live;
    for (auto& t : call) {
      t->started = now;
      if (t->cancelled.load() || stopping.load())
        serving::Complete(t, {Status(StatusCode::kCancelled, "request cancelled before it ran"),
                              serving::CancelledResults(t->inputs()), 0, 0, r, 0});
      else
        live.push_back(std::move(t));
    }
    if (live.empty()) return;
    if (continuous && live[0]->may_share && serving::RunContinuous(*replicas[r], r, live, *queue, stopping)) return;
    if (live.size() == 1) return RunAlone(r, live[0]);
    size_t n = 0;
    for (const auto& t : live) n += t->inputs();
    TranslateOptions o = live[0]->request.options;
    AbortContext ac{&live, &stopping};
    o.abort = AbortCall, o.abort_user_data = &ac;
    // Each input's sampling key is its index in its own request: what it draws does not depend on batch-mates.
    std::vector<uint64_t> keys;
    for (const auto& t : live) keys.insert(keys.end(), t->sampling_keys.begin(), t->sampling_keys.end());
    o.sampling_keys = Span<const uint64_t>(keys.data(), keys.size());
    Span<const TranslationResult> results;
    const Status s = InputViews(live).Run(*replicas[r], 0, n, o, &results);
    if ((!s.ok() && s.code() != StatusCode::kCancelled) || results.size() != n) {
      for (auto& t : live) RunAlone(r, t);  // wrong as a whole: each request on its own, so it fails alone
      return;
    }
    size_t begin = 0;
    for (auto& t : live) {
      RequestOutcome out{s, {}, 0, 0, r, static_cast<uint32_t>(live.size() - 1)};
      CopyResults(Span<const TranslationResult>(results.data() + begin, t->inputs()), &out.results);
      begin += t->inputs();
      serving::Complete(t, std::move(out));
    }
  }

  void RunAlone(uint32_t r, const std::shared_ptr<TicketState>& t) {
    Translator& tr = *replicas[r];
    const Call call{t};
    TranslateOptions o = t->request.options;
    AbortContext ac{&call, &stopping, o.abort, o.abort_user_data};
    o.abort = AbortCall, o.abort_user_data = &ac;
    TokenContext tc{o.on_token, o.on_token_user_data};
    if (o.on_token) o.on_token = OnToken, o.on_token_user_data = &tc;
    RequestOutcome out{Status::Ok(), {}, 0, 0, r, 0};
    // The one chunker (tern/call_chunks.h): each chunk's target prefixes, keep_spans and sampling keys (each
    // input's own, whichever chunk it runs in).
    const size_t n = t->inputs();
    o.sampling_keys = Span<const uint64_t>(t->sampling_keys.data(), t->sampling_keys.size());
    CallChunks chunks(o, n, tr.max_batch());
    const InputViews inputs(call);
    size_t delivered = 0;
    out.status = chunks.Run(
        [&](size_t begin, size_t end, const TranslateOptions& chunk, Span<const TranslationResult>* results) {
          tc.offset = begin;
          return inputs.Run(tr, begin, end, chunk, results);
        },
        [&](size_t, Span<const TranslationResult> results) { CopyResults(results, &out.results); }, &delivered);
    if (out.status.code() == StatusCode::kCancelled) {
      std::vector<OwnedResult> rest = serving::CancelledResults(n - std::min(n, out.results.size()));
      for (OwnedResult& x : rest) out.results.push_back(std::move(x));
    } else if (!out.status.ok()) {
      out.results.clear();  // wrong as a whole
    }
    serving::Complete(t, std::move(out));
  }
};

Engine::Engine(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}

Result<std::unique_ptr<Engine>> Engine::Create(std::shared_ptr<const Model> model, const EngineConfig& config) {
  if (!model) return Status(StatusCode::kInvalidArgument, "Engine: no model");
  TranslatorConfig tc = config.translator;
  if (tc.threads == 0) tc.threads = 1;
  tc.continuous_batching = tc.continuous_batching || config.continuous_batching;
  const uint64_t replicas = config.replicas ? config.replicas : std::max<uint32_t>(1, DefaultThreadCount() / tc.threads);
  if (replicas * tc.threads > 256)
    return Status(StatusCode::kInvalidArgument, "Engine: " + std::to_string(replicas) + " replicas x " +
                                                    std::to_string(tc.threads) + " threads exceed 256 threads");
  auto impl = std::make_unique<Impl>();
  impl->model = model;
  impl->continuous = config.continuous_batching;
  impl->queue = std::make_shared<serving::RequestQueue>(config.max_queued ? config.max_queued : 4096);
  for (uint64_t i = 0; i < replicas; ++i) {
    Result<std::unique_ptr<Translator>> t = Translator::Create(model, tc);
    if (!t.ok()) return Status(t.status().code(), "Engine: replica " + std::to_string(i) + ": " + t.status().message());
    impl->replicas.push_back(std::move(t.value()));
  }
  std::shared_ptr<Impl> shared(std::move(impl));
  {
    std::lock_guard<std::mutex> lock(shared->workers_mu);
    for (uint32_t i = 0; i < shared->replicas.size(); ++i)
      shared->workers.emplace_back([impl = shared, i] { impl->Work(i); });
  }
  return std::unique_ptr<Engine>(new Engine(std::move(shared)));
}

Engine::~Engine() {
  Shutdown();
  if (!OnWorkerThread()) return;
  // Destroyed from a completion callback: the workers end by themselves (the queue is closed, running calls
  // stop at their next step); each holds the Impl, and the last to end releases it.
  std::lock_guard<std::mutex> lock(impl_->workers_mu);
  for (std::thread& w : impl_->workers)
    if (w.joinable()) w.detach();
}

bool Engine::OnWorkerThread() { return tls_engine != nullptr; }

Result<Ticket> Engine::Submit(Request request, CompletionCallback on_done, void* user_data) {
  EchoCall("submit", request.options);
  if (!request.texts.empty() && !request.ids.empty())
    return Status(StatusCode::kInvalidArgument, "Engine::Submit: a request has texts or ids, not both");
  TERN_RETURN_IF_ERROR(impl_->replicas[0]->CheckOptions(request.options));
  const size_t inputs = request.texts.empty() ? request.ids.size() : request.texts.size();
  if (const Status counts = CallChunks::CheckInputCounts(request.options, inputs); !counts.ok())
    return Status(counts.code(), "Engine::Submit: " + counts.message());
  auto t = std::make_shared<TicketState>();
  t->id = impl_->next_id.fetch_add(1);
  t->request = std::move(request);
  serving::OwnOptionViews(t.get(), impl_->replicas[0]->max_batch());
  t->on_done = on_done, t->user_data = user_data;
  t->queue = impl_->queue;
  t->submitted = std::chrono::steady_clock::now();
  if (t->inputs() == 0) {
    serving::Complete(t, {Status::Ok(), {}, 0, 0, 0, 0});
    return Ticket(t);
  }
  TERN_RETURN_IF_ERROR(impl_->queue->Push(t));
  return Ticket(t);
}

void Engine::Shutdown() {
  std::vector<std::shared_ptr<serving::TicketState>> queued;
  {
    std::lock_guard<std::mutex> lock(impl_->shutdown_mu);
    if (!impl_->shut_down) {
      impl_->shut_down = true;
      impl_->stopping.store(true);
      queued = impl_->queue->Close();
    }
  }
  for (auto& t : queued)  // outside the lock: their callbacks may call Shutdown again
    serving::Complete(t, {Status(StatusCode::kCancelled, "engine shut down before the request ran"),
                          serving::CancelledResults(t->inputs()), 0, 0, 0, 0});
  // On a worker thread (a completion callback) nothing is waited for: that worker could be the one waited
  // for, or another worker's callback could be waiting here for it. The workers end by themselves.
  if (OnWorkerThread()) return;
  std::lock_guard<std::mutex> lock(impl_->workers_mu);  // a second caller waits until every worker is joined
  for (std::thread& w : impl_->workers)
    if (w.joinable()) w.join();
}

uint32_t Engine::replicas() const { return static_cast<uint32_t>(impl_->replicas.size()); }
uint32_t Engine::max_batch() const { return impl_->replicas[0]->max_batch(); }
size_t Engine::queued() const { return impl_->queue->size(); }
size_t Engine::arena_bytes() const {
  size_t n = 0;
  for (const auto& r : impl_->replicas) n += r->arena_bytes();
  return n;
}
const Model& Engine::model() const { return *impl_->model; }

}  // namespace tern
