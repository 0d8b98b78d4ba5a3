"""BLEU of the bundled model with lexical shortlists of several sizes (issue 13): for each (frequent K, best
N) the checkpoint is converted with tern.convert(shortlist=(train.en, train.de), shortlist_frequent=K,
shortlist_best=N) (tern-convert's --shortlist), test_2016_flickr is translated greedy and beam 4 (batch 8, the
file's default), and BLEU and the mean shortlist size (logits columns per decoder step, from the
Translator's profile counts) are printed next to the same model without a shortlist, from one run. Uses the
Python package (the build tree's build/python, or an installed tern).

    /usr/bin/python3 scripts/shortlist_curve.py [--frequent 50,100,200] [--best 10,25,50,100] [--weights int8]
        [--data ../shared/data/multi30k] [--out /tmp/tern-shortlist-curve]
"""
from __future__ import annotations

import argparse
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
sys.path.insert(1, os.path.join(ROOT, "build", "python"))  # the build tree's package, unless one is installed
import bleu  # noqa: E402
import tern  # noqa: E402


def translate(model, src, refs, beam, use_shortlist):
    translator = tern.Translator(model, threads=1)
    out = translator.translate_batch(src, beam_size=beam, split_sentences=False, use_shortlist=use_shortlist)
    p = translator.profile
    mean = round(p["output_columns"] / p["decoder_steps"]) if model.shortlist and use_shortlist else None
    return bleu.bleu([r.text for r in out], refs)[0], mean


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=os.path.join(ROOT, "..", "shared", "data", "multi30k"))
    ap.add_argument("--checkpoint", default=os.path.join(ROOT, "models", "en-de", "checkpoint"))
    ap.add_argument("--out", default="/tmp/tern-shortlist-curve")
    ap.add_argument("--weights", default="int8")
    ap.add_argument("--frequent", default="50,100,200")
    ap.add_argument("--best", default="10,25,50,100")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.data, "test_2016_flickr.en"), encoding="utf-8") as f:
        src = f.read().splitlines()
    with open(os.path.join(args.data, "test_2016_flickr.de"), encoding="utf-8") as f:
        refs = f.read().splitlines()
    corpus = (os.path.join(args.data, "train.en"), os.path.join(args.data, "train.de"))
    rows = []
    for k in map(int, args.frequent.split(",")):
        for n in map(int, args.best.split(",")):
            path = os.path.join(args.out, f"sl-{k}-{n}.tern")
            tern.convert(args.checkpoint, path, weights=args.weights, shortlist=corpus, shortlist_frequent=k, shortlist_best=n)
            model = tern.Model.load(path)
            if not rows:  # the same file without its shortlist, once
                rows.append(("none", "-", translate(model, src, refs, 1, False), translate(model, src, refs, 4, False)))
            g = translate(model, src, refs, 1, True)
            b = translate(model, src, refs, 4, True)
            rows.append((str(k), str(n), g, b))
            print(f"K {k:4d} N {n:4d}: greedy {g[0]:.2f} (shortlist {g[1]}), beam 4 {b[0]:.2f} (shortlist {b[1]})", flush=True)
    print(f"\n{args.weights}, test_2016_flickr, batch 8, 1 thread. BLEU: {bleu.SIGNATURE}.\n")
    print("| frequent K | best N | mean shortlist (greedy) | mean shortlist (beam 4) | BLEU greedy | BLEU beam 4 |")
    print("|---|---|---|---|---|---|")
    for k, n, g, b in rows:
        print(f"| {k} | {n} | {g[1]} | {b[1]} | {g[0]:.2f} | {b[0]:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
