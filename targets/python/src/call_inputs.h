// Python inputs of a call as tern types: lists of texts or of id arrays (a call's keywords: call_options.h).
#pragma once

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "binding.h"
#include "call_options.h"
#include "tern/translator.h"

namespace tern::python {

/// The UTF-8 of each entry of a list of str or bytes (TypeError for another type, naming `what`[i]).
std::vector<std::string> TextsOf(py::object texts, const char* what);
/// The ids of each entry of a list of 1-D integer arrays (None: empty); errors as IdsOf's.
std::vector<std::vector<uint32_t>> IdListsOf(py::object lists, const char* what);

}  // namespace tern::python
