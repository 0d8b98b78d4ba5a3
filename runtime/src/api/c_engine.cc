// The C API's engine (tern/tern_engine.h): tern::Engine and its tickets behind opaque handles.
#include <cstddef>
#include <condition_variable>
#include <mutex>

#include "api/c_api_internal.h"
#include <algorithm>

#include "tern/engine.h"
#include "tern/tern_engine.h"

struct tern_engine {
  std::shared_ptr<const tern::Model> model;
  std::unique_ptr<tern::Engine> engine;
};

// Three owners release a request, the last deleting it: the caller's handle (tern_request_free), the
// completion (after on_done returns) and tern_submit (once it has stored the ticket; the completion can
// run before that, on a worker or on tern_submit's own thread). Nothing here waits for a completion, so
// freeing from any callback never hangs.
struct tern_request {
  tern::Ticket ticket;  // set under mu by tern_submit once Submit returned
  std::unique_ptr<tern::c_api::CallOptions> options;  // pinned: the request's options point into it
  tern_completion_callback on_done = nullptr;
  void* user_data = nullptr;
  std::atomic<const tern::RequestOutcome*> outcome{nullptr};  // set at completion, before on_done
  std::mutex mu;
  int owners = 3;      // the handle, the completion, tern_submit
  bool freed = false;  // tern_request_free was called: on_done is not called if it has not begun
};

namespace {

using tern::c_api::Fail;
using tern::c_api::Guarded;
using tern::c_api::SetError;

// Drops one owner; the last deletes the request.
void Release(tern_request* r) {
  {
    std::lock_guard<std::mutex> lock(r->mu);
    if (--r->owners > 0) return;
  }
  delete r;
}

void Completed(uint64_t, const tern::RequestOutcome& out, void* user_data) {
  auto* r = static_cast<tern_request*>(user_data);
  r->outcome.store(&out);
  bool call;
  {
    std::lock_guard<std::mutex> lock(r->mu);
    call = r->on_done && !r->freed;
  }
  if (call) r->on_done(r, r->user_data);
  Release(r);
}

tern_request* Submit(tern_engine* e, tern::Request req, const tern_translate_params* params, tern_completion_callback on_done,
                     void* user_data, tern_error* err) {
  auto r = std::make_unique<tern_request>();
  r->options = std::make_unique<tern::c_api::CallOptions>(params, req.texts.empty() ? req.ids.size() : req.texts.size());
  if (!r->options->status().ok()) return Fail(err, r->options->status()), nullptr;
  req.options = r->options->options();
  r->on_done = on_done, r->user_data = user_data;
  tern::Result<tern::Ticket> t = e->engine->Submit(std::move(req), &Completed, r.get());
  if (!t.ok()) return Fail(err, t.status()), nullptr;
  tern_request* out = r.release();  // owned by the three owners now (see tern_request)
  {
    std::lock_guard<std::mutex> lock(out->mu);
    out->ticket = t.value();
  }
  // The handle is returned even when on_done already freed it (it is never used again then).
  const auto handle = reinterpret_cast<uintptr_t>(out);
  Release(out);
  return reinterpret_cast<tern_request*>(handle);
}

}  // namespace

extern "C" {

tern_engine_params tern_engine_default_params(void) {
  tern_engine_params p{};
  p.struct_size = sizeof(tern_engine_params);
  p.translator = tern_translator_default_params();
  p.continuous_batching = 1;
  return p;
}

tern_engine* tern_engine_create(const tern_model* model, const tern_engine_params* params, tern_error* err) {
  return Guarded(err, static_cast<tern_engine*>(nullptr), [&]() -> tern_engine* {
    if (!model) return SetError(err, TERN_INVALID_ARGUMENT, "tern_engine_create: model is NULL"), nullptr;
    tern_engine_params p = tern_engine_default_params();
    // The first release's size: up to continuous_batching (later fields keep their defaults).
    if (params && !tern::c_api::ReadParams(params, offsetof(tern_engine_params, continuous_batching), &p))
      return SetError(err, TERN_INVALID_ARGUMENT,
                      tern::c_api::StructSizeError("tern_engine_create", params->struct_size, "tern_engine_default_params")),
             nullptr;
    if (p.translator.struct_size < sizeof(tern_translator_params))
      return SetError(err, TERN_INVALID_ARGUMENT,
                      tern::c_api::StructSizeError("tern_engine_create", p.translator.struct_size,
                                                   "tern_engine_default_params", "params->translator.struct_size")),
             nullptr;
    tern::EngineConfig c;
    if (p.continuous_batching != 0 && p.continuous_batching != 1)
      return SetError(err, TERN_INVALID_ARGUMENT,
                      "tern_engine_params.continuous_batching " + std::to_string(p.continuous_batching) + " (0 or 1)"),
             nullptr;
    c.replicas = p.replicas, c.max_queued = p.max_queued, c.continuous_batching = p.continuous_batching == 1;
    c.translator = tern::c_api::ConfigOf(p.translator);
    auto e = tern::Engine::Create(model->model, c);
    if (!e.ok()) return Fail(err, e.status()), nullptr;
    return new tern_engine{model->model, std::move(e.value())};
  });
}

void tern_engine_free(tern_engine* engine) {
  if (!engine) return;
  engine->engine->Shutdown();
  delete engine;
}

tern_request* tern_submit(tern_engine* e, const char* const* texts, size_t n, const tern_translate_params* params,
                          tern_completion_callback on_done, void* user_data, tern_error* err) {
  return Guarded(err, static_cast<tern_request*>(nullptr), [&]() -> tern_request* {
    if (!e || (!texts && n)) return SetError(err, TERN_INVALID_ARGUMENT, "tern_submit: engine or texts is NULL"), nullptr;
    tern::Request req;
    req.texts.reserve(n);
    for (size_t i = 0; i < n; ++i) req.texts.emplace_back(texts[i] ? texts[i] : "");
    return Submit(e, std::move(req), params, on_done, user_data, err);
  });
}

tern_request* tern_submit_ids(tern_engine* e, const uint32_t* const* sources, const size_t* lengths, size_t n,
                              const tern_translate_params* params, tern_completion_callback on_done, void* user_data,
                              tern_error* err) {
  return Guarded(err, static_cast<tern_request*>(nullptr), [&]() -> tern_request* {
    if (!e || ((!sources || !lengths) && n))
      return SetError(err, TERN_INVALID_ARGUMENT, "tern_submit_ids: engine, sources or lengths is NULL"), nullptr;
    for (size_t i = 0; i < n; ++i)  // a NULL source with a length: refused at once, before anything is copied
      if (!sources[i] && lengths[i])
        return SetError(err, TERN_INVALID_ARGUMENT, "tern_submit_ids: sources[" + std::to_string(i) + "] is NULL with length " +
                                                        std::to_string(lengths[i])),
               nullptr;
    // The request keeps a copy of each source, at most one id past the model's positions: a longer one fails
    // alone as too long, whatever length the caller claims (no copy is sized by an unchecked length).
    const size_t most = size_t{e->model->hparams().max_positions} + 1;
    tern::Request req;
    req.ids.resize(n);
    for (size_t i = 0; i < n; ++i)
      if (sources[i]) req.ids[i].assign(sources[i], sources[i] + std::min(lengths[i], most));
    return Submit(e, std::move(req), params, on_done, user_data, err);
  });
}

int tern_request_wait(const tern_request* r, int32_t timeout_ms) {
  if (!r) return 1;
  if (timeout_ms < 0) {
    r->ticket.Wait();  // in a callback it does not wait
    return r->outcome.load() != nullptr || r->ticket.done() ? 1 : 0;
  }
  return r->ticket.WaitFor(static_cast<uint32_t>(timeout_ms)) ? 1 : 0;
}

void tern_request_cancel(const tern_request* r) {
  if (r) r->ticket.Cancel();
}

tern_status_code tern_request_results(const tern_request* r, tern_results* results, tern_error* err) {
  return Guarded(err, TERN_INTERNAL, [&]() -> tern_status_code {
    if (!r || !results) return SetError(err, TERN_INVALID_ARGUMENT, "tern_request_results: request or results is NULL"), TERN_INVALID_ARGUMENT;
    const tern::RequestOutcome* out = r->outcome.load();
    if (!out && r->ticket.id() && r->ticket.done()) out = &r->ticket.Wait();
    if (!out) return SetError(err, TERN_BUSY, "tern_request_results: the request has not completed"), TERN_BUSY;
    results->sentences.resize(std::max(results->sentences.size(), out->results.size()));
    for (size_t i = 0; i < out->results.size(); ++i) results->sentences[i] = out->results[i];  // the one record
    results->count = out->results.size();
    if (!out->status.ok()) return Fail(err, out->status);
    return TERN_OK;
  });
}

void tern_request_free(tern_request* r) {
  if (!r) return;
  tern::Ticket ticket;
  {
    std::lock_guard<std::mutex> lock(r->mu);
    r->freed = true;
    ticket = r->ticket;
  }
  ticket.Cancel();  // never waits: a queued request completes now (without its on_done), a running one stops soon
  Release(r);
}

}  // extern "C"
