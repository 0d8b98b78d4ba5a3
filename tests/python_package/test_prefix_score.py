"""Target prefixes, scoring, sampling and a call's own logits rules from Python (Translator.translate_batch(target_prefix=...), score_batch,
score_ids): the same as the C++ API (tests/test_prefix_score.cc)."""

import numpy as np
import pytest

import tern

SRC = ["A man rides a bike on the street.", "Two dogs play in the snow."]


@pytest.fixture(scope="module")
def translator(model):
    return tern.Translator(model, threads=1, max_beam=4)


def test_prefix_text_and_ids(translator, model):
    plain = translator.translate_batch(SRC, beam_size=1)
    out = translator.translate_batch(SRC, beam_size=1, target_prefix=["Eine Frau", None])
    assert out[0].text.startswith("Eine Frau ")
    assert out[1].text == plain[1].text  # no prefix: as without
    ids = list(out[0].hypotheses[0].ids[:3])
    again = translator.translate_batch(SRC[:1], beam_size=4, target_prefix_ids=[ids])
    assert list(again[0].hypotheses[0].ids[:3]) == ids
    with pytest.raises(tern.InvalidArgumentError, match="1 entries for 2 inputs"):
        translator.translate_batch(SRC, target_prefix=["x"])
    with pytest.raises(tern.InvalidArgumentError, match="give one of them"):
        translator.translate_batch(SRC[:1], target_prefix=["x"], target_prefix_ids=[[5]])
    eos = model.hparams["eos_id"]
    r = translator.translate_batch(SRC[:1], target_prefix_ids=[[5, eos]], on_error="keep")
    assert r[0].error is not None and "</s> at position 1" in r[0].error.message


def test_score_is_greedy_score(translator):
    greedy = translator.translate_batch(SRC, beam_size=1)
    scored = translator.score_batch(SRC, [g.text for g in greedy])
    for g, s in zip(greedy, scored):
        assert s.hypotheses[0].score == pytest.approx(g.hypotheses[0].score, abs=1e-5)
        assert len(s.hypotheses[0].token_logprobs) == len(s.hypotheses[0].ids) + 1
    ids = translator.score_ids([s.source_ids for s in scored], [np.asarray(g.hypotheses[0].ids) for g in greedy])
    assert [x.hypotheses[0].score for x in ids] == [x.hypotheses[0].score for x in scored]
    with pytest.raises(tern.InvalidArgumentError, match="2 sources and 1 targets"):
        translator.score_batch(SRC, ["x"])


def test_sampling_with_a_seed(translator):
    a = translator.translate_batch(SRC, do_sample=True, sampling_temperature=1.3, sampling_topk=0, seed=3)
    b = translator.translate_batch(SRC, do_sample=True, sampling_temperature=1.3, sampling_topk=0, seed=3)
    assert [r.text for r in a] == [r.text for r in b]
    seeds = {tuple(translator.translate_batch(SRC[:1], do_sample=True, sampling_temperature=1.5, sampling_topk=0,
                                              seed=s)[0].hypotheses[0].ids) for s in range(8)}
    assert len(seeds) > 1  # other seeds, other translations
    with pytest.raises(tern.InvalidArgumentError, match="beam sampling is not supported"):
        translator.translate_batch(SRC, do_sample=True, beam_size=4)
    with pytest.raises(tern.InvalidArgumentError, match="sampling_topp 0: must be in"):
        translator.translate_batch(SRC, do_sample=True, sampling_topp=0.0)


def test_call_rules(translator):
    out = translator.translate_batch(SRC, beam_size=1, no_repeat_ngram_size=1, min_length=3)
    for r in out:
        ids = list(r.hypotheses[0].ids)
        assert len(ids) == len(set(ids))  # no token twice
        assert len(ids) >= 3
    with pytest.raises(tern.InvalidArgumentError, match="repetition_penalty 0: must be finite"):
        translator.translate_batch(SRC, repetition_penalty=0.0)


def test_alternatives(model):
    t = tern.Translator(model, threads=1, max_beam=4, max_n_best=3, max_batch=6)
    out = t.translate_batch(SRC, beam_size=1, alternatives=3, target_prefix=["Ein", None])
    assert [len(r.hypotheses) for r in out] == [3, 3]
    texts = [h.text for h in out[0].hypotheses]
    assert len(set(texts)) == 3 and all(x.startswith("Ein") for x in texts)
    firsts = {int(h.ids[0]) for h in out[1].hypotheses}
    assert len(firsts) == 3  # no prefix: three different first tokens
    # More inputs than max_batch / alternatives run in chunks.
    many = t.translate_batch(SRC * 3, beam_size=1, alternatives=3, target_prefix=["Ein", None] * 3)
    assert [h.text for h in many[4].hypotheses] == texts
    assert [h.text for h in many[5].hypotheses] == [h.text for h in out[1].hypotheses]
    with pytest.raises(tern.InvalidArgumentError, match="n_best 2"):
        t.translate_batch(SRC, beam_size=4, n_best=2, alternatives=3)


def test_suppress_sequences_and_disable_unk(translator):
    plain = translator.translate_batch(SRC[:1], beam_size=1)[0].hypotheses[0]
    first = int(plain.ids[0])
    out = translator.translate_batch(SRC[:1], beam_size=1, suppress_sequences=[[first]], disable_unk=True)
    assert first not in [int(i) for i in out[0].hypotheses[0].ids]
    with pytest.raises(tern.InvalidArgumentError, match="sequence 0 is empty"):
        translator.translate_batch(SRC[:1], suppress_sequences=[[]])


def test_generate_tokens(translator):
    steps = list(translator.generate_tokens(SRC[1], beam_size=1))
    greedy = translator.translate_batch(SRC[1:], beam_size=1)[0].hypotheses[0]
    assert "".join(s.text for s in steps) == greedy.text
    assert [s.token for s in steps] == [int(t) for t in greedy.tokens]
    assert [s.logprob for s in steps] == pytest.approx([float(x) for x in greedy.token_logprobs], abs=1e-6)
    assert [s.last for s in steps] == [False] * (len(steps) - 1) + [True]
    it = translator.generate_tokens(SRC[0], beam_size=1)
    next(it)
    it.close()  # leaving early cancels the call; the translator is free again
    assert translator.translate_batch(SRC[:1])[0].text
    with pytest.raises(TypeError, match="callback"):
        list(translator.generate_tokens(SRC[0], callback=print))


def test_return_attention(model):
    t = tern.Translator(model, threads=1, max_beam=4, attention=True)
    r = t.translate_batch(SRC[:1], beam_size=4, return_attention=True, return_alignment=True)[0]
    h = r.hypotheses[0]
    assert h.attention.shape == (len(h.tokens), len(r.source_ids))
    assert np.allclose(h.attention.sum(axis=1), 1.0, atol=1e-4)
    assert list(h.attention[:-1, :-1].argmax(axis=1)) == list(h.token_sources[:-1])  # the search's alignment
    assert t.translate_batch(SRC[:1])[0].hypotheses[0].attention is None
    with pytest.raises(tern.InvalidArgumentError, match="without TranslatorConfig::attention"):
        tern.Translator(model, threads=1).translate_batch(SRC[:1], return_attention=True)
