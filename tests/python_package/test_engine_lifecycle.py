"""The engine's lifecycle from Python, and what round four found (docs/reliability.md): done callbacks that close or drop
their engine, a done callback waiting on another future, Future.cancel() of a queued request, the engine
taking every translate_batch option, and scoring with an empty source."""

import concurrent.futures
import subprocess
import sys
import textwrap
import pathlib
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


def test_scoring_an_empty_source_scores_the_target(translator, model):
    # #3: an empty or blank source scored 0.0 (probability 1) with no tokens, whatever the target.
    r = translator.score_batch(["", " \t", "A dog runs."], ["Ein Hund läuft."] * 3)
    for x in r[:2]:
        assert x.ok and x.hypotheses[0].score < -1.0
        assert len(x.hypotheses[0].token_logprobs) == len(r[2].hypotheses[0].token_logprobs)
    assert r[0].hypotheses[0].score < r[2].hypotheses[0].score
    out = translator.translate_batch([""], target_prefix=["Eine Frau"])
    assert out[0].text.startswith("Eine Frau")


def test_sampling_temperature_out_of_range_is_refused_everywhere(translator, model):
    # #8: 1e-38 overflowed the scores: garbage with score 0.0. One rule, every binding (and the CLI, cli_test.sh).
    for t in (1e-38, 0.0, -1.0, float("nan"), float("inf")):
        with pytest.raises(tern.InvalidArgumentError, match="sampling_temperature .*: must be finite and >= 1e-06"):
            translator.translate_batch(["A dog."], do_sample=True, sampling_temperature=t)
    e = tern.Engine(model, replicas=1)
    with pytest.raises(tern.InvalidArgumentError, match="sampling_temperature"):
        e.submit(["A dog."], do_sample=True, sampling_temperature=1e-38)
    e.close()
    from tern.compat import ctranslate2
    t = ctranslate2.Translator(str(pathlib.Path(model_path_of(model))))
    with pytest.raises(tern.InvalidArgumentError, match="sampling_temperature"):
        t.translate_batch([["▁A", "▁dog"]], beam_size=1, sampling_topk=10, sampling_temperature=1e-38)
    assert translator.translate_batch(["A dog."], do_sample=True, sampling_temperature=1e-6)[0].ok  # the smallest taken


def model_path_of(model):
    return pathlib.Path(__file__).resolve().parents[2] / "models/en-de/en-de.int8.tern"


def test_engine_takes_every_translate_batch_option(model, translator):
    # #9: Engine.submit(target_prefix=...) was a TypeError; logits processors too.
    with tern.Engine(model, replicas=1, threads=1) as e:
        got = e.submit(["A man rides a bike on the street."], target_prefix=["Eine Frau"]).result(timeout=60)
        assert got[0].text.startswith("Eine Frau")
        want = translator.translate_batch(["A man rides a bike on the street."], target_prefix=["Eine Frau"])
        assert got[0].text == want[0].text
        first = got[0].hypotheses[0].tokens[0]

        def ban(row):
            c = row.column(first)
            if c >= 0:
                row.scores[c] = float("-inf")

        banned = e.submit(["A man rides a bike on the street."], beam_size=1, logits_processors=[ban]).result(timeout=60)
        assert banned[0].hypotheses[0].tokens[0] != first


def test_a_seeded_sampling_request_samples_the_same_alone_or_batched(model, translator):
    # #7: a sentence's draws depended on its index in whatever call it shared.
    kw = dict(do_sample=True, sampling_topk=0, sampling_temperature=1.5, seed=7)
    mine = ["A man in a blue shirt is standing on a ladder.", "Two dogs play with a ball in a park."]
    alone = [r.text for r in translator.translate_batch(mine, **kw)]
    for place in range(3):
        with tern.Engine(model, replicas=1, threads=1) as e:
            gate = threading.Event()
            held = e.submit(["A girl."], beam_size=1, callback=lambda ev: gate.wait(60) and None)
            batch = [["A boy jumps."], ["People walk."]]
            batch.insert(place, mine)  # ours first, in the middle or last of the call they share
            futs = [e.submit(texts, **kw) for texts in batch]
            ours = futs[place]
            gate.set()
            assert [r.text for r in ours.result(timeout=60)] == alone
            assert place == 0 or ours.info["shared_with"] > 0  # it did share a call
            held.result(timeout=60)
    # and in any chunking of translate_batch (a call larger than max_batch)
    small = tern.Translator(model, threads=1, max_batch=1)
    assert [r.text for r in small.translate_batch(mine, **kw)] == alone


def test_a_run_of_unknown_characters_tokenizes_in_linear_time(model_path):
    # Item 4: 1 MB of '{' (characters the vocabulary lacks) took SentencePiece ~24 s against 0.5 s for 'a'. The
    # ratio of the two, best of three interleaved on this process (not a time: machines are shared), through
    # tokenize() and translate_batch; the bound is the 20x.
    import time

    m = tern.Model.load(model_path)
    t = tern.Translator(m, threads=1)
    unknown, plain = "{" * 1_000_000, "a" * 1_000_000

    def best(f):
        times = []
        for _ in range(3):
            t0 = time.perf_counter()
            f()
            times.append(time.perf_counter() - t0)
        return min(times)

    assert len(tern.tokenize(m, unknown)) <= 3  # one unknown piece (after "▁"), then </s>
    tok_unknown, tok_plain = best(lambda: tern.tokenize(m, unknown)), best(lambda: tern.tokenize(m, plain))
    assert tok_unknown < 20 * max(tok_plain, 1e-3), (tok_unknown, tok_plain)

    def run(text):
        try:
            t.translate_batch([text], max_length=4)
        except Exception:  # 'a' x 1e6 is a million ids: too long for the translator, after tokenizing
            pass

    tr_unknown, tr_plain = best(lambda: run(unknown)), best(lambda: run(plain))
    assert tr_unknown < 20 * max(tr_plain, 1e-3), (tr_unknown, tr_plain)


def test_a_lone_surrogate_fails_alone_and_is_numbered_as_the_caller_did(model_path):
    # General rule: a text that cannot be used fails alone in every API, with on_error="keep" too, and an error
    # names the input by its index in the caller's list. A lone surrogate used to raise for the whole call.
    m = tern.Model.load(model_path)
    t = tern.Translator(m, threads=1)
    texts = ["A dog.", "A cat.", "a\ud800b", "A fish."]
    kept = t.translate_batch(texts, on_error="keep")
    assert [r.ok for r in kept] == [True, True, False, True]
    assert isinstance(kept[2].error, tern.InvalidArgumentError) and "invalid UTF-8 at byte 1" in str(kept[2].error)
    assert kept[3].text == t.translate_batch(["A fish."])[0].text
    with pytest.raises(tern.InvalidArgumentError, match="input 2: invalid UTF-8") as e:
        t.translate_batch(texts)
    assert e.value.index == 2
    scores = t.score_batch(["A dog.", "a\ud800"], ["Ein Hund.", "x"], on_error="keep")
    assert scores[0].ok and not scores[1].ok
    prefixed = t.translate_batch(["A dog.", "A cat."], target_prefix=["Ein", "\udc00"], on_error="keep")
    assert prefixed[0].ok and not prefixed[1].ok
    with tern.Engine(m, replicas=1, threads=1) as e:
        r = e.submit(texts, on_error="keep").result(timeout=120)
        assert [x.ok for x in r] == [True, True, False, True]


def test_the_per_user_packed_cache_is_the_default_and_can_be_turned_off(model_path, tmp_path):
    # Issue 60: Model.load uses $XDG_CACHE_HOME/tern/packed (bounded, least recently used out first) unless told
    # not to (packed_cache_dir=False, TERN_PACKED_CACHE=off).
    import os

    env = {k: v for k, v in os.environ.items() if k not in ("TERN_PACKED_CACHE_DIR", "TERN_PACKED_CACHE")}
    env["XDG_CACHE_HOME"] = str(tmp_path / "xdg")
    code = textwrap.dedent("""
        import sys, tern
        kw = eval(sys.argv[2])
        m = tern.Model.load(sys.argv[1], **kw)
        tern.Translator(m, threads=1).translate_batch(["A dog."])
        print(m.packed_weights_note)
    """)

    def note(kw="{}", **extra):
        p = subprocess.run([sys.executable, "-c", code, str(model_path), kw], capture_output=True, text=True,
                           env=dict(env, **extra), timeout=120)
        assert p.returncode == 0, p.stderr
        return p.stdout.strip()

    cache = str(tmp_path / "xdg" / "tern" / "packed") + "/"
    assert note().startswith("packed at load (cache: none yet); wrote " + cache)
    assert note().startswith("mapped from " + cache)
    assert note("{'packed_cache_dir': False}") == "packed at load (no packed-weights cache directory)"
    assert note(TERN_PACKED_CACHE="off") == "packed at load (no packed-weights cache directory)"
    assert note("{'packed_cache_dir': %r}" % str(tmp_path / "mine")).startswith("packed at load (cache: none yet); wrote " + str(tmp_path / "mine"))
    with pytest.raises(TypeError):
        tern.Model.load(model_path, packed_cache_dir=True)
