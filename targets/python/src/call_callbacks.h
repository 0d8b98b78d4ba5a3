// The state a call's Python callbacks share and the callbacks tern calls with it: the streaming callback (a
// Python callable, run with the GIL), Python logits processors, the abort check (CancelToken, Ctrl-C).
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <vector>

#include "binding.h"
#include "tern/logits_processor.h"
#include "tern/translator.h"

namespace tern::python {

/// tern.CancelToken: cancel() from any thread stops the calls it was given to (they raise CancelledError).
struct CancelToken {
  std::atomic<bool> cancelled{false};
};

/// What the callbacks of one call share (lives in the calling frame; GIL held when it is made and destroyed).
struct CallState {
  py::object callback = py::none();
  std::shared_ptr<CancelToken> cancel;
  bool main_thread = false;  // Ctrl-C reaches Python's main thread only: checked there
  std::chrono::steady_clock::time_point last_signal_check{};
  size_t offset = 0;         // the current chunk's first input (TokenEvent.index is relative to it)
  uint32_t per_input = 1;    // sentences an input becomes (alternatives: one per alternative); chunks shrink by it
  std::optional<py::error_already_set> python_error;  // raised by a callback or a logits processor, or KeyboardInterrupt
  std::vector<std::unique_ptr<LogitsProcessor>> processors;  // the call's Python logits processors
  std::vector<LogitsProcessor*> processor_ptrs;              //   as TranslateOptions::logits_processors sees them
};

/// TranslateOptions::on_token for a call with a Python callback (user_data: its CallState): the token as a
/// tern.StreamEvent, index counted over the whole call; the callback returning True stops the sentence
/// (CTranslate2's convention). An exception it raises is kept in CallState::python_error. Takes the GIL.
bool OnToken(const TokenEvent& e, void* user_data);

/// TranslateOptions::abort (user_data: the CallState): true once a callback or logits processor raised, the
/// CancelToken is cancelled, or (on the main thread, looked at every 50 ms at most) Ctrl-C was pressed.
bool OnAbort(void* user_data);

/// A Python callable as a per-call logits processor (tern/logits_processor.h): called with a tern.LogitsRow on
/// the translating thread with the GIL taken, once per live hypothesis per step; an exception it raises is
/// kept in st->python_error and stops the call at the next abort check.
std::unique_ptr<LogitsProcessor> MakePyLogitsProcessor(py::object fn, CallState* st);

/// tern.CancelToken, tern.LogitsRow and tern.StreamEvent.
void RegisterCallTypes(py::module_& m);

}  // namespace tern::python
