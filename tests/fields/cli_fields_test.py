#!/usr/bin/env python3
"""The field table through the CLI (runtime/fields/fields.py): every option with a `tern translate` flag, at its
test value, arrives in the library (the echo of Translator::CheckOptions, TERN_ECHO_OPTIONS), and the flags of
the special options (--glossary, --target-prefix, --suppress, --end-token, --stream) arrive in the call. And every
field of the result table reaches `--format json`: the JSON, read back into the library's echo format, is what the
library made (TERN_ECHO_RESULTS, runtime/src/base/results_echo.h), bit for bit.
Usage: cli_fields_test.py TERN MODEL"""

import json
import os
import pathlib
import struct
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[2]


def echo_of(tern, model, args, entry, stdin="A dog runs.\n"):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "echo")
        env = dict(os.environ, TERN_ECHO_OPTIONS=path)
        p = subprocess.run([tern, "translate", "-m", model, *args], input=stdin, capture_output=True, text=True, env=env,
                           timeout=120)
        lines = open(path).read().splitlines() if os.path.exists(path) else []
    for line in lines:
        if line.split()[0] == entry:
            return dict(x.split("=", 1) for x in line.split()[1:]), p
    sys.exit("no '%s' echo from tern translate %s (exit %d): %s" % (entry, " ".join(args), p.returncode, p.stderr))


def main():
    tern, model = sys.argv[1], sys.argv[2]
    table = json.loads((ROOT / "tests/fields/values.json").read_text(encoding="utf-8"))["options"]
    args, want = [], {}
    for row in table:
        if row.get("cli_args"):
            args += row["cli_args"]
            want[row["name"]] = row["echo"]
    got, p = echo_of(tern, model, args, "check")
    bad = {k: (v, got.get(k)) for k, v in want.items() if got.get(k) != v}
    if bad:
        sys.exit("flags whose value did not arrive (want, got): %s" % bad)
    print("cli fields: %d flags arrive (the call then exits %d: %s)" % (len(want), p.returncode, p.stderr.strip()[:100]))
    with tempfile.TemporaryDirectory() as d:
        g = os.path.join(d, "g.tsv")
        open(g, "w").write("dog\tHund\n")
        special = ["--glossary", g, "--suppress", "Katze", "--end-token", "7", "--beam", "1", "--stream"]
        got, p = echo_of(tern, model, special, "translate")
        for k, v in {"glossary": "set", "suppress_sequences": "1", "end_tokens": "1", "on_token": "set",
                     "sampling_keys": "1"}.items():
            if got.get(k) != v:
                sys.exit("%s: want %s, got %s" % (k, v, got.get(k)))
        got, p = echo_of(tern, model, ["--target-prefix", "Ein"], "translate")
        if got.get("target_prefix") != "1":
            sys.exit("--target-prefix did not arrive: %s" % got.get("target_prefix"))
    print("cli fields: the special flags arrive")


def _bits(v):
    return "%08x" % struct.unpack("<I", struct.pack("<f", float(v)))[0]


# How `--format json` spells each field of the result table (targets/desktop/result_writer.cc): a function of a
# hypothesis' (or a line's) JSON object to the field's values. A result field the CLI does not write fails here.
CLI_FIELDS = {
    "text": lambda h: h["text"].encode("utf-8").hex(),
    "ids": lambda h: ",".join(str(x) for x in h["ids"]),
    "score": lambda h: _bits(h["score"]),
    "tokens": lambda h: ",".join(str(t["id"]) for t in h["tokens"]),
    "token_logprobs": lambda h: ",".join(_bits(t["logprob"]) for t in h["tokens"]),
    "token_sources": lambda h: ",".join(str(t.get("source", -1)) for t in h["tokens"]),
    "token_spans": lambda h: ",".join("%d:%d" % tuple(t["span"]) for t in h["tokens"] if "span" in t),
    "attention": lambda h: ",".join(_bits(x) for row in h.get("attention", []) for x in row),
    "source_ids": lambda j: ",".join(str(s["id"]) for s in j["source"]),
    "source_spans": lambda j: ",".join("%d:%d" % tuple(s["span"]) for s in j["source"] if "span" in s),
}


def results_reach_json(tern, model):
    """Every result field through `tern translate --format json` (one call: three lines, two hypotheses)."""
    results = json.loads((ROOT / "tests/fields/values.json").read_text(encoding="utf-8"))["results"]
    missing = [r["name"] for r in results if r["name"] not in CLI_FIELDS]
    if missing:
        sys.exit("result fields --format json does not write: %s" % missing)
    lines = "A dog runs on the grass.\nTwo men play music.\nA girl reads a book.\n"
    args = ["--format", "json", "--beam", "2", "--n-best", "2", "--alignment", "--attention", "--batch", "8",
            "--no-split"]
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "results")
        env = dict(os.environ, TERN_ECHO_RESULTS=path)
        p = subprocess.run([tern, "translate", "-m", model, *args], input=lines, capture_output=True, text=True,
                           env=env, timeout=120)
        if p.returncode != 0:
            sys.exit("tern translate %s: exit %d: %s" % (" ".join(args), p.returncode, p.stderr))
        echo = open(path).read() if os.path.exists(path) else ""
    want = "results translate " + echo.split("results translate ")[-1] if "results translate " in echo else None
    got = ["results translate n=%d" % len(p.stdout.splitlines())]
    for i, line in enumerate(p.stdout.splitlines()):
        j = json.loads(line)
        ok = "error" not in j
        out = "r i=%d ok=%d" % (i, ok)
        if ok:
            out += "".join(" %s=%s" % (r["name"], CLI_FIELDS[r["name"]](j)) for r in results if r["level"] == "result")
        got.append(out)
        for k, h in enumerate(j.get("hypotheses", [j]) if ok else []):
            got.append("h i=%d k=%d" % (i, k) +
                       "".join(" %s=%s" % (r["name"], CLI_FIELDS[r["name"]](h)) for r in results if r["level"] == "hypothesis"))
    got = "\n".join(got) + "\n"
    if got != want:
        sys.exit("--format json is not what the library made:\n%s\nthe library:\n%s" % (got, want))
    print("cli fields: every result field reaches --format json")


if __name__ == "__main__":
    main()
    results_reach_json(sys.argv[1], sys.argv[2])
