"""tern.Engine (tern/serving.py over tern::Engine): futures, translate_batch(asynchronous=True),
translate_iterable in input order, results equal to a Translator's, a failing text or request alone,
cancellation, closing with work queued, an interpreter that exits with requests in flight."""

import concurrent.futures
import subprocess
import sys
import threading

import pytest

import tern

TEXTS = ["A dog runs on the beach.", "Two cats sleep on a red sofa.", "A man.", "A woman reads a book in the park.",
         "Children play football.", "The old bridge crosses a wide river near the town."]


@pytest.fixture(scope="module")
def engine(model):
    with tern.Engine(model, replicas=2, threads=1, max_batch=4) as e:
        yield e


def _texts(results):
    return [r.text for r in results]


def test_submit_returns_a_future_with_the_translators_results(engine, translator):
    for beam in (1, 4):
        fut = engine.submit(TEXTS, beam_size=beam)
        assert isinstance(fut, tern.Future)
        got = fut.result(timeout=60)
        want = translator.translate_batch(TEXTS, beam_size=beam)
        assert _texts(got) == _texts(want)
        assert [r.score for r in got] == [r.score for r in want]
        assert set(fut.info) == {"queued_ms", "run_ms", "replica", "shared_with"}


def test_translate_batch_asynchronous_gives_a_future_per_text(engine, translator):
    futs = engine.translate_batch(TEXTS, asynchronous=True, beam_size=4)
    assert len(futs) == len(TEXTS)
    assert [f.result(timeout=60).text for f in futs] == _texts(translator.translate_batch(TEXTS, beam_size=4))
    assert _texts(engine.translate_batch(TEXTS)) == _texts(translator.translate_batch(TEXTS))


def test_translate_iterable_yields_in_input_order(engine, translator, test_set):
    lines = test_set.read_text(encoding="utf-8").splitlines()[:120]
    for batch_type, size in (("examples", 16), ("tokens", 64)):
        got = list(engine.translate_iterable(iter(lines), max_batch_size=size, batch_type=batch_type, read_ahead=50))
        assert _texts(got) == _texts(translator.translate_batch(lines))
    assert list(engine.translate_iterable([])) == []
    with pytest.raises(tern.InvalidArgumentError, match="batch_type"):
        list(engine.translate_iterable(lines, batch_type="words"))


def test_many_threads_submitting_get_their_own_results(engine, translator):
    want = _texts(translator.translate_batch(TEXTS))
    got = {}

    def worker(k):
        futs = [engine.submit([t]) for t in TEXTS]
        got[k] = [f.result(timeout=60)[0].text for f in futs]

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(got[k] == want for k in range(4))


def test_a_bad_text_or_request_fails_alone(engine):
    fut = engine.submit(["A dog.", b"\xff\xfe", "A cat."], on_error="keep")
    r = fut.result(timeout=60)
    assert r[0].ok and r[2].ok and isinstance(r[1].error, tern.InvalidArgumentError)
    with pytest.raises(tern.InvalidArgumentError, match="input 1") as e:
        engine.submit(["A dog.", b"\xff\xfe"]).result(timeout=60)
    assert len(e.value.results) == 2
    with pytest.raises(tern.InvalidArgumentError, match="max_beam"):
        engine.submit(["A dog."], beam_size=1000)
    with pytest.raises(TypeError):
        engine.submit("not a list")
    assert engine.submit(["A dog."]).result(timeout=60)[0].ok


def test_cancel_and_close_with_work_queued(model):
    e = tern.Engine(model, replicas=1, threads=1, max_batch=1)
    futs = [e.submit([t], beam_size=4) for t in TEXTS * 5]
    assert futs[-1].cancel() is True  # still queued: taken out, never runs (round four)
    with pytest.raises(concurrent.futures.CancelledError):
        futs[-1].result(timeout=60)
    e.close()
    outcomes = [f.exception(timeout=60) for f in futs[:-1]] + [tern.CancelledError("")]
    assert any(isinstance(x, tern.CancelledError) for x in outcomes[:-1])
    assert all(x is None or isinstance(x, tern.CancelledError) for x in outcomes)
    with pytest.raises(tern.CancelledError, match="shut down"):
        e.submit(["A dog."])
    e.close()  # twice is fine


def test_interpreter_exit_with_requests_in_flight(model_path):
    code = ("import tern\nm = tern.Model.load(%r)\ne = tern.Engine(m, replicas=2, threads=1, max_batch=2)\n"
            "fs = [e.submit(['A dog runs on the beach.'] * 2, beam_size=4) for _ in range(40)]\n"
            "print(fs[0].result().__len__())\n") % str(model_path)
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "2"


def test_streaming_callback_on_a_worker_thread(engine, translator):
    events = []
    got = engine.submit(TEXTS[:3], beam_size=1, callback=events.append).result(timeout=60)
    for i, r in enumerate(got):
        assert "".join(e.text for e in events if e.index == i) == r.text
    assert sum(e.last for e in events) == 3

    def boom(ev):
        raise ValueError("from the callback")

    with pytest.raises(ValueError, match="from the callback"):
        engine.submit(TEXTS[:2], beam_size=1, callback=boom).result(timeout=60)
    assert engine.submit(TEXTS[:1]).result(timeout=60)[0].ok


def test_submit_takes_the_calls_rules_as_translate_batch_does(engine, translator):
    kw = [dict(do_sample=True, sampling_topk=0, sampling_temperature=1.5, seed=7),
          dict(repetition_penalty=1.3, no_repeat_ngram_size=2, min_length=8),
          dict(suppress_sequences=[[translator.translate_batch(TEXTS[:1], beam_size=1)[0].hypotheses[0].ids[0]]]),
          dict(max_length=3, forced_eos=False), dict(disable_unk=True, end_tokens=[5])]
    for rules in kw:
        # A sampled sentence's draws depend on its index in the call: the engine's calls are chunked (and
        # shared) otherwise than the translator's, so a sampled request holds one text.
        texts = TEXTS[:1] if rules.get("do_sample") else TEXTS
        got = engine.submit(texts, beam_size=1, **rules).result(timeout=60)
        want = translator.translate_batch(texts, beam_size=1, **rules)
        assert _texts(got) == _texts(want), rules
        assert [r.score for r in got] == [r.score for r in want], rules
    with pytest.raises(TypeError, match="unexpected keyword argument 'sampling_top_k'"):
        engine.submit(TEXTS, sampling_top_k=3)
    with pytest.raises(TypeError, match="end_tokens: str is not of the type"):
        engine.submit(TEXTS, end_tokens="x")
