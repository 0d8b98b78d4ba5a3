"""Re-entry and ranges from Python (docs/reliability.md, round three): first calls from several threads at once (no deadlock), a callback
that calls back into its own Translator (BusyError, no deadlock), NaN options, glossaries of other
vocabularies, and the CTranslate2 shim's beam sizes."""

import math
import os
import subprocess
import sys
import textwrap

import pytest

import tern
from tern.compat import ctranslate2

FIRST_CALLS = """
import sys, threading
import tern  # NumPy is not imported first: pybind11 looks it up on the first call that returns an array
%s
bar = threading.Barrier(2)
out = [None, None]
def run(i):
    bar.wait()
    out[i] = CALL(i)
th = [threading.Thread(target=run, args=(i,)) for i in range(2)]
[t.start() for t in th]
[t.join() for t in th]
print(out)
"""


@pytest.mark.parametrize("setup", [
    # two Translators on one Model
    """m = tern.Model.load(sys.argv[1])
ts = [tern.Translator(m, threads=1) for _ in range(2)]
CALL = lambda i: ts[i].translate_batch(["A dog runs."])[0].text""",
    # the CTranslate2 shim with inter_threads=2
    """from tern.compat import ctranslate2
t = ctranslate2.Translator(sys.argv[1], inter_threads=2, intra_threads=1)
CALL = lambda i: t.translate_batch([["▁A", "▁dog"], ["▁A", "▁cat"], ["▁Two"], ["▁Men"]], max_batch_size=1)[i].hypotheses""",
])
def test_first_calls_from_two_threads_at_once_return(model_path, setup):
    """Round three #1: this hung for good (SIGINT did not end it)."""
    for _ in range(3):
        r = subprocess.run([sys.executable, "-c", FIRST_CALLS % setup, str(model_path)], capture_output=True, text=True,
                           timeout=120, env=dict(os.environ))
        assert r.returncode == 0, r.stderr
        assert "[" in r.stdout


def test_a_callback_calling_its_own_translator_gets_busy(model):
    tr = tern.Translator(model, threads=1)
    seen = []

    def callback(ev):
        for call in (lambda: tr.translate_batch(["A cat."]), lambda: tr.translate_ids([[5, 0]]), lambda: tr.profile,
                     lambda: tr.reset_profile()):
            try:
                call()
                seen.append("returned")
            except tern.BusyError as e:
                seen.append(str(e))
        return False

    out = tr.translate_batch(["A dog runs."], callback=callback)
    assert out[0].text
    assert seen and all("its own callback" in s for s in seen), seen
    # Another Translator on the same model works from inside the callback.
    other = tern.Translator(model, threads=1)
    texts = []
    tr.translate_batch(["A dog runs."], callback=lambda ev: texts.append(other.translate_batch(["A cat."])[0].text) and False)
    assert texts and all(texts)


@pytest.mark.parametrize("name", ["length_penalty", "max_length_ratio"])
@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
def test_float_options_refuse_nan_and_infinities(translator, name, value):
    with pytest.raises(tern.InvalidArgumentError, match=name):
        translator.translate_batch(["A dog."], **{name: value})


def test_glossaries_of_other_vocabularies_are_refused(model, model_path):
    # The same vocabularies (the same file loaded twice): accepted.
    again = tern.Model.load(model_path)
    g = tern.Glossary.from_entries(again, [("dog", "Köter")])
    assert "Köter" in tern.Translator(model, threads=1).translate_batch(["A dog runs."], glossary=g)[0].text
    tiny_dir = os.environ.get("TERN_TEST_MODELS")
    if not tiny_dir:
        pytest.skip("TERN_TEST_MODELS is not set")
    tiny = tern.Model.load(os.path.join(tiny_dir, "post-swish.int8.tern"))
    g = tern.Glossary.from_entries(tiny, [("man", "man")])
    with pytest.raises(tern.InvalidArgumentError, match="other vocabularies"):
        tern.Translator(model, threads=1).translate_batch(["A man."], glossary=g)


def test_ctranslate2_shim_takes_any_beam_size(model_path):
    t = ctranslate2.Translator(str(model_path), intra_threads=1)
    src = [["▁A", "▁dog", "▁runs", "."]]
    for beam in (5, 8, 2):
        r = t.translate_batch(src, beam_size=beam, num_hypotheses=min(beam, 5), return_scores=True)
        assert len(r[0].hypotheses) == min(beam, 5)
        assert all(math.isfinite(s) for s in r[0].scores)
    with pytest.raises(tern.UnsupportedError, match="limit"):
        t.translate_batch(src, beam_size=tern.MAX_BEAM + 1)
