// What a submitted request is while the engine holds it: its request (inputs and options, the option views
// re-pointed at storage it owns), its cancel flag, and its outcome once complete (tern/engine.h Ticket).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "tern/engine.h"

namespace tern::serving {

class RequestQueue;

struct TicketState {
  uint64_t id = 0;
  Request request;                   // options.target_lang / keep_spans point into the two below
  std::string target_lang;
  std::vector<KeepSpan> keep_spans;
  std::vector<std::string> prefix_texts;               // options.target_prefix's texts
  std::vector<std::string_view> prefix_text_views;     //   and the views options.target_prefix points to
  std::vector<std::vector<uint32_t>> prefix_ids;       // options.target_prefix_ids' ids
  std::vector<Span<const uint32_t>> prefix_id_views;   //   and the spans options.target_prefix_ids points to
  std::vector<uint64_t> sampling_keys;  // each input's sampling key: the caller's, or its index in the request
  bool may_share = false;            // no callbacks of its own, no keep_spans or target prefixes, fits one call
  CompletionCallback on_done = nullptr;
  void* user_data = nullptr;
  std::chrono::steady_clock::time_point submitted, started;
  std::atomic<bool> cancelled{false};
  std::weak_ptr<RequestQueue> queue;  // for Cancel to take it out while it waits

  std::mutex mu;
  std::condition_variable cv;
  bool ready = false;  // outcome written (it is no longer written after this)
  bool done = false;   // ready and the completion callback returned: waiters wake now
  RequestOutcome outcome;

  size_t inputs() const { return request.texts.empty() ? request.ids.size() : request.texts.size(); }
};

/// Records `outcome` (times filled in here), calls the completion callback (outside every lock), then
/// wakes waiters: a Wait that returns finds the callback returned. Called once per request.
void Complete(const std::shared_ptr<TicketState>& t, RequestOutcome outcome);

/// False on an engine's worker thread and inside a completion callback: waiting there for a request could
/// wait for the thread itself (Ticket::Wait does not wait then).
bool MayWait();

/// Results of `n` inputs that were not translated: each carries kCancelled.
std::vector<OwnedResult> CancelledResults(size_t n);

}  // namespace tern::serving
