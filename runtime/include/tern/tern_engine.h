/* tern's C API for many requests at once: tern::Engine (tern/engine.h) behind opaque handles.
 *
 *   tern_engine_params ep = tern_engine_default_params();
 *   ep.replicas = 2;
 *   tern_engine* e = tern_engine_create(model, &ep, &err);
 *   const char* in[] = {"A dog runs."};
 *   tern_request* r = tern_submit(e, in, 1, NULL, NULL, NULL, &err);   returns at once
 *   tern_request_wait(r, -1);                                           or a completion callback
 *   tern_request_results(r, results, &err);                             tern.h's accessors read them
 *   tern_request_free(r);
 *   tern_engine_free(e);
 *
 * Thread safety: tern_submit, tern_request_wait / _cancel / _results may be called from any thread at once.
 * A completion callback runs on one of the engine's worker threads and may call any function here on any
 * object (read results, submit, free any request, free the engine): nothing called on a worker thread waits
 * for a worker (tern_request_wait returns 0 at once for a request not complete; tern_engine_free returns
 * without joining, the workers ending by themselves). Nothing here throws or aborts. */
#ifndef TERN_TERN_ENGINE_H_
#define TERN_TERN_ENGINE_H_

#include "tern/tern.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tern_engine tern_engine;
typedef struct tern_request tern_request;

/** Engine settings (tern::EngineConfig). struct_size: sizeof(tern_engine_params) as the caller compiled it,
 * so that fields added later (at the end) keep old callers working: tern reads only what they passed. */
typedef struct tern_engine_params {
  size_t struct_size;                /**< set by tern_engine_default_params() */
  uint32_t replicas;                 /**< translators serving in parallel; 0: performance cores / threads */
  uint32_t max_queued;               /**< requests that may wait; 0: 4,096; beyond it tern_submit fails */
  tern_translator_params translator; /**< each replica's limits (threads 0 means 1 here) */
  int continuous_batching;           /**< 1 (default): finished sentences' slots take waiting ones
                                          (tern::EngineConfig::continuous_batching); 0: static batches */
} tern_engine_params;
TERN_API tern_engine_params tern_engine_default_params(void);

/** Creates the replicas and their worker threads. NULL on failure (err: tern_translator_create's errors,
 * TERN_INVALID_ARGUMENT for a struct_size smaller than the first release's or replicas x threads over 256). */
TERN_API tern_engine* tern_engine_create(const tern_model* model, const tern_engine_params* params, tern_error* err);
/** Cancels queued requests (TERN_CANCELLED), stops running ones at their next step, joins the workers
 * (from a completion callback: does not wait for them; they end by themselves, then release the engine).
 * Requests stay readable until tern_request_free. NULL is allowed. */
TERN_API void tern_engine_free(tern_engine* engine);

/** Called once when a request completes, on a worker thread (tern_request_results may be called in it). */
typedef void (*tern_completion_callback)(tern_request* request, void* user_data);

/** Queues n texts (UTF-8, NUL-terminated; copied) with params (NULL: defaults; their callbacks, glossary
 * and user_data must outlive the request's completion; with on_token or abort it runs alone). Returns at
 * once; NULL on failure (err: TERN_INVALID_ARGUMENT for bad params, TERN_RESOURCE_EXHAUSTED when the queue
 * is full, TERN_CANCELLED after tern_engine_free began). */
TERN_API tern_request* tern_submit(tern_engine* engine, const char* const* texts, size_t n, const tern_translate_params* params,
                                   tern_completion_callback on_done, void* user_data, tern_error* err);
/** The same on token ids (sources[i] of lengths[i] ids, </s> included; copied). */
TERN_API tern_request* tern_submit_ids(tern_engine* engine, const uint32_t* const* sources, const size_t* lengths, size_t n,
                                       const tern_translate_params* params, tern_completion_callback on_done, void* user_data,
                                       tern_error* err);
/** Waits for completion: timeout_ms < 0 forever. 1: complete; 0: not yet (on a worker thread, i.e. in a
 * completion callback, it never waits: 0 at once for a request not complete). */
TERN_API int tern_request_wait(const tern_request* request, int32_t timeout_ms);
/** Asks the request to stop (tern::Ticket::Cancel: a queued one completes at once with TERN_CANCELLED). */
TERN_API void tern_request_cancel(const tern_request* request);
/** Copies a complete request's results into `results` (tern.h's accessors; one per input, also when
 * cancelled) and returns its status (err says why when not TERN_OK). TERN_BUSY while it is not complete. */
TERN_API tern_status_code tern_request_results(const tern_request* request, tern_results* results, tern_error* err);
/** Releases the request: one not complete is cancelled (a queued one never runs) and its on_done is not
 * called unless it has already begun; nothing is waited for, so it may be called from any callback on any
 * request. The memory goes when the completion is done with it (from the request's own on_done: when that
 * returns; fire and forget: submit with a callback that reads the results and frees the request). NULL is
 * allowed; the handle must not be used after it. */
TERN_API void tern_request_free(tern_request* request);

#ifdef __cplusplus
}
#endif

#endif /* TERN_TERN_ENGINE_H_ */
