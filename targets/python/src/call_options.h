// The keyword arguments of Translator.translate_batch / translate_ids as tern::TranslateOptions, and the
// state a call's callbacks share: the streaming callback (a Python callable, run with the GIL), the
// CancelToken, Ctrl-C.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "binding.h"
#include "tern/logits_processor.h"
#include "tern/translator.h"

namespace tern::python {

/// tern.CancelToken: cancel() from any thread stops the calls it was given to (they raise CancelledError).
struct CancelToken {
  std::atomic<bool> cancelled{false};
};

/// Arguments of both calls.
struct CallArgs {
  std::optional<uint32_t> beam_size, max_length, alignment_layer;
  uint32_t n_best = 1;
  std::optional<float> max_length_ratio, length_penalty;
  py::object early_stopping = py::none();  // None, bool or "never"
  int hf_rules = 5;
  bool return_scores = true, return_alignment = false, use_shortlist = true;
  py::object callback = py::none();  // callable(StreamEvent) -> stop (truthy) or not
  std::shared_ptr<CancelToken> cancel;
  std::string on_error = "raise";    // "raise" or "keep"
  py::object logits_processors = py::none();  // None, or a sequence of callables taking a LogitsRow
};

/// Arguments of translate_batch only.
struct TextArgs {
  std::string target_lang;
  bool split_sentences = true, keep_placeholders = false, translate_code = false;
  std::optional<std::string> markup;  // None, "html", "html-lenient", "xml"
  std::optional<PyGlossary> glossary;
  std::vector<std::tuple<size_t, size_t, size_t>> keep_spans;  // (text index, begin byte, end byte)
  std::string placeholder_syntaxes = "default";  // names (PlaceholderSyntaxesFromNames)
  bool auto_protect = true;                       // TranslateOptions::auto_protect
};

/// What the callbacks of one call share (lives in the calling frame; GIL held when it is made and destroyed).
struct CallState {
  py::object callback = py::none();
  std::shared_ptr<CancelToken> cancel;
  bool main_thread = false;  // Ctrl-C reaches Python's main thread only: checked there
  std::chrono::steady_clock::time_point last_signal_check{};
  size_t offset = 0;         // the current chunk's first input (TokenEvent.index is relative to it)
  uint32_t per_input = 1;    // sentences an input becomes (alternatives: one per alternative); chunks shrink by it
  std::optional<py::error_already_set> python_error;  // raised by a callback or a logits processor, or KeyboardInterrupt
  std::vector<std::unique_ptr<LogitsProcessor>> processors;  // the call's Python logits processors
  std::vector<LogitsProcessor*> processor_ptrs;              //   as TranslateOptions::logits_processors sees them
};

/// Options for a call from `args` with callbacks on `state`. Raises InvalidArgumentError (hf_rules,
/// early_stopping, on_error). GIL held.
TranslateOptions MakeOptions(const CallArgs& args, CallState* state);
/// Adds translate_batch's own options; `spans` holds the KeepSpans (the caller renumbers them per chunk).
/// Raises InvalidArgumentError (markup, a keep span naming a text beyond `n_texts`, a glossary of another
/// model). GIL held.
void AddTextOptions(const TextArgs& args, const std::shared_ptr<const Model>& model, size_t n_texts, TranslateOptions* o,
                    std::vector<KeepSpan>* spans);
/// The ids of a 1-D integer array-like (NumPy array of any integer dtype, list of int): TypeError for
/// another dtype, InvalidArgumentError for another shape or a value outside [0, 2^32). GIL held.
std::vector<uint32_t> IdsOf(py::handle h, const std::string& what);

void RegisterCallTypes(py::module_& m);

}  // namespace tern::python
