#include "call_options.h"

#include "call_inputs.h"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <tuple>
#include <type_traits>

namespace tern::python {
namespace {

// tern.StreamEvent: one generated token (tern::TokenEvent, with index counted over the whole call).
struct StreamEvent {
  size_t index = 0, part = 0, parts = 1;
  uint32_t token = 0;
  py::str text;
  bool last = false;
  float logprob = 0.f;
};

bool OnToken(const TokenEvent& e, void* user_data) {
  auto* st = static_cast<CallState*>(user_data);
  py::gil_scoped_acquire gil;
  if (st->python_error) return false;
  try {
    StreamEvent ev{e.index + st->offset, e.part, e.parts, e.token,
                   py::reinterpret_steal<py::str>(PyUnicode_DecodeUTF8(e.text.data(), static_cast<Py_ssize_t>(e.text.size()), "replace")),
                   e.last, e.logprob};
    py::object stop = st->callback(std::move(ev));
    return !py::bool_(stop);  // CTranslate2's convention: a callback returns True to stop
  } catch (py::error_already_set& err) {
    st->python_error.emplace(std::move(err));
    return false;
  }
}

// tern.LogitsRow: what a Python logits processor gets (tern::LogitsRow); valid during its call only.
struct PyLogitsRow {
  LogitsRow* row = nullptr;
  size_t offset = 0;  // the chunk's first input
};

// A Python callable as a per-call logits processor (tern/logits_processor.h): called on the translating
// thread with the GIL taken, once per live hypothesis per step. An exception it raises stops the call
// (OnAbort sees it before the next step) and is raised by the call.
class PyLogitsProcessor final : public LogitsProcessor {
 public:
  PyLogitsProcessor(py::object fn, CallState* st) : fn_(std::move(fn)), st_(st) {}
  ~PyLogitsProcessor() override {
    py::gil_scoped_acquire gil;
    fn_ = py::object();
  }
  void Process(LogitsRow& row) override {
    py::gil_scoped_acquire gil;
    if (st_->python_error) return;
    try {
      fn_(PyLogitsRow{&row, st_->offset});
    } catch (py::error_already_set& err) {
      st_->python_error.emplace(std::move(err));
    }
  }

 private:
  py::object fn_;
  CallState* st_;
};

bool OnAbort(void* user_data) {
  auto* st = static_cast<CallState*>(user_data);
  if (st->python_error) return true;  // a logits processor raised (set on this, the translating, thread)
  if (st->cancel && st->cancel->cancelled.load(std::memory_order_relaxed)) return true;
  if (!st->main_thread) return false;
  // Ctrl-C: Python's handler only sets a flag; look at it at most every 50 ms (taking the GIL each step
  // would make this thread wait on any other Python thread).
  const auto now = std::chrono::steady_clock::now();
  if (now - st->last_signal_check < std::chrono::milliseconds(50)) return false;
  st->last_signal_check = now;
  py::gil_scoped_acquire gil;
  if (st->python_error) return true;
  if (PyErr_CheckSignals() == 0) return false;
  st->python_error.emplace();  // fetches the KeyboardInterrupt (or what the handler raised)
  return true;
}

}  // namespace

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
        sampling_keys = Cast<std::vector<uint64_t>>(key, v);
        if (sampling_keys.size() != n)
          Raise(StatusCode::kInvalidArgument, "sampling_keys: " + std::to_string(sampling_keys.size()) + " keys for " +
                                                  std::to_string(n) + " inputs (one per input, or None)");
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
      st->processors.push_back(std::make_unique<PyLogitsProcessor>(py::reinterpret_borrow<py::object>(f), st));
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
  const size_t k = std::max(prefix_texts.size(), prefix_ids.size());
  if ((!prefix_text.is_none() || !prefix_ids_obj.is_none()) && k != n)
    Raise(StatusCode::kInvalidArgument, "target_prefix: " + std::to_string(k) + " prefixes for " + std::to_string(n) + " inputs (one per input)");
  for (const auto& seq : suppress) suppress_views.emplace_back(seq.data(), seq.size());
  o.suppress_sequences = Span<const Span<const uint32_t>>(suppress_views.data(), suppress_views.size());
  o.end_tokens = Span<const uint32_t>(end_tokens.data(), end_tokens.size());
  if (sampling_keys.empty()) {  // each input keyed by its index in this call, whichever chunk it runs in
    sampling_keys.resize(n);
    for (size_t i = 0; i < n; ++i) sampling_keys[i] = i;
  }
  st->per_input = std::max<uint32_t>(1, o.alternatives);
  py::module_ threading = py::module_::import("threading");
  st->main_thread = threading.attr("current_thread")().is(threading.attr("main_thread")());
  o.abort = &OnAbort, o.abort_user_data = st;
}

void CallKeywords::Chunk(size_t b, size_t e) {
  TranslateOptions& o = options;
  chunk_spans.clear();
  for (const KeepSpan& k : keep_spans)  // keep_spans name texts of the whole call: this chunk's, renumbered
    if (k.text >= b && k.text < e) chunk_spans.push_back({k.text - b, k.span});
  o.keep_spans = Span<const KeepSpan>(chunk_spans.data(), chunk_spans.size());
  if (!prefix_text_views.empty()) o.target_prefix = Span<const std::string_view>(prefix_text_views.data() + b, e - b);
  if (!prefix_id_views.empty()) o.target_prefix_ids = Span<const Span<const uint32_t>>(prefix_id_views.data() + b, e - b);
  o.sampling_keys = Span<const uint64_t>(sampling_keys.data() + b, e - b);
  state.offset = b;
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

void RegisterCallTypes(py::module_& m) {
  py::class_<CancelToken, std::shared_ptr<CancelToken>>(m, "CancelToken",
      "Give it to translate_batch / translate_ids (cancel=...); cancel() from any thread stops those calls before their "
      "next decoder step: they raise CancelledError with the results of the sentences that finished.")
      .def(py::init<>())
      .def("cancel", [](CancelToken& t) { t.cancelled.store(true); }, "Stop every call using this token (thread-safe).")
      .def("reset", [](CancelToken& t) { t.cancelled.store(false); }, "Make the token usable again.")
      .def_property_readonly("cancelled", [](const CancelToken& t) { return t.cancelled.load(); });
  py::class_<PyLogitsRow>(m, "LogitsRow",
      "One hypothesis' next-token scores at one step, given to each of a call's logits_processors (tern::LogitsRow; "
      "transformers' LogitsProcessor, CTranslate2's LogitsProcessor). Valid during that call only.")
      .def_property_readonly("input", [](const PyLogitsRow& r) { return r.row->input + r.offset; },
                             "the input (text or id list) the hypothesis translates, as results are indexed")
      .def_property_readonly("part", [](const PyLogitsRow& r) { return r.row->part; }, "its sentence within that text (split_sentences)")
      .def_property_readonly("hypothesis", [](const PyLogitsRow& r) { return r.row->hypothesis; }, "its beam slot, 0..beam-1")
      .def_property_readonly("step", [](const PyLogitsRow& r) { return r.row->step; }, "the position being chosen (0: the first token)")
      .def_property_readonly("prefix", [](const PyLogitsRow& r) {
        return py::array_t<uint32_t>(static_cast<py::ssize_t>(r.row->prefix.size()), r.row->prefix.data());
      }, "the tokens this hypothesis generated so far (a uint32 array, a copy)")
      .def_property_readonly("scores", [](const PyLogitsRow& r) {
        // A writable view of the row (no copy): the processor rewrites it in place.
        return py::array_t<float>({static_cast<py::ssize_t>(r.row->scores.size())}, {static_cast<py::ssize_t>(sizeof(float))},
                                  r.row->scores.data(), py::capsule(r.row, [](void*) {}));
      }, "float32 array view, rewritten in place: log-probabilities (beam search) or logits (greedy) after the file's "
         "rules; -inf bans a token. Valid during the processor's call only.")
      .def_property_readonly("columns", [](const PyLogitsRow& r) -> py::object {
        if (r.row->columns.empty()) return py::none();
        return py::array_t<uint32_t>(static_cast<py::ssize_t>(r.row->columns.size()), r.row->columns.data());
      }, "the token of each column (a shortlist), or None: column k scores token k")
      .def("column", [](const PyLogitsRow& r, uint32_t token) { return r.row->Column(token); }, py::arg("token"),
           "the column of target token `token`, or -1 when the row has none for it");
  py::class_<StreamEvent>(m, "StreamEvent",
      "One generated token, given to a call's callback: greedy search streams every token as it is chosen (sentences "
      "of a batch interleave), beam search a sentence's best hypothesis when it finishes.")
      .def_readonly("index", &StreamEvent::index, "the input it belongs to (as results are indexed)")
      .def_readonly("part", &StreamEvent::part, "its sentence within that text (split_sentences)")
      .def_readonly("parts", &StreamEvent::parts, "sentences in that text")
      .def_readonly("token", &StreamEvent::token, "the generated id (eos_id with the last event of a sentence ending in </s>)")
      .def_readonly("text", &StreamEvent::text, "the text it adds (may be '')")
      .def_readonly("last", &StreamEvent::last, "no more events for this sentence")
      .def_readonly("logprob", &StreamEvent::logprob, "the token's log-probability (as Hypothesis.token_logprobs)")
      .def("__repr__", [](const StreamEvent& e) {
        return "StreamEvent(index=" + std::to_string(e.index) + ", token=" + std::to_string(e.token) + ", text=" +
               std::string(py::repr(e.text)) + ", last=" + (e.last ? "True" : "False") + ")";
      });
}

}  // namespace tern::python
