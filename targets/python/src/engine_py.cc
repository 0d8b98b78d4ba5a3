// tern._tern.Engine: tern::Engine for Python (the futures and translate_iterable are Python, tern/serving.py).
// Each submission names a Python callable that the engine's worker thread calls, with the GIL taken, when
// the request completes: done(error or None, results or None, info dict). The callable and the glossary it
// uses are held by the completion (released under the GIL there). close() and the destructor shut the
// engine down with the GIL released (workers need it to complete what they run).
#include <pybind11/stl.h>

#include <mutex>
#include <optional>
#include <vector>

#include "binding.h"
#include "call_inputs.h"
#include "call_options.h"
#include "results.h"
#include "tern/engine.h"

namespace tern::python {
namespace {

// Engines whose last Python reference went in a done callback, on a worker thread: shut down there (which
// does not wait) and destroyed (joined) off the workers, by the next engine made or at interpreter exit.
std::mutex graveyard_mu;
std::vector<std::unique_ptr<Engine>> graveyard;

void ReleaseClosedEngines() {
  std::vector<std::unique_ptr<Engine>> dead;
  {
    std::lock_guard<std::mutex> lock(graveyard_mu);
    dead.swap(graveyard);
  }
  py::gil_scoped_release unlocked;  // their workers may be finishing a completion, which takes the GIL
  dead.clear();
}

struct PyEngine {
  std::shared_ptr<const Model> model;
  std::unique_ptr<Engine> engine;
  void Close() {
    if (!engine) return;
    py::gil_scoped_release unlocked;
    engine->Shutdown();  // on a worker thread (a done callback): returns without waiting for the workers
  }
  ~PyEngine() {
    if (!engine || !Py_IsInitialized()) return;
    Close();
    if (Engine::OnWorkerThread()) {  // destroying it here could not join the thread it runs on
      std::lock_guard<std::mutex> lock(graveyard_mu);
      graveyard.push_back(std::move(engine));
    }
  }
};

// What a completion needs: the Python callable and what the request's options point at (the keywords'
// storage: the glossary, the streaming callback, suppress_sequences, end_tokens, logits processors).
struct Completion {
  py::object done;
  std::unique_ptr<CallKeywords> keywords;
};

void OnDone(uint64_t, const RequestOutcome& out, void* user_data) {
  if (!Py_IsInitialized()) return;
  py::gil_scoped_acquire gil;
  std::unique_ptr<Completion> c(static_cast<Completion*>(user_data));
  try {
    py::object error = py::none(), results = py::none();
    if (!out.results.empty() || out.status.ok()) {
      std::vector<ResultCopy> copies = out.results;
      results = ToPython(std::move(copies));
    }
    if (!out.status.ok()) error = MakeError(out.status.code(), out.status.message());
    if (c->keywords && c->keywords->state.python_error) error = c->keywords->state.python_error->value();  // the callback raised
    py::dict info(py::arg("queued_ms") = out.queued_ms, py::arg("run_ms") = out.run_ms, py::arg("replica") = out.replica,
                  py::arg("shared_with") = out.shared_with);
    c->done(error, results, info);
  } catch (py::error_already_set& e) {
    e.discard_as_unraisable("tern.Engine completion callback");
  }
  c->done = py::none();
  c->keywords.reset();
}

std::unique_ptr<PyEngine> MakeEngine(const PyModel& m, uint32_t replicas, uint32_t threads, uint32_t max_batch, uint32_t max_beam,
                                     uint32_t max_n_best, uint32_t max_source_tokens, uint32_t max_target_tokens,
                                     uint32_t max_queued, bool continuous_batching, bool attention) {
  EngineConfig c;
  c.replicas = replicas, c.max_queued = max_queued, c.continuous_batching = continuous_batching;
  c.translator.threads = threads, c.translator.max_batch = max_batch, c.translator.max_beam = max_beam;
  c.translator.max_n_best = max_n_best, c.translator.max_source_tokens = max_source_tokens;
  c.translator.max_target_tokens = max_target_tokens;
  c.translator.attention = attention;
  if (!Engine::OnWorkerThread()) ReleaseClosedEngines();
  Result<std::unique_ptr<Engine>> r = Status(StatusCode::kInternal, "not run");
  {
    py::gil_scoped_release unlocked;
    r = Engine::Create(m.model, c);
  }
  if (!r.ok()) Raise(r.status());
  auto e = std::make_unique<PyEngine>();
  e->model = m.model;
  e->engine = std::move(r.value());
  return e;
}

// Queues `r` (its inputs filled) with the keywords `kw` (every one translate_batch / translate_ids takes).
Ticket Submit(PyEngine& self, Request r, py::object done, py::kwargs kw, CallKind kind, const char* fn) {
  if (!self.engine) Raise(StatusCode::kCancelled, "Engine: closed");
  const size_t n = r.texts.empty() ? r.ids.size() : r.texts.size();
  auto k = std::make_unique<CallKeywords>();
  k->Read(kw, kind, n, self.model, fn);
  k->state.main_thread = false;  // the callback runs on a worker thread
  r.options = k->chunks->Options(0, n);  // the request's own per-input views (the engine copies and slices them per call)
  // A request is cancelled through its ticket; the abort check runs only for what needs it (a CancelToken, or
  // a callback or logits processor that may raise), which makes the request run alone.
  if (!k->state.cancel && k->state.callback.is_none() && k->state.processors.empty())
    r.options.abort = nullptr, r.options.abort_user_data = nullptr;
  auto c = std::make_unique<Completion>();
  c->done = std::move(done);
  c->keywords = std::move(k);
  Result<Ticket> t = Status(StatusCode::kInternal, "not run");
  {
    py::gil_scoped_release unlocked;  // the completion may run at once, on this thread (an empty request)
    t = self.engine->Submit(std::move(r), &OnDone, c.get());
  }
  if (!t.ok()) Raise(t.status());
  c.release();  // OnDone owns it now
  return t.value();
}

}  // namespace

void RegisterEngine(py::module_& m) {
  py::class_<Ticket>(m, "_Ticket", "A submitted request (tern.Engine.submit's future holds it).")
      .def_property_readonly("id", &Ticket::id)
      .def_property_readonly("done", [](const Ticket& t) { return t.done(); })
      .def("cancel", [](const Ticket& t) {
        py::gil_scoped_release unlocked;  // a queued request completes at once: its callback takes the GIL
        return t.Cancel();
      }, "Asks the request to stop; True when it was still queued (taken out: it never runs).");
  m.def("_on_engine_worker", &Engine::OnWorkerThread, "True on an engine's worker thread (where done callbacks run).");
  m.def("_release_closed_engines", [] {
    if (!Engine::OnWorkerThread()) ReleaseClosedEngines();
  }, "Joins the engines dropped in a done callback (called at exit).");
  auto cls = py::class_<PyEngine>(m, "_Engine", "tern::Engine (tern/engine.h); use tern.Engine.");
  cls.def(py::init(&MakeEngine), py::arg("model"), py::kw_only(), py::arg("replicas") = 0, py::arg("threads") = 1,
          py::arg("max_batch") = 0, py::arg("max_beam") = 0, py::arg("max_n_best") = 1, py::arg("max_source_tokens") = 0,
          py::arg("max_target_tokens") = 0, py::arg("max_queued") = 0, py::arg("continuous_batching") = true,
          py::arg("attention") = false);
  // Every keyword of translate_batch / translate_ids (the field table's), on_error being tern.Engine's.
  cls.def(
      "submit",
      [](PyEngine& self, py::object texts, py::object done, py::kwargs kw) {
        if (py::isinstance<py::str>(texts) || py::isinstance<py::bytes>(texts) || !py::isinstance<py::sequence>(texts))
          throw py::type_error("texts: expected a list of str (or bytes)");
        auto seq = py::reinterpret_borrow<py::sequence>(texts);
        Request r;
        r.texts.resize(seq.size());
        for (size_t i = 0; i < r.texts.size(); ++i) r.texts[i] = TextOf(seq[i], "texts[" + std::to_string(i) + "]", true);
        return Submit(self, std::move(r), done, kw, CallKind::kTexts, "submit");
      },
      py::arg("texts"), py::arg("done"));
  cls.def(
      "submit_ids",
      [](PyEngine& self, py::object sources, py::object done, py::kwargs kw) {
        if (!py::isinstance<py::sequence>(sources) || py::isinstance<py::str>(sources))
          throw py::type_error("sources: expected a list of 1-D integer arrays");
        auto seq = py::reinterpret_borrow<py::sequence>(sources);
        Request r;
        r.ids.resize(seq.size());
        for (size_t i = 0; i < r.ids.size(); ++i) r.ids[i] = IdsOf(seq[i], "sources[" + std::to_string(i) + "]");
        return Submit(self, std::move(r), done, kw, CallKind::kIds, "submit_ids");
      },
      py::arg("sources"), py::arg("done"));
  cls.def("close", &PyEngine::Close, "Cancels queued requests, stops running ones, joins the workers.");
  cls.def_property_readonly("replicas", [](const PyEngine& e) { return e.engine ? e.engine->replicas() : 0; })
      .def_property_readonly("max_batch", [](const PyEngine& e) { return e.engine ? e.engine->max_batch() : 0; })
      .def_property_readonly("queued", [](const PyEngine& e) { return e.engine ? e.engine->queued() : size_t{0}; })
      .def_property_readonly("arena_bytes", [](const PyEngine& e) { return e.engine ? e.engine->arena_bytes() : size_t{0}; });
}

}  // namespace tern::python
