#include "results.h"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include "tern/confidence.h"

namespace tern::python {
namespace {

// tern.Hypothesis: one output sequence (arrays are NumPy copies owned by the object).
struct PyHypothesis {
  py::str text;
  py::array_t<uint32_t> ids, tokens;
  float score = 0.f;
  py::array_t<float> token_logprobs;
  py::array_t<int32_t> token_sources;
  py::list token_spans;
  py::object attention = py::none();  // float32 [len(tokens), len(source_ids)] (return_attention)
  Confidence confidence;
};

// tern.TranslationResult: the outcome for one input.
struct PyResult {
  py::list hypotheses;
  py::object error = py::none();  // a tern.errors instance for an input that failed alone
  py::array_t<uint32_t> source_ids;
  py::list source_spans;
  const PyHypothesis& Best() const {
    if (!error.is_none()) {
      PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(error.ptr())), error.ptr());
      throw py::error_already_set();
    }
    if (hypotheses.empty()) Raise(StatusCode::kInternal, "result without hypotheses");
    return hypotheses[0].cast<const PyHypothesis&>();
  }
};

template <typename T>
py::array_t<T> Array(const std::vector<T>& v) {
  return py::array_t<T>(static_cast<py::ssize_t>(v.size()), v.data());
}

py::list Spans(const std::vector<TextSpan>& v) {
  py::list out(v.size());
  for (size_t i = 0; i < v.size(); ++i) out[i] = py::make_tuple(v[i].begin, v[i].end);
  return out;
}

std::string ReprText(const py::str& s) { return std::string(py::repr(s)); }

}  // namespace

py::list ToPython(std::vector<ResultCopy>&& copies) {
  py::list out(copies.size());
  for (size_t i = 0; i < copies.size(); ++i) {
    ResultCopy& c = copies[i];
    PyResult r;
    if (c.error != StatusCode::kOk) r.error = MakeError(c.error, c.error_message);
    r.source_ids = Array(c.source_ids);
    r.source_spans = Spans(c.source_spans);
    for (HypothesisCopy& hc : c.hypotheses) {
      PyHypothesis h;
      h.text = py::reinterpret_steal<py::str>(PyUnicode_DecodeUTF8(hc.text.data(), static_cast<Py_ssize_t>(hc.text.size()), "replace"));
      h.ids = Array(hc.ids), h.tokens = Array(hc.tokens), h.score = hc.score;
      h.token_logprobs = Array(hc.token_logprobs), h.token_sources = Array(hc.token_sources);
      h.token_spans = Spans(hc.token_spans);
      if (!hc.attention.empty() && !hc.tokens.empty()) {
        const py::ssize_t rows = static_cast<py::ssize_t>(hc.tokens.size());
        h.attention = py::array_t<float>({rows, static_cast<py::ssize_t>(hc.attention.size()) / rows}, hc.attention.data());
      }
      Hypothesis view;
      view.token_logprobs = Span<const float>(hc.token_logprobs.data(), hc.token_logprobs.size());
      h.confidence = ConfidenceOf(view);
      r.hypotheses.append(py::cast(std::move(h)));
    }
    out[i] = py::cast(std::move(r));
  }
  return out;
}

void RegisterResults(py::module_& m) {
  py::class_<Confidence>(m, "Confidence", "A hypothesis' confidence from its token log-probabilities (tern/confidence.h).")
      .def_readonly("mean_logprob", &Confidence::mean_logprob, "mean token log-probability (natural log), </s> included")
      .def_readonly("min_logprob", &Confidence::min_logprob, "lowest token log-probability")
      .def_readonly("tokens", &Confidence::tokens, "tokens counted")
      .def_property_readonly("low", [](const Confidence& c) { return LowConfidence(c); },
                             "mean below the default sentence threshold (-0.50, chosen on Multi30k val)")
      .def("__repr__", [](const Confidence& c) {
        return "Confidence(mean_logprob=" + std::to_string(c.mean_logprob) + ", min_logprob=" + std::to_string(c.min_logprob) +
               ", tokens=" + std::to_string(c.tokens) + ")";
      });
  py::class_<PyHypothesis>(m, "Hypothesis", "One output sequence of a translation.")
      .def_readonly("text", &PyHypothesis::text, "detokenized text ('' for translate_ids)")
      .def_readonly("ids", &PyHypothesis::ids, "uint32 [n]: generated ids without the decoder start token and the final </s>")
      .def_readonly("score", &PyHypothesis::score,
                    "beam: sum of log-probabilities / generated_len ** length_penalty; greedy: the sum (0 without return_scores)")
      .def_readonly("tokens", &PyHypothesis::tokens, "uint32 [n or n+1]: the generated ids, the final </s> included when there was one")
      .def_readonly("token_logprobs", &PyHypothesis::token_logprobs,
                    "float32 [len(tokens)]: each token's log-probability after the logits processors "
                    "(transformers' compute_transition_scores(normalize_logits=True)); 0s without return_scores")
      .def_readonly("token_sources", &PyHypothesis::token_sources,
                    "int32 [len(tokens)]: index into source_ids each token aligns to (return_alignment), else -1")
      .def_readonly("token_spans", &PyHypothesis::token_spans, "[(begin, end)] bytes of each token in text's UTF-8 ([] for ids)")
      .def_readonly("attention", &PyHypothesis::attention,
                    "float32 [len(tokens), len(source_ids)]: each token's cross-attention (return_attention), else None")
      .def_readonly("confidence", &PyHypothesis::confidence)
      .def("__repr__", [](const PyHypothesis& h) { return "Hypothesis(text=" + ReprText(h.text) + ", score=" + std::to_string(h.score) + ")"; });
  py::class_<PyResult>(m, "TranslationResult", "The outcome for one input: hypotheses (best first), or the error of that input alone.")
      .def_readonly("hypotheses", &PyResult::hypotheses, "list of Hypothesis, best first ([] when the input failed)")
      .def_readonly("error", &PyResult::error, "the input's own error (a tern.TernError), or None")
      .def_property_readonly("ok", [](const PyResult& r) { return r.error.is_none(); })
      .def_property_readonly("text", [](const PyResult& r) { return r.Best().text; }, "the best hypothesis' text; raises the input's error")
      .def_property_readonly("score", [](const PyResult& r) { return r.Best().score; }, "the best hypothesis' score; raises the input's error")
      .def_readonly("source_ids", &PyResult::source_ids, "uint32 [m]: the source tokens the input became (</s> last)")
      .def_readonly("source_spans", &PyResult::source_spans, "[(begin, end)]: each source token's bytes in the input's UTF-8")
      .def("__repr__", [](const PyResult& r) {
        if (!r.error.is_none()) return "TranslationResult(error=" + std::string(py::repr(r.error)) + ")";
        return "TranslationResult(text=" + ReprText(r.hypotheses.empty() ? py::str("") : r.hypotheses[0].cast<const PyHypothesis&>().text) +
               ", hypotheses=" + std::to_string(r.hypotheses.size()) + ")";
      });
}

}  // namespace tern::python
