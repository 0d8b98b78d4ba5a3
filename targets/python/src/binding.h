// Shared pieces of the Python module tern._tern (pybind11): the wrappers Python holds, how a tern::Status
// becomes a tern.errors exception, and each file's Register function.
#pragma once

#include <pybind11/pybind11.h>

#include <memory>
#include <string>

#include "tern/glossary.h"
#include "tern/model.h"
#include "tern/status.h"

namespace tern::python {

namespace py = pybind11;

/// tern.Model: a verified .tern file shared by every Translator, Tokenizer and Glossary made from it.
struct PyModel {
  std::shared_ptr<const Model> model;
};

/// tern.Glossary: terminology for TranslateOptions::glossary.
struct PyGlossary {
  std::shared_ptr<const Glossary> glossary;
  std::shared_ptr<const Model> model;  // the model whose tokenizers it was made with
};

/// The tern.errors class of `code` instantiated with `message` (GIL held).
py::object MakeError(StatusCode code, const std::string& message);
/// Raises `status` (not ok) as its tern.errors exception: sets the Python error and throws
/// py::error_already_set. GIL held.
[[noreturn]] void Raise(const Status& status);
[[noreturn]] void Raise(StatusCode code, const std::string& message);

/// The UTF-8 bytes of a str or a bytes object (as given: tern checks its UTF-8); TypeError naming `what` for
/// anything else. A str with a lone surrogate: InvalidArgumentError naming `what`, or with `per_input` (an
/// input of a call's list, which fails alone like any input that is not UTF-8) its "surrogatepass" bytes, which
/// the call refuses as invalid UTF-8 at the surrogate's byte. GIL held.
std::string TextOf(py::handle text, const std::string& what, bool per_input = false);

void RegisterModel(py::module_& m);
void RegisterTranslator(py::module_& m);
void RegisterConvert(py::module_& m);
void RegisterEngine(py::module_& m);

}  // namespace tern::python
