"""BLEU of paragraphs: Multi30k test_2016_flickr made into lines of GROUP consecutive sentences (joined
with a space, references likewise), translated by tern with sentence splitting (the default) and without
(--no-split), next to the same sentences translated one per line.

    /usr/bin/python3 scripts/paragraph_bleu.py [--model models/en-de/en-de.int8.tern] [--group 4] [--beam 4]

Prints one BLEU line per setting (sacreBLEU's default signature, scripts/bleu.py).
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bleu  # noqa: E402


def translate(tern, model, lines, beam, extra):
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False, encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
        path = f.name
    out = subprocess.run([tern, "translate", "-m", model, "--beam", str(beam), "--batch", "16", "--input", path] + extra,
                         capture_output=True, text=True, encoding="utf-8", check=False)
    os.unlink(path)
    hyps = out.stdout.split("\n")[: len(lines)]
    if len(hyps) != len(lines):
        raise SystemExit(f"tern translate gave {len(hyps)} lines for {len(lines)}: {out.stderr}")
    return hyps


def main() -> int:
    root = os.path.dirname(HERE)
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default=os.path.join(root, "models", "en-de", "en-de.int8.tern"))
    ap.add_argument("--tern", default=os.path.join(root, "build", "targets", "desktop", "tern"))
    ap.add_argument("--data", default=os.path.join(root, "..", "shared", "data", "multi30k"))
    ap.add_argument("--group", type=int, default=4)
    ap.add_argument("--beam", type=int, default=4)
    args = ap.parse_args()
    src = open(os.path.join(args.data, "test_2016_flickr.en"), encoding="utf-8").read().rstrip("\n").split("\n")
    ref = open(os.path.join(args.data, "test_2016_flickr.de"), encoding="utf-8").read().rstrip("\n").split("\n")
    g = args.group
    psrc = [" ".join(src[i:i + g]) for i in range(0, len(src), g)]
    pref = [" ".join(ref[i:i + g]) for i in range(0, len(ref), g)]
    sent = translate(args.tern, args.model, src, args.beam, [])
    # The per-sentence translations grouped the same way, so all three rows score the same text units.
    sent_grouped = [" ".join(sent[i:i + g]) for i in range(0, len(sent), g)]
    split = translate(args.tern, args.model, psrc, args.beam, [])
    whole = translate(args.tern, args.model, psrc, args.beam, ["--no-split"])
    print(f"{len(src)} sentences, {len(psrc)} lines of {g}; beam {args.beam}; {os.path.basename(args.model)}")
    print(f"one sentence per line         {bleu.format_score(sent, ref)}")
    print(f"  (the same, grouped by {g})     {bleu.format_score(sent_grouped, pref)}")
    print(f"{g} per line, split (default)  {bleu.format_score(split, pref)}")
    print(f"{g} per line, --no-split        {bleu.format_score(whole, pref)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
