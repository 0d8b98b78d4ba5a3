"""Which decoder layer's cross-attention aligns best: tern's per-token alignment (`--format json`) against
IBM Model 1 (scripts/lexicon.py, trained on Multi30k train) on Multi30k val. For every word of the
translation, tern's source word (the source token its first token aligns to) is compared with the source
word of the sentence that best explains it under the lexicon (words the lexicon gives to NULL are left out).
A position baseline (target word i -> source word i x |source| / |target|) is printed for scale.

    /usr/bin/python3 scripts/alignment_eval.py --tern build/targets/desktop/tern \
        --model models/en-de/en-de.int8.tern --data ../shared/data/multi30k
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from typing import List, Optional, Tuple

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lexicon import Lexicon, byte_words  # noqa: E402


def read(path: str, limit: Optional[int] = None) -> List[str]:
    with open(path, encoding="utf-8") as f:
        lines = [l.rstrip("\n") for l in f]
    return lines[:limit] if limit else lines


def translate_json(tern: str, model: str, lines: List[str], extra: List[str]) -> List[dict]:
    p = subprocess.run([tern, "translate", "-m", model, "--format", "json", "--threads", "2"] + extra,
                       input="\n".join(lines) + "\n", capture_output=True, text=True, check=False)
    if p.returncode not in (0, 1):
        raise SystemExit(f"tern failed ({p.returncode}): {p.stderr}")
    out = [json.loads(l) for l in p.stdout.splitlines()]
    if len(out) != len(lines):
        raise SystemExit(f"tern gave {len(out)} results for {len(lines)} lines")
    return out


def word_at(spans: List[Tuple[str, int, int]], b: int, e: int) -> Optional[int]:
    """The word overlapping bytes [b, e) most (first of equals), or None."""
    best, best_overlap = None, 0
    for i, (_, wb, we) in enumerate(spans):
        o = min(e, we) - max(b, wb)
        if o > best_overlap:
            best, best_overlap = i, o
    return best


def aligned_words(src: str, r: dict) -> List[Tuple[str, Optional[int]]]:
    """(target word, index of tern's source word) for each word of the translation."""
    tw = byte_words(r["text"])
    sw = byte_words(src)
    out = []
    for w, b, e in tw:
        first = next((t for t in r["tokens"] if "span" in t and t["span"][0] < e and t["span"][1] > b), None)
        s = None
        if first is not None and "source" in first:
            sb, se = r["source"][first["source"]].get("span", [0, 0])
            s = word_at(sw, sb, se)
        out.append((w, s))
    return out


def score(lex: Lexicon, srcs: List[str], results: List[dict], diagonal: bool = False) -> Tuple[float, int]:
    agree = total = 0
    for src, r in zip(srcs, results):
        if "error" in r:
            continue
        sw = [w for w, _, _ in byte_words(src)]
        pairs = aligned_words(src, r)
        for i, (w, s) in enumerate(pairs):
            gold = lex.best_source(w, sw)
            if gold is None:
                continue
            if diagonal:
                s = min(len(sw) - 1, int(i * len(sw) / max(1, len(pairs)))) if sw else None
            total += 1
            agree += int(s == gold)
    return (agree / total if total else 0.0), total


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tern", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--data", required=True, help="the multi30k directory (train.*, val.*)")
    ap.add_argument("--split", default="val")
    ap.add_argument("--layers", type=int, default=None, help="decoder layers (default: until one is refused)")
    ap.add_argument("--lines", type=int, default=None)
    a = ap.parse_args()
    lex = Lexicon.train(read(os.path.join(a.data, "train.en")), read(os.path.join(a.data, "train.de")))
    srcs = read(os.path.join(a.data, f"{a.split}.en"), a.lines)
    print(f"alignment agreement with IBM Model 1 (train) on {a.split}, {len(srcs)} lines, greedy:")
    layer, rows = 0, []
    while a.layers is None or layer < a.layers:
        p = subprocess.run([a.tern, "translate", "-m", a.model, "--alignment-layer", str(layer)], input="x\n",
                           capture_output=True, text=True)
        if p.returncode != 0:
            break
        res = translate_json(a.tern, a.model, srcs, ["--beam", "1", "--alignment-layer", str(layer)])
        acc, n = score(lex, srcs, res)
        rows.append((layer, acc))
        print(f"  decoder layer {layer}: {100 * acc:.1f}% of {n} words")
        layer += 1
    if rows:
        res = translate_json(a.tern, a.model, srcs, ["--beam", "1"])
        acc, n = score(lex, srcs, res, diagonal=True)
        print(f"  position baseline: {100 * acc:.1f}% of {n} words")
        best = max(rows, key=lambda r: r[1])
        print(f"best: decoder layer {best[0]}")


if __name__ == "__main__":
    main()
