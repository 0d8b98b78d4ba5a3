#include "results.h"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include "tern/confidence.h"

namespace tern::python {
namespace {

template <typename T>
py::array_t<T> Array(const std::vector<T>& v) {
  return py::array_t<T>(static_cast<py::ssize_t>(v.size()), v.data());
}

py::str Text(const std::string& s) {
  return py::reinterpret_steal<py::str>(PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "replace"));
}

// [rows, size / rows] float32, or None when empty (attention without return_attention).
py::object Matrix(const std::vector<float>& v, size_t rows) {
  if (v.empty() || rows == 0) return py::none();
  const py::ssize_t r = static_cast<py::ssize_t>(rows);
  return py::array_t<float>({r, static_cast<py::ssize_t>(v.size()) / r}, v.data());
}

py::list Spans(const std::vector<TextSpan>& v) {
  py::list out(v.size());
  for (size_t i = 0; i < v.size(); ++i) out[i] = py::make_tuple(v[i].begin, v[i].end);
  return out;
}

#include "result_fields.inc"

// tern.Hypothesis: one output sequence (arrays are NumPy copies owned by the object).
struct PyHypothesis : PyHypothesisFields {
  Confidence confidence;
};

// tern.TranslationResult: the outcome for one input.
struct PyResult : PyResultFields {
  py::list hypotheses;
  py::object error = py::none();  // a tern.errors instance for an input that failed alone
  const PyHypothesis& Best() const {
    if (!error.is_none()) {
      PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(error.ptr())), error.ptr());
      throw py::error_already_set();
    }
    if (hypotheses.empty()) Raise(StatusCode::kInternal, "result without hypotheses");
    return hypotheses[0].cast<const PyHypothesis&>();
  }
};

std::string ReprText(const py::str& s) { return std::string(py::repr(s)); }

}  // namespace

py::list ToPython(std::vector<ResultCopy>&& copies) {
  py::list out(copies.size());
  for (size_t i = 0; i < copies.size(); ++i) {
    ResultCopy& c = copies[i];
    PyResult r;
    if (c.error != StatusCode::kOk) r.error = MakeError(c.error, c.error_message);
    FillResultFields(c, &r);
    for (HypothesisCopy& hc : c.hypotheses) {
      PyHypothesis h;
      FillHypothesisFields(hc, &h);
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
  py::class_<PyHypothesis> hypothesis(m, "Hypothesis", "One output sequence of a translation.");
  DefineHypothesisFields(hypothesis);
  hypothesis      .def_readonly("confidence", &PyHypothesis::confidence)
      .def("__repr__", [](const PyHypothesis& h) { return "Hypothesis(text=" + ReprText(h.text) + ", score=" + std::to_string(h.score) + ")"; });
  py::class_<PyResult> result(m, "TranslationResult", "The outcome for one input: hypotheses (best first), or the error of that input alone.");
  DefineResultFields(result);
  result
      .def_readonly("hypotheses", &PyResult::hypotheses, "list of Hypothesis, best first ([] when the input failed)")
      .def_readonly("error", &PyResult::error, "the input's own error (a tern.TernError), or None")
      .def_property_readonly("ok", [](const PyResult& r) { return r.error.is_none(); })
      .def_property_readonly("text", [](const PyResult& r) { return r.Best().text; }, "the best hypothesis' text; raises the input's error")
      .def_property_readonly("score", [](const PyResult& r) { return r.Best().score; }, "the best hypothesis' score; raises the input's error")
      .def("__repr__", [](const PyResult& r) {
        if (!r.error.is_none()) return "TranslationResult(error=" + std::string(py::repr(r.error)) + ")";
        return "TranslationResult(text=" + ReprText(r.hypotheses.empty() ? py::str("") : r.hypotheses[0].cast<const PyHypothesis&>().text) +
               ", hypotheses=" + std::to_string(r.hypotheses.size()) + ")";
      });
}

}  // namespace tern::python
