"""The field table through Python (runtime/fields/fields.py): a non-default value of every option keyword
arrives in the library's call (TERN_ECHO_OPTIONS, runtime/src/base/options_echo.h) from translate_batch,
translate_ids, score_batch, score_ids and both Engine.submit calls; the keywords each call takes are the
table's, and no other."""

import json
import os
import pathlib

import pytest

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
