// The C API (tern.h) over tern::Model and tern::Translator. Every entry point catches everything: no
// exception crosses into C.
//
// One call at a time per translator, checked first: tern_translate takes the translator's own busy flag
// (an atomic exchange) before it reads or writes anything the translator owns, so a second thread's call
// returns TERN_BUSY having touched nothing but its own tern_results. The results of a call are copied,
// while the flag is still held, from the Translator's arena into the caller's tern_results: what a thread
// reads there is its own call's output, whatever calls other threads make afterwards.
#include <algorithm>
#include <cstddef>
#include <new>
#include <string>

#include "api/c_api_internal.h"
#include "base/busy_guard.h"
#include "tern/call_chunks.h"
#include "tern/version.h"

using tern::c_api::Fail;
using tern::c_api::Guarded;
using tern::c_api::SetError;

namespace {

tern_status_code Busy(tern_error* err) {
  SetError(err, TERN_BUSY, "tern_translate: the translator is busy with another call (in another thread, or this is one of its own callbacks): use one translator per thread");
  return TERN_BUSY;
}

// The shape of a translate call: arguments checked, the translator's busy flag taken before anything it
// owns is touched, n checked against its batch, run(options, &out) on the Translator, the results copied
// into the caller's set while the flag is held.
template <typename RunFn>
tern_status_code Call(tern_translator* t, size_t n, tern_results* results, tern_error* err, bool inputs_ok, const char* fn,
                      RunFn run, const tern_translate_params* params) {
  bool owner = false;  // this call took the busy flag: a tern_translator_free from its callbacks is done here
  const tern_status_code rc = Guarded(err, TERN_INTERNAL, [&]() -> tern_status_code {
    if (results) results->count = 0;
    if (!t || !results || !inputs_ok)
      return SetError(err, TERN_INVALID_ARGUMENT, std::string(fn) + ": NULL argument"), TERN_INVALID_ARGUMENT;
    tern::c_api::TranslatorCall call(t);
    if (!call.acquired()) return Busy(err);
    owner = true;
    tern::c_api::CallOptions options(params, n);
    if (!options.status().ok()) return Fail(err, options.status());
    // More inputs than max_batch run in chunks (tern/call_chunks.h), the callbacks' indices the whole call's.
    tern::CallChunks chunks(options.options(), n, t->translator->max_batch());
    size_t done = 0;
    const tern::Status s = chunks.Run(
        [&](size_t b, size_t e, const tern::TranslateOptions& o, tern::Span<const tern::TranslationResult>* out) {
          options.set_input_offset(b);
          return run(b, e, o, out);
        },
        [&](size_t b, tern::Span<const tern::TranslationResult> out) { tern::c_api::CopyResults(out, results, b); }, &done);
    if (!s.ok() && s.code() != tern::StatusCode::kCancelled) {
      results->count = 0;
      return Fail(err, s);
    }
    tern::c_api::CancelledResults(done, n, results);  // inputs of chunks a cancellation left out
    return s.ok() ? TERN_OK : Fail(err, s);
  });
  if (t) tern::c_api::FinishCall(t, owner);
  return rc;
}

// Id inputs: an entry that is NULL while its length says it holds ids is refused at once (before anything is
// translated), named: "tern_translate_ids: sources[3] is NULL with length 5".
tern_status_code CheckIdArrays(const char* fn, const char* what, const uint32_t* const* ids, const size_t* lengths, size_t n,
                               tern_error* err) {
  for (size_t i = 0; i < n; ++i)
    if (!ids[i] && lengths[i])
      return SetError(err, TERN_INVALID_ARGUMENT, std::string(fn) + ": " + what + "[" + std::to_string(i) + "] is NULL with length " +
                                                      std::to_string(lengths[i])),
             TERN_INVALID_ARGUMENT;
  return TERN_OK;
}

// Scoring has its targets: params' target prefixes are refused, as Translator::Score refuses them.
tern::Status NoPrefixes(const tern_translate_params* p) {
  if (p && (p->target_prefix || p->target_prefix_ids))
    return tern::Status(tern::StatusCode::kInvalidArgument, "score: target_prefix does not apply to scoring");
  return tern::Status::Ok();
}

}  // namespace

extern "C" {

const char* tern_version(void) { return tern::Version(); }

tern_model_params tern_model_default_params(void) {
  tern_model_params p{};
  p.struct_size = sizeof(tern_model_params);
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
    tern_model_params p = tern_model_default_params();
    // The first release with struct_size ended before packed_cache_dir.
    if (params && !tern::c_api::ReadParams(params, offsetof(tern_model_params, packed_cache_dir), &p))
      return SetError(err, TERN_INVALID_ARGUMENT, tern::c_api::StructSizeError("tern_model_load_with_params", params->struct_size,
                                                                                "tern_model_default_params")),
             nullptr;
    options.memory_budget_bytes = p.memory_budget_bytes;
    options.map_file = p.map_file != 0;
    if (p.packed_cache_dir) options.packed_cache_dir = p.packed_cache_dir;
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
  p.struct_size = sizeof(tern_translator_params);
  p.max_n_best = 1;
  return p;
}

tern_translator* tern_translator_create(const tern_model* model, const tern_translator_params* params, tern_error* err) {
  return Guarded(err, static_cast<tern_translator*>(nullptr), [&]() -> tern_translator* {
    if (!model) return SetError(err, TERN_INVALID_ARGUMENT, "tern_translator_create: model is NULL"), nullptr;
    tern_translator_params p = tern_translator_default_params();
    if (params && !tern::c_api::ReadParams(params, sizeof(tern_translator_params), &p))  // the first release with struct_size
      return SetError(err, TERN_INVALID_ARGUMENT, tern::c_api::StructSizeError("tern_translator_create", params->struct_size,
                                                                                "tern_translator_default_params")),
             nullptr;
    const tern::TranslatorConfig c = tern::c_api::ConfigOf(p);
    auto t = tern::Translator::Create(model->model, c);
    if (!t.ok()) return Fail(err, t.status()), nullptr;
    auto* out = new tern_translator;
    out->model = model->model;
    out->translator = std::move(t.value());
    return out;
  });
}

void tern_translator_free(tern_translator* translator) {
  if (!translator) return;
  if (translator->busy.load() && translator->call_thread.load() == std::this_thread::get_id()) {
    translator->free_requested.store(true);  // from one of its own call's callbacks: freed when the call returns
    return;
  }
  delete translator;
}

size_t tern_translator_arena_bytes(const tern_translator* t) { return t ? t->translator->arena_bytes() : 0; }

tern_status_code tern_translate(tern_translator* t, const char* const* sentences, size_t n,
                                const tern_translate_params* params, tern_results* results, tern_error* err) {
  return Call(t, n, results, err, sentences || !n, "tern_translate", [&](size_t b, size_t e, const tern::TranslateOptions& o, tern::Span<const tern::TranslationResult>* out) {
    if (t->texts.size() < e - b) t->texts.resize(e - b);
    for (size_t i = b; i < e; ++i) t->texts[i - b] = sentences[i] ? std::string_view(sentences[i]) : std::string_view();
    return t->translator->Translate(tern::Span<const std::string_view>(t->texts.data(), e - b), o, out);
  }, params);
}

tern_status_code tern_translate_ids(tern_translator* t, const uint32_t* const* sources, const size_t* lengths, size_t n,
                                    const tern_translate_params* params, tern_results* results, tern_error* err) {
  if (sources && lengths)
    if (tern_status_code bad = CheckIdArrays("tern_translate_ids", "sources", sources, lengths, n, err); bad != TERN_OK) {
      if (results) results->count = 0;
      return bad;
    }
  return Call(t, n, results, err, (sources && lengths) || !n, "tern_translate_ids", [&](size_t b, size_t e, const tern::TranslateOptions& o, tern::Span<const tern::TranslationResult>* out) {
    if (t->id_spans.size() < e - b) t->id_spans.resize(e - b);
    for (size_t i = b; i < e; ++i) t->id_spans[i - b] = tern::Span<const uint32_t>(sources[i], sources[i] ? lengths[i] : 0);
    return t->translator->TranslateIds(tern::Span<const tern::Span<const uint32_t>>(t->id_spans.data(), e - b),
                                       o, out);
  }, params);
}

tern_status_code tern_score(tern_translator* t, const char* const* sources, const char* const* targets, size_t n,
                            const tern_translate_params* params, tern_results* results, tern_error* err) {
  return Call(t, n, results, err, (sources && targets) || !n, "tern_score", [&](size_t b, size_t e, const tern::TranslateOptions& o, tern::Span<const tern::TranslationResult>* out) {
    TERN_RETURN_IF_ERROR(NoPrefixes(params));
    t->texts.resize(std::max(t->texts.size(), e - b));
    t->prefix_texts.resize(e - b);
    for (size_t i = b; i < e; ++i) {
      t->texts[i - b] = sources[i] ? std::string_view(sources[i]) : std::string_view();
      t->prefix_texts[i - b] = targets[i] ? std::string_view(targets[i]) : std::string_view();
    }
    return t->translator->Score(tern::Span<const std::string_view>(t->texts.data(), e - b),
                                tern::Span<const std::string_view>(t->prefix_texts.data(), e - b), o, out);
  }, params);
}

tern_status_code tern_score_ids(tern_translator* t, const uint32_t* const* sources, const size_t* source_lengths,
                                const uint32_t* const* targets, const size_t* target_lengths, size_t n,
                                const tern_translate_params* params, tern_results* results, tern_error* err) {
  const bool ok = (sources && source_lengths && targets && target_lengths) || !n;
  if (ok && n) {
    tern_status_code bad = CheckIdArrays("tern_score_ids", "sources", sources, source_lengths, n, err);
    if (bad == TERN_OK) bad = CheckIdArrays("tern_score_ids", "targets", targets, target_lengths, n, err);
    if (bad != TERN_OK) {
      if (results) results->count = 0;
      return bad;
    }
  }
  return Call(t, n, results, err, ok, "tern_score_ids", [&](size_t b, size_t e, const tern::TranslateOptions& o, tern::Span<const tern::TranslationResult>* out) {
    TERN_RETURN_IF_ERROR(NoPrefixes(params));
    t->id_spans.resize(std::max(t->id_spans.size(), e - b));
    t->prefix_spans.resize(e - b);
    for (size_t i = b; i < e; ++i) {
      t->id_spans[i - b] = tern::Span<const uint32_t>(sources[i], sources[i] ? source_lengths[i] : 0);
      t->prefix_spans[i - b] = tern::Span<const uint32_t>(targets[i], targets[i] ? target_lengths[i] : 0);
    }
    return t->translator->ScoreIds(tern::Span<const tern::Span<const uint32_t>>(t->id_spans.data(), e - b),
                                   tern::Span<const tern::Span<const uint32_t>>(t->prefix_spans.data(), e - b),
                                   o, out);
  }, params);
}

}  // extern "C"
