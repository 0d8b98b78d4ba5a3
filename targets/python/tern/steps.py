"""Translator.generate_tokens: one sentence's generated tokens as a Python iterator (CTranslate2's
Translator.generate_tokens), on the streaming path (translate_batch's callback).

    for step in translator.generate_tokens("A dog runs.", beam_size=1):
        print(step.text, end="", flush=True)        # tern.StreamEvent: token, text, logprob, last

The translation runs on a thread of its own and its events come through a queue; leaving the loop early
(break, an exception, the generator being closed or collected) cancels the call (CancelToken) and waits for
the thread. Greedy search yields each token as it is chosen, beam search the best hypothesis when the
sentence finishes. The Translator is busy meanwhile (another call from elsewhere raises BusyError).
"""

import queue
import threading

from ._tern import CancelToken
from .errors import CancelledError

_END = object()


def generate_tokens(translator, source, **options):
    """Yields the StreamEvents of `source` (a str or bytes text, or a list of source ids with </s>: then
    translate_ids). Keyword arguments are translate_batch's / translate_ids' (not callback, cancel, n_best,
    on_error). Raises the call's error, or the sentence's, where the loop is."""
    for name in ("callback", "cancel", "n_best", "on_error"):
        if name in options:
            raise TypeError("generate_tokens() takes no %r (it streams one hypothesis itself)" % name)
    events = queue.Queue()
    cancel = CancelToken()

    def on_token(event):
        events.put(event)
        return cancel.cancelled  # True stops the call

    def run():
        try:
            if isinstance(source, (str, bytes)):
                res = translator.translate_batch([source], callback=on_token, cancel=cancel, split_sentences=False,
                                                 **options)
            else:
                res = translator.translate_ids([source], callback=on_token, cancel=cancel, **options)
            events.put(_END if res[0].error is None else res[0].error)
        except CancelledError:
            events.put(_END)
        except BaseException as e:  # noqa: B902 (handed to the consumer's thread)
            events.put(e)

    thread = threading.Thread(target=run, name="tern.generate_tokens", daemon=True)
    thread.start()
    try:
        while True:
            item = events.get()
            if item is _END:
                return
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        cancel.cancel()
        thread.join()
