"""Corpus BLEU computed the way sacreBLEU does by default: 13a tokenization, no lowercasing, exponential
smoothing off ("none"), max n-gram order 4, brevity penalty over the corpus; prints the signature.

    /usr/bin/python3 scripts/bleu.py HYPOTHESES REFERENCE            # files, one sentence per line
    -> BLEU = 35.12 67.1/42.0/28.3/19.5 (BP = 0.987 ratio = 0.987 hyp_len = 12001 ref_len = 12152)
       nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:tern-bleu-1 ...

Written from sacreBLEU's documented behaviour (tokenizer_13a.py: the mteval-v13a.pl rules; BLEU with
smooth_method "exp" by default, which only matters when an n-gram order has no match).
"""
from __future__ import annotations

import argparse
import math
import re
import sys
from collections import Counter
from typing import List, Sequence, Tuple

# mteval-v13a.pl tokenization, as sacrebleu.tokenizers.tokenizer_13a.Tokenizer13a.
_RULES = [
    (re.compile(r"([\{-\~\[-\` -\&\(-\+\:-\@\/])"), r" \1 "),  # tokenize punctuation
    (re.compile(r"([^0-9])([\.,])"), r"\1 \2 "),               # period and comma unless preceded by a digit
    (re.compile(r"([\.,])([^0-9])"), r" \1 \2"),               # period and comma unless followed by a digit
    (re.compile(r"([0-9])(-)"), r"\1 \2 "),                    # dash when preceded by a digit
]


def tokenize_13a(line: str) -> str:
    line = line.replace("<skipped>", "").replace("-\n", "").replace("\n", " ")
    if "&" in line:
        line = line.replace("&quot;", '"').replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">")
    line = " " + line + " "
    for pattern, repl in _RULES:
        line = pattern.sub(repl, line)
    return " ".join(line.split())


def _ngrams(tokens: Sequence[str], n: int) -> Counter:
    return Counter(tuple(tokens[i: i + n]) for i in range(len(tokens) - n + 1))


def corpus_stats(hyps: Sequence[str], refs: Sequence[str]) -> Tuple[List[int], List[int], int, int]:
    """Matched and total n-gram counts (n = 1..4), hypothesis and reference lengths in 13a tokens."""
    if len(hyps) != len(refs):
        raise ValueError(f"{len(hyps)} hypotheses but {len(refs)} references")
    correct, total = [0] * 4, [0] * 4
    hyp_len = ref_len = 0
    for h, r in zip(hyps, refs):
        ht, rt = tokenize_13a(h.strip()).split(), tokenize_13a(r.strip()).split()
        hyp_len += len(ht)
        ref_len += len(rt)
        for n in range(1, 5):
            hc, rc = _ngrams(ht, n), _ngrams(rt, n)
            correct[n - 1] += sum(min(c, rc[g]) for g, c in hc.items())
            total[n - 1] += max(len(ht) - n + 1, 0)
    return correct, total, hyp_len, ref_len


def bleu(hyps: Sequence[str], refs: Sequence[str]) -> Tuple[float, List[float], float, int, int]:
    """(BLEU, [p1..p4] in percent, brevity penalty, hyp_len, ref_len), sacreBLEU's default "exp" smoothing."""
    correct, total, hyp_len, ref_len = corpus_stats(hyps, refs)
    precisions = []
    smooth = 1.0
    for c, t in zip(correct, total):
        if t == 0:
            precisions.append(0.0)
        elif c == 0:
            smooth *= 2
            precisions.append(100.0 / (smooth * t))
        else:
            precisions.append(100.0 * c / t)
    if hyp_len == 0:
        return 0.0, precisions, 0.0, hyp_len, ref_len
    bp = 1.0 if hyp_len > ref_len else math.exp(1 - ref_len / hyp_len)
    if min(precisions) <= 0:
        return 0.0, precisions, bp, hyp_len, ref_len
    score = bp * math.exp(sum(math.log(p) for p in precisions) / 4)
    return score, precisions, bp, hyp_len, ref_len


SIGNATURE = "nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:tern-bleu-1 (sacreBLEU 2.x defaults)"


def format_score(hyps: Sequence[str], refs: Sequence[str]) -> str:
    score, p, bp, hl, rl = bleu(hyps, refs)
    return (f"BLEU = {score:.2f} {p[0]:.1f}/{p[1]:.1f}/{p[2]:.1f}/{p[3]:.1f} "
            f"(BP = {bp:.3f} ratio = {hl / max(rl, 1):.3f} hyp_len = {hl} ref_len = {rl})")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("hypotheses")
    ap.add_argument("reference")
    args = ap.parse_args()
    with open(args.hypotheses, encoding="utf-8") as f:
        hyps = f.read().splitlines()
    with open(args.reference, encoding="utf-8") as f:
        refs = f.read().splitlines()
    print(format_score(hyps, refs))
    print(SIGNATURE)
    return 0


if __name__ == "__main__":
    sys.exit(main())
