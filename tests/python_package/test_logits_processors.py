"""Per-call logits processors from Python (translate_batch / translate_ids(logits_processors=[...])): a callable
gets a tern.LogitsRow per live hypothesis per step and rewrites its scores in place, as transformers'
LogitsProcessor does; the same ban as suppress_sequences gives the same translation; an exception it raises is
the call's."""

import math

import numpy as np
import pytest

import tern

TEXTS = ["A man in a blue shirt is standing on a ladder.", "Two dogs play in the snow.", "A girl reads a book.",
         "People walk down the street.", "A boy jumps into a lake."]


@pytest.mark.parametrize("beam", [1, 4])
def test_a_ban_equals_suppress_sequences(translator, beam):
    first = translator.translate_batch(TEXTS[:1], beam_size=1)[0].hypotheses[0].ids[0]

    def ban(row):
        col = row.column(int(first))
        if col >= 0:
            row.scores[col] = -math.inf

    got = translator.translate_batch(TEXTS, beam_size=beam, logits_processors=[ban])
    want = translator.translate_batch(TEXTS, beam_size=beam, suppress_sequences=[[int(first)]])
    assert [r.hypotheses[0].text for r in got] == [r.hypotheses[0].text for r in want]
    assert [r.hypotheses[0].score for r in got] == pytest.approx([r.hypotheses[0].score for r in want], rel=1e-6)
    assert all(int(first) not in r.hypotheses[0].ids for r in got)


def test_row_fields_across_chunks(model):
    tr = tern.Translator(model, threads=1, max_batch=2, max_beam=2)
    seen = []

    def look(row):
        assert row.scores.dtype == np.float32 and row.scores.ndim == 1
        assert len(row.prefix) == row.step
        assert row.columns is None
        seen.append((row.input, row.hypothesis, row.step))

    res = tr.translate_batch(TEXTS, beam_size=2, logits_processors=[look])
    assert len(res) == len(TEXTS)
    assert {i for i, _, _ in seen} == set(range(len(TEXTS)))  # the call's input index, not the chunk's
    assert {h for _, h, _ in seen} == {0, 1}
    assert min(s for _, _, s in seen) == 0


def test_translate_ids_takes_them_too(translator, model):
    src = [np.array(translator.translate_batch(TEXTS[:1])[0].source_ids)]
    calls = []
    res = translator.translate_ids(src, beam_size=1, logits_processors=[lambda row: calls.append(row.step)])
    assert calls == list(range(len(res[0].hypotheses[0].tokens)))


def test_an_exception_is_the_calls(translator):
    def boom(row):
        if row.step == 2:
            raise ValueError("processor failed at step 2")

    with pytest.raises(ValueError, match="processor failed at step 2"):
        translator.translate_batch(TEXTS, logits_processors=[boom])
    assert translator.translate_batch(TEXTS[:1])[0].hypotheses[0].text  # usable after it
    with pytest.raises(TypeError, match="logits_processors"):
        translator.translate_batch(TEXTS, logits_processors=[1])
    with pytest.raises(TypeError, match="logits_processors"):
        translator.translate_batch(TEXTS, logits_processors=print)
