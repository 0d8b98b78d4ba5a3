#include "serving/ticket_state.h"

#include "base/results_echo.h"
#include "serving/request_queue.h"

namespace tern::serving {

namespace {
double Ms(std::chrono::steady_clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }
// Completion callbacks running on this thread (a callback may cancel another request, whose callback then
// runs inside it).
thread_local int tls_completing = 0;
}  // namespace

bool MayWait() { return tls_completing == 0 && !Engine::OnWorkerThread(); }

void Complete(const std::shared_ptr<TicketState>& t, RequestOutcome outcome) {
  EchoResults("complete", outcome.results);  // TERN_ECHO_RESULTS: what each engine binding must receive
  const auto now = std::chrono::steady_clock::now();
  if (t->started == std::chrono::steady_clock::time_point{}) t->started = now;  // never ran
  outcome.queued_ms = Ms(t->started - t->submitted);
  outcome.run_ms = Ms(now - t->started);
  {
    std::lock_guard<std::mutex> lock(t->mu);
    t->outcome = std::move(outcome);
    t->ready = true;
  }
  if (t->on_done) {  // outcome is no longer written: no lock needed
    ++tls_completing;
    t->on_done(t->id, t->outcome, t->user_data);
    --tls_completing;
  }
  {
    std::lock_guard<std::mutex> lock(t->mu);
    t->done = true;
  }
  t->cv.notify_all();
}

std::vector<OwnedResult> CancelledResults(size_t n) {
  std::vector<OwnedResult> r(n);
  for (OwnedResult& x : r) {
    x.error = StatusCode::kCancelled;
    x.error_message = "not translated: the request was cancelled";
  }
  return r;
}

}  // namespace tern::serving

namespace tern {

Ticket::Ticket(std::shared_ptr<serving::TicketState> state) : state_(std::move(state)) {}

uint64_t Ticket::id() const { return state_ ? state_->id : 0; }

bool Ticket::done() const {
  if (!state_) return true;
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->done;
}

const RequestOutcome& Ticket::Wait() const {
  static const RequestOutcome kEmpty{Status(StatusCode::kInvalidArgument, "Ticket: empty (no request)"), {}, 0, 0, 0, 0};
  static const RequestOutcome kOnWorker{
      Status(StatusCode::kBusy, "Ticket::Wait in a completion callback (or on an engine's worker thread) for a request not "
                                "yet complete: it does not wait there"),
      {}, 0, 0, 0, 0};
  if (!state_) return kEmpty;
  std::unique_lock<std::mutex> lock(state_->mu);
  if (!serving::MayWait()) return state_->ready ? state_->outcome : kOnWorker;  // e.g. its own callback: ready
  state_->cv.wait(lock, [&] { return state_->done; });
  return state_->outcome;
}

bool Ticket::WaitFor(uint32_t timeout_ms) const {
  if (!state_) return true;
  std::unique_lock<std::mutex> lock(state_->mu);
  if (!serving::MayWait()) return state_->ready;
  return state_->cv.wait_for(lock, std::chrono::milliseconds(timeout_ms), [&] { return state_->done; });
}

bool Ticket::Cancel() const {
  if (!state_) return false;
  state_->cancelled.store(true);
  std::shared_ptr<serving::RequestQueue> q = state_->queue.lock();
  if (!q || !q->Remove(state_.get())) return false;
  // Still waiting: it completes now, never having run.
  serving::Complete(state_, {Status(StatusCode::kCancelled, "request cancelled while queued"),
                             serving::CancelledResults(state_->inputs()), 0, 0, 0, 0});
  return true;
}

}  // namespace tern
