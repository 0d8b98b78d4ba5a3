#include "call_options.h"

#include "call_inputs.h"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <tuple>
#include <type_traits>

namespace tern::python {

namespace {

// v as a T, or TypeError naming the keyword (bool is not taken for a number, nor a number for a bool).
template <typename T>
T Cast(const std::string& key, py::handle v) {
  const bool is_bool = py::isinstance<py::bool_>(v);
  if constexpr (std::is_same_v<T, bool>) {
    if (!is_bool) throw py::type_error(key + ": expected a bool, got " + std::string(py::str(v.get_type().attr("__name__"))));
  } else if constexpr (std::is_arithmetic_v<T>) {
    if (is_bool) throw py::type_error(key + ": expected a number, got a bool");
  }
  try {
    return v.cast<T>();
  } catch (const py::cast_error&) {
    throw py::type_error(key + ": " + std::string(py::str(v.get_type().attr("__name__"))) + " is not of the type it takes");
  }
}

uint32_t Syntaxes(const std::string& names) {
  const Result<uint32_t> r = PlaceholderSyntaxesFromNames(names);
  if (!r.ok()) Raise(r.status());
  return r.value();
}

HfRules HfRulesOf(int v) {
  if (v != 4 && v != 5) Raise(StatusCode::kInvalidArgument, "hf_rules " + std::to_string(v) + ": 5 (transformers 5.x) or 4 (4.x)");
  return v == 4 ? HfRules::kTransformers4 : HfRules::kTransformers5;
}

Markup MarkupOf(py::handle v) {
  if (v.is_none()) return Markup::kNone;
  const std::string m = Cast<std::string>("markup", v);
  if (m == "html") return Markup::kHtml;
  if (m == "html-lenient") return Markup::kHtmlLenient;
  if (m == "xml") return Markup::kXml;
  Raise(StatusCode::kInvalidArgument, "markup '" + m + "': None, 'html', 'html-lenient' or 'xml'");
}

std::optional<EarlyStopping> EarlyStoppingOf(py::handle v) {
  if (v.is_none()) return std::nullopt;
  if (py::isinstance<py::bool_>(v)) return v.cast<bool>() ? EarlyStopping::kTrue : EarlyStopping::kFalse;
  if (py::isinstance<py::str>(v)) {
    const std::string s = v.cast<std::string>();
    if (s == "never") return EarlyStopping::kNever;
    Raise(StatusCode::kInvalidArgument, "early_stopping '" + s + "': True, False or 'never' (transformers' values)");
  }
  throw py::type_error("early_stopping: True, False, 'never' or None");
}

#include "option_keywords.inc"

template <size_t N>
bool Takes(const char* const (&names)[N], const std::string& key) {
  for (const char* n : names)
    if (key == n) return true;
  return false;
}

bool TakesKeyword(CallKind kind, const std::string& key) {
  switch (kind) {
    case CallKind::kTexts: return Takes(kTextsKeywords, key);
    case CallKind::kIds: return Takes(kIdsKeywords, key);
    case CallKind::kScoreTexts: return Takes(kScoreTextsKeywords, key);
    case CallKind::kScoreIds: return Takes(kScoreIdsKeywords, key);
  }
  return false;
}

}  // namespace

void CallKeywords::Read(py::kwargs kw, CallKind kind, size_t n, const std::shared_ptr<const Model>& model, const char* fn) {
  TranslateOptions& o = options;
  CallState* st = &state;
  py::object callback = py::none(), processors = py::none(), prefix_text = py::none(), prefix_ids_obj = py::none();
  for (auto item : kw) {
    const std::string key = py::str(item.first);
    py::handle v = item.second;
    if (key == "on_error") {
      on_error = Cast<std::string>(key, v);
      if (on_error != "raise" && on_error != "keep")
        Raise(StatusCode::kInvalidArgument, "on_error '" + on_error + "': 'raise' or 'keep'");
      continue;
    }
    if (!TakesKeyword(kind, key)) throw py::type_error(std::string(fn) + "() got an unexpected keyword argument '" + key + "'");
    if (SetPlainKeyword(key, v, &o, &target_lang)) continue;
    // The table's special rows.
    if (key == "callback") {
      if (!v.is_none() && !PyCallable_Check(v.ptr())) throw py::type_error("callback: a callable taking a StreamEvent is needed");
      callback = py::reinterpret_borrow<py::object>(v);
    } else if (key == "cancel") {
      st->cancel = v.is_none() ? nullptr : Cast<std::shared_ptr<CancelToken>>(key, v);
    } else if (key == "logits_processors") {
      processors = py::reinterpret_borrow<py::object>(v);
    } else if (key == "glossary") {
      glossary = v.is_none() ? std::nullopt : std::optional<PyGlossary>(Cast<PyGlossary>(key, v));
    } else if (key == "target_prefix") {
      prefix_text = py::reinterpret_borrow<py::object>(v);
    } else if (key == "target_prefix_ids") {
      prefix_ids_obj = py::reinterpret_borrow<py::object>(v);
    } else if (key == "suppress_sequences") {
      if (!v.is_none()) suppress = IdListsOf(py::reinterpret_borrow<py::object>(v), "suppress_sequences");
    } else if (key == "end_tokens") {
      end_tokens = Cast<std::vector<uint32_t>>(key, v);
    } else if (key == "keep_spans") {
      for (const auto& [text, begin, end] : Cast<std::vector<std::tuple<size_t, size_t, size_t>>>(key, v)) {
        if (text >= n) Raise(StatusCode::kInvalidArgument, "keep_spans: text " + std::to_string(text) + " of " + std::to_string(n) + " texts");
        keep_spans.push_back({text, TextSpan{begin, end}});
      }
    } else if (key == "sampling_keys") {
      if (!v.is_none()) {
        sampling_keys = Cast<std::vector<uint64_t>>(key, v);  // its count: CallChunks' check below
      }
    } else {
      throw py::type_error(std::string(fn) + "() got an unexpected keyword argument '" + key + "'");  // a table row no code reads
    }
  }
  if (!callback.is_none()) {
    st->callback = callback;
    o.on_token = &OnToken, o.on_token_user_data = st;
  }
  if (!processors.is_none()) {
    if (!py::isinstance<py::sequence>(processors) || py::isinstance<py::str>(processors))
      throw py::type_error("logits_processors: a list of callables taking a LogitsRow");
    for (py::handle f : processors) {
      if (!PyCallable_Check(f.ptr())) throw py::type_error("logits_processors: a list of callables taking a LogitsRow");
      st->processors.push_back(MakePyLogitsProcessor(py::reinterpret_borrow<py::object>(f), st));
      st->processor_ptrs.push_back(st->processors.back().get());
    }
    o.logits_processors = Span<LogitsProcessor* const>(st->processor_ptrs.data(), st->processor_ptrs.size());
  }
  if (glossary) o.glossary = glossary->glossary.get();  // the Translator refuses one of other vocabularies
  (void)model;
  if (!prefix_text.is_none() && !prefix_ids_obj.is_none())
    Raise(StatusCode::kInvalidArgument, "target_prefix and target_prefix_ids: give one of them");
  if (!prefix_text.is_none()) {
    if (!py::isinstance<py::sequence>(prefix_text) || py::isinstance<py::str>(prefix_text))
      throw py::type_error("target_prefix: expected a list of str (or None)");
    auto seq = py::reinterpret_borrow<py::sequence>(prefix_text);
    for (size_t i = 0; i < seq.size(); ++i)
      prefix_texts.push_back(seq[i].is_none() ? std::string() : TextOf(seq[i], "target_prefix[" + std::to_string(i) + "]", true));
    prefix_text_views.assign(prefix_texts.begin(), prefix_texts.end());
  }
  if (!prefix_ids_obj.is_none()) {
    prefix_ids = IdListsOf(prefix_ids_obj, "target_prefix_ids");
    for (const auto& v : prefix_ids) prefix_id_views.emplace_back(v.data(), v.size());
  }
  for (const auto& seq : suppress) suppress_views.emplace_back(seq.data(), seq.size());
  o.suppress_sequences = Span<const Span<const uint32_t>>(suppress_views.data(), suppress_views.size());
  o.end_tokens = Span<const uint32_t>(end_tokens.data(), end_tokens.size());
  // The whole call's per-input views; the one chunker (tern/call_chunks.h) cuts each chunk's part (with each
  // input's index in this call as its sampling key when the caller gave none).
  o.keep_spans = Span<const KeepSpan>(keep_spans.data(), keep_spans.size());
  o.target_prefix = Span<const std::string_view>(prefix_text_views.data(), prefix_text_views.size());
  o.target_prefix_ids = Span<const Span<const uint32_t>>(prefix_id_views.data(), prefix_id_views.size());
  o.sampling_keys = Span<const uint64_t>(sampling_keys.data(), sampling_keys.size());
  // The per-input counts are checked here, once (CallChunks::CheckInputCounts, the field table's per_input column).
  chunks.emplace(o, n, /*max_batch: RunChunks sets the Translator's (CallChunks::SetMaxBatch)*/ 1);
  if (!chunks->status().ok()) Raise(chunks->status());
  st->per_input = std::max<uint32_t>(1, o.alternatives);
  py::module_ threading = py::module_::import("threading");
  st->main_thread = threading.attr("current_thread")().is(threading.attr("main_thread")());
  o.abort = &OnAbort, o.abort_user_data = st;
}

std::vector<uint32_t> IdsOf(py::handle h, const std::string& what) {
  py::array a = py::array::ensure(h);
  if (!a) throw py::type_error(what + ": expected a 1-D integer array or a list of int");
  const char kind = a.dtype().kind();
  if (kind != 'i' && kind != 'u' && a.size() > 0)
    throw py::type_error(what + ": expected integer ids, got dtype " + std::string(py::str(a.dtype())));
  if (a.ndim() != 1)
    Raise(StatusCode::kInvalidArgument, what + ": a 1-D array of ids is needed, got " + std::to_string(a.ndim()) + " dimensions");
  auto v = py::array_t<int64_t, py::array::c_style | py::array::forcecast>::ensure(a);
  std::vector<uint32_t> ids(static_cast<size_t>(v.size()));
  for (size_t i = 0; i < ids.size(); ++i) {
    const int64_t id = v.at(static_cast<py::ssize_t>(i));
    if (id < 0 || id > int64_t{UINT32_MAX})
      Raise(StatusCode::kInvalidArgument, what + "[" + std::to_string(i) + "] = " + std::to_string(id) + ": not a token id");
    ids[i] = static_cast<uint32_t>(id);
  }
  return ids;
}

}  // namespace tern::python
