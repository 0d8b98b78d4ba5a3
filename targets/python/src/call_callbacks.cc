// What a call's Python callbacks run through: the streaming callback (tern.StreamEvent), Python logits
// processors (tern.LogitsRow), the abort check (CancelToken, Ctrl-C, an exception a callback raised), and the
// Python types they use.
#include "call_callbacks.h"

#include <pybind11/numpy.h>

namespace tern::python {
namespace {

// tern.StreamEvent: one generated token (tern::TokenEvent, with index counted over the whole call).
struct StreamEvent {
  size_t index = 0, part = 0, parts = 1;
  uint32_t token = 0;
  py::str text;
  bool last = false;
  float logprob = 0.f;
};

}  // namespace

bool OnToken(const TokenEvent& e, void* user_data) {
  auto* st = static_cast<CallState*>(user_data);
  py::gil_scoped_acquire gil;
  if (st->python_error) return false;
  try {
    StreamEvent ev{e.index + st->offset, e.part, e.parts, e.token,
                   py::reinterpret_steal<py::str>(PyUnicode_DecodeUTF8(e.text.data(), static_cast<Py_ssize_t>(e.text.size()), "replace")),
                   e.last, e.logprob};
    py::object stop = st->callback(std::move(ev));
    return !py::bool_(stop);  // CTranslate2's convention: a callback returns True to stop
  } catch (py::error_already_set& err) {
    st->python_error.emplace(std::move(err));
    return false;
  }
}

namespace {

// tern.LogitsRow: what a Python logits processor gets (tern::LogitsRow); valid during its call only.
struct PyLogitsRow {
  LogitsRow* row = nullptr;
  size_t offset = 0;  // the chunk's first input
};

// A Python callable as a per-call logits processor (tern/logits_processor.h): called on the translating
// thread with the GIL taken, once per live hypothesis per step. An exception it raises stops the call
// (OnAbort sees it before the next step) and is raised by the call.
class PyLogitsProcessor final : public LogitsProcessor {
 public:
  PyLogitsProcessor(py::object fn, CallState* st) : fn_(std::move(fn)), st_(st) {}
  ~PyLogitsProcessor() override {
    py::gil_scoped_acquire gil;
    fn_ = py::object();
  }
  void Process(LogitsRow& row) override {
    py::gil_scoped_acquire gil;
    if (st_->python_error) return;
    try {
      fn_(PyLogitsRow{&row, st_->offset});
    } catch (py::error_already_set& err) {
      st_->python_error.emplace(std::move(err));
    }
  }

 private:
  py::object fn_;
  CallState* st_;
};

}  // namespace

std::unique_ptr<LogitsProcessor> MakePyLogitsProcessor(py::object fn, CallState* st) {
  return std::make_unique<PyLogitsProcessor>(std::move(fn), st);
}

bool OnAbort(void* user_data) {
  auto* st = static_cast<CallState*>(user_data);
  if (st->python_error) return true;  // a logits processor raised (set on this, the translating, thread)
  if (st->cancel && st->cancel->cancelled.load(std::memory_order_relaxed)) return true;
  if (!st->main_thread) return false;
  // Ctrl-C: Python's handler only sets a flag; look at it at most every 50 ms (taking the GIL each step
  // would make this thread wait on any other Python thread).
  const auto now = std::chrono::steady_clock::now();
  if (now - st->last_signal_check < std::chrono::milliseconds(50)) return false;
  st->last_signal_check = now;
  py::gil_scoped_acquire gil;
  if (st->python_error) return true;
  if (PyErr_CheckSignals() == 0) return false;
  st->python_error.emplace();  // fetches the KeyboardInterrupt (or what the handler raised)
  return true;
}


void RegisterCallTypes(py::module_& m) {
  py::class_<CancelToken, std::shared_ptr<CancelToken>>(m, "CancelToken",
      "Give it to translate_batch / translate_ids (cancel=...); cancel() from any thread stops those calls before their "
      "next decoder step: they raise CancelledError with the results of the sentences that finished.")
      .def(py::init<>())
      .def("cancel", [](CancelToken& t) { t.cancelled.store(true); }, "Stop every call using this token (thread-safe).")
      .def("reset", [](CancelToken& t) { t.cancelled.store(false); }, "Make the token usable again.")
      .def_property_readonly("cancelled", [](const CancelToken& t) { return t.cancelled.load(); });
  py::class_<PyLogitsRow>(m, "LogitsRow",
      "One hypothesis' next-token scores at one step, given to each of a call's logits_processors (tern::LogitsRow; "
      "transformers' LogitsProcessor, CTranslate2's LogitsProcessor). Valid during that call only.")
      .def_property_readonly("input", [](const PyLogitsRow& r) { return r.row->input + r.offset; },
                             "the input (text or id list) the hypothesis translates, as results are indexed")
      .def_property_readonly("part", [](const PyLogitsRow& r) { return r.row->part; }, "its sentence within that text (split_sentences)")
      .def_property_readonly("hypothesis", [](const PyLogitsRow& r) { return r.row->hypothesis; }, "its beam slot, 0..beam-1")
      .def_property_readonly("step", [](const PyLogitsRow& r) { return r.row->step; }, "the position being chosen (0: the first token)")
      .def_property_readonly("prefix", [](const PyLogitsRow& r) {
        return py::array_t<uint32_t>(static_cast<py::ssize_t>(r.row->prefix.size()), r.row->prefix.data());
      }, "the tokens this hypothesis generated so far (a uint32 array, a copy)")
      .def_property_readonly("scores", [](const PyLogitsRow& r) {
        // A writable view of the row (no copy): the processor rewrites it in place.
        return py::array_t<float>({static_cast<py::ssize_t>(r.row->scores.size())}, {static_cast<py::ssize_t>(sizeof(float))},
                                  r.row->scores.data(), py::capsule(r.row, [](void*) {}));
      }, "float32 array view, rewritten in place: log-probabilities (beam search) or logits (greedy) after the file's "
         "rules; -inf bans a token. Valid during the processor's call only.")
      .def_property_readonly("columns", [](const PyLogitsRow& r) -> py::object {
        if (r.row->columns.empty()) return py::none();
        return py::array_t<uint32_t>(static_cast<py::ssize_t>(r.row->columns.size()), r.row->columns.data());
      }, "the token of each column (a shortlist), or None: column k scores token k")
      .def("column", [](const PyLogitsRow& r, uint32_t token) { return r.row->Column(token); }, py::arg("token"),
           "the column of target token `token`, or -1 when the row has none for it");
  py::class_<StreamEvent>(m, "StreamEvent",
      "One generated token, given to a call's callback: greedy search streams every token as it is chosen (sentences "
      "of a batch interleave), beam search a sentence's best hypothesis when it finishes.")
      .def_readonly("index", &StreamEvent::index, "the input it belongs to (as results are indexed)")
      .def_readonly("part", &StreamEvent::part, "its sentence within that text (split_sentences)")
      .def_readonly("parts", &StreamEvent::parts, "sentences in that text")
      .def_readonly("token", &StreamEvent::token, "the generated id (eos_id with the last event of a sentence ending in </s>)")
      .def_readonly("text", &StreamEvent::text, "the text it adds (may be '')")
      .def_readonly("last", &StreamEvent::last, "no more events for this sentence")
      .def_readonly("logprob", &StreamEvent::logprob, "the token's log-probability (as Hypothesis.token_logprobs)")
      .def("__repr__", [](const StreamEvent& e) {
        return "StreamEvent(index=" + std::to_string(e.index) + ", token=" + std::to_string(e.token) + ", text=" +
               std::string(py::repr(e.text)) + ", last=" + (e.last ? "True" : "False") + ")";
      });
}

}  // namespace tern::python
