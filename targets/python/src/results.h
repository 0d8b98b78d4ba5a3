// Translation results for Python: copied out of the Translator's arena while its lock is held (the views
// are valid until its next call, which another Python thread may start as soon as the lock is released),
// then made into tern.TranslationResult / tern.Hypothesis objects under the GIL.
#pragma once

#include <string>
#include <vector>

#include "binding.h"
#include "tern/translator.h"

namespace tern::python {

struct HypothesisCopy {
  std::string text;
  std::vector<uint32_t> ids, tokens;
  float score = 0.f;
  std::vector<float> token_logprobs;
  std::vector<int32_t> token_sources;
  std::vector<TextSpan> token_spans;
};

struct ResultCopy {
  StatusCode error = StatusCode::kOk;
  std::string error_message;
  std::vector<HypothesisCopy> hypotheses;
  std::vector<uint32_t> source_ids;
  std::vector<TextSpan> source_spans;
};

/// Appends a copy of each of `results` to *out. No GIL needed.
void CopyResults(Span<const TranslationResult> results, std::vector<ResultCopy>* out);

/// A list of tern.TranslationResult, one per copy, in order. GIL held.
py::list ToPython(std::vector<ResultCopy>&& copies);

void RegisterResults(py::module_& m);

}  // namespace tern::python
