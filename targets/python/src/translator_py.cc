// tern.Translator and tern.CancelToken: translate_batch (texts) and translate_ids (NumPy ids) with the GIL
// released, a per-token streaming callback, cancellation from another thread or by Ctrl-C.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <optional>
#include <thread>

#include "call_inputs.h"
#include "translator_call.h"

namespace tern::python {
namespace {

std::unique_ptr<PyTranslator> MakeTranslator(const PyModel& m, uint32_t threads, uint32_t max_batch, uint32_t max_beam,
                                             uint32_t max_n_best, uint32_t max_source_tokens, uint32_t max_target_tokens,
                                             bool attention) {
  TranslatorConfig c;
  c.threads = threads, c.max_batch = max_batch, c.max_beam = max_beam, c.max_n_best = max_n_best;
  c.max_source_tokens = max_source_tokens, c.max_target_tokens = max_target_tokens, c.attention = attention;
  Result<std::unique_ptr<Translator>> r = Status(StatusCode::kInternal, "not run");
  {
    py::gil_scoped_release unlocked;
    r = Translator::Create(m.model, c);
  }
  if (!r.ok()) Raise(r.status());
  auto t = std::make_unique<PyTranslator>();
  t->model = m.model;
  t->translator = std::move(r.value());
  return t;
}

// TranslatorConfigFor (tern/translator.h): the limits of a Translator that takes such calls, as a dict of the
// Translator's keywords (and Engine's); `at_least` a dict of limits it must not go below.
py::dict ConfigFor(const PyModel& m, uint32_t inputs, uint32_t beam_size, uint32_t n_best, uint32_t alternatives,
                   uint32_t source_tokens, uint32_t max_length, bool attention, py::object at_least) {
  CallNeeds n;
  n.inputs = inputs, n.beam_size = beam_size, n.n_best = n_best, n.alternatives = alternatives;
  n.source_tokens = source_tokens, n.max_length = max_length, n.attention = attention;
  TranslatorConfig base;
  if (!at_least.is_none()) {
    const py::dict d = at_least.cast<py::dict>();
    auto get = [&](const char* key, uint32_t* v) {
      if (d.contains(key)) *v = d[key].cast<uint32_t>();
    };
    get("max_batch", &base.max_batch), get("max_beam", &base.max_beam), get("max_n_best", &base.max_n_best);
    get("max_source_tokens", &base.max_source_tokens), get("max_target_tokens", &base.max_target_tokens);
    if (d.contains("attention")) base.attention = d["attention"].cast<bool>();
  }
  auto r = TranslatorConfigFor(*m.model, n, base);
  if (!r.ok()) Raise(r.status());
  const TranslatorConfig& c = r.value();
  py::dict out;
  out["max_batch"] = c.max_batch, out["max_beam"] = c.max_beam, out["max_n_best"] = c.max_n_best;
  out["max_source_tokens"] = c.max_source_tokens, out["max_target_tokens"] = c.max_target_tokens;
  out["attention"] = c.attention;
  return out;
}

py::list TranslateBatch(PyTranslator& self, py::object texts, py::kwargs kw) {
  std::vector<std::string> in = TextsOf(texts, "texts");
  CallKeywords k;
  k.Read(kw, CallKind::kTexts, in.size(), self.model, "translate_batch");
  std::vector<std::string_view> views(in.begin(), in.end());
  return RunChunks(self, in.size(), k, [&](size_t b, size_t e, const TranslateOptions& o, Span<const TranslationResult>* out) {
    return self.translator->Translate(Span<const std::string_view>(views.data() + b, e - b), o, out);
  });
}

py::list TranslateIds(PyTranslator& self, py::object sources, py::kwargs kw) {
  const std::vector<std::vector<uint32_t>> ids = IdListsOf(sources, "sources");
  std::vector<Span<const uint32_t>> views;
  for (const auto& v : ids) views.emplace_back(v.data(), v.size());
  CallKeywords k;
  k.Read(kw, CallKind::kIds, ids.size(), self.model, "translate_ids");
  return RunChunks(self, ids.size(), k, [&](size_t b, size_t e, const TranslateOptions& o, Span<const TranslationResult>* out) {
    return self.translator->TranslateIds(Span<const Span<const uint32_t>>(views.data() + b, e - b), o, out);
  });
}

}  // namespace

void RegisterTranslator(py::module_& m) {
  RegisterResults(m);
  RegisterCallTypes(m);
  auto cls = py::class_<PyTranslator>(m, "Translator",
      "A translation session on a Model: its own arena, operators and threads. Several Translators share one "
      "Model's packed weights; calls release the GIL, so Translators in different threads run in parallel. "
      "Calls on one Translator from several threads take turns.");
  cls.def(py::init(&MakeTranslator), py::arg("model"), py::kw_only(), py::arg("threads") = 0, py::arg("max_batch") = 0,
          py::arg("max_beam") = 0, py::arg("max_n_best") = 1, py::arg("max_source_tokens") = 0, py::arg("max_target_tokens") = 0,
          py::arg("attention") = false,
          "attention: plan the buffers of return_attention. threads: 0 = cpuinfo's performance cores, 1 = no worker threads. The limits size the arena (0: the file's "
          "default; max_source_tokens includes </s>, max_target_tokens counts generated tokens). Raises "
          "InvalidArgumentError (limits), ResourceExhaustedError (arena over the Model's memory_budget), InvalidModelError.");
  cls.def_static("config_for", &ConfigFor, py::arg("model"), py::kw_only(), py::arg("inputs") = 1, py::arg("beam_size") = 0,
                  py::arg("n_best") = 1, py::arg("alternatives") = 0, py::arg("source_tokens") = 0, py::arg("max_length") = 0,
                  py::arg("attention") = false, py::arg("at_least") = py::none(),
                  "The limits (a dict of Translator's and Engine's keywords) of a Translator that takes calls of `inputs` "
                  "inputs with this beam_size, n_best, alternatives, longest source (tokens with </s>) and max_length, "
                  "never below `at_least` (a dict of the same keys): tern::TranslatorConfigFor, the one sizing rule. Token "
                  "limits grow to powers of two and stop at the model's positions (a longer max_length is cut to them). "
                  "Raises InvalidArgumentError when the model cannot take such calls.");
  // Every keyword is the field table's (runtime/fields/fields.py; tern/_tern.pyi lists them with their types).
  cls.def("translate_batch", &TranslateBatch, py::arg("texts"),
          "Translates a list of texts (str, or bytes of UTF-8); more than max_batch run in chunks. Returns a "
          "TranslationResult per text, in order. A text that fails (invalid UTF-8, too many tokens) fails alone: with "
          "on_error='raise' its error is raised after the call (with .index and .results), with 'keep' it is that "
          "result's .error. None for an option means the file's default. See tern/_tern.pyi for each keyword.");
  cls.def("translate_ids", &TranslateIds, py::arg("sources"),
          "Translates token ids: a list of 1-D integer arrays (NumPy or lists), each a source as given, </s> included. "
          "Results carry ids only (Hypothesis.ids: uint32 arrays). No tokenizer runs.");
  RegisterScoring(cls);
  RegisterIcuMessages(cls);
  cls.def_property_readonly("max_batch", [](const PyTranslator& t) { return t.translator->max_batch(); }, "texts per internal call")
      .def_property_readonly("threads", [](const PyTranslator& t) { return t.translator->threads(); })
      .def_property_readonly("arena_bytes", [](const PyTranslator& t) { return t.translator->arena_bytes(); }, "bytes of the arena")
      .def_property_readonly("splits_sentences", [](const PyTranslator& t) { return t.translator->splits_sentences(); })
      .def_property_readonly("model", [](const PyTranslator& t) { return PyModel{t.model}; })
      .def_property_readonly("profile", [](PyTranslator& t) {
        CallLock lock(t);
        Profile p;
        {
          py::gil_scoped_release unlocked;
          lock.Lock();
          p = t.translator->profile();
          lock.Unlock();
        }
        return py::dict(py::arg("decoder_steps") = p.decoder_steps, py::arg("generated_tokens") = p.generated_tokens,
                        py::arg("weight_bytes_read") = p.weight_bytes_read, py::arg("output_columns") = p.output_columns,
                        py::arg("single_thread_steps") = p.single_thread_steps);
      }, "Counts since creation or reset_profile(): decoder steps, generated tokens, weight bytes the decoder steps "
         "read, logits columns computed (/ decoder_steps = the mean shortlist size), steps run on one thread.")
      .def("reset_profile", [](PyTranslator& t) {
        CallLock lock(t);
        py::gil_scoped_release unlocked;
        lock.Lock();
        t.translator->ResetProfile();
      });
}

}  // namespace tern::python
