// The C API (tern.h) over tern::Model and tern::Translator. Every entry point catches everything: no
// exception crosses into C.
//
// One call at a time per translator, checked first: tern_translate takes the translator's own busy flag
// (an atomic exchange) before it reads or writes anything the translator owns, so a second thread's call
// returns TERN_BUSY having touched nothing but its own tern_results. The results of a call are copied,
// while the flag is still held, from the Translator's arena into the caller's tern_results: what a thread
// reads there is its own call's output, whatever calls other threads make afterwards.
#include "tern/tern.h"

#include <atomic>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "busy_guard.h"
#include "tern/model.h"
#include "tern/translator.h"

struct tern_model {
  std::shared_ptr<const tern::Model> model;
  std::vector<std::string> languages;  // NUL-terminated copies of Model::language_tokens()
};

struct tern_translator {
  std::shared_ptr<const tern::Model> model;
  std::unique_ptr<tern::Translator> translator;
  std::atomic<bool> busy{false};                      // a call is running (BusyGuard)
  // Per-call scratch, touched only while `busy` is held; grown to the largest n seen (at most
  // Translator::max_batch(), which the memory budget bounds), then reused.
  std::vector<std::string_view> texts;
  std::vector<tern::Span<const uint32_t>> id_spans;
};

// What one call returned, copied out of the Translator's arena (tern.h: tern_results).
struct tern_results {
  struct Hypothesis {
    std::string text;  // NUL-terminated by std::string
    std::vector<uint32_t> ids;
    float score = 0.f;
  };
  struct Sentence {
    tern_status_code code = TERN_OK;
    std::string error;
    std::vector<Hypothesis> hypotheses;  // size() entries are live; capacity is kept
    size_t count = 0;
  };
  std::vector<Sentence> sentences;  // capacity kept from call to call
  size_t count = 0;
};

namespace {

void SetError(tern_error* err, tern_status_code code, const std::string& msg) {
  if (!err) return;
  err->code = code;
  const size_t n = std::min(msg.size(), sizeof(err->message) - 1);
  std::memcpy(err->message, msg.data(), n);
  err->message[n] = 0;
}

tern_status_code Fail(tern_error* err, const tern::Status& s) {
  SetError(err, static_cast<tern_status_code>(s.code()), s.message());
  return static_cast<tern_status_code>(s.code());
}

// The C callbacks behind the C++ ones: a per-call adapter on the caller's stack (no allocation).
struct CallbackAdapter {
  tern_token_callback token = nullptr;
  void* token_data = nullptr;
  tern_abort_callback abort = nullptr;
  void* abort_data = nullptr;
};

bool TokenTrampoline(const tern::TokenEvent& e, void* user_data) {
  const auto* a = static_cast<const CallbackAdapter*>(user_data);
  tern_token_event ce;
  ce.index = e.index;
  ce.part = e.part;
  ce.parts = e.parts;
  ce.token = e.token;
  ce.text = e.text.empty() ? "" : e.text.data();  // never NULL: C callers may memcpy(dst, text, 0)
  ce.text_len = e.text.size();
  ce.last = e.last ? 1 : 0;
  return a->token(&ce, a->token_data) != 0;
}

bool AbortTrampoline(void* user_data) {
  const auto* a = static_cast<const CallbackAdapter*>(user_data);
  return a->abort(a->abort_data) != 0;
}

tern::TranslateOptions Options(const tern_translate_params* p, CallbackAdapter* adapter) {
  tern::TranslateOptions o;
  if (!p) return o;
  *adapter = {p->token_callback, p->token_user_data, p->abort_callback, p->abort_user_data};
  if (p->token_callback) o.on_token = TokenTrampoline, o.on_token_user_data = adapter;
  if (p->abort_callback) o.abort = AbortTrampoline, o.abort_user_data = adapter;
  o.beam_size = p->beam_size;
  o.length_penalty = p->length_penalty;
  if (p->early_stopping >= 0) o.early_stopping = static_cast<tern::EarlyStopping>(p->early_stopping);
  if (p->hf_rules) o.hf_rules = static_cast<tern::HfRules>(p->hf_rules);
  o.max_length = p->max_length;
  o.max_length_ratio = p->max_length_ratio;
  o.n_best = p->n_best ? p->n_best : 1;
  o.return_scores = p->return_scores != 0;
  o.target_lang = p->target_lang ? std::string_view(p->target_lang) : std::string_view();
  o.split_sentences = p->split_sentences != 0;
  o.use_shortlist = p->use_shortlist != 0;
  return o;
}

const tern_results::Hypothesis* Hyp(const tern_results* r, size_t i, size_t k) {
  if (!r || i >= r->count || r->sentences[i].code != TERN_OK || k >= r->sentences[i].count) return nullptr;
  return &r->sentences[i].hypotheses[k];
}

tern_status_code Busy(tern_error* err) {
  SetError(err, TERN_BUSY, "tern_translate: the translator is busy with a call in another thread (use one translator per thread)");
  return TERN_BUSY;
}

// Copies a call's results (views into the Translator's arena) into the caller's set.
void CopyResults(tern::Span<const tern::TranslationResult> in, tern_results* out) {
  if (out->sentences.size() < in.size()) out->sentences.resize(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    const tern::TranslationResult& r = in[i];
    tern_results::Sentence& s = out->sentences[i];
    s.code = static_cast<tern_status_code>(r.error);
    s.error.assign(r.ok() ? std::string_view() : r.error_message);
    s.count = r.ok() ? r.hypotheses.size() : 0;
    if (s.hypotheses.size() < s.count) s.hypotheses.resize(s.count);
    for (size_t k = 0; k < s.count; ++k) {
      const tern::Hypothesis& h = r.hypotheses[k];
      s.hypotheses[k].text.assign(h.text);
      s.hypotheses[k].ids.assign(h.ids.begin(), h.ids.end());
      s.hypotheses[k].score = h.score;
    }
  }
  out->count = in.size();
}

// Runs f, turning any exception into TERN_INTERNAL and `on_error`: nothing crosses into C.
template <typename F, typename R>
R Guarded(tern_error* err, R on_error, F&& f) {
  try {
    return f();
  } catch (const std::exception& e) {
    SetError(err, TERN_INTERNAL, e.what());
  } catch (...) {
    SetError(err, TERN_INTERNAL, "unknown exception");
  }
  return on_error;
}

// The shape of a translate call: arguments checked, the translator's busy flag taken before anything it
// owns is touched, n checked against its batch, run(options, &out) on the Translator, the results copied
// into the caller's set while the flag is held.
template <typename RunFn>
tern_status_code Call(tern_translator* t, size_t n, tern_results* results, tern_error* err, bool inputs_ok, const char* fn,
                      RunFn run, const tern_translate_params* params) {
  return Guarded(err, TERN_INTERNAL, [&]() -> tern_status_code {
    if (results) results->count = 0;
    if (!t || !results || !inputs_ok)
      return SetError(err, TERN_INVALID_ARGUMENT, std::string(fn) + ": NULL argument"), TERN_INVALID_ARGUMENT;
    tern::BusyGuard call(t->busy);
    if (!call.acquired()) return Busy(err);
    const size_t batch = t->translator->max_batch();
    if (n > batch)
      return Fail(err, tern::Status(tern::StatusCode::kInvalidArgument,
                                    std::to_string(n) + " sentences exceed max_batch " + std::to_string(batch)));
    CallbackAdapter adapter;
    tern::Span<const tern::TranslationResult> out;
    tern::Status s = run(Options(params, &adapter), &out);
    if (!s.ok() && s.code() != tern::StatusCode::kCancelled) return Fail(err, s);
    CopyResults(out, results);
    return s.ok() ? TERN_OK : Fail(err, s);
  });
}

}  // namespace

extern "C" {

tern_model_params tern_model_default_params(void) {
  tern_model_params p;
  p.memory_budget_bytes = tern::LoadOptions().memory_budget_bytes;
  p.map_file = 0;  // the safe choice for apps: a file rewritten by an update cannot take pages away
  return p;
}

tern_model* tern_model_load(const char* path, tern_error* err) {
  const tern_model_params p = tern_model_default_params();
  return tern_model_load_with_params(path, &p, err);
}

tern_model* tern_model_load_with_params(const char* path, const tern_model_params* params, tern_error* err) {
  return Guarded(err, static_cast<tern_model*>(nullptr), [&]() -> tern_model* {
    if (!path) return SetError(err, TERN_INVALID_ARGUMENT, "tern_model_load: path is NULL"), nullptr;
    tern::LoadOptions options;
    const tern_model_params p = params ? *params : tern_model_default_params();
    options.memory_budget_bytes = p.memory_budget_bytes;
    options.map_file = p.map_file != 0;
    auto m = tern::Model::Load(path, options);
    if (!m.ok()) return Fail(err, m.status()), nullptr;
    auto* out = new tern_model{m.value(), {}};
    for (std::string_view l : out->model->language_tokens()) out->languages.emplace_back(l);
    return out;
  });
}

void tern_model_free(tern_model* model) { delete model; }

size_t tern_model_language_count(const tern_model* model) { return model ? model->languages.size() : 0; }

const char* tern_model_language(const tern_model* model, size_t i) {
  return model && i < model->languages.size() ? model->languages[i].c_str() : nullptr;
}

tern_translator_params tern_translator_default_params(void) {
  tern_translator_params p{};
  p.max_n_best = 1;
  return p;
}

tern_translator* tern_translator_create(const tern_model* model, const tern_translator_params* params, tern_error* err) {
  return Guarded(err, static_cast<tern_translator*>(nullptr), [&]() -> tern_translator* {
    if (!model) return SetError(err, TERN_INVALID_ARGUMENT, "tern_translator_create: model is NULL"), nullptr;
    tern::TranslatorConfig c;
    if (params) {
      c.max_batch = params->max_batch;
      c.max_beam = params->max_beam;
      c.max_n_best = params->max_n_best ? params->max_n_best : 1;
      c.max_source_tokens = params->max_source_tokens;
      c.max_target_tokens = params->max_target_tokens;
      c.threads = params->threads;
    }
    auto t = tern::Translator::Create(model->model, c);
    if (!t.ok()) return Fail(err, t.status()), nullptr;
    auto* out = new tern_translator;
    out->model = model->model;
    out->translator = std::move(t.value());
    return out;
  });
}

void tern_translator_free(tern_translator* translator) { delete translator; }

size_t tern_translator_arena_bytes(const tern_translator* t) { return t ? t->translator->arena_bytes() : 0; }

tern_translate_params tern_translate_default_params(void) {
  tern_translate_params p{};
  p.length_penalty = -1e30f;
  p.early_stopping = -1;
  p.hf_rules = 5;
  p.max_length_ratio = -1.f;
  p.n_best = 1;
  p.return_scores = 1;
  p.target_lang = nullptr;
  p.split_sentences = 1;
  p.use_shortlist = 1;
  return p;
}

tern_results* tern_results_create(void) { return new (std::nothrow) tern_results; }

void tern_results_free(tern_results* results) { delete results; }

tern_status_code tern_translate(tern_translator* t, const char* const* sentences, size_t n,
                                const tern_translate_params* params, tern_results* results, tern_error* err) {
  return Call(t, n, results, err, sentences || !n, "tern_translate", [&](const tern::TranslateOptions& o, tern::Span<const tern::TranslationResult>* out) {
    if (t->texts.size() < n) t->texts.resize(n);
    for (size_t i = 0; i < n; ++i) t->texts[i] = sentences[i] ? std::string_view(sentences[i]) : std::string_view();
    return t->translator->Translate(tern::Span<const std::string_view>(t->texts.data(), n), o, out);
  }, params);
}

tern_status_code tern_translate_ids(tern_translator* t, const uint32_t* const* sources, const size_t* lengths, size_t n,
                                    const tern_translate_params* params, tern_results* results, tern_error* err) {
  return Call(t, n, results, err, (sources && lengths) || !n, "tern_translate_ids", [&](const tern::TranslateOptions& o, tern::Span<const tern::TranslationResult>* out) {
    if (t->id_spans.size() < n) t->id_spans.resize(n);
    for (size_t i = 0; i < n; ++i) t->id_spans[i] = tern::Span<const uint32_t>(sources[i], sources[i] ? lengths[i] : 0);
    return t->translator->TranslateIds(tern::Span<const tern::Span<const uint32_t>>(t->id_spans.data(), n), o, out);
  }, params);
}

size_t tern_result_count(const tern_results* r) { return r ? r->count : 0; }

const char* tern_result_error(const tern_results* r, size_t i) {
  if (!r || i >= r->count || r->sentences[i].code == TERN_OK) return nullptr;
  return r->sentences[i].error.c_str();
}

tern_status_code tern_result_code(const tern_results* r, size_t i) {
  if (!r || i >= r->count) return TERN_INVALID_ARGUMENT;
  return r->sentences[i].code;
}

size_t tern_result_hypotheses(const tern_results* r, size_t i) {
  return r && i < r->count && r->sentences[i].code == TERN_OK ? r->sentences[i].count : 0;
}

const char* tern_result_text(const tern_results* r, size_t i, size_t k, size_t* length) {
  const tern_results::Hypothesis* h = Hyp(r, i, k);
  if (length) *length = h ? h->text.size() : 0;
  return h ? h->text.c_str() : nullptr;  // an empty translation is "", not the NULL of a failure
}

const uint32_t* tern_result_ids(const tern_results* r, size_t i, size_t k, size_t* count) {
  const tern_results::Hypothesis* h = Hyp(r, i, k);
  if (count) *count = h ? h->ids.size() : 0;
  if (!h) return nullptr;
  static const uint32_t kNone[1] = {0};
  return h->ids.empty() ? kNone : h->ids.data();  // an empty hypothesis has ids, none of them: never NULL
}

float tern_result_score(const tern_results* r, size_t i, size_t k) {
  const tern_results::Hypothesis* h = Hyp(r, i, k);
  return h ? h->score : 0.f;
}

}  // extern "C"
