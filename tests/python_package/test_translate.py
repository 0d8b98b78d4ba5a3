"""Translation through the package equals the CLI's, ids and scores included."""

import subprocess

import numpy as np
import pytest

import tern


def cli_lines(cli, model_path, input_path, *args):
    out = subprocess.run([str(cli), "translate", "-m", str(model_path), "--input", str(input_path), "--threads", "1", *args],
                         check=True, capture_output=True, text=True).stdout
    return out.split("\n")[:-1]


@pytest.mark.parametrize("beam", [1, 4])
def test_equals_cli_on_test_2016_flickr(cli, model_path, test_set, translator, beam):
    lines = test_set.read_text(encoding="utf-8").split("\n")[:-1]
    assert len(lines) == 1000
    expected = cli_lines(cli, model_path, test_set, "--beam", str(beam), "--scores")
    results = translator.translate_batch(lines, beam_size=beam)
    # The CLI prints the float score as an ostream does (6 significant digits: "%g").
    assert ["%s\t%g" % (r.text, r.score) for r in results] == expected


def test_ids_equal_cli_ids(cli, model_path, test_set, translator, model, tmp_path):
    lines = test_set.read_text(encoding="utf-8").split("\n")[:50]
    tok = tern.Tokenizer(model)
    ids = [tok.encode(line) for line in lines]
    ids_file = tmp_path / "ids.txt"
    ids_file.write_text("".join(" ".join(map(str, x)) + "\n" for x in ids))
    expected = cli_lines(cli, model_path, ids_file, "--ids", "--beam", "4")
    results = translator.translate_ids(ids, beam_size=4)
    assert [" ".join(map(str, r.hypotheses[0].ids)) for r in results] == expected
    assert all(r.hypotheses[0].ids.dtype == np.uint32 for r in results)
    # translate_ids of the tokenizer's ids = translate_batch of the text (no sentence splitting needed here)
    texts = translator.translate_batch(lines, beam_size=4)
    assert [tern.detokenize(model, r.hypotheses[0].ids) for r in results] == [t.text for t in texts]


def test_tokenize_equals_cli(cli, model_path, model):
    texts = ["A dog runs on the beach.", "Zwei Männer.", ""]
    out = subprocess.run([str(cli), "tokenize", "-m", str(model_path)], input="\n".join(texts) + "\n",
                         check=True, capture_output=True, text=True).stdout.split("\n")[:-1]
    assert [" ".join(map(str, tern.tokenize(model, t))) for t in texts] == out


def test_result_fields(translator, model):
    r = translator.translate_batch(["A dog runs on the beach."], beam_size=4, n_best=1, return_alignment=True)[0]
    h = r.hypotheses[0]
    assert r.ok and r.error is None and r.text == h.text
    assert len(h.tokens) == len(h.token_logprobs) == len(h.token_sources) == len(h.token_spans)
    assert h.tokens[-1] == model.hparams["eos_id"] and list(h.tokens[:-1]) == list(h.ids)
    assert (h.token_logprobs <= 0).all() and h.token_logprobs.dtype == np.float32
    assert ((h.token_sources >= 0) & (h.token_sources < len(r.source_ids))).all()
    assert abs(h.confidence.mean_logprob - float(h.token_logprobs.mean())) < 1e-5
    # beam score = sum of log-probabilities / generated length ** length_penalty (1.0 for this model)
    assert abs(h.score - float(h.token_logprobs.sum()) / len(h.tokens)) < 1e-4
    assert r.source_ids[-1] == model.hparams["eos_id"] and len(r.source_spans) == len(r.source_ids)


def test_n_best_and_options(model):
    tr = tern.Translator(model, threads=1, max_beam=4, max_n_best=3)
    r = tr.translate_batch(["Two men are talking."], beam_size=4, n_best=3, early_stopping=True, hf_rules=4,
                           length_penalty=0.6)[0]
    assert len(r.hypotheses) == 3
    assert r.hypotheses[0].score >= r.hypotheses[1].score >= r.hypotheses[2].score


def test_streaming_callback_gives_the_text(translator):
    events = []
    r = translator.translate_batch(["A dog runs on the beach.", "Two men."], beam_size=1, callback=events.append)
    for i in range(2):
        mine = [e for e in events if e.index == i]
        assert mine[-1].last and "".join(e.text for e in mine).strip() == r[i].text


def test_more_texts_than_max_batch(translator, model):
    texts = ["A dog.", "A cat.", "Two men.", "A woman sings."] * 5  # 20 > max_batch 8
    r = translator.translate_batch(texts, beam_size=1)
    assert [x.text for x in r] == [x.text for x in (translator.translate_batch([t], beam_size=1)[0] for t in texts)]


def test_glossary_and_markup(model, translator, tmp_path):
    g = tern.Glossary.from_entries(model, [("dog", "Köter")])
    assert len(g) == 1
    assert "Köter" in translator.translate_batch(["A dog runs on the beach."], glossary=g)[0].text
    tsv = tmp_path / "terms.tsv"
    tsv.write_text("beach\tUfer\n", encoding="utf-8")
    assert "Ufer" in translator.translate_batch(["A dog runs on the beach."], glossary=tern.Glossary.load(model, tsv))[0].text
    html = translator.translate_batch(["A <b>dog</b> runs."], markup="html")[0].text
    assert html.count("<b>") == 1 and html.count("</b>") == 1
    kept = translator.translate_batch(["Call {0} now."], keep_placeholders=True)[0].text
    assert "{0}" in kept
    shell = translator.translate_batch(["A dog runs to $HOME."], keep_placeholders=True,
                                       placeholder_syntaxes="default,shell")[0].text
    assert shell.count("$HOME") == 1
    with pytest.raises(tern.InvalidArgumentError, match="placeholder syntax 'bogus'"):
        translator.translate_batch(["A dog."], keep_placeholders=True, placeholder_syntaxes="printf,bogus")


def test_convert_then_translate(checkpoint_dir, tmp_path, model, translator):
    out = tmp_path / "en-de.int8.tern"
    report = tern.convert(checkpoint_dir, out, weights="int8", max_source_tokens=128, max_target_tokens=128)
    assert out.exists() and report["file_bytes"] == out.stat().st_size and report["formats"]["int8"][0] > 0
    converted = tern.Translator(tern.Model.load(out), threads=1)
    texts = ["A dog runs on the beach.", "Two men are talking."]
    assert [r.text for r in converted.translate_batch(texts)] == [r.text for r in translator.translate_batch(texts)]


def test_icu_messages_keep_their_structure(translator):
    msgs = ["{count, plural, one {A dog runs in the park.} other {# dogs run in the park.}}",
            "A man sits with {name} on a bench.", "A woman reads {title"]
    out = translator.translate_icu_messages(msgs, beam_size=1, on_error="keep")
    assert out[0].startswith("{count, plural, one {") and "} other {# " in out[0] and out[0].endswith("}}")
    assert out[1].count("{name}") == 1
    assert out[2] is None
    with pytest.raises(tern.InvalidArgumentError, match=r"messages\[2\]: ICU MessageFormat: '\{' at byte 14 is not closed"):
        translator.translate_icu_messages(msgs, beam_size=1)
    # Fluent select expressions: the variants translated, the keys and placeables kept; "fluent" off: refused.
    fl = ["{ $n -> [one] A dog runs in the park. *[other] { $n } dogs run in the park. }"]
    out = translator.translate_icu_messages(fl, beam_size=1)
    assert out[0].startswith("{ $n -> [one] ") and " *[other] { $n } " in out[0] and out[0].endswith(" }")
    assert out[0] != fl[0]
    assert translator.translate_icu_messages(fl, beam_size=1, placeholder_syntaxes="printf", on_error="keep") == [None]


def test_packed_cache_dir(model_path, tmp_path):
    """Model.load(packed_cache_dir=): the first Translator writes the cache, the next load maps it; same output."""
    lines = ["A man in a blue shirt is standing on a ladder.", "Two dogs play in the snow."]
    outs, notes = [], []
    for _ in range(2):
        m = tern.Model.load(model_path, mmap=True, packed_cache_dir=tmp_path)
        assert m.packed_weights_note == ""
        t = tern.Translator(m, threads=1)
        notes.append(m.packed_weights_note)
        outs.append([(r.text, r.score) for r in t.translate_batch(lines, beam_size=4)])
    assert notes[0].startswith("packed at load (cache: none yet); wrote " + str(tmp_path))
    assert notes[1].startswith("mapped from " + str(tmp_path))
    assert outs[0] == outs[1]
    assert len(list(tmp_path.glob("*.ternpack"))) == 1


def test_auto_protect(translator):
    """URLs and {name} / %d placeholders come out verbatim by default; auto_protect=False translates them as they are."""
    text = "Delete {count} files and %d folders from https://example.com/files?"
    out = translator.translate_batch([text], beam_size=4)[0].text
    for span in ("{count}", "%d", "https://example.com/files"):
        assert out.count(span) == 1, out
    assert translator.translate_batch([text], beam_size=4, auto_protect=False)[0].text != ""
    plain = ["A man in a blue shirt is standing on a ladder."]
    a = translator.translate_batch(plain, beam_size=4)[0]
    b = translator.translate_batch(plain, beam_size=4, auto_protect=False)[0]
    assert (a.text, a.score) == (b.text, b.score)
