// The keyword arguments of Translator.translate_batch / translate_ids as tern::TranslateOptions (the state a
// call's callbacks share, and the callbacks: call_callbacks.h).
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "binding.h"
#include "call_callbacks.h"
#include "tern/logits_processor.h"
#include "tern/call_chunks.h"
#include "tern/translator.h"

namespace tern::python {

/// Which call a set of keywords is for: each takes the field table's keywords for it (option_keywords.inc).
enum class CallKind { kTexts, kIds, kScoreTexts, kScoreIds };

/// A call's keyword arguments as tern::TranslateOptions, with what its views point into and its callbacks'
/// state. Every option keyword comes from the field table (runtime/fields/fields.py): the plain ones through the
/// generated SetPlainKeyword, the special ones (callback, cancel, logits_processors, glossary, target prefixes,
/// suppress_sequences, end_tokens, keep_spans, sampling_keys) here; on_error is the binding's own. Not movable:
/// the options point into it. GIL held while it is made and destroyed.
struct CallKeywords {
  TranslateOptions options;
  CallState state;
  std::string on_error = "raise";
  std::string target_lang;                      // options.target_lang's bytes
  std::optional<PyGlossary> glossary;           // options.glossary's owner
  std::vector<KeepSpan> keep_spans;             // the whole call's (the chunker renumbers a chunk's)
  std::vector<std::string> prefix_texts;        // target_prefix (None entries: "")
  std::vector<std::string_view> prefix_text_views;
  std::vector<std::vector<uint32_t>> prefix_ids;  // target_prefix_ids (None entries: empty)
  std::vector<Span<const uint32_t>> prefix_id_views;
  std::vector<std::vector<uint32_t>> suppress;  // suppress_sequences
  std::vector<Span<const uint32_t>> suppress_views;
  std::vector<uint32_t> end_tokens;
  std::vector<uint64_t> sampling_keys;          // the caller's (none: each input's index in the call)
  std::optional<CallChunks> chunks;             // the one chunker over `options` (Read makes it)

  CallKeywords() = default;
  CallKeywords(const CallKeywords&) = delete;
  CallKeywords& operator=(const CallKeywords&) = delete;
  /// Reads `kw` for a `kind` call of `n` inputs on `model`. Raises TypeError (a keyword the call does not take,
  /// a value of another type) and InvalidArgumentError (a value no option holds: markup, early_stopping,
  /// hf_rules, on_error, placeholder names, a keep span or prefix count that does not fit the inputs).
  void Read(py::kwargs kw, CallKind kind, size_t n, const std::shared_ptr<const Model>& model, const char* fn);
};
/// The ids of a 1-D integer array-like (NumPy array of any integer dtype, list of int): TypeError for
/// another dtype, InvalidArgumentError for another shape or a value outside [0, 2^32). GIL held.
std::vector<uint32_t> IdsOf(py::handle h, const std::string& what);


}  // namespace tern::python
