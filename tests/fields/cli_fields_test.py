#!/usr/bin/env python3
"""The field table through the CLI (runtime/fields/fields.py): every option with a `tern translate` flag, at its
test value, arrives in the library (the echo of Translator::CheckOptions, TERN_ECHO_OPTIONS), and the flags of
the special options (--glossary, --target-prefix, --suppress, --end-token, --stream) arrive in the call.
Usage: cli_fields_test.py TERN MODEL"""

import json
import os
import pathlib
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


if __name__ == "__main__":
    main()
