// Python inputs of a call as tern types: lists of texts or of id arrays, target prefixes (one per input,
// sliced per chunk), sampling and the call's own logits rules.
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

// Target prefixes of a call (texts: None entries are "", no prefix; ids: None entries are empty), checked
// against the inputs' count; the views they own are sliced per chunk.
struct Prefixes {
  std::vector<std::string> texts;
  std::vector<std::string_view> text_views;
  std::vector<std::vector<uint32_t>> ids;
  std::vector<Span<const uint32_t>> id_views;
  Prefixes(py::object text, py::object id_lists, size_t n) {
    if (!text.is_none() && !id_lists.is_none())
      Raise(StatusCode::kInvalidArgument, "target_prefix and target_prefix_ids: give one of them");
    if (!text.is_none()) {
      if (!py::isinstance<py::sequence>(text) || py::isinstance<py::str>(text))
        throw py::type_error("target_prefix: expected a list of str (or None)");
      auto seq = py::reinterpret_borrow<py::sequence>(text);
      for (size_t i = 0; i < seq.size(); ++i)
        texts.push_back(seq[i].is_none() ? std::string() : TextOf(seq[i], "target_prefix[" + std::to_string(i) + "]"));
      text_views.assign(texts.begin(), texts.end());
    }
    if (!id_lists.is_none()) {
      ids = IdListsOf(id_lists, "target_prefix_ids");
      for (const auto& v : ids) id_views.emplace_back(v.data(), v.size());
    }
    const size_t k = std::max(texts.size(), ids.size());
    if ((!text.is_none() || !id_lists.is_none()) && k != n)
      Raise(StatusCode::kInvalidArgument, "target_prefix: " + std::to_string(k) + " prefixes for " + std::to_string(n) + " inputs (one per input)");
  }
  void Set(size_t b, size_t e, TranslateOptions* o) const {
    if (!text_views.empty()) o->target_prefix = Span<const std::string_view>(text_views.data() + b, e - b);
    if (!id_views.empty()) o->target_prefix_ids = Span<const Span<const uint32_t>>(id_views.data() + b, e - b);
  }
};

// Sampling and the call's own logits rules (keyword arguments of both calls).
struct CallRules {
  SamplingOptions sampling;
  std::optional<float> repetition_penalty;
  std::optional<uint32_t> no_repeat_ngram_size, min_length;
  uint32_t max_input_length = 0;
  uint32_t alternatives = 0;  // TranslateOptions::alternatives (CTranslate2's return_alternatives)
  float min_alternative_expansion_prob = 0.f;
  std::vector<std::vector<uint32_t>> suppress;   // suppress_sequences (target ids)
  std::vector<Span<const uint32_t>> suppress_views;
  bool disable_unk = false;
  bool return_attention = false;
  std::vector<uint32_t> end_tokens;  // end_tokens= (target ids)
  std::optional<bool> forced_eos;    // forced_eos= (None: the file's)
  /// The rules among an engine submission's keywords (translate_batch's names: do_sample ... forced_eos);
  /// TypeError for another name or a value of the wrong type.
  static CallRules FromKeywords(py::kwargs kw);
  /// suppress_sequences=: None or a list of target id lists. Raises TypeError. GIL held.
  void SetSuppress(py::object sequences) {
    if (sequences.is_none()) return;
    suppress = IdListsOf(sequences, "suppress_sequences");
    for (const auto& s : suppress) suppress_views.emplace_back(s.data(), s.size());
  }
  void Set(TranslateOptions* o, CallState* state) const {
    o->alternatives = alternatives, o->min_alternative_expansion_prob = min_alternative_expansion_prob;
    o->suppress_sequences = Span<const Span<const uint32_t>>(suppress_views.data(), suppress_views.size());
    o->disable_unk = disable_unk;
    o->return_attention = return_attention;
    o->end_tokens = Span<const uint32_t>(end_tokens.data(), end_tokens.size());
    o->forced_eos = forced_eos;
    state->per_input = std::max<uint32_t>(1, alternatives);
    o->sampling = sampling;
    o->max_input_length = max_input_length;
    o->repetition_penalty = repetition_penalty, o->no_repeat_ngram_size = no_repeat_ngram_size, o->min_length = min_length;
  }
};

}  // namespace tern::python
