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

#include "call_inputs.h"
#include "translator_call.h"

namespace tern::python {
namespace {

std::unique_ptr<PyTranslator> MakeTranslator(const PyModel& m, uint32_t threads, uint32_t max_batch, uint32_t max_beam,
                                             uint32_t max_n_best, uint32_t max_source_tokens, uint32_t max_target_tokens,
                                             bool attention) {
  TranslatorConfig c;
  c.threads = threads, c.max_batch = max_batch, c.max_beam = max_beam, c.max_n_best = max_n_best;
  c.max_source_tokens = max_source_tokens, c.max_target_tokens = max_target_tokens, c.attention = attention;
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



py::list TranslateBatch(PyTranslator& self, py::object texts, const CallArgs& args, const TextArgs& targs,
                        py::object target_prefix, py::object target_prefix_ids, const CallRules& rules) {
  std::vector<std::string> in = TextsOf(texts, "texts");
  const Prefixes prefixes(target_prefix, target_prefix_ids, in.size());
  CallState state;
  TranslateOptions o = MakeOptions(args, &state);
  rules.Set(&o, &state);
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
  rules.Set(&o, &state);
  return RunChunks(self, ids.size(), &state, args.on_error, [&](size_t b, size_t e, Span<const TranslationResult>* out) {
    prefixes.Set(b, e, &o);
    return self.translator->TranslateIds(Span<const Span<const uint32_t>>(views.data() + b, e - b), o, out);
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
          py::arg("attention") = false,
          "attention: plan the buffers of return_attention. threads: 0 = cpuinfo's performance cores, 1 = no worker threads. The limits size the arena (0: the file's "
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
      py::arg("max_input_length") = 0u, py::arg("alternatives") = 0u, py::arg("min_alternative_expansion_prob") = 0.f, \
      py::arg("suppress_sequences") = py::none(), py::arg("disable_unk") = false, py::arg("return_attention") = false, \
      py::arg("end_tokens") = std::vector<uint32_t>{}, py::arg("forced_eos") = py::none(), py::arg("logits_processors") = py::none()
  cls.def(
      "translate_batch",
      [](PyTranslator& self, py::object texts, std::optional<uint32_t> beam_size, uint32_t n_best, std::optional<uint32_t> max_length,
         std::optional<float> max_length_ratio, std::optional<float> length_penalty, py::object early_stopping, int hf_rules,
         bool return_scores, bool return_alignment, std::optional<uint32_t> alignment_layer, bool use_shortlist, py::object callback,
         std::shared_ptr<CancelToken> cancel, std::string on_error, bool do_sample, float temperature, uint32_t top_k,
         float top_p, uint64_t seed, std::optional<float> repetition_penalty, std::optional<uint32_t> no_repeat_ngram_size,
         std::optional<uint32_t> min_length, uint32_t max_input_length, uint32_t alternatives, float min_prob, py::object suppress, bool disable_unk, bool return_attention, std::vector<uint32_t> end_tokens, std::optional<bool> forced_eos, py::object logits_processors, std::string target_lang, bool split_sentences,
         std::optional<std::string> markup, std::optional<PyGlossary> glossary, bool keep_placeholders,
         std::vector<std::tuple<size_t, size_t, size_t>> keep_spans, bool translate_code, std::string placeholder_syntaxes, bool auto_protect, py::object target_prefix,
         py::object target_prefix_ids) {
        CallArgs a{beam_size, max_length, alignment_layer, n_best, max_length_ratio, length_penalty, early_stopping, hf_rules,
                   return_scores, return_alignment, use_shortlist, callback, cancel, on_error, logits_processors};
        TextArgs t{target_lang, split_sentences, keep_placeholders, translate_code, markup, glossary, keep_spans, placeholder_syntaxes,
                   auto_protect};
        CallRules rules{SamplingOptions{do_sample, temperature, top_k, top_p, 1, seed}, repetition_penalty,
                        no_repeat_ngram_size, min_length, max_input_length, alternatives, min_prob, {}, {}, disable_unk, return_attention, std::move(end_tokens)};
        rules.SetSuppress(suppress);
        rules.forced_eos = forced_eos;
        return TranslateBatch(self, texts, a, t, target_prefix, target_prefix_ids, rules);
      },
      py::arg("texts"), TERN_PY_CALL_ARGS, py::arg("target_lang") = "", py::arg("split_sentences") = true,
      py::arg("markup") = py::none(), py::arg("glossary") = py::none(), py::arg("keep_placeholders") = false,
      py::arg("keep_spans") = std::vector<std::tuple<size_t, size_t, size_t>>{}, py::arg("translate_code") = false, py::arg("placeholder_syntaxes") = "default",
      py::arg("auto_protect") = true, py::arg("target_prefix") = py::none(), py::arg("target_prefix_ids") = py::none(),
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
         std::optional<uint32_t> min_length, uint32_t max_input_length, uint32_t alternatives, float min_prob, py::object suppress, bool disable_unk, bool return_attention, std::vector<uint32_t> end_tokens, std::optional<bool> forced_eos, py::object logits_processors, py::object target_prefix_ids) {
        CallArgs a{beam_size, max_length, alignment_layer, n_best, max_length_ratio, length_penalty, early_stopping, hf_rules,
                   return_scores, return_alignment, use_shortlist, callback, cancel, on_error, logits_processors};
        CallRules rules{SamplingOptions{do_sample, temperature, top_k, top_p, 1, seed}, repetition_penalty,
                        no_repeat_ngram_size, min_length, max_input_length, alternatives, min_prob, {}, {}, disable_unk, return_attention, std::move(end_tokens)};
        rules.SetSuppress(suppress);
        rules.forced_eos = forced_eos;
        return TranslateIds(self, sources, a, target_prefix_ids, rules);
      },
      py::arg("sources"), TERN_PY_CALL_ARGS, py::arg("target_prefix_ids") = py::none(),
      "Translates token ids: a list of 1-D integer arrays (NumPy or lists), each a source as given, </s> included. "
      "Results carry ids only (Hypothesis.ids: uint32 arrays). No tokenizer runs.");
  RegisterScoring(cls);
  RegisterIcuMessages(cls);
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
