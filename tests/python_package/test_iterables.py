"""Every API that reads an iterable delivers everything before a failure (docs/reliability.md, round five):
Engine.translate_iterable and the CTranslate2 shim's translate_iterable / score_iterable yield every result of
the items before the one that fails, then raise its error carrying its position in the caller's iterable
(``index``, and "item N" in the message or a note), whether the item fails (a bad text, a wrong type) or the
iterable itself raises. The CLI's stdin is checked in tests/cli_test.sh."""

import pytest

import tern
from tern.compat import ctranslate2

TEXTS = ["A dog runs.", "A cat sleeps.", "Two men talk.", "A girl reads.", "A boy swims.", "It rains."]


class Broken(RuntimeError):
    pass


def raising_after(items, k):
    """Yields items[:k], then raises Broken."""
    for x in items[:k]:
        yield x
    raise Broken("the source went away")


def drain(gen):
    got = []
    try:
        for r in gen:
            got.append(r)
    except Exception as e:  # noqa: BLE001 - the test looks at what was raised
        return got, e
    return got, None


@pytest.fixture(scope="module")
def engine(model):
    e = tern.Engine(model, replicas=2, threads=1)
    yield e
    e.close()


@pytest.mark.parametrize("k", [0, 1, 5, 6, 13])
def test_engine_translate_iterable_yields_everything_before_the_iterable_raises(engine, k):
    items = (TEXTS * 3)[:k]
    got, err = drain(engine.translate_iterable(raising_after(items, k), max_batch_size=2, read_ahead=4))
    assert [r.text for r in got] == [r.text for r in engine.translate_batch(items)] if items else got == []
    assert isinstance(err, Broken) and err.index == k
    assert any("item %d" % k in n for n in err.__notes__)


@pytest.mark.parametrize("bad,kind", [(b"\xff\xfe", tern.InvalidArgumentError), (7, TypeError), (None, TypeError),
                                      ("x " * 5000, tern.ResourceExhaustedError)])
@pytest.mark.parametrize("at", [0, 3, 5])
def test_engine_translate_iterable_a_bad_item_fails_after_the_items_before_it(engine, bad, kind, at):
    items = TEXTS[:at] + [bad] + TEXTS[at:]
    got, err = drain(engine.translate_iterable(iter(items), max_batch_size=2, read_ahead=4))
    assert len(got) == at and all(r.error is None for r in got)
    assert isinstance(err, kind), err
    assert err.index == at and str(err).startswith("item %d: " % at)


@pytest.fixture(scope="module")
def shim(model_path):
    return ctranslate2.Translator(str(model_path), inter_threads=2)


def pieces(model, text):
    return [model.source_vocab[i] for i in tern.tokenize(model, text)[:-1]]


def test_shim_iterables_yield_everything_before_a_failure(shim, model):
    src = [pieces(model, t) for t in TEXTS]
    want = [r.hypotheses for r in shim.translate_batch(src)]
    for k in (0, 2, 6):
        got, err = drain(shim.translate_iterable(raising_after(src, k), max_batch_size=2))
        assert [r.hypotheses for r in got] == want[:k]
        assert isinstance(err, Broken) and err.index == k
    got, err = drain(shim.translate_iterable(iter(src[:3] + ["a str"] + src[3:]), max_batch_size=2))
    assert [r.hypotheses for r in got] == want[:3]
    assert isinstance(err, TypeError) and err.index == 3 and "source item 3" in str(err)
    tgt = [pieces(model, "Ein Hund.")] * len(src)
    scores = [r.log_probs for r in shim.score_batch(src, tgt)]
    got, err = drain(shim.score_iterable(iter(src), raising_after(tgt, 4), max_batch_size=2))
    assert [r.log_probs for r in got] == scores[:4]
    assert isinstance(err, Broken) and err.index == 4
    got, err = drain(shim.score_iterable(iter(src[:2] + [[1, 2]] + src[2:]), iter(tgt + tgt), max_batch_size=2))
    assert [r.log_probs for r in got] == scores[:2]
    assert isinstance(err, TypeError) and err.index == 2
