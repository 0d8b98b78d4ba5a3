"""The field tables through Python (runtime/fields/fields.py): a non-default value of every option keyword
arrives in the library's call (TERN_ECHO_OPTIONS, runtime/src/base/options_echo.h) from translate_batch,
translate_ids, score_batch, score_ids and both Engine.submit calls; the keywords each call takes are the
table's, and no other. Every result field Python hands out is what the library made, bit for bit
(TERN_ECHO_RESULTS, runtime/src/base/results_echo.h), from the calls and both engine paths."""

import json
import os
import pathlib

import numpy as np
import pytest
import struct

import tern

ROOT = pathlib.Path(__file__).resolve().parents[2]
TABLE = json.loads((ROOT / "tests/fields/values.json").read_text(encoding="utf-8"))["options"]


@pytest.fixture()
def echo(tmp_path, monkeypatch):
    path = tmp_path / "echo"
    monkeypatch.setenv("TERN_ECHO_OPTIONS", str(path))

    def lines(entry):
        if not path.exists():
            return []
        return [dict(p.split("=", 1) for p in l.split()[1:]) for l in path.read_text().splitlines() if l.split()[0] == entry]

    return lines


def _keywords(model, call):
    """Every keyword `call` takes at its test value (the special ones given here), and the echo expected."""
    kw, want = {}, {}
    for row in TABLE:
        py = row["py"]
        if not py or (call.startswith("score") and not row["score"]) or (call.endswith("ids") and row["texts_only"]):
            continue
        if "value" in row:
            kw[py] = row["value"]
            want[row["name"]] = row["echo"]
    special = {
        "callback": (lambda ev: None, {"on_token": "set", "on_token_user_data": "set"}),
        "cancel": (tern.CancelToken(), {"abort": "set"}),
        "logits_processors": ([lambda row: None], {"logits_processors": "1"}),
        "glossary": (tern.Glossary.from_entries(model, [("dog", "Hund")]), {"glossary": "set"}),
        "target_prefix": (["Ein"], {"target_prefix": "1"}),
        "target_prefix_ids": ([[5]], {"target_prefix_ids": "1"}),
        "suppress_sequences": ([[5]], {"suppress_sequences": "1"}),
        "end_tokens": ([7], {"end_tokens": "1"}),
        "keep_spans": ([(0, 0, 1)], {"keep_spans": "1"}),
        "sampling_keys": ([42], {"sampling_keys": "1"}),
    }
    takes = {row["py"] for row in TABLE if row["py"] and (not call.startswith("score") or row["score"]) and
             not (call.endswith("ids") and row["texts_only"])}
    for name, (value, echoed) in special.items():
        if name in takes:
            kw[name] = value
            want.update(echoed)
    if "target_prefix" in kw and "target_prefix_ids" in kw:
        del kw["target_prefix"], want["target_prefix"]  # one of them per call: ids kept
    return kw, want


def _check(line, want):
    missing = {k: (v, line.get(k)) for k, v in want.items() if line.get(k) != v}
    assert not missing, missing


@pytest.mark.parametrize("call", ["translate_batch", "translate_ids", "score_batch", "score_ids"])
def test_every_keyword_arrives_in_the_call(model, echo, call):
    t = tern.Translator(model, threads=1, max_n_best=4, attention=True)
    kw, want = _keywords(model, call)
    entry = {"translate_batch": "translate", "translate_ids": "translate_ids", "score_batch": "score", "score_ids": "score_ids"}[call]
    args = {"translate_batch": (["A dog runs."],), "translate_ids": ([[5, 6, 0]],),
            "score_batch": (["A dog runs."], ["Ein Hund läuft."]), "score_ids": ([[5, 6, 0]], [[9, 10]])}[call]
    try:  # the values together are mostly no valid call: the echo comes first
        getattr(t, call)(*args, **kw)
    except tern.TernError:
        pass
    lines = echo(entry)
    assert lines, "no %s call reached the library" % entry
    _check(lines[0], want)


@pytest.mark.parametrize("ids", [False, True])
def test_every_keyword_arrives_in_the_engine(model, echo, ids):
    e = tern.Engine(model, replicas=1, threads=1, max_n_best=4, attention=True)
    kw, want = _keywords(model, "translate_ids" if ids else "translate_batch")
    try:
        (e.submit_ids([[5, 6, 0]], **kw) if ids else e.submit(["A dog runs."], **kw)).result(timeout=60)
    except tern.TernError:
        pass
    e.close()
    lines = echo("submit")
    assert lines
    _check(lines[0], want)


def test_each_call_takes_the_tables_keywords_and_no_other(model):
    t = tern.Translator(model, threads=1)
    with pytest.raises(TypeError, match="unexpected keyword argument 'no_such_option'"):
        t.translate_batch(["A dog."], no_such_option=1)
    with pytest.raises(TypeError, match="unexpected keyword argument 'markup'"):  # a text-only option
        t.translate_ids([[5, 0]], markup="html")
    with pytest.raises(TypeError, match="unexpected keyword argument 'beam_size'"):  # scoring has no beam
        t.score_batch(["A dog."], ["Ein Hund."], beam_size=4)
    with pytest.raises(TypeError, match="beam_size: expected a number, got a bool"):
        t.translate_batch(["A dog."], beam_size=True)
    e = tern.Engine(model, replicas=1)
    with pytest.raises(TypeError, match="unexpected keyword argument 'no_such_option'"):
        e.submit(["A dog."], no_such_option=1)
    e.close()
    assert os.environ.get("TERN_ECHO_OPTIONS") is None


# ---------------------------------------------------------------- the result table
RESULTS = json.loads((ROOT / "tests/fields/values.json").read_text(encoding="utf-8"))["results"]


def _bits(v):
    return "%08x" % struct.unpack("<I", struct.pack("<f", float(v)))[0]


def _put(row, v):
    """One field in the echo's format (runtime/src/base/results_echo.h)."""
    kind = row["kind"]
    if kind == "text":
        value = v.encode("utf-8").hex()
    elif kind == "f32":
        value = _bits(v)
    elif kind in ("f32s", "matrix"):
        value = "" if v is None else ",".join(_bits(x) for x in np.asarray(v).reshape(-1))
    elif kind == "spans":
        value = ",".join("%d:%d" % (b, e) for b, e in v)
    else:
        value = ",".join(str(int(x)) for x in v)
    return " %s=%s" % (row["name"], value)


def _dump(entry, results):
    """What the binding gave, every field of the result table, as the library's echo writes it."""
    out = ["results %s n=%d" % (entry, len(results))]
    for i, r in enumerate(results):
        line = "r i=%d ok=%d" % (i, 1 if r.ok else 0)
        if r.ok:
            line += "".join(_put(row, getattr(r, row["name"])) for row in RESULTS if row["level"] == "result")
        out.append(line)
        for k, h in enumerate(r.hypotheses if r.ok else []):
            out.append("h i=%d k=%d" % (i, k) +
                       "".join(_put(row, getattr(h, row["name"])) for row in RESULTS if row["level"] == "hypothesis"))
    return "\n".join(out) + "\n"


@pytest.fixture()
def result_echo(tmp_path, monkeypatch):
    path = tmp_path / "results"
    monkeypatch.setenv("TERN_ECHO_RESULTS", str(path))

    def last(entry):
        blocks = [b for b in ("\n" + path.read_text(encoding="utf-8")).split("\nresults ") if b] if path.exists() else []
        mine = ["results " + b if b.endswith("\n") else "results " + b + "\n" for b in blocks if b.split()[0] == entry]
        return mine[-1] if mine else None

    return last


TEXTS = ["A dog runs on the grass.", "", "Two men play music."]
EVERY_CHANNEL = dict(beam_size=2, n_best=2, return_scores=True, return_alignment=True, return_attention=True)


@pytest.mark.parametrize("call", ["translate_batch", "translate_ids", "score_batch", "engine", "engine_continuous"])
def test_every_result_field_reaches_python(model, result_echo, call):
    """Every field of the result table, as Python hands it out, is what the library made (bit for bit)."""
    opts = dict(EVERY_CHANNEL)
    if call == "engine_continuous":
        del opts["return_attention"]  # a continuous call takes everything else (TranslateContinuous)
    if call.startswith("engine"):
        e = tern.Engine(model, replicas=1, threads=1, max_n_best=2, attention=True,
                        continuous_batching=call.endswith("continuous"))
        got = e.submit(TEXTS, **opts).result(timeout=120)
        e.close()
        entry = "complete"
    else:
        t = tern.Translator(model, threads=1, max_n_best=2, attention=True)
        entry = {"translate_batch": "translate", "translate_ids": "translate_ids", "score_batch": "score"}[call]
        if call == "translate_batch":
            got = t.translate_batch(TEXTS, **opts)
        elif call == "translate_ids":
            got = t.translate_ids([[5, 6, 0], [40, 71, 242, 768, 2, 0]], **opts)
        else:
            got = t.score_batch(TEXTS, ["Ein Hund läuft.", "", "Zwei Männer machen Musik."],
                                return_alignment=True)
    want = result_echo(entry)
    assert want is not None, "no %s results were echoed" % entry
    assert _dump(entry, got) == want
