"""tern.Engine: many requests at once (tern/engine.h). Replicas (each a Translator with its own arena and
threads) serve a queue; submitting returns a concurrent.futures.Future at once; queued requests with the
same options share a call, up to max_batch texts.

    engine = tern.Engine(model, replicas=2, threads=1)
    fut = engine.submit(["A dog runs."], beam_size=4)          # Future -> list of TranslationResult
    futs = engine.translate_batch(texts, asynchronous=True)    # one Future per text
    for r in engine.translate_iterable(open("in.txt")):         # results in input order, read ahead
        print(r.text)

Results are the same TranslationResult objects Translator returns, whichever requests shared a call.
Future.cancel() cancels a request that waits (and one that runs alone, at its next decoder step).
"""

import atexit
import concurrent.futures
import itertools
import threading
import weakref

from . import _tern
from . import errors as _errors

_engines = weakref.WeakSet()


@atexit.register
def _close_all():
    # Workers complete requests with the GIL taken: they must be stopped before the interpreter finalizes.
    for e in list(_engines):
        e.close()
    _tern._release_closed_engines()  # engines dropped in a done callback: joined here, off their workers


class Future(concurrent.futures.Future):
    """A concurrent.futures.Future whose cancel() also cancels the engine's request: a request still in
    the queue is taken out and never runs (cancel() returns True, as for any pending Future); a running one
    is asked to stop at its next decoder step (cancel() returns False, and the Future ends with
    CancelledError, or with the results if it finished first).

    Done callbacks run on an engine worker thread. They may call anything, on any object (another
    Future's result(), engine.close(), dropping the last reference to the engine): result() and exception()
    of a Future not yet done raise BusyError there at once instead of waiting (the request could need the
    very thread that waits)."""

    def __init__(self):
        super().__init__()
        self._ticket = None
        self._cancel_thread = None  # the thread inside cancel(): a queued request completes on it
        self.info = {}  # queued_ms, run_ms, replica, shared_with once done

    def cancel(self):
        ticket = self._ticket
        if ticket is None or self.done():
            return super().cancel()
        self._cancel_thread = threading.get_ident()
        try:
            taken_out = ticket.cancel()  # a queued request completes now, on this thread (its outcome ignored)
        finally:
            self._cancel_thread = None
        return super().cancel() if taken_out else False

    def _refuse_wait(self, what):
        if not self.done() and _tern._on_engine_worker():
            raise _errors.BusyError(f"Future.{what}() in a done callback (an engine worker thread) for a request "
                                    "not yet done: it does not wait there")

    def result(self, timeout=None):
        self._refuse_wait("result")
        return super().result(timeout)

    def exception(self, timeout=None):
        self._refuse_wait("exception")
        return super().exception(timeout)


class Engine:
    """replicas: Translators serving in parallel (0: the performance cores // threads); threads: each
    replica's threads (1: none of its own). max_batch, max_beam, max_n_best, max_source_tokens,
    max_target_tokens: each replica's limits, as Translator's. max_queued: requests that may wait (0:
    4,096); submit() beyond it raises ResourceExhaustedError. continuous_batching (default True): a
    finished sentence's slot takes the next waiting sentence, which joins the running batch, and a request
    completes as soon as its sentences end (tern/engine.h); False: static batches. attention: plan the
    buffers of return_attention and coverage_penalty (as Translator's)."""

    def __init__(self, model, *, replicas=0, threads=1, max_batch=0, max_beam=0, max_n_best=1, max_source_tokens=0,
                 max_target_tokens=0, max_queued=0, continuous_batching=True, attention=False):
        self._engine = _tern._Engine(model, replicas=replicas, threads=threads, max_batch=max_batch,
                                     max_beam=max_beam, max_n_best=max_n_best, max_source_tokens=max_source_tokens,
                                     max_target_tokens=max_target_tokens, max_queued=max_queued,
                                     continuous_batching=continuous_batching, attention=attention)
        _engines.add(self)

    replicas = property(lambda self: self._engine.replicas, doc="replicas serving")
    max_batch = property(lambda self: self._engine.max_batch, doc="texts per call of a replica")
    queued = property(lambda self: self._engine.queued, doc="requests waiting now")
    arena_bytes = property(lambda self: self._engine.arena_bytes, doc="all replicas' arenas, bytes")

    def submit(self, texts, *, on_error="raise", **options):
        """Queues a list of texts as one request and returns a Future of its list of TranslationResult.
        options: translate_batch's (beam_size, n_best, max_length, length_penalty, target_lang, markup,
        glossary, keep_placeholders, keep_spans, callback, ...), except cancel (use Future.cancel). callback
        (a StreamEvent per token, True to stop) runs on a worker thread; a request with one runs alone.
        on_error='raise': the Future's exception is the first failed text's error; 'keep': it stays in
        that result. Raises at once for wrong options, a full queue or a closed engine."""
        if isinstance(texts, (str, bytes)):
            raise TypeError("texts: expected a list of str (or bytes), got " + type(texts).__name__)
        if on_error not in ("raise", "keep"):
            raise _errors.InvalidArgumentError(f"on_error: 'raise' or 'keep', got {on_error!r}")
        return self._submit(self._engine.submit, list(texts), on_error, options)

    def submit_ids(self, sources, *, on_error="raise", **options):
        """As submit(), on token ids: a list of 1-D integer arrays, each a source with its </s>
        (Translator.translate_ids' input and options)."""
        if on_error not in ("raise", "keep"):
            raise _errors.InvalidArgumentError(f"on_error: 'raise' or 'keep', got {on_error!r}")
        return self._submit(self._engine.submit_ids, list(sources), on_error, options)

    def _submit(self, submit, inputs, on_error, options, pick=None):
        fut = Future()

        def done(error, results, info):
            fut.info = info
            if fut.done() or fut._cancel_thread == threading.get_ident():
                return  # cancelled while queued: cancel() marks the Future cancelled
            if error is not None:
                if results is not None:
                    error.results = results
                fut.set_exception(error)
            elif on_error == "raise" and any(r.error is not None for r in results):
                i = next(i for i, r in enumerate(results) if r.error is not None)
                err = results[i].error
                err = type(err)(f"input {i}: {err.message}")
                err.index, err.results = i, results
                fut.set_exception(err)
            else:
                fut.set_result(results if pick is None else results[pick])

        fut._ticket = submit(inputs, done, **options)
        return fut

    def translate_batch(self, texts, *, asynchronous=False, **options):
        """Each text a request of its own (the queue lets them share calls), keyed for sampling by its index in
        `texts` (or the caller's sampling_keys), so a seeded call samples as Translator.translate_batch does.
        asynchronous=False: a list of TranslationResult (waits); True: a list of Future, one per text, each of one
        TranslationResult."""
        texts = list(texts)
        keys = options.pop("sampling_keys", None)
        if keys is not None and len(keys) != len(texts):
            raise _errors.InvalidArgumentError(f"sampling_keys: {len(keys)} keys for {len(texts)} inputs (one per input, or None)")
        futs = [self._one(t, dict(options, sampling_keys=[i if keys is None else keys[i]])) for i, t in enumerate(texts)]
        if asynchronous:
            return futs
        return [f.result() for f in futs]

    def _one(self, text, options):
        options = dict(options)
        on_error = options.pop("on_error", "raise")
        if on_error not in ("raise", "keep"):
            raise _errors.InvalidArgumentError(f"on_error: 'raise' or 'keep', got {on_error!r}")
        return self._submit(self._engine.submit, [text], on_error, options, pick=0)

    def translate_iterable(self, iterable, *, max_batch_size=32, batch_type="examples", read_ahead=None,
                           **options):
        """Yields a TranslationResult per text of `iterable`, in input order, while it reads ahead: texts are
        taken in buffers of read_ahead (default max_batch_size x replicas x 4), sorted by length (as
        CTranslate2's translate_iterable does) and submitted in groups of max_batch_size texts
        (batch_type='examples') or of at most max_batch_size whitespace tokens ('tokens').

        A text that fails (invalid UTF-8, too long, ...) or an item that is not a text ends the iteration:
        every result before it is yielded first, then its error is raised, its message starting "item N: " and
        its ``index`` N, the item's position in `iterable`. An exception the iterable itself raises comes the
        same way: after every result of the items before it, with ``index`` and a note naming that position."""
        if batch_type not in ("examples", "tokens"):
            raise _errors.InvalidArgumentError(f"batch_type: 'examples' or 'tokens', got {batch_type!r}")
        if max_batch_size < 1:
            raise _errors.InvalidArgumentError("max_batch_size: at least 1")
        read_ahead = read_ahead or max_batch_size * max(1, self.replicas) * 4
        it = iter(iterable)
        base = 0        # the caller's index of the buffer's first text
        pending = []    # (future of a group, index in the group, the caller's index), in input order
        stop = None     # what ends the iteration once everything before it is yielded
        while True:
            buf = []
            while stop is None and len(buf) < read_ahead:
                try:
                    item = next(it)
                except StopIteration:
                    break
                except Exception as raised:  # the iterable's own error, at the caller's index base + len(buf)
                    raised.index = base + len(buf)
                    raised.add_note(f"tern: the iterable raised this at item {raised.index}; every result before it was yielded")
                    stop = raised
                    break
                if not isinstance(item, (str, bytes)):
                    stop = TypeError(f"item {base + len(buf)}: a str (or bytes of UTF-8) is needed, got {type(item).__name__}")
                    stop.index = base + len(buf)
                    break
                buf.append(item)
            order = sorted(range(len(buf)), key=lambda i: len(buf[i]))
            slot = [None] * len(buf)
            group, size = [], 0
            for i in order + [None]:
                cost = 1 if batch_type == "examples" or i is None else max(1, len(buf[i].split()))
                if group and (i is None or size + cost > max_batch_size):
                    fut = self.submit([buf[j] for j in group], on_error="keep", **options)
                    for k, j in enumerate(group):
                        slot[j] = (fut, k, base + j)
                    group, size = [], 0
                if i is not None:
                    group.append(i)
                    size += cost
            # Yield what the previous buffer gave while this one runs.
            for fut, k, index in pending:
                r = fut.result()[k]
                if r.error is not None:
                    err = type(r.error)(f"item {index}: {r.error.message}")
                    err.index = index
                    raise err
                yield r
            pending = slot
            base += len(buf)
            if not buf:
                if stop is not None:
                    raise stop
                return

    def close(self):
        """Cancels waiting requests, stops running ones, joins the workers (also at interpreter exit)."""
        self._engine.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

