// tern.Translator and tern.CancelToken: translate_batch (texts) and translate_ids (NumPy ids) with the GIL
// released, a per-token streaming callback, cancellation from another thread or by Ctrl-C.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <optional>
#include <thread>

#include "binding.h"
#include "call_options.h"
#include "results.h"
#include "tern/translator.h"

namespace tern::python {
namespace {

struct PyTranslator {
  std::shared_ptr<const Model> model;
  std::unique_ptr<Translator> translator;
  std::mutex mu;  // one call at a time: a second Python thread waits (GIL released) instead of kBusy
  std::atomic<std::thread::id> owner{};  // the thread holding mu (a callback on it must not wait for it)
};

// Holds the Translator's lock for a call: taken with the GIL released (another thread's call may hold the
// lock and need the GIL for its callback), refused with BusyError on the thread that already holds it (a
// streaming callback calling back into its own Translator: waiting would deadlock). Raise() needs the GIL:
// the check comes before the release.
class CallLock {
 public:
  explicit CallLock(PyTranslator& t) : t_(t) {
    if (t_.owner.load() == std::this_thread::get_id())
      Raise(StatusCode::kBusy, "Translator: called from its own callback while it is translating (use another Translator)");
  }
  // With the GIL released.
  void Lock() {
    t_.mu.lock();
    t_.owner.store(std::this_thread::get_id());
    locked_ = true;
  }
  void Unlock() {
    if (!locked_) return;
    t_.owner.store(std::thread::id());
    t_.mu.unlock();
    locked_ = false;
  }
  ~CallLock() { Unlock(); }

 private:
  PyTranslator& t_;
  bool locked_ = false;
};

std::unique_ptr<PyTranslator> MakeTranslator(const PyModel& m, uint32_t threads, uint32_t max_batch, uint32_t max_beam,
                                             uint32_t max_n_best, uint32_t max_source_tokens, uint32_t max_target_tokens) {
  TranslatorConfig c;
  c.threads = threads, c.max_batch = max_batch, c.max_beam = max_beam, c.max_n_best = max_n_best;
  c.max_source_tokens = max_source_tokens, c.max_target_tokens = max_target_tokens;
  Result<std::unique_ptr<Translator>> r = Status(StatusCode::kInternal, "not run");
  {
    py::gil_scoped_release unlocked;
    r = Translator::Create(m.model, c);
  }
  if (!r.ok()) Raise(r.status());
  auto t = std::make_unique<PyTranslator>();
  t->model = m.model;
  t->translator = std::move(r.value());
  return t;
}

// Runs `run(chunk_begin, chunk_end, &results)` over chunks of max_batch inputs with the GIL released and
// the translator locked, copying each chunk's results out; then raises or returns as CallOptions say.
template <typename Run>
py::list RunChunks(PyTranslator& self, size_t n, CallState* state, const std::string& on_error, Run run) {
  std::vector<ResultCopy> copies;
  copies.reserve(n);
  Status call;
  CallLock lock(self);
  {
    py::gil_scoped_release unlocked;
    lock.Lock();
    const size_t batch = std::max<size_t>(1, self.translator->max_batch());
    for (size_t begin = 0; begin < n && call.ok(); begin += batch) {
      const size_t end = std::min(n, begin + batch);
      state->offset = begin;
      Span<const TranslationResult> results;
      call = run(begin, end, &results);
      if (results.size() == end - begin) CopyResults(results, &copies);
      else if (!call.ok()) copies.resize(begin);  // the call failed as a whole: nothing of this chunk
    }
    lock.Unlock();
  }
  if (state->python_error) {  // the callback raised, or Ctrl-C: that exception, as Python raised it
    state->python_error->restore();
    throw py::error_already_set();
  }
  if (!call.ok() && call.code() != StatusCode::kCancelled) Raise(call);
  while (copies.size() < n) {  // inputs of chunks a cancellation left out
    ResultCopy c;
    c.error = StatusCode::kCancelled;
    c.error_message = "not translated: the call was cancelled";
    copies.push_back(std::move(c));
  }
  py::list results = ToPython(std::move(copies));
  if (!call.ok()) {
    py::object e = py::module_::import("tern.errors").attr("CancelledError")(call.message(), results);
    PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(e.ptr())), e.ptr());
    throw py::error_already_set();
  }
  if (on_error == "raise") {
    for (size_t i = 0; i < n; ++i) {
      py::object err = results[i].attr("error");
      if (err.is_none()) continue;
      // The same class, its message saying which input (a bytes or str argument has no line number).
      err = err.get_type()(py::str("input {}: {}").format(i, err.attr("message")));
      err.attr("index") = i;
      err.attr("results") = results;
      PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(err.ptr())), err.ptr());
      throw py::error_already_set();
    }
  }
  return results;
}

std::vector<std::string> TextsOf(py::object texts, const char* what) {
  if (py::isinstance<py::str>(texts) || py::isinstance<py::bytes>(texts) || !py::isinstance<py::sequence>(texts))
    throw py::type_error(std::string(what) + ": expected a list of str (or bytes), got " +
                         std::string(py::str(texts.get_type().attr("__name__"))));
  auto seq = py::reinterpret_borrow<py::sequence>(texts);
  std::vector<std::string> in(seq.size());
  for (size_t i = 0; i < in.size(); ++i) in[i] = TextOf(seq[i], std::string(what) + "[" + std::to_string(i) + "]");
  return in;
}

std::vector<std::vector<uint32_t>> IdListsOf(py::object lists, const char* what) {
  if (!py::isinstance<py::sequence>(lists) || py::isinstance<py::str>(lists))
    throw py::type_error(std::string(what) + ": expected a list of 1-D integer arrays");
  auto seq = py::reinterpret_borrow<py::sequence>(lists);
  std::vector<std::vector<uint32_t>> ids(seq.size());
  for (size_t i = 0; i < ids.size(); ++i)
    if (!seq[i].is_none()) ids[i] = IdsOf(seq[i], std::string(what) + "[" + std::to_string(i) + "]");
  return ids;
}

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
  void Set(TranslateOptions* o) const {
    o->sampling = sampling;
    o->max_input_length = max_input_length;
    o->repetition_penalty = repetition_penalty, o->no_repeat_ngram_size = no_repeat_ngram_size, o->min_length = min_length;
  }
};

py::list TranslateBatch(PyTranslator& self, py::object texts, const CallArgs& args, const TextArgs& targs,
                        py::object target_prefix, py::object target_prefix_ids, const CallRules& rules) {
  std::vector<std::string> in = TextsOf(texts, "texts");
  const Prefixes prefixes(target_prefix, target_prefix_ids, in.size());
  CallState state;
  TranslateOptions o = MakeOptions(args, &state);
  rules.Set(&o);
  std::vector<KeepSpan> spans;
  AddTextOptions(targs, self.model, in.size(), &o, &spans);
  std::vector<std::string_view> views(in.begin(), in.end());
  return RunChunks(self, in.size(), &state, args.on_error, [&](size_t b, size_t e, Span<const TranslationResult>* out) {
    // keep_spans name texts of the whole call: this chunk's, renumbered.
    std::vector<KeepSpan> chunk;
    for (const KeepSpan& k : spans)
      if (k.text >= b && k.text < e) chunk.push_back({k.text - b, k.span});
    o.keep_spans = Span<const KeepSpan>(chunk.data(), chunk.size());
    prefixes.Set(b, e, &o);
    return self.translator->Translate(Span<const std::string_view>(views.data() + b, e - b), o, out);
  });
}

py::list TranslateIds(PyTranslator& self, py::object sources, const CallArgs& args, py::object target_prefix_ids,
                      const CallRules& rules) {
  const std::vector<std::vector<uint32_t>> ids = IdListsOf(sources, "sources");
  std::vector<Span<const uint32_t>> views;
  for (const auto& v : ids) views.emplace_back(v.data(), v.size());
  const Prefixes prefixes(py::none(), target_prefix_ids, ids.size());
  CallState state;
  TranslateOptions o = MakeOptions(args, &state);
  rules.Set(&o);
  return RunChunks(self, ids.size(), &state, args.on_error, [&](size_t b, size_t e, Span<const TranslationResult>* out) {
    prefixes.Set(b, e, &o);
    return self.translator->TranslateIds(Span<const Span<const uint32_t>>(views.data() + b, e - b), o, out);
  });
}

// Translator.score_batch (texts) and score_ids (ids): Translator::Score in chunks of max_batch.
py::list ScoreBatch(PyTranslator& self, py::object sources, py::object targets, const CallArgs& args, const std::string& target_lang) {
  const std::vector<std::string> src = TextsOf(sources, "sources"), tgt = TextsOf(targets, "targets");
  if (src.size() != tgt.size())
    Raise(StatusCode::kInvalidArgument, "score: " + std::to_string(src.size()) + " sources and " +
                                            std::to_string(tgt.size()) + " targets (one target per source)");
  const std::vector<std::string_view> sv(src.begin(), src.end()), tv(tgt.begin(), tgt.end());
  CallState state;
  TranslateOptions o = MakeOptions(args, &state);
  o.target_lang = target_lang;
  return RunChunks(self, src.size(), &state, args.on_error, [&](size_t b, size_t e, Span<const TranslationResult>* out) {
    return self.translator->Score(Span<const std::string_view>(sv.data() + b, e - b), Span<const std::string_view>(tv.data() + b, e - b),
                                  o, out);
  });
}

py::list ScoreIds(PyTranslator& self, py::object sources, py::object targets, const CallArgs& args) {
  const auto src = IdListsOf(sources, "sources"), tgt = IdListsOf(targets, "targets");
  if (src.size() != tgt.size())
    Raise(StatusCode::kInvalidArgument, "score: " + std::to_string(src.size()) + " sources and " +
                                            std::to_string(tgt.size()) + " targets (one target per source)");
  std::vector<Span<const uint32_t>> sv, tv;
  for (const auto& v : src) sv.emplace_back(v.data(), v.size());
  for (const auto& v : tgt) tv.emplace_back(v.data(), v.size());
  CallState state;
  TranslateOptions o = MakeOptions(args, &state);
  return RunChunks(self, src.size(), &state, args.on_error, [&](size_t b, size_t e, Span<const TranslationResult>* out) {
    return self.translator->ScoreIds(Span<const Span<const uint32_t>>(sv.data() + b, e - b),
                                     Span<const Span<const uint32_t>>(tv.data() + b, e - b), o, out);
  });
}

}  // namespace

void RegisterTranslator(py::module_& m) {
  RegisterResults(m);
  RegisterCallTypes(m);
  auto cls = py::class_<PyTranslator>(m, "Translator",
      "A translation session on a Model: its own arena, operators and threads. Several Translators share one "
      "Model's packed weights; calls release the GIL, so Translators in different threads run in parallel. "
      "Calls on one Translator from several threads take turns.");
  cls.def(py::init(&MakeTranslator), py::arg("model"), py::kw_only(), py::arg("threads") = 0, py::arg("max_batch") = 0,
          py::arg("max_beam") = 0, py::arg("max_n_best") = 1, py::arg("max_source_tokens") = 0, py::arg("max_target_tokens") = 0,
          "threads: 0 = cpuinfo's performance cores, 1 = no worker threads. The limits size the arena (0: the file's "
          "default; max_source_tokens includes </s>, max_target_tokens counts generated tokens). Raises "
          "InvalidArgumentError (limits), ResourceExhaustedError (arena over the Model's memory_budget), InvalidModelError.");
  // The arguments both calls take, after the input (keyword-only).
#define TERN_PY_CALL_ARGS                                                                                        \
  py::kw_only(), py::arg("beam_size") = py::none(), py::arg("n_best") = 1, py::arg("max_length") = py::none(),     \
      py::arg("max_length_ratio") = py::none(), py::arg("length_penalty") = py::none(),                            \
      py::arg("early_stopping") = py::none(), py::arg("hf_rules") = 5, py::arg("return_scores") = true,            \
      py::arg("return_alignment") = false, py::arg("alignment_layer") = py::none(), py::arg("use_shortlist") = true, \
      py::arg("callback") = py::none(), py::arg("cancel") = py::none(), py::arg("on_error") = "raise",              \
      py::arg("do_sample") = false, py::arg("sampling_temperature") = 1.f, py::arg("sampling_topk") = 50u,         \
      py::arg("sampling_topp") = 1.f, py::arg("seed") = uint64_t{0}, py::arg("repetition_penalty") = py::none(),   \
      py::arg("no_repeat_ngram_size") = py::none(), py::arg("min_length") = py::none(),      \
      py::arg("max_input_length") = 0u
  cls.def(
      "translate_batch",
      [](PyTranslator& self, py::object texts, std::optional<uint32_t> beam_size, uint32_t n_best, std::optional<uint32_t> max_length,
         std::optional<float> max_length_ratio, std::optional<float> length_penalty, py::object early_stopping, int hf_rules,
         bool return_scores, bool return_alignment, std::optional<uint32_t> alignment_layer, bool use_shortlist, py::object callback,
         std::shared_ptr<CancelToken> cancel, std::string on_error, bool do_sample, float temperature, uint32_t top_k,
         float top_p, uint64_t seed, std::optional<float> repetition_penalty, std::optional<uint32_t> no_repeat_ngram_size,
         std::optional<uint32_t> min_length, uint32_t max_input_length, std::string target_lang, bool split_sentences,
         std::optional<std::string> markup, std::optional<PyGlossary> glossary, bool keep_placeholders,
         std::vector<std::tuple<size_t, size_t, size_t>> keep_spans, bool translate_code, py::object target_prefix,
         py::object target_prefix_ids) {
        CallArgs a{beam_size, max_length, alignment_layer, n_best, max_length_ratio, length_penalty, early_stopping, hf_rules,
                   return_scores, return_alignment, use_shortlist, callback, cancel, on_error};
        TextArgs t{target_lang, split_sentences, keep_placeholders, translate_code, markup, glossary, keep_spans};
        return TranslateBatch(self, texts, a, t, target_prefix, target_prefix_ids,
                              CallRules{SamplingOptions{do_sample, temperature, top_k, top_p, 1, seed}, repetition_penalty,
                                        no_repeat_ngram_size, min_length, max_input_length});
      },
      py::arg("texts"), TERN_PY_CALL_ARGS, py::arg("target_lang") = "", py::arg("split_sentences") = true,
      py::arg("markup") = py::none(), py::arg("glossary") = py::none(), py::arg("keep_placeholders") = false,
      py::arg("keep_spans") = std::vector<std::tuple<size_t, size_t, size_t>>{}, py::arg("translate_code") = false,
      py::arg("target_prefix") = py::none(), py::arg("target_prefix_ids") = py::none(),
      "Translates a list of texts (str, or bytes of UTF-8); more than max_batch run in chunks. Returns a "
      "TranslationResult per text, in order. A text that fails (invalid UTF-8, too many tokens) fails alone: with "
      "on_error='raise' its error is raised after the call (with .index and .results), with 'keep' it is that "
      "result's .error. None for an option means the file's default. See tern/_tern.pyi for each argument.");
  cls.def(
      "translate_ids",
      [](PyTranslator& self, py::object sources, std::optional<uint32_t> beam_size, uint32_t n_best, std::optional<uint32_t> max_length,
         std::optional<float> max_length_ratio, std::optional<float> length_penalty, py::object early_stopping, int hf_rules,
         bool return_scores, bool return_alignment, std::optional<uint32_t> alignment_layer, bool use_shortlist, py::object callback,
         std::shared_ptr<CancelToken> cancel, std::string on_error, bool do_sample, float temperature, uint32_t top_k,
         float top_p, uint64_t seed, std::optional<float> repetition_penalty, std::optional<uint32_t> no_repeat_ngram_size,
         std::optional<uint32_t> min_length, uint32_t max_input_length, py::object target_prefix_ids) {
        CallArgs a{beam_size, max_length, alignment_layer, n_best, max_length_ratio, length_penalty, early_stopping, hf_rules,
                   return_scores, return_alignment, use_shortlist, callback, cancel, on_error};
        return TranslateIds(self, sources, a, target_prefix_ids,
                            CallRules{SamplingOptions{do_sample, temperature, top_k, top_p, 1, seed}, repetition_penalty,
                                      no_repeat_ngram_size, min_length, max_input_length});
      },
      py::arg("sources"), TERN_PY_CALL_ARGS, py::arg("target_prefix_ids") = py::none(),
      "Translates token ids: a list of 1-D integer arrays (NumPy or lists), each a source as given, </s> included. "
      "Results carry ids only (Hypothesis.ids: uint32 arrays). No tokenizer runs.");
  cls.def(
      "score_batch",
      [](PyTranslator& self, py::object sources, py::object targets, std::optional<uint32_t> max_length,
         std::optional<float> max_length_ratio, bool return_alignment, std::optional<uint32_t> alignment_layer,
         std::shared_ptr<CancelToken> cancel, std::string on_error, std::string target_lang) {
        CallArgs a;
        a.max_length = max_length, a.max_length_ratio = max_length_ratio, a.return_alignment = return_alignment;
        a.alignment_layer = alignment_layer, a.cancel = cancel, a.on_error = on_error;
        return ScoreBatch(self, sources, targets, a, target_lang);
      },
      py::arg("sources"), py::arg("targets"), py::kw_only(), py::arg("max_length") = py::none(),
      py::arg("max_length_ratio") = py::none(), py::arg("return_alignment") = false, py::arg("alignment_layer") = py::none(),
      py::arg("cancel") = py::none(), py::arg("on_error") = "raise", py::arg("target_lang") = "",
      "Scores given translations (Translator::Score): per pair a TranslationResult whose hypothesis holds the target's "
      "ids, each token's log-probability (token_logprobs, </s> last) and their sum (score), what greedy search gives "
      "the same tokens. A pair fails alone (a target too long, a token the rules ban).");
  cls.def(
      "score_ids",
      [](PyTranslator& self, py::object sources, py::object targets, std::optional<uint32_t> max_length,
         std::optional<float> max_length_ratio, bool return_alignment, std::optional<uint32_t> alignment_layer,
         std::shared_ptr<CancelToken> cancel, std::string on_error) {
        CallArgs a;
        a.max_length = max_length, a.max_length_ratio = max_length_ratio, a.return_alignment = return_alignment;
        a.alignment_layer = alignment_layer, a.cancel = cancel, a.on_error = on_error;
        return ScoreIds(self, sources, targets, a);
      },
      py::arg("sources"), py::arg("targets"), py::kw_only(), py::arg("max_length") = py::none(),
      py::arg("max_length_ratio") = py::none(), py::arg("return_alignment") = false, py::arg("alignment_layer") = py::none(),
      py::arg("cancel") = py::none(), py::arg("on_error") = "raise",
      "score_batch on ids: sources with their </s>, targets (target vocabulary) without it.");
#undef TERN_PY_CALL_ARGS
  cls.def_property_readonly("max_batch", [](const PyTranslator& t) { return t.translator->max_batch(); }, "texts per internal call")
      .def_property_readonly("threads", [](const PyTranslator& t) { return t.translator->threads(); })
      .def_property_readonly("arena_bytes", [](const PyTranslator& t) { return t.translator->arena_bytes(); }, "bytes of the arena")
      .def_property_readonly("splits_sentences", [](const PyTranslator& t) { return t.translator->splits_sentences(); })
      .def_property_readonly("model", [](const PyTranslator& t) { return PyModel{t.model}; })
      .def_property_readonly("profile", [](PyTranslator& t) {
        CallLock lock(t);
        Profile p;
        {
          py::gil_scoped_release unlocked;
          lock.Lock();
          p = t.translator->profile();
          lock.Unlock();
        }
        return py::dict(py::arg("decoder_steps") = p.decoder_steps, py::arg("generated_tokens") = p.generated_tokens,
                        py::arg("weight_bytes_read") = p.weight_bytes_read, py::arg("output_columns") = p.output_columns,
                        py::arg("single_thread_steps") = p.single_thread_steps);
      }, "Counts since creation or reset_profile(): decoder steps, generated tokens, weight bytes the decoder steps "
         "read, logits columns computed (/ decoder_steps = the mean shortlist size), steps run on one thread.")
      .def("reset_profile", [](PyTranslator& t) {
        CallLock lock(t);
        py::gil_scoped_release unlocked;
        lock.Lock();
        t.translator->ResetProfile();
      });
}

}  // namespace tern::python
