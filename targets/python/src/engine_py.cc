// tern._tern.Engine: tern::Engine for Python (the futures and translate_iterable are Python, tern/serving.py).
// Each submission names a Python callable that the engine's worker thread calls, with the GIL taken, when
// the request completes: done(error or None, results or None, info dict). The callable and the glossary it
// uses are held by the completion (released under the GIL there). close() and the destructor shut the
// engine down with the GIL released (workers need it to complete what they run).
#include <pybind11/stl.h>

#include <optional>

#include "binding.h"
#include "call_inputs.h"
#include "call_options.h"
#include "results.h"
#include "tern/engine.h"

namespace tern::python {
namespace {

struct PyEngine {
  std::shared_ptr<const Model> model;
  std::unique_ptr<Engine> engine;
  void Close() {
    if (!engine) return;
    py::gil_scoped_release unlocked;
    engine->Shutdown();
  }
  ~PyEngine() {
    if (engine && Py_IsInitialized()) Close();
  }
};

// What a completion needs: the Python callable and what the request's options point at.
struct Completion {
  py::object done;
  std::optional<PyGlossary> glossary;
  std::unique_ptr<CallState> state;  // the streaming callback's (the request runs alone when it has one)
  std::unique_ptr<CallRules> rules;  // what the request's suppress_sequences and end_tokens point at
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
    if (c->state && c->state->python_error) error = c->state->python_error->value();  // the callback raised
    py::dict info(py::arg("queued_ms") = out.queued_ms, py::arg("run_ms") = out.run_ms, py::arg("replica") = out.replica,
                  py::arg("shared_with") = out.shared_with);
    c->done(error, results, info);
  } catch (py::error_already_set& e) {
    e.discard_as_unraisable("tern.Engine completion callback");
  }
  c->done = py::none();
  c->glossary.reset();
  c->state.reset();
  c->rules.reset();
}

std::unique_ptr<PyEngine> MakeEngine(const PyModel& m, uint32_t replicas, uint32_t threads, uint32_t max_batch, uint32_t max_beam,
                                     uint32_t max_n_best, uint32_t max_source_tokens, uint32_t max_target_tokens,
                                     uint32_t max_queued, bool continuous_batching) {
  EngineConfig c;
  c.replicas = replicas, c.max_queued = max_queued, c.continuous_batching = continuous_batching;
  c.translator.threads = threads, c.translator.max_batch = max_batch, c.translator.max_beam = max_beam;
  c.translator.max_n_best = max_n_best, c.translator.max_source_tokens = max_source_tokens;
  c.translator.max_target_tokens = max_target_tokens;
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

// Queues `r` (its inputs filled) with the options of `args` (and `targs` for texts).
Ticket Submit(PyEngine& self, Request r, py::object done, const CallArgs& args, const TextArgs* targs, py::kwargs rules_kw) {
  if (!self.engine) Raise(StatusCode::kCancelled, "Engine: closed");
  auto state = std::make_unique<CallState>();
  auto rules = std::make_unique<CallRules>(CallRules::FromKeywords(rules_kw));
  r.options = MakeOptions(args, state.get());
  rules->Set(&r.options, state.get());
  r.options.abort = nullptr;  // a request is cancelled through its ticket (and stopped by its callback)
  state->main_thread = false;  // the callback runs on a worker thread
  std::vector<KeepSpan> spans;
  if (targs) AddTextOptions(*targs, self.model, r.texts.size(), &r.options, &spans);
  r.options.keep_spans = Span<const KeepSpan>(spans.data(), spans.size());  // the engine copies them
  auto c = std::make_unique<Completion>();
  c->done = std::move(done);
  c->state = std::move(state);
  c->rules = std::move(rules);
  if (targs) c->glossary = targs->glossary;
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
        t.Cancel();
      });
  auto cls = py::class_<PyEngine>(m, "_Engine", "tern::Engine (tern/engine.h); use tern.Engine.");
  cls.def(py::init(&MakeEngine), py::arg("model"), py::kw_only(), py::arg("replicas") = 0, py::arg("threads") = 1,
          py::arg("max_batch") = 0, py::arg("max_beam") = 0, py::arg("max_n_best") = 1, py::arg("max_source_tokens") = 0,
          py::arg("max_target_tokens") = 0, py::arg("max_queued") = 0, py::arg("continuous_batching") = true);
  cls.def(
      "submit",
      [](PyEngine& self, py::object texts, py::object done, std::optional<uint32_t> beam_size, uint32_t n_best,
         std::optional<uint32_t> max_length, std::optional<float> max_length_ratio, std::optional<float> length_penalty,
         py::object early_stopping, int hf_rules, bool return_scores, bool return_alignment, std::optional<uint32_t> alignment_layer,
         bool use_shortlist, py::object callback, std::string target_lang, bool split_sentences, std::optional<std::string> markup,
         std::optional<PyGlossary> glossary, bool keep_placeholders, std::vector<std::tuple<size_t, size_t, size_t>> keep_spans, bool translate_code, std::string placeholder_syntaxes, bool auto_protect, py::kwargs rules) {
        CallArgs a{beam_size, max_length, alignment_layer, n_best, max_length_ratio, length_penalty, early_stopping, hf_rules,
                   return_scores, return_alignment, use_shortlist, callback, nullptr, "keep"};
        TextArgs t{target_lang, split_sentences, keep_placeholders, translate_code, markup, glossary, keep_spans, placeholder_syntaxes,
                   auto_protect};
        if (py::isinstance<py::str>(texts) || py::isinstance<py::bytes>(texts) || !py::isinstance<py::sequence>(texts))
          throw py::type_error("texts: expected a list of str (or bytes)");
        auto seq = py::reinterpret_borrow<py::sequence>(texts);
        Request r;
        r.texts.resize(seq.size());
        for (size_t i = 0; i < r.texts.size(); ++i) r.texts[i] = TextOf(seq[i], "texts[" + std::to_string(i) + "]");
        return Submit(self, std::move(r), done, a, &t, rules);
      },
      py::arg("texts"), py::arg("done"), py::kw_only(), py::arg("beam_size") = py::none(), py::arg("n_best") = 1,
      py::arg("max_length") = py::none(), py::arg("max_length_ratio") = py::none(), py::arg("length_penalty") = py::none(),
      py::arg("early_stopping") = py::none(), py::arg("hf_rules") = 5, py::arg("return_scores") = true,
      py::arg("return_alignment") = false, py::arg("alignment_layer") = py::none(), py::arg("use_shortlist") = true,
      py::arg("callback") = py::none(), py::arg("target_lang") = "", py::arg("split_sentences") = true, py::arg("markup") = py::none(),
      py::arg("glossary") = py::none(), py::arg("keep_placeholders") = false,
      py::arg("keep_spans") = std::vector<std::tuple<size_t, size_t, size_t>>{}, py::arg("translate_code") = false, py::arg("placeholder_syntaxes") = "default",
      py::arg("auto_protect") = true);
  cls.def(
      "submit_ids",
      [](PyEngine& self, py::object sources, py::object done, std::optional<uint32_t> beam_size, uint32_t n_best,
         std::optional<uint32_t> max_length, std::optional<float> max_length_ratio, std::optional<float> length_penalty,
         py::object early_stopping, int hf_rules, bool return_scores, bool return_alignment, std::optional<uint32_t> alignment_layer,
         bool use_shortlist, py::kwargs rules) {
        CallArgs a{beam_size, max_length, alignment_layer, n_best, max_length_ratio, length_penalty, early_stopping, hf_rules,
                   return_scores, return_alignment, use_shortlist, py::none(), nullptr, "keep"};
        if (!py::isinstance<py::sequence>(sources) || py::isinstance<py::str>(sources))
          throw py::type_error("sources: expected a list of 1-D integer arrays");
        auto seq = py::reinterpret_borrow<py::sequence>(sources);
        Request r;
        r.ids.resize(seq.size());
        for (size_t i = 0; i < r.ids.size(); ++i) r.ids[i] = IdsOf(seq[i], "sources[" + std::to_string(i) + "]");
        return Submit(self, std::move(r), done, a, nullptr, rules);
      },
      py::arg("sources"), py::arg("done"), py::kw_only(), py::arg("beam_size") = py::none(), py::arg("n_best") = 1,
      py::arg("max_length") = py::none(), py::arg("max_length_ratio") = py::none(), py::arg("length_penalty") = py::none(),
      py::arg("early_stopping") = py::none(), py::arg("hf_rules") = 5, py::arg("return_scores") = true,
      py::arg("return_alignment") = false, py::arg("alignment_layer") = py::none(), py::arg("use_shortlist") = true);
  cls.def("close", &PyEngine::Close, "Cancels queued requests, stops running ones, joins the workers.");
  cls.def_property_readonly("replicas", [](const PyEngine& e) { return e.engine ? e.engine->replicas() : 0; })
      .def_property_readonly("max_batch", [](const PyEngine& e) { return e.engine ? e.engine->max_batch() : 0; })
      .def_property_readonly("queued", [](const PyEngine& e) { return e.engine ? e.engine->queued() : size_t{0}; })
      .def_property_readonly("arena_bytes", [](const PyEngine& e) { return e.engine ? e.engine->arena_bytes() : size_t{0}; });
}

}  // namespace tern::python
