// tern._tern: the compiled half of the Python package (targets/python/tern/__init__.py re-exports it).
#include <pybind11/numpy.h>

#include "binding.h"
#include "tern/cpu.h"
#include "tern/version.h"

namespace tern::python {

py::object MakeError(StatusCode code, const std::string& message) {
  py::module_ errors = py::module_::import("tern.errors");
  py::dict by_code = errors.attr("BY_CODE");
  py::int_ key(static_cast<int>(code));
  py::object cls = by_code.contains(key) ? py::object(by_code[key]) : py::object(errors.attr("TernError"));
  return cls(message);
}

void Raise(StatusCode code, const std::string& message) {
  py::object e = MakeError(code, message);
  PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(e.ptr())), e.ptr());
  throw py::error_already_set();
}

void Raise(const Status& status) { Raise(status.code(), status.message()); }

std::string TextOf(py::handle text, const std::string& what, bool per_input) {
  if (py::isinstance<py::bytes>(text)) return std::string(py::reinterpret_borrow<py::bytes>(text));
  if (!py::isinstance<py::str>(text))
    throw py::type_error(what + ": expected str or bytes, got " + std::string(py::str(text.get_type().attr("__name__"))));
  Py_ssize_t n = 0;
  const char* s = PyUnicode_AsUTF8AndSize(text.ptr(), &n);
  if (!s) {
    PyErr_Clear();
    if (per_input) {
      py::object b = py::reinterpret_steal<py::object>(PyUnicode_AsEncodedString(text.ptr(), "utf-8", "surrogatepass"));
      if (b) return std::string(py::reinterpret_borrow<py::bytes>(b));
      PyErr_Clear();
    }
    Raise(StatusCode::kInvalidArgument, what + ": not encodable as UTF-8 (a lone surrogate)");
  }
  return std::string(s, static_cast<size_t>(n));
}

}  // namespace tern::python

PYBIND11_MODULE(_tern, m) {
  namespace py = pybind11;
  // pybind11 looks NumPy up once, on first use, inside a function-local static whose initialization
  // imports NumPy: two threads making their first call at once then deadlock (one holds the static's
  // guard and waits for the GIL the import gave up, the other holds the GIL and waits for the guard).
  // Done here, under the import lock, no call ever runs it.
  py::module_::import("numpy");
  (void)py::detail::npy_api::get();
  (void)py::array_t<float>(0);
  (void)py::dtype::of<uint32_t>();
  m.doc() = "tern: int8/int4 Transformer translation (MarianMT / OPUS-MT) on small devices";
  m.attr("__version__") = TERN_VERSION_STRING;
  m.attr("MAX_BEAM") = tern::kMaxBeam;
  m.def("cpu_summary", &tern::CpuSummary, "The CPU as cpuinfo describes it and the ISA path tern uses (one line).");
  m.def("default_threads", &tern::DefaultThreadCount,
        "Threads a Translator uses by default: the cores outside a big.LITTLE SoC's slowest cluster, else all.");
  m.def("peak_rss_mib", &tern::PeakRssMiB, "This process's peak resident set size so far, MiB (getrusage).");
  tern::python::RegisterModel(m);
  tern::python::RegisterTranslator(m);
  tern::python::RegisterConvert(m);
  tern::python::RegisterEngine(m);
}
