// A tern.Translator as the binding holds it (the Translator, its lock for Python threads) and the shape of
// every call on it: chunks of max_batch inputs run with the GIL released, results copied out, errors raised
// as CallOptions say (translator_py.cc: translate_batch / translate_ids; score_py.cc: score_batch / score_ids).
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "binding.h"
#include "call_options.h"
#include "results.h"
#include "tern/translator.h"

namespace tern::python {

struct PyTranslator {
  std::shared_ptr<const Model> model;
  std::unique_ptr<Translator> translator;
  std::mutex mu;  // one call at a time: a second Python thread waits (GIL released) instead of kBusy
  std::atomic<std::thread::id> owner{};  // the thread holding mu (a callback on it must not wait for it)
};

// Holds the Translator's lock for a call: taken with the GIL released (another thread's call may hold the
// lock and need the GIL for its callback), refused with BusyError on the thread that already holds it (a
// streaming callback calling back into its own Translator: waiting would deadlock). Raise() needs the GIL:
// the check comes before the release.
class CallLock {
 public:
  explicit CallLock(PyTranslator& t) : t_(t) {
    if (t_.owner.load() == std::this_thread::get_id())
      Raise(StatusCode::kBusy, "Translator: called from its own callback while it is translating (use another Translator)");
  }
  // With the GIL released.
  void Lock() {
    t_.mu.lock();
    t_.owner.store(std::this_thread::get_id());
    locked_ = true;
  }
  void Unlock() {
    if (!locked_) return;
    t_.owner.store(std::thread::id());
    t_.mu.unlock();
    locked_ = false;
  }
  ~CallLock() { Unlock(); }

 private:
  PyTranslator& t_;
  bool locked_ = false;
};

// Runs `run(chunk_begin, chunk_end, chunk_options, &results)` over the call's chunks (CallChunks::Run, the one
// loop) with the GIL released and the translator locked, copying each chunk's results out; then raises or
// returns as the keywords say.
template <typename Run>
py::list RunChunks(PyTranslator& self, size_t n, CallKeywords& k, Run run) {
  CallState* state = &k.state;
  const std::string& on_error = k.on_error;
  std::optional<CallChunks>& chunks = k.chunks;
  std::vector<ResultCopy> copies;
  copies.reserve(n);
  Status call;
  CallLock lock(self);
  {
    py::gil_scoped_release unlocked;
    lock.Lock();
    chunks->SetMaxBatch(self.translator->max_batch());  // the one loop over chunks (tern/call_chunks.h)
    size_t delivered = 0;
    call = chunks->Run(
        [&](size_t begin, size_t end, const TranslateOptions& o, Span<const TranslationResult>* results) {
          state->offset = begin;
          return run(begin, end, o, results);
        },
        [&](size_t, Span<const TranslationResult> results) { CopyResults(results, &copies); }, &delivered);
    lock.Unlock();
  }
  if (state->python_error) {  // the callback raised, or Ctrl-C: that exception, as Python raised it
    state->python_error->restore();
    throw py::error_already_set();
  }
  if (!call.ok() && call.code() != StatusCode::kCancelled) Raise(call);
  while (copies.size() < n) {  // inputs of chunks a cancellation left out
    ResultCopy c;
    c.error = StatusCode::kCancelled;
    c.error_message = "not translated: the call was cancelled";
    copies.push_back(std::move(c));
  }
  py::list results = ToPython(std::move(copies));
  if (!call.ok()) {
    py::object e = py::module_::import("tern.errors").attr("CancelledError")(call.message(), results);
    PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(e.ptr())), e.ptr());
    throw py::error_already_set();
  }
  if (on_error == "raise") {
    for (size_t i = 0; i < n; ++i) {
      py::object err = results[i].attr("error");
      if (err.is_none()) continue;
      // The same class, its message saying which input (a bytes or str argument has no line number).
      err = err.get_type()(py::str("input {}: {}").format(i, err.attr("message")));
      err.attr("index") = i;
      err.attr("results") = results;
      PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(err.ptr())), err.ptr());
      throw py::error_already_set();
    }
  }
  return results;
}

/// Adds score_batch and score_ids to the tern.Translator class (score_py.cc).
void RegisterScoring(py::class_<PyTranslator>& cls);
/// Adds translate_icu_messages to the tern.Translator class (icu_py.cc).
void RegisterIcuMessages(py::class_<PyTranslator>& cls);

}  // namespace tern::python
