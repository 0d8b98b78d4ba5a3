// Translation results for Python: copied out of the Translator's arena while its lock is held (the views
// are valid until its next call, which another Python thread may start as soon as the lock is released),
// then made into tern.TranslationResult / tern.Hypothesis objects under the GIL.
#pragma once

#include <string>
#include <vector>

#include "binding.h"
#include "tern/owned_result.h"
#include "tern/translator.h"

namespace tern::python {

// Owned copies of results (tern/owned_result.h: tern::CopyResults makes them; no GIL needed).
using HypothesisCopy = OwnedHypothesis;
using ResultCopy = OwnedResult;

/// A list of tern.TranslationResult, one per copy, in order. GIL held.
py::list ToPython(std::vector<ResultCopy>&& copies);

void RegisterResults(py::module_& m);

}  // namespace tern::python
