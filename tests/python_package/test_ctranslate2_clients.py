"""Round four, items 11-15 (docs/reliability.md): CTranslate2 programs run on tern with one changed import. The
call patterns are those of real clients (an argos-translate-like paragraph translator that LibreTranslate
runs, a quickmt-like caller with a coverage penalty, a FastAPI-like service on futures and
translate_iterable, an evaluation script), in code written here, not copied. Each gives what tern's own API
gives."""

import logging
import pathlib
import re
import warnings

import pytest

import tern
from tern.compat import ctranslate2  # the one line that differs from a CTranslate2 program

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def sp(checkpoint_dir):
    import sentencepiece as spm

    return (spm.SentencePieceProcessor(model_file=str(checkpoint_dir / "source.spm")),
            spm.SentencePieceProcessor(model_file=str(checkpoint_dir / "target.spm")))


def paragraph_hypotheses(translator, sp, text, n):
    """An argos-translate-like paragraph translator: sentences split, tokenized, one translate_batch call with
    batch_type "tokens", n hypotheses of the paragraph built from each sentence's i-th hypothesis."""
    src, tgt = sp
    sentences = [s for s in re.split(r"(?<=[.!?])\s+", text.strip()) if s]
    batches = translator.translate_batch([src.encode(s, out_type=str) for s in sentences], target_prefix=None,
                                         replace_unknowns=True, max_batch_size=32, batch_type="tokens",
                                         beam_size=max(n, 4), num_hypotheses=n, length_penalty=0.2, return_scores=True)
    out = []
    for i in range(n):
        tokens, score = [], 0.0
        for b in batches:
            tokens += b.hypotheses[i]
            score += b.scores[i]
        out.append((tgt.decode(tokens).lstrip(" "), score))
    return out


def test_an_argos_translate_like_client_runs(model_path, model, sp):
    # #11: every call of argos-translate (so every LibreTranslate /translate) failed: replace_unknowns=True.
    translator = ctranslate2.Translator(str(model_path), device="cpu", inter_threads=1, intra_threads=1)
    text = "A man rides a bike on the street. Two dogs play in the snow! A woman reads a book."
    hyps = paragraph_hypotheses(translator, sp, text, 2)
    native = tern.Translator(model, threads=1, max_n_best=2)
    sentences = [s for s in re.split(r"(?<=[.!?])\s+", text) if s]
    want = native.translate_batch(sentences, beam_size=4, n_best=2, length_penalty=0.2)
    assert hyps[0][0] == " ".join(r.hypotheses[0].text for r in want)
    assert len(hyps) == 2 and hyps[0][1] >= hyps[1][1] - 1e-4
    # LibreTranslate's alternatives: more hypotheses than the default beam
    assert len(paragraph_hypotheses(translator, sp, "A dog runs.", 5)) == 5


def test_replace_unknowns_copies_the_source_token_the_unk_attends_to(model_path, sp):
    # As CTranslate2: a generated <unk> (here a target prefix of one, as a prefix is part of the hypothesis)
    # becomes the source token the alignment gives it; </s> is never that token.
    translator = ctranslate2.Translator(str(model_path))
    source = sp[0].encode("A ☃ stands in the snow.", out_type=str)
    for replace in (False, True):
        r = translator.translate_batch([source], target_prefix=[["<unk>"]], beam_size=2, replace_unknowns=replace)
        first = r[0].hypotheses[0][0]
        if replace:
            assert first in source and first != "<unk>"
        else:
            assert first == "<unk>"


def test_module_functions_of_a_machine_without_cuda(model_path, tmp_path):
    # #12: evaluation and training scripts call these before making a Translator.
    assert ctranslate2.get_cuda_device_count() == 0
    assert ctranslate2.get_supported_compute_types("cpu") >= {"float32", "int8"}
    assert ctranslate2.get_supported_compute_types("cuda") == {"float32"}
    with pytest.raises(ValueError):
        ctranslate2.get_supported_compute_types("tpu")
    assert ctranslate2.contains_model(str(model_path))
    assert ctranslate2.contains_model(str(model_path.parent)) is True  # a directory with one .tern file
    assert not ctranslate2.contains_model(str(tmp_path))
    ctranslate2.set_log_level(logging.INFO)
    assert ctranslate2.get_log_level() == logging.INFO
    ctranslate2.set_log_level(logging.WARNING)
    ctranslate2.set_random_seed(3)
    assert ctranslate2.__version__.startswith("4.")
    for name in ("Generator", "Encoder", "Whisper"):
        with pytest.raises(tern.UnsupportedError, match=name):
            getattr(ctranslate2, name)("model")
    # #15: "auto" means the CPU; "cuda" fails, as CTranslate2 without CUDA fails
    t = ctranslate2.Translator(str(model_path), device="auto")
    assert t.device == "cpu" and t.num_translators == 1 and t.model_is_loaded
    with pytest.raises(ValueError, match="CUDA"):  # as CTranslate2 built without CUDA
        ctranslate2.Translator(str(model_path), device="cuda")


def test_a_long_source_is_translated_whole_up_to_max_input_length(model_path, model, sp):
    # #13: a sentence of 146 pieces was cut to its first 127 without an error.
    translator = ctranslate2.Translator(str(model_path))
    words = ("a man rides a red bike on the long street near the old town while two dogs run behind him and "
             "children play with a ball in the park ").split()
    long = sp[0].encode(" ".join(words * 6) + ".", out_type=str)
    assert len(long) >= 146
    r = translator.translate_batch([long], beam_size=1, return_scores=True)
    native = tern.Translator(model, threads=1, max_source_tokens=256, max_target_tokens=256)
    ids = [model.source_vocab.index(p) if p in model.source_vocab else model.hparams["unk_id"] for p in long] + [0]
    want = native.translate_ids([ids], beam_size=1, max_length=256)[0]
    assert r[0].hypotheses[0] == [model.target_vocab[i] for i in want.hypotheses[0].ids]
    # Beyond max_input_length: cut, with a warning; beyond the model's positions: refused, as CTranslate2's
    # position encodings refuse it.
    with pytest.warns(UserWarning, match="cut to max_input_length 50"):
        translator.translate_batch([long], beam_size=1, max_input_length=50)
    with pytest.raises(ValueError, match="positions for 512"):
        translator.translate_batch([long * 5], beam_size=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        translator.translate_batch([long], beam_size=1)  # within max_input_length: no warning


def test_a_quickmt_like_caller_with_a_coverage_penalty(model_path, model, sp):
    # #14: coverage_penalty=0.2 was refused (UnsupportedError).
    translator = ctranslate2.Translator(str(model_path), inter_threads=1)
    src = [sp[0].encode(s, out_type=str) for s in ("A man in a blue shirt is standing on a ladder cleaning windows.",
                                                   "Two dogs play in the snow.")]
    with_cp = translator.translate_batch(src, beam_size=4, coverage_penalty=0.2, return_scores=True)
    without = translator.translate_batch(src, beam_size=4, return_scores=True)
    assert with_cp[0].scores[0] != without[0].scores[0]  # the penalty is in the score (0 once every c_j >= 1)
    native = tern.Translator(model, threads=1, attention=True)
    want = native.translate_batch(["A man in a blue shirt is standing on a ladder cleaning windows."], beam_size=4,
                                  coverage_penalty=0.2)
    assert sp[1].decode(with_cp[0].hypotheses[0]) == want[0].text
    futs = translator.translate_batch(src, beam_size=4, coverage_penalty=0.2, asynchronous=True)  # the engine path
    assert [f.result().hypotheses for f in futs] == [r.hypotheses for r in with_cp]


def test_a_service_on_futures_and_translate_iterable(model_path, sp):
    # A FastAPI-like service: asynchronous=True futures and translate_iterable, the same as translate_batch.
    translator = ctranslate2.Translator(str(model_path), inter_threads=2, intra_threads=1)
    lines = ["A dog runs on the beach.", "Two cats sleep.", "A man rides a bike on the street.", "People walk."] * 3
    tokens = [sp[0].encode(s, out_type=str) for s in lines]
    want = [r.hypotheses for r in translator.translate_batch(tokens, beam_size=2)]
    futs = translator.translate_batch(tokens, beam_size=2, asynchronous=True)
    assert [f.result().hypotheses for f in futs] == want
    assert [r.hypotheses for r in translator.translate_iterable(iter(tokens), max_batch_size=4, beam_size=2)] == want
    prefixed = list(translator.translate_iterable(iter(tokens[:2]), target_prefix=iter([["▁Eine"], ["▁Drei"]])))
    assert prefixed[0].hypotheses[0][0] == "▁Eine" and prefixed[1].hypotheses[0][0] == "▁Drei"


def test_an_evaluation_script(model_path, sp, tmp_path):
    # Evaluation and filtering scripts: translate_file, score_file, score_iterable, score_batch with offset.
    translator = ctranslate2.Translator(str(model_path), device="cpu" if ctranslate2.get_cuda_device_count() == 0 else "cuda")
    src = tmp_path / "src.txt"
    src.write_text("A dog runs .\nTwo cats sleep .\n", encoding="utf-8")
    out = tmp_path / "out.txt"
    stats = translator.translate_file(str(src), str(out), source_tokenize_fn=lambda s: sp[0].encode(s, out_type=str),
                                      target_detokenize_fn=sp[1].decode, beam_size=2)
    assert stats.num_examples == 2 and len(out.read_text(encoding="utf-8").splitlines()) == 2
    tgt = tmp_path / "tgt.txt"
    tgt.write_text(out.read_text(encoding="utf-8"), encoding="utf-8")
    scored = tmp_path / "scored.txt"
    translator.score_file(str(src), str(tgt), str(scored), source_tokenize_fn=lambda s: sp[0].encode(s, out_type=str),
                          target_tokenize_fn=lambda s: sp[1].encode(s, out_type=str), target_detokenize_fn=sp[1].decode,
                          with_tokens_score=True)
    assert all(len(l.split(" ||| ")) == 3 for l in scored.read_text(encoding="utf-8").splitlines())
    s = [sp[0].encode("A dog runs.", out_type=str)]
    t = [sp[1].encode("Ein Hund läuft.", out_type=str)]
    full = translator.score_batch(s, t)[0]
    cut = translator.score_batch(s, t, offset=1)[0]
    assert cut.tokens == full.tokens[1:] and cut.log_probs == full.log_probs[1:]
    assert [r.log_probs for r in translator.score_iterable(iter(s * 3), iter(t * 3), max_batch_size=2)] == [full.log_probs] * 3
    empty = translator.score_batch([[]], t)[0]  # an empty source is scored (round four #3), never "probability 1"
    assert sum(empty.log_probs) < -1.0


def test_every_keyword_is_taken_or_refused_with_its_name(model_path):
    # The table of docs/python.md: a keyword tern cannot honour is refused naming it; an unknown one is a TypeError.
    translator = ctranslate2.Translator(str(model_path))
    for name, value in (("patience", 2), ("prefix_bias_beta", 0.5), ("return_logits_vocab", True)):
        with pytest.raises(tern.UnsupportedError, match=name):
            translator.translate_batch([["▁A"]], **{name: value})
    # Taken since round five, as CTranslate2 takes them: use_vmap (no vocabulary map here), return_end_token.
    assert translator.translate_batch([["▁A", "▁dog", "."]], use_vmap=True)[0].hypotheses
    ended = translator.translate_batch([["▁A", "▁dog", "."]], return_end_token=True)[0].hypotheses[0]
    assert ended[-1] == "</s>" and ended[:-1] == translator.translate_batch([["▁A", "▁dog", "."]])[0].hypotheses[0]
    with pytest.raises(TypeError, match="no_such"):
        translator.translate_batch([["▁A"]], no_such=1)


# CTranslate2 4.8.1's Translator keywords (python/cpp/translator.cc's py::arg names and the Python extensions'
# generate_tokens / translate_iterable / score_iterable keywords), written here from its documentation.
CT2_KEYWORDS = """
model_path device device_index compute_type inter_threads intra_threads max_queued_batches flash_attention
tensor_parallel files source target_prefix max_batch_size batch_type asynchronous beam_size patience num_hypotheses
length_penalty coverage_penalty repetition_penalty no_repeat_ngram_size disable_unk suppress_sequences end_token
return_end_token prefix_bias_beta max_input_length max_decoding_length min_decoding_length use_vmap return_scores
return_logits_vocab return_attention return_alternatives min_alternative_expansion_prob sampling_topk sampling_topp
sampling_temperature replace_unknowns callback source_path output_path target_path read_batch_size with_scores
source_tokenize_fn target_tokenize_fn target_detokenize_fn target offset with_tokens_score to_cpu keep_cache
return_log_prob
""".split()


def test_the_docs_table_names_every_ctranslate2_keyword_and_the_module_takes_each():
    import inspect

    doc = (ROOT / "docs" / "python.md").read_text(encoding="utf-8")
    section = doc[doc.index("## CTranslate2 programs"):]
    tables = "\n".join(line for line in section.splitlines() if line.startswith("| "))
    named = set(re.findall(r"[a-z_]+", " ".join(re.findall(r"`([^`]*)`", tables))))
    missing = [k for k in CT2_KEYWORDS if k not in named]
    assert not missing, "docs/python.md's CTranslate2 tables lack %s" % missing
    taken = set()
    for f in (ctranslate2.Translator.__init__, ctranslate2.Translator.translate_batch, ctranslate2.Translator.score_batch,
              ctranslate2.Translator.generate_tokens, ctranslate2.Translator.translate_file,
              ctranslate2.Translator.score_file, ctranslate2.Translator.translate_iterable,
              ctranslate2.Translator.score_iterable, ctranslate2.Translator.unload_model,
              ctranslate2.Translator.load_model):
        taken |= set(inspect.signature(f).parameters)
    absent = [k for k in CT2_KEYWORDS if k not in taken]
    assert not absent, "the shim has no parameter %s" % absent
