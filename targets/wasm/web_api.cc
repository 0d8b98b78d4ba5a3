// The C functions the JavaScript API (js/tern.mjs) calls, exported from tern-web.wasm. A request and its
// results cross as JSON (one copy each way, small beside a translation): the options object is read by the
// field table's generated reader (options_json.inc), each result written by its generated writer
// (results_json.inc). Nothing here throws into JavaScript: every error is a status, returned as
// {"error": message, "code": n}.
#include <emscripten/emscripten.h>
#include <emscripten/threading.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tern/call_chunks.h"
#include "tern/model.h"
#include "tern/options.h"
#include "tern/translator.h"

namespace tern {
namespace {

template <typename T>
nlohmann::json Array(Span<const T> v) {
  return nlohmann::json(std::vector<T>(v.begin(), v.end()));
}
nlohmann::json Spans(Span<const TextSpan> v) {
  nlohmann::json out = nlohmann::json::array();
  for (const TextSpan& s : v) out.push_back({s.begin, s.end});
  return out;
}

#include "options_json.inc"
#include "results_json.inc"

struct WebModel {
  std::shared_ptr<const Model> model;
};
struct WebTranslator {
  std::unique_ptr<Translator> translator;
  uint32_t workers = 0;  // pthread pool workers it holds (threads - 1)
  std::string out;       // the last answer, valid until the next call on this translator
  ~WebTranslator();
};

// Threads. A module built with -pthread (preset wasm-threads, tern-web-threads.wasm) runs a translator's
// XNNPACK operators on pthreadpool over Emscripten's pthreads, whose Workers are started with the module
// (threads-pre.js: ternPoolWorkers of them): pthreadpool_create waits for its threads to start, and a Worker
// that is not in the pool would start only once this thread returns to its event loop, so a translator takes
// at most the pool's free workers (N threads hold N - 1) and never waits for one. kMaxThreads bounds a
// translator: a step of a small model gains little from more (docs/performance.md). One thread otherwise.
constexpr uint32_t kMaxThreads = 4;
#ifdef __EMSCRIPTEN_PTHREADS__
EM_JS(int, tern_web_pool_workers, (), { return ternPoolWorkers; });
uint32_t g_workers_held = 0;
#endif
WebTranslator::~WebTranslator() {
  translator.reset();  // joins its pool's threads: their Workers return to the pool
#ifdef __EMSCRIPTEN_PTHREADS__
  g_workers_held -= workers;
#endif
}

// The threads a translator gets for `wanted` (0: the default, the logical processors the browser reports, at
// most kMaxThreads): at most 1 + the pool's free workers; 1 in a module without threads.
uint32_t GrantThreads(uint32_t wanted) {
#ifdef __EMSCRIPTEN_PTHREADS__
  if (wanted == 0) wanted = static_cast<uint32_t>(std::max(1, emscripten_num_logical_cores()));
  const uint32_t pool = static_cast<uint32_t>(std::max(0, tern_web_pool_workers()));
  const uint32_t free_workers = pool > g_workers_held ? pool - g_workers_held : 0;
  return std::min({wanted, kMaxThreads, 1 + free_workers});
#else
  (void)wanted;
  return 1;
#endif
}

// A JSON answer as a C string owned by `keep` (the last one of its owner).
const char* Answer(std::string* keep, const nlohmann::json& j) {
  *keep = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return keep->c_str();
}
nlohmann::json Error(const Status& s) { return {{"error", s.message()}, {"code", static_cast<int>(s.code())}}; }

std::string g_error;  // the last load or create error (single-threaded module)

// A streaming call's token events and abort checks, into JavaScript (tern.mjs sets Module.ternOnToken and
// Module.ternAbort for the call): true from either stops the call.
EM_JS(int, tern_web_js_token, (int index, int part, int parts, uint32_t token, const char* text, size_t len, int last, float logprob), {
  return Module.ternOnToken && Module.ternOnToken(index, part, parts, token, UTF8ToString(text, len), last != 0, logprob) ? 1 : 0;
});
EM_JS(int, tern_web_js_abort, (), { return Module.ternAbort && Module.ternAbort() ? 1 : 0; });

// OnToken's user data: the first input of the chunk running (the event's index is the chunk's).
bool OnToken(const TokenEvent& e, void* chunk_begin) {
  const size_t index = e.index + *static_cast<const size_t*>(chunk_begin);
  return tern_web_js_token(static_cast<int>(index), static_cast<int>(e.part), static_cast<int>(e.parts), e.token, e.text.data(),
                           e.text.size(), e.last ? 1 : 0, e.logprob) == 0;  // go on unless JavaScript said stop
}
bool Abort(void*) { return tern_web_js_abort() != 0; }

}  // namespace
}  // namespace tern

using namespace tern;

extern "C" {

/// Loads and verifies a model from `size` bytes at `data` (copied), naming it `name` in errors. NULL on error
/// (tern_web_last_error says why).
EMSCRIPTEN_KEEPALIVE WebModel* tern_web_model_load(const uint8_t* data, size_t size, const char* name) {
  LoadOptions load;
  load.packed_cache = false;
  Result<std::shared_ptr<const Model>> m = Model::FromBytes(data, size, name ? name : "<bytes>", load);
  if (!m.ok()) {
    g_error = nlohmann::json(Error(m.status())).dump();
    return nullptr;
  }
  return new WebModel{m.value()};
}

EMSCRIPTEN_KEEPALIVE void tern_web_model_free(WebModel* m) { delete m; }

/// A Translator over the model, `config_json` the TranslatorConfig fields the API names (threads, maxBatch,
/// maxBeam, maxNBest, maxSourceTokens, maxTargetTokens, attention; threads as GrantThreads grants them). NULL on
/// error (tern_web_last_error).
EMSCRIPTEN_KEEPALIVE WebTranslator* tern_web_translator_create(const WebModel* m, const char* config_json) {
  TranslatorConfig c;
  uint32_t threads = 0;
  const nlohmann::json j = nlohmann::json::parse(config_json ? config_json : "{}", nullptr, false);
  if (!j.is_object()) {
    g_error = nlohmann::json(Error(Status(StatusCode::kInvalidArgument, "translator config: an object"))).dump();
    return nullptr;
  }
  // Each key the API names, its value checked (Translator::Create then checks the sizes against the model).
  Status bad = Status::Ok();
  for (auto it = j.begin(); it != j.end() && bad.ok(); ++it) {
    const nlohmann::json& v = it.value();
    uint32_t* field = it.key() == "threads" ? &threads : it.key() == "maxBatch" ? &c.max_batch : it.key() == "maxBeam" ? &c.max_beam
                    : it.key() == "maxNBest" ? &c.max_n_best : it.key() == "maxSourceTokens" ? &c.max_source_tokens
                    : it.key() == "maxTargetTokens" ? &c.max_target_tokens : nullptr;
    if (v.is_null()) continue;
    if (field && v.is_number_integer() && v.get<int64_t>() >= 0 && v.get<int64_t>() <= 4294967295) *field = v.get<uint32_t>();
    else if (field) bad = Status(StatusCode::kInvalidArgument, "translator config." + it.key() + ": an integer in [0, 2^32)");
    else if (it.key() == "attention" && v.is_boolean()) c.attention = v.get<bool>();
    else if (it.key() == "attention") bad = Status(StatusCode::kInvalidArgument, "translator config.attention: a boolean");
    else bad = Status(StatusCode::kInvalidArgument, "translator config: no field '" + it.key() + "' (tern.d.ts lists them)");
  }
  if (!bad.ok()) {
    g_error = nlohmann::json(Error(bad)).dump();
    return nullptr;
  }
  c.threads = GrantThreads(threads);
  Result<std::unique_ptr<Translator>> t = Translator::Create(m->model, c);
  if (!t.ok()) {
    g_error = nlohmann::json(Error(t.status())).dump();
    return nullptr;
  }
  auto w = std::make_unique<WebTranslator>();
  w->translator = std::move(t.value());
  w->workers = w->translator->threads() - 1;
#ifdef __EMSCRIPTEN_PTHREADS__
  g_workers_held += w->workers;
#endif
  return w.release();
}

EMSCRIPTEN_KEEPALIVE void tern_web_translator_free(WebTranslator* t) { delete t; }

EMSCRIPTEN_KEEPALIVE const char* tern_web_last_error() { return g_error.c_str(); }

EMSCRIPTEN_KEEPALIVE uint32_t tern_web_max_batch(const WebTranslator* t) { return t->translator->max_batch(); }

/// The threads the translator runs on (1 in a module without threads).
EMSCRIPTEN_KEEPALIVE uint32_t tern_web_threads(const WebTranslator* t) { return t->translator->threads(); }

/// 1 in the module built with pthreads (tern-web-threads), else 0.
EMSCRIPTEN_KEEPALIVE int tern_web_has_threads() {
#ifdef __EMSCRIPTEN_PTHREADS__
  return 1;
#else
  return 0;
#endif
}

/// Translates n texts: text i is bytes [offsets[i], offsets[i + 1]) of `blob` (UTF-8, not checked here: invalid
/// UTF-8 fails that text alone), any number of them: more than max_batch run as the one chunked-call loop runs
/// them (tern/call_chunks.h: each text's sampling key is its index in the call), with `options_json` the options
/// object; `stream` 1: each token goes to Module.ternOnToken (its input numbered in the call) and every step asks
/// Module.ternAbort (a call they stop gives its finished results and the others cancelled). Answer:
/// {"results": [...], "cancelled": bool} or {"error": ..., "code": ...}, valid until the next call on `t`.
EMSCRIPTEN_KEEPALIVE const char* tern_web_translate(WebTranslator* t, const char* blob, const uint32_t* offsets, size_t n,
                                                    const char* options_json, int stream) {
  std::vector<std::string_view> texts(n);
  for (size_t i = 0; i < n; ++i) {
    if (offsets[i + 1] < offsets[i]) return Answer(&t->out, Error(Status(StatusCode::kInvalidArgument, "texts: offsets")));
    texts[i] = std::string_view(blob + offsets[i], offsets[i + 1] - offsets[i]);
  }
  TranslateOptions o;
  std::deque<std::string> strings;
  const nlohmann::json j = nlohmann::json::parse(options_json ? options_json : "{}", nullptr, false);
  if (j.is_discarded()) return Answer(&t->out, Error(Status(StatusCode::kInvalidArgument, "options: not JSON")));
  const Status checked = OptionsFromJson(j, &o, &strings);
  if (!checked.ok()) return Answer(&t->out, Error(checked));
  size_t chunk_begin = 0;
  if (stream) o.on_token = OnToken, o.on_token_user_data = &chunk_begin, o.abort = Abort;
  nlohmann::json out = nlohmann::json::array();
  CallChunks chunks(o, n, t->translator->max_batch());
  size_t delivered = 0;
  const Status s = chunks.Run(
      [&](size_t b, size_t e, const TranslateOptions& chunk, Span<const TranslationResult>* results) {
        chunk_begin = b;
        return t->translator->Translate(Span<const std::string_view>(texts.data() + b, e - b), chunk, results);
      },
      [&](size_t, Span<const TranslationResult> results) {
        for (const TranslationResult& r : results) out.push_back(ResultJson(r));
      },
      &delivered);
  if (!s.ok() && s.code() != StatusCode::kCancelled) return Answer(&t->out, Error(s));
  for (size_t i = delivered; i < n; ++i)  // inputs of chunks a cancellation left out
    out.push_back({{"ok", false}, {"error", "cancelled by the caller"}, {"code", static_cast<int>(StatusCode::kCancelled)}});
  return Answer(&t->out, {{"results", std::move(out)}, {"cancelled", s.code() == StatusCode::kCancelled}});
}

}  // extern "C"
