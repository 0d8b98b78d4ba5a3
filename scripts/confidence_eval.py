"""Does tern's confidence mean something? Chooses the low-confidence thresholds on one split and reports on
another, against the references:

  - sentence: the Spearman correlation between sentence confidence (the mean token log-probability, and
    the minimum) and sentence chrF against the reference (chrF2 as sacreBLEU computes it: character
    n-grams 1..6 without whitespace, precision and recall averaged over the orders, beta 2);
  - a sentence is "poor" when its chrF is in the split's lowest quarter; the sentence threshold is the
    mean log-probability that flags poor sentences with the best F1 on the tuning split;
  - a word of the translation is "unsupported" when the reference does not contain it (lowercased); the
    token threshold is the log-probability that flags unsupported words (a word is flagged when one of its
    tokens is) with the best F1 on the tuning split.

    /usr/bin/python3 scripts/confidence_eval.py --tern build/targets/desktop/tern \
        --model models/en-de/en-de.int8.tern --data ../shared/data/multi30k
"""
from __future__ import annotations

import argparse
import os
import sys
from collections import Counter
from typing import List, Sequence, Tuple

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from alignment_eval import read, translate_json  # noqa: E402
from lexicon import byte_words  # noqa: E402


def chrf(hyp: str, ref: str, order: int = 6, beta: float = 2.0) -> float:
    """Sentence chrF (sacreBLEU's CHRF with its defaults: char order 6, word order 0, beta 2)."""
    h, r = "".join(hyp.split()), "".join(ref.split())
    precs, recs = [], []
    for n in range(1, order + 1):
        hc = Counter(h[i:i + n] for i in range(len(h) - n + 1))
        rc = Counter(r[i:i + n] for i in range(len(r) - n + 1))
        th, tr = sum(hc.values()), sum(rc.values())
        if th == 0 or tr == 0:
            continue
        match = sum((hc & rc).values())
        precs.append(match / th)
        recs.append(match / tr)
    if not precs:
        return 0.0
    p, rr = sum(precs) / len(precs), sum(recs) / len(recs)
    if p + rr == 0:
        return 0.0
    b2 = beta * beta
    return 100.0 * (1 + b2) * p * rr / (b2 * p + rr)


def ranks(xs: Sequence[float]) -> List[float]:
    """1-based ranks, ties given their mean rank."""
    order = sorted(range(len(xs)), key=lambda i: xs[i])
    r = [0.0] * len(xs)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and xs[order[j + 1]] == xs[order[i]]:
            j += 1
        for k in range(i, j + 1):
            r[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return r


def spearman(a: Sequence[float], b: Sequence[float]) -> float:
    """Spearman's rank correlation: Pearson's correlation of the ranks (as scipy.stats.spearmanr)."""
    ra, rb = ranks(a), ranks(b)
    n = len(ra)
    ma, mb = sum(ra) / n, sum(rb) / n
    cov = sum((x - ma) * (y - mb) for x, y in zip(ra, rb))
    va = sum((x - ma) ** 2 for x in ra)
    vb = sum((y - mb) ** 2 for y in rb)
    return cov / (va * vb) ** 0.5 if va > 0 and vb > 0 else 0.0


def f1(flags: Sequence[bool], truth: Sequence[bool]) -> Tuple[float, float, float]:
    tp = sum(1 for f, t in zip(flags, truth) if f and t)
    fp = sum(1 for f, t in zip(flags, truth) if f and not t)
    fn = sum(1 for f, t in zip(flags, truth) if not f and t)
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


def word_items(results: List[dict], refs: List[str]) -> List[Tuple[float, bool]]:
    """(lowest token log-probability of the word, the word is not in the reference) per translated word."""
    out = []
    for r, ref in zip(results, refs):
        if "error" in r:
            continue
        ref_words = {w for w, _, _ in byte_words(ref)}
        for w, b, e in byte_words(r["text"]):
            lps = [t["logprob"] for t in r["tokens"] if "span" in t and t["span"][0] < e and t["span"][1] > b]
            if lps:
                out.append((min(lps), w not in ref_words))
    return out


def best_threshold(values: Sequence[float], truth: Sequence[bool]) -> Tuple[float, float]:
    """The threshold t (flag when value < t) with the best F1, from the values' quantiles."""
    cands = sorted(set(round(v, 2) for v in values))
    best_t, best_f = 0.0, -1.0
    for t in cands[:: max(1, len(cands) // 400)]:
        _, _, f = f1([v < t for v in values], truth)
        if f > best_f:
            best_t, best_f = t, f
    return best_t, best_f


def evaluate(results: List[dict], refs: List[str]):
    ok = [(r, ref) for r, ref in zip(results, refs) if "error" not in r]
    mean = [r["confidence"]["mean"] for r, _ in ok]
    low = [r["confidence"]["min"] for r, _ in ok]
    c = [chrf(r["text"], ref) for r, ref in ok]
    return mean, low, c


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tern", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--tune", default="val")
    ap.add_argument("--test", default="test_2016_flickr")
    ap.add_argument("--extra", default="", help="more tern translate arguments, e.g. '--beam 1'")
    a = ap.parse_args()
    extra = a.extra.split()
    splits = {}
    for name in (a.tune, a.test):
        src, ref = read(os.path.join(a.data, f"{name}.en")), read(os.path.join(a.data, f"{name}.de"))
        splits[name] = (translate_json(a.tern, a.model, src, extra), ref)

    res, ref = splits[a.tune]
    mean, _, c = evaluate(res, ref)
    poor_cut = sorted(c)[len(c) // 4]
    t_sent, f_sent = best_threshold(mean, [x < poor_cut for x in c])
    items = word_items(res, ref)
    t_tok, f_tok = best_threshold([v for v, _ in items], [u for _, u in items])
    print(f"{a.tune} (tuning): poor = chrF < {poor_cut:.1f} (lowest quarter); sentence threshold {t_sent:.2f} "
          f"(F1 {f_sent:.3f}); token threshold {t_tok:.2f} (F1 {f_tok:.3f} on {len(items)} words)")

    res, ref = splits[a.test]
    mean, low, c = evaluate(res, ref)
    rho_mean = spearman(mean, c)
    rho_min = spearman(low, c)
    poor_cut_test = sorted(c)[len(c) // 4]
    ps, rs, fs = f1([m < t_sent for m in mean], [x < poor_cut_test for x in c])
    items = word_items(res, ref)
    pt, rt, ft = f1([v < t_tok for v, _ in items], [u for _, u in items])
    flagged = sum(1 for m in mean if m < t_sent)
    print(f"{a.test}: Spearman(sentence mean log-prob, chrF) = {rho_mean:.3f}; "
          f"Spearman(min token log-prob, chrF) = {rho_min:.3f} ({len(c)} sentences)")
    print(f"{a.test}: sentences flagged {flagged} of {len(c)}: precision {ps:.3f} recall {rs:.3f} F1 {fs:.3f} "
          f"for chrF < {poor_cut_test:.1f}")
    print(f"{a.test}: words flagged: precision {pt:.3f} recall {rt:.3f} F1 {ft:.3f} for words not in the reference "
          f"({sum(u for _, u in items)} of {len(items)})")


if __name__ == "__main__":
    main()
