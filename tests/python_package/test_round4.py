"""Hostile input, round four, from Python (docs/reliability.md "Round four"): done callbacks that close or drop
their engine, a done callback waiting on another future, Future.cancel() of a queued request, the engine
taking every translate_batch option, and scoring with an empty source."""

import concurrent.futures
import subprocess
import sys
import textwrap
import threading

import pytest

import tern

TEXTS = ["A dog runs on the beach.", "Two cats sleep on a red sofa.", "A man.", "A woman reads a book in the park."]


def _run(code, model_path, timeout=120):
    """Runs `code` in a fresh interpreter (MODEL names the bundled model); returns (returncode, stdout, stderr)."""
    p = subprocess.run([sys.executable, "-c", "MODEL = %r\n" % str(model_path) + textwrap.dedent(code)],
                       capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def test_a_done_callback_may_close_its_engine(model_path):
    # The callback runs on the engine's worker thread: close() there used to join that very thread
    # ("Resource deadlock avoided"), leave the engine half shut down and abort the process at exit (134).
    rc, out, err = _run("""
        import tern
        e = tern.Engine(tern.Model.load(MODEL), replicas=1, threads=1)
        closed = []
        fut = e.submit(["A dog runs on the beach."])
        fut.add_done_callback(lambda f: (e.close(), closed.append(True)))
        print(fut.result(timeout=60)[0].text)
        import time
        for _ in range(600):
            if closed: break
            time.sleep(0.01)
        print(closed)
        try:
            e.submit(["A cat."])
        except tern.CancelledError as x:
            print("refused:", "shut down" in str(x))
        e.close()
    """, model_path)
    assert rc == 0, err
    assert "terminate" not in err and "deadlock" not in err.lower(), err
    assert out.splitlines()[1:] == ["[True]", "refused: True"], out


def test_an_engine_whose_last_reference_is_a_done_callback_ends_normally(model_path):
    # Fire and forget: the Engine object dies inside its own done callback, on its worker thread.
    rc, out, err = _run("""
        import threading, tern
        m = tern.Model.load(MODEL)
        done = threading.Event()
        got = []
        def start():
            e = tern.Engine(m, replicas=2, threads=1)
            def cb(f, e=e):
                got.append(f.result()[0].text)
                done.set()
            e.submit(["A dog runs on the beach."]).add_done_callback(cb)
        start()
        assert done.wait(60)
        print(got[0])
        # another engine made after it (the dropped one is joined off its worker here)
        e2 = tern.Engine(m, replicas=1)
        print(e2.submit(["A cat."]).result(timeout=60)[0].ok)
    """, model_path)
    assert rc == 0, err
    assert "terminate" not in err, err
    assert out.splitlines() == ["Ein Hund läuft am Strand.", "True"], out


def test_a_done_callback_waiting_on_another_future_fails_at_once(model):
    # One replica: the other request can only run on the thread running this callback, so waiting would hang.
    e = tern.Engine(model, replicas=1, threads=1, max_batch=1)
    gate = threading.Event()
    blocker = e.submit([TEXTS[3]], beam_size=1, callback=lambda ev: gate.wait(60) and None)
    later = e.submit([TEXTS[0]], beam_size=4)
    seen = []

    def cb(f):
        try:
            later.result()
            seen.append("waited")
        except tern.BusyError as x:
            seen.append(str(x))
        try:
            later.exception(timeout=5)
            seen.append("waited")
        except tern.BusyError:
            seen.append("busy")

    blocker.add_done_callback(cb)  # before it can complete: the callback runs on the worker
    gate.set()
    assert blocker.result(timeout=60)[0].ok
    assert later.result(timeout=60)[0].ok  # the main thread may wait
    e.close()
    assert len(seen) == 2 and "does not wait" in seen[0] and seen[1] == "busy", seen


def test_cancel_of_a_queued_request_returns_true_and_it_never_runs(model):
    e = tern.Engine(model, replicas=1, threads=1, max_batch=1)
    hold = threading.Event()
    started = threading.Event()

    def slow(ev):  # holds the only replica until released
        started.set()
        hold.wait(60)

    running = e.submit([TEXTS[0]], beam_size=1, callback=slow)
    assert started.wait(60)
    events = []
    queued = e.submit([TEXTS[1]], beam_size=1, callback=events.append)
    assert queued.cancel() is True
    assert queued.cancelled() and queued.done()
    with pytest.raises(concurrent.futures.CancelledError):
        queued.result(timeout=1)
    assert running.cancel() is False  # running: asked to stop, not cancelled as a Future
    hold.set()
    try:
        running.result(timeout=60)
    except tern.CancelledError:
        pass
    e.close()
    assert events == []  # the cancelled request never ran
    assert queued.cancel() is True  # cancelling a cancelled Future again: True, as concurrent.futures says


def test_engine_close_from_a_streaming_callback_and_from_many_done_callbacks(model):
    e = tern.Engine(model, replicas=2, threads=1, max_batch=2)
    futs = [e.submit([t], beam_size=2) for t in TEXTS * 3]
    for f in futs:
        f.add_done_callback(lambda f: e.close())
    for f in futs:
        try:
            f.result(timeout=60)
        except (tern.CancelledError, concurrent.futures.CancelledError):
            pass
    e.close()
    e2 = tern.Engine(model, replicas=1, threads=1)
    stopped = e2.submit([TEXTS[3]], beam_size=1, callback=lambda ev: e2.close())
    with pytest.raises(tern.CancelledError):
        stopped.result(timeout=60)
    e2.close()
