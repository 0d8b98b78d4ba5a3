"""Threads (the GIL is released while translating) and memory (no growth over 10,000 calls)."""

import threading

import pytest

import tern

TEXTS = ["A dog runs on the beach.", "Two men are talking.", "A woman in a red dress sings.", "Children play soccer."]


def test_two_translators_on_one_model_in_two_threads(model):
    expected = [r.text for r in tern.Translator(model, threads=1).translate_batch(TEXTS * 5)]
    out = {}

    def work(k):
        tr = tern.Translator(model, threads=1)
        out[k] = [r.text for r in tr.translate_batch(TEXTS * 5)]

    threads = [threading.Thread(target=work, args=(k,)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert out[0] == expected and out[1] == expected


def test_one_translator_in_two_threads_takes_turns(translator):
    expected = [r.text for r in translator.translate_batch(TEXTS)]
    out, errors = [], []

    def work():
        try:
            for _ in range(20):
                out.append([r.text for r in translator.translate_batch(TEXTS, beam_size=4)])
        except Exception as e:  # noqa: BLE001 -- the test reports any
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(out) == 60 and all(o == expected for o in out)


def rss_kib():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    pytest.skip("no /proc/self/status")


def test_no_leak_over_10000_calls(model, capsys):
    tr = tern.Translator(model, threads=1)
    ids = tern.tokenize(model, "A dog.")
    events = []

    def call(i):
        k = i % 4
        if k == 0:
            return tr.translate_batch(["A dog."], beam_size=1, max_length=4)
        if k == 1:
            return tr.translate_ids([ids], beam_size=2, max_length=4, return_alignment=True)
        if k == 2:
            return tr.translate_batch([b"bad \xff"], on_error="keep")
        try:
            tr.translate_batch(["A dog runs."], beam_size=1, max_length=4, callback=lambda ev: events.append(ev) or True)
        except tern.CancelledError:
            events.clear()

    for i in range(1000):  # warm-up: SentencePiece's and the allocator's caches
        call(i)
    before = rss_kib()
    for i in range(10000):
        call(i)
    after = rss_kib()
    with capsys.disabled():
        print("\nRSS over 10,000 calls (greedy, beam 2 ids, failing text, cancelled stream): %d KiB -> %d KiB (%+d KiB)"
              % (before, after, after - before))
    assert after - before < 2048
