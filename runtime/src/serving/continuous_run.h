// A replica's continuous call (tern/continuous.h) over the engine's requests: the call's requests' inputs
// go in first, then inputs of queued requests that may share the call (RequestQueue::TakeSharing) as slots
// free up; each request completes as soon as its last input's result is handed over, not when the call ends.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "serving/request_queue.h"
#include "serving/ticket_state.h"
#include "tern/translator.h"

namespace tern::serving {

/// Runs `call` (requests that may share one call, the oldest first) on `tr` as one continuous call, taking
/// further requests from `queue` while it runs; stops at the next decoder step once `stopping` is set.
/// Completes every request it took. Returns false, having taken and completed nothing, when `tr` refuses a
/// continuous call with these options (the caller runs the call statically).
bool RunContinuous(Translator& tr, uint32_t replica, const std::vector<std::shared_ptr<TicketState>>& call,
                   RequestQueue& queue, const std::atomic<bool>& stopping);

}  // namespace tern::serving
