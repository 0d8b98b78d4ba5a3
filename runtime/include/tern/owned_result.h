// tern::OwnedResult: a translation result that owns its data. Translator's results (tern/translator.h) are
// views into its arena, valid until its next call; an OwnedResult is a copy that lives as long as its owner
// wants (what tern::Engine returns, and what the C and Python bindings hand out).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tern/export.h"
#include "tern/options.h"
#include "tern/result_fields.h"
#include "tern/span.h"
#include "tern/status.h"

namespace tern {

struct Hypothesis;         ///< tern/translator.h
struct TranslationResult;  ///< tern/translator.h

// Every field of tern::Hypothesis (tern/translator.h) and of tern::OwnedHypothesis is listed once, in the
// result table (runtime/fields/fields.py RESULTS, generated into tern/result_fields.h: TERN_HYPOTHESIS_FIELDS,
// TERN_RESULT_FIELDS): a std::string_view there is a std::string here, a Span<const T> a std::vector<T>, a
// float a float. AssignResult and ViewHypothesis (and so CopyResults, ViewResults, the engine's results and the
// C API's result sets) follow the lists.

/// One hypothesis, owned: the fields of tern::Hypothesis (tern/translator.h says what each holds).
struct OwnedHypothesis {
  std::string text;                   ///< detokenized text (empty for ids)
  std::vector<uint32_t> ids;          ///< [n] generated ids without the decoder start and the final `</s>`
  std::vector<uint32_t> tokens;       ///< [n or n+1] generated ids, the final `</s>` included when there was one
  float score = 0.f;                  ///< Hypothesis::score
  std::vector<float> token_logprobs;  ///< [tokens.size()] natural-log probabilities (0s without scores)
  std::vector<int32_t> token_sources; ///< [tokens.size()] aligned source index, or -1 (return_alignment)
  std::vector<float> attention;       ///< [tokens.size() x source tokens] (return_attention; else empty)
  std::vector<TextSpan> token_spans;  ///< [tokens.size()] bytes of each token in `text` (texts only)
};

/// The outcome for one input, owned: the fields of tern::TranslationResult.
struct OwnedResult {
  StatusCode error = StatusCode::kOk;     ///< kOk, or why this input failed (alone)
  std::string error_message;              ///< e.g. "301 source tokens exceed max_source_tokens 256"
  std::vector<OwnedHypothesis> hypotheses;  ///< n_best hypotheses, best first (none when it failed)
  std::vector<uint32_t> source_ids;       ///< the source tokens the input became (`</s>` last)
  std::vector<TextSpan> source_spans;     ///< each source id's bytes in the input text
  bool ok() const { return error == StatusCode::kOk; }  ///< the input was translated
  const OwnedHypothesis& best() const { return hypotheses[0]; }  ///< requires ok()
};

/// Appends a copy of each of `results` to *out (allocates; the views may die afterwards).
TERN_API void CopyResults(Span<const TranslationResult> results, std::vector<OwnedResult>* out);

/// Makes *out a copy of `r`, every field (TERN_HYPOTHESIS_FIELDS, TERN_RESULT_FIELDS), reusing the memory *out already holds (a
/// result set filled call after call). Allocates only to grow.
TERN_API void AssignResult(const TranslationResult& r, OwnedResult* out);

/// A view of `h`, every field (valid while h lives unchanged).
TERN_API Hypothesis ViewHypothesis(const OwnedHypothesis& h);

/// The inverse of CopyResults: views of `results`, every field (attention included). *views gets
/// results.size() entries, (*views)[i] viewing results[i]; *hypotheses holds the hypotheses they view (both
/// vectors are replaced). The views stay valid while `results`, *hypotheses and *views live unchanged.
/// Allocates; errors: none.
TERN_API void ViewResults(const std::vector<OwnedResult>& results, std::vector<Hypothesis>* hypotheses,
                          std::vector<TranslationResult>* views);

}  // namespace tern
