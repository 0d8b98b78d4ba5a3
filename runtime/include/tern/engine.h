// tern::Engine: many requests at once. N replicas (Translators, each with its own arena and threads) over
// one Model's shared weights, a queue, and submission that returns at once; a worker per replica takes the
// oldest request, adds the queued requests that may share its call (same options, no callbacks of their
// own) up to the replica's max_batch inputs, translates them as one batch and completes each request with
// owned results (tern/owned_result.h). Inputs of a request beyond max_batch run in chunks on one replica.
//
//   auto engine = tern::Engine::Create(model, {.replicas = 2}).value();
//   tern::Request r;
//   r.texts = {"A dog runs.", "Two cats."};
//   tern::Ticket t = engine->Submit(std::move(r)).value();   // returns at once
//   const tern::RequestOutcome& out = t.Wait();               // out.results[0].best().text
//
// A request's failure never touches another's: its options are checked alone (Translator::CheckOptions)
// before it may share a call, and an input that fails fails alone as in Translator::Translate. Results do
// not depend on which requests shared a call: tern's batches give each sentence what it gives alone (the
// test "a batch gives exactly what each sentence gives alone"; tests/test_engine.cc checks it through the
// engine). With continuous_batching (the default) a replica's call is continuous (tern/continuous.h): when a
// sentence ends, its result goes to its request at once (a request completes with its last input) and its
// slot takes the next input of the call or of a queued request that may share it, which joins the running
// decoder (a text of several sentences joins as its sentences); calls whose options a continuous call
// refuses, and texts with spans auto_protect keeps, run as static calls (a batch that runs until its longest
// sentence ends).
//
// Thread safety: Submit, Ticket's calls and Cancel may be made from any thread at once. Completion
// callbacks run on a worker thread, outside the engine's locks, and may call anything here on any object;
// nothing called in a callback or on a worker thread waits for a worker: Ticket::Wait of a request not yet
// complete returns at once with kBusy (it could be waiting for the thread it runs on), Shutdown and the destructor return
// without joining (the workers end by themselves and the last one releases the engine). Destroying the
// engine elsewhere cancels what is queued (kCancelled), stops what runs at its next decoder step, completes
// every request, then joins the workers.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tern/export.h"
#include "tern/owned_result.h"
#include "tern/translator.h"

namespace tern {

/// Creation-time settings of an Engine.
struct EngineConfig {
  /// Replicas (Translators) serving the queue in parallel, each with its own arena (Translator::arena_bytes)
  /// and `translator.threads` threads. 0: the CPU's performance cores divided by translator.threads (>= 1).
  uint32_t replicas = 0;
  /// Each replica's limits (max_batch is also the most inputs one call takes from the queue). threads 0
  /// means 1 here (replicas, not threads, are the engine's parallelism).
  TranslatorConfig translator;
  /// Requests waiting at most; Submit beyond it returns kResourceExhausted (back-pressure). 0: 4,096.
  uint32_t max_queued = 0;
  /// Continuous batching (see the top of this file); plans TranslatorConfig::continuous_batching's buffers.
  /// false: every call is a static batch.
  bool continuous_batching = true;
};

/// A unit of work: the inputs it owns and its options. Exactly one of `texts` (Translate) and `ids`
/// (TranslateIds, each source as given with `</s>`) is non-empty; a request with neither completes at once
/// with no results.
struct Request {
  std::vector<std::string> texts;           ///< UTF-8 texts
  std::vector<std::vector<uint32_t>> ids;   ///< token ids [n_inputs][source_len]
  /// The call's options. The engine copies `target_lang` and `keep_spans` (their views may die after
  /// Submit); `glossary`, `logits_processors` and the callbacks' user_data are not owned and must outlive
  /// the request's completion. on_token / abort make the request run alone (never sharing a call).
  TranslateOptions options;
};

/// What a request came to.
struct RequestOutcome {
  /// kOk; kCancelled (Ticket::Cancel, the request's own abort, or the engine being destroyed: results of
  /// inputs that finished are kept, the others carry kCancelled); or the error of a request wrong as a whole
  /// (kInvalidArgument: its options, Translator::CheckOptions; kUnsupported/kInvalidArgument from Translate).
  Status status;
  std::vector<OwnedResult> results;  ///< one per input, in order (also on kCancelled); empty on other errors
  double queued_ms = 0;  ///< from Submit until a replica took it (milliseconds)
  double run_ms = 0;     ///< from then until its results were complete (milliseconds)
  uint32_t replica = 0;  ///< the replica that ran it
  uint32_t shared_with = 0;  ///< other requests its (first) call carried (a continuous call: had taken when it completed)
};

/// Called once per request when it completes, on a worker thread (or on the thread destroying the engine).
/// `outcome` is valid during the call; the Ticket keeps it too.
using CompletionCallback = void (*)(uint64_t request_id, const RequestOutcome& outcome, void* user_data);

namespace serving { struct TicketState; }

/// A submitted request: wait for it, poll it, cancel it. Copies share one request; cheap to copy.
class TERN_API Ticket {
 public:
  Ticket() = default;  ///< an empty Ticket (no request): done, Wait() gives kInvalidArgument
  /// The engine's constructor of a Ticket (callers get theirs from Engine::Submit).
  explicit Ticket(std::shared_ptr<serving::TicketState> state);
  uint64_t id() const;          ///< the engine's number for the request (1, 2, ...); 0 for an empty Ticket
  bool done() const;            ///< its outcome is ready and its completion callback returned
  /// Blocks until the request completes and its completion callback has returned; the outcome lives as
  /// long as any copy of the Ticket. In a completion callback (and on an engine's worker thread) it does not
  /// wait: the outcome when it is written (the callback's own request), else an outcome with kBusy (waiting
  /// there could wait for the thread it runs on).
  const RequestOutcome& Wait() const;
  /// Waits at most `timeout_ms` milliseconds; true when the request completed. In a callback: no wait.
  bool WaitFor(uint32_t timeout_ms) const;
  /// Asks the request to stop: a queued one completes at once with kCancelled, never having run (returns
  /// true); a running one stops at its next decoder step if it runs alone (a call it shares stops when all
  /// of its requests are cancelled; in a continuous call its inputs not yet begun are not begun): false, as
  /// for a request already complete.
  bool Cancel() const;

 private:
  std::shared_ptr<serving::TicketState> state_;
};

/// Many requests at once over one Model (see the top of this file): replicas, a queue, workers.
class TERN_API Engine {
 public:
  /// Creates the replicas (Translator::Create's errors, the first that fails; kInvalidArgument when
  /// replicas x threads exceed 256) and starts a worker thread for each.
  static Result<std::unique_ptr<Engine>> Create(std::shared_ptr<const Model> model, const EngineConfig& config);
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  /// Queues `request` and returns at once. Errors (nothing queued): kResourceExhausted when max_queued
  /// requests wait, kInvalidArgument for a request with both texts and ids, kCancelled after Shutdown().
  /// `on_done` (optional) is called once when it completes, with `user_data`.
  Result<Ticket> Submit(Request request, CompletionCallback on_done = nullptr, void* user_data = nullptr);

  /// Cancels every queued request, stops running ones at their next step, waits for the workers to finish
  /// (on a worker thread, i.e. from a completion callback: returns without waiting); later Submits fail
  /// with kCancelled. The destructor calls it.
  void Shutdown();

  /// True on a worker thread of any Engine (where completion callbacks run): waiting there is refused.
  static bool OnWorkerThread();

  uint32_t replicas() const;        ///< replicas serving
  uint32_t max_batch() const;       ///< inputs per call of a replica
  size_t queued() const;            ///< requests waiting now
  size_t arena_bytes() const;       ///< all replicas' arenas (bytes)
  const Model& model() const;      ///< the model every replica runs

 private:
  struct Impl;
  explicit Engine(std::shared_ptr<Impl> impl);
  std::shared_ptr<Impl> impl_;  // shared with the worker threads (see Shutdown)
};

}  // namespace tern
