#include "call_inputs.h"

#include <pybind11/stl.h>

#include "call_options.h"

namespace tern::python {

std::vector<std::string> TextsOf(py::object texts, const char* what) {
  if (py::isinstance<py::str>(texts) || py::isinstance<py::bytes>(texts) || !py::isinstance<py::sequence>(texts))
    throw py::type_error(std::string(what) + ": expected a list of str (or bytes), got " +
                         std::string(py::str(texts.get_type().attr("__name__"))));
  auto seq = py::reinterpret_borrow<py::sequence>(texts);
  std::vector<std::string> in(seq.size());
  for (size_t i = 0; i < in.size(); ++i) in[i] = TextOf(seq[i], std::string(what) + "[" + std::to_string(i) + "]", true);
  return in;
}

std::vector<std::vector<uint32_t>> IdListsOf(py::object lists, const char* what) {
  if (!py::isinstance<py::sequence>(lists) || py::isinstance<py::str>(lists))
    throw py::type_error(std::string(what) + ": expected a list of 1-D integer arrays");
  auto seq = py::reinterpret_borrow<py::sequence>(lists);
  std::vector<std::vector<uint32_t>> ids(seq.size());
  for (size_t i = 0; i < ids.size(); ++i)
    if (!seq[i].is_none()) ids[i] = IdsOf(seq[i], std::string(what) + "[" + std::to_string(i) + "]");
  return ids;
}

}  // namespace tern::python
