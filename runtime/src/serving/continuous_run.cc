#include "serving/continuous_run.h"

#include <algorithm>
#include <deque>
#include <string_view>

namespace tern::serving {
namespace {

// One request of the call: its results so far and what is left.
struct Entry {
  std::shared_ptr<TicketState> t;
  std::vector<OwnedResult> results;  // [inputs]
  size_t next = 0;                   // the next input to hand out
  size_t remaining = 0;              // inputs whose results are not in yet
  bool cancelled = false;            // inputs were cancelled before they ran
  bool complete = false;
};


class EngineSource final : public SentenceSource {
 public:
  EngineSource(Translator& tr, uint32_t replica, RequestQueue& queue, std::shared_ptr<TicketState> first)
      : tr_(tr), replica_(replica), queue_(queue), first_(std::move(first)) {}

  void Add(std::shared_ptr<TicketState> t) {
    Entry e;
    e.results.resize(t->inputs());
    e.remaining = t->inputs();
    e.t = std::move(t);
    entries_.push_back(std::move(e));
    ++taken_;
  }

  bool Next(PendingSentence* p) override {
    for (;;) {
      while (cursor_ < base_ + entries_.size()) {
        Entry& e = At(cursor_);
        if (e.next < e.t->inputs() && e.t->cancelled.load()) {  // its inputs not yet begun are not begun
          for (; e.next < e.t->inputs(); ++e.next, --e.remaining) e.results[e.next] = std::move(CancelledResults(1)[0]);
          e.cancelled = true;
          MaybeComplete(e);
        }
        if (e.next < e.t->inputs()) {
          const size_t i = e.next++;
          p->tag = (uint64_t{cursor_} << 32) | i;
          p->by_ids = e.t->request.texts.empty();
          if (p->by_ids) p->ids = Span<const uint32_t>(e.t->request.ids[i].data(), e.t->request.ids[i].size());
          else p->text = e.t->request.texts[i];
          return true;
        }
        ++cursor_;
        Drop();
      }
      std::vector<std::shared_ptr<TicketState>> more = queue_.TakeSharing(*first_, tr_.max_batch());
      if (more.empty()) return false;
      const auto now = std::chrono::steady_clock::now();
      for (auto& t : more) {
        t->started = now;
        Add(std::move(t));
      }
    }
  }

  void Done(uint64_t tag, const TranslationResult& r) override {
    Entry& e = At(tag >> 32);
    const size_t i = tag & 0xffffffffu;
    std::vector<OwnedResult> one;
    CopyResults(Span<const TranslationResult>(&r, 1), &one);
    e.cancelled |= r.error == StatusCode::kCancelled;
    e.results[i] = std::move(one[0]);
    --e.remaining;
    MaybeComplete(e);
    Drop();
  }

  // After the continuous call: every request not yet complete.
  void Finish(const Status& call) {
    for (Entry& e : entries_) {
      if (e.complete) continue;
      // Inputs never handed out (the call stopped or failed first) are cancelled.
      for (; e.next < e.t->inputs(); ++e.next, --e.remaining) {
        e.results[e.next] = std::move(CancelledResults(1)[0]);
        e.cancelled = true;
      }
      if (!call.ok() && call.code() != StatusCode::kCancelled) {
        e.complete = true;
        serving::Complete(e.t, {call, {}, 0, 0, replica_, Shared()});
        continue;
      }
      MaybeComplete(e);
    }
  }

  // Every request the call still works for was cancelled (Ticket::Cancel): the call may stop.
  bool AllCancelled() const {
    bool any = false;
    for (const Entry& e : entries_) {
      if (e.complete) continue;
      if (!e.t->cancelled.load(std::memory_order_relaxed)) return false;
      any = true;
    }
    return any;
  }

  bool began() const { return cursor_ > 0 || base_ > 0 || (!entries_.empty() && entries_[0].next > 0); }

 private:
  uint32_t Shared() const { return static_cast<uint32_t>(taken_ - 1); }
  Entry& At(size_t index) { return entries_[index - base_]; }
  // Completed requests before the cursor leave the list: a call that runs for hours holds only what is open.
  void Drop() {
    while (!entries_.empty() && base_ < cursor_ && entries_.front().complete) entries_.pop_front(), ++base_;
  }
  void MaybeComplete(Entry& e) {
    if (e.complete || e.remaining != 0) return;
    e.complete = true;
    const Status s = e.cancelled ? Status(StatusCode::kCancelled, "request cancelled") : Status::Ok();
    serving::Complete(e.t, {s, std::move(e.results), 0, 0, replica_, Shared()});
  }

  Translator& tr_;
  const uint32_t replica_;
  RequestQueue& queue_;
  std::shared_ptr<TicketState> first_;  // the call's first request: what later ones must share with
  std::deque<Entry> entries_;           // requests taken and not yet dropped; entries_[k] is number base_ + k
  size_t base_ = 0, cursor_ = 0;        // numbers: of entries_[0], and of the request handing out inputs
  size_t taken_ = 0;                    // requests taken in all
};

}  // namespace

namespace {

// The continuous call's abort check: the engine stopping, or every request it works for cancelled.
struct StopContext {
  const std::atomic<bool>* stopping;
  const EngineSource* source;
};
bool StopCall(void* u) {
  const auto* c = static_cast<const StopContext*>(u);
  return c->stopping->load(std::memory_order_relaxed) || c->source->AllCancelled();
}

}  // namespace

bool RunContinuous(Translator& tr, uint32_t replica, const std::vector<std::shared_ptr<TicketState>>& call,
                   RequestQueue& queue, const std::atomic<bool>& stopping) {
  EngineSource source(tr, replica, queue, call[0]);
  for (const auto& t : call) source.Add(t);
  TranslateOptions o = call[0]->request.options;
  o.sampling_keys = {};  // the first request's; a continuous call takes no sampling (and keys no input by index)
  StopContext stop{&stopping, &source};
  o.abort = StopCall, o.abort_user_data = &stop;
  const Status s = tr.TranslateContinuous(source, o);
  if (s.code() == StatusCode::kInvalidArgument && !source.began()) return false;  // refused: a static call
  source.Finish(s);
  return true;
}

}  // namespace tern::serving
