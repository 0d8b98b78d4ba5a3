// The engine's queue of submitted requests (oldest first), and the rule for which of them one call may
// carry: the oldest, then every later request that may share a call with it (sharing.h), up to a replica's
// max_batch inputs. Thread-safe.
#pragma once

#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <vector>

#include "serving/ticket_state.h"
#include "tern/status.h"

namespace tern::serving {

class RequestQueue {
 public:
  explicit RequestQueue(size_t max_queued) : max_queued_(max_queued) {}

  /// Appends `t`. kResourceExhausted when max_queued requests wait; kCancelled once closed.
  Status Push(std::shared_ptr<TicketState> t);
  /// Blocks until a request waits (or the queue is closed: then returns none). Returns the requests of one
  /// call: the oldest, and when it may share, later ones with the same call, at most `max_inputs` inputs.
  std::vector<std::shared_ptr<TicketState>> PopCall(size_t max_inputs);
  /// Does not block: takes waiting requests from the front of the queue while they may share a call with
  /// `first` (sharing.h), at most `max_inputs` inputs in all (a running continuous call's next sentences);
  /// one that cannot share stops it, so that it is served next.
  std::vector<std::shared_ptr<TicketState>> TakeSharing(const TicketState& first, size_t max_inputs);
  /// Takes `t` out if it still waits (Ticket::Cancel); true when it did.
  bool Remove(const TicketState* t);
  /// Refuses later pushes, wakes every PopCall, returns what waited (for the caller to cancel).
  std::vector<std::shared_ptr<TicketState>> Close();
  size_t size() const;

 private:
  const size_t max_queued_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::shared_ptr<TicketState>> q_;
  bool closed_ = false;
};

}  // namespace tern::serving
