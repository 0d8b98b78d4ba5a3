"""BLEU of the bundled model with lexical shortlists of several sizes (issue 13): for each (frequent K, best
N) the checkpoint is converted with `tern-convert --shortlist train.en train.de --shortlist-frequent K
--shortlist-best N`, test_2016_flickr is translated greedy and beam 4 (batch 8, the file's default), and
BLEU and the mean shortlist size (logits columns per decoder step, from --profile) are printed next to the
same model without a shortlist, from one run.

    /usr/bin/python3 scripts/shortlist_curve.py [--frequent 50,100,200] [--best 10,25,50,100] [--weights int8]
        [--data ../shared/data/multi30k] [--build build] [--out /tmp/tern-shortlist-curve]
"""
from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import bleu  # noqa: E402


def translate(args, model, beam, extra, refs):
    out = os.path.join(args.out, "hyp.txt")
    p = subprocess.run([os.path.join(args.build, "targets", "desktop", "tern"), "translate", "-m", model, "-i",
                        os.path.join(args.data, "test_2016_flickr.en"), "-o", out, "--beam", str(beam), "--no-split",
                        "--threads", "1", "--profile"] + extra, capture_output=True, text=True, check=True)
    with open(out, encoding="utf-8") as f:
        score = bleu.bleu(f.read().splitlines(), refs)[0]
    m = re.search(r"mean shortlist size (\d+)", p.stderr)
    return score, int(m.group(1)) if m else None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=os.path.join(ROOT, "..", "shared", "data", "multi30k"))
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--checkpoint", default=os.path.join(ROOT, "models", "en-de", "checkpoint"))
    ap.add_argument("--out", default="/tmp/tern-shortlist-curve")
    ap.add_argument("--weights", default="int8")
    ap.add_argument("--frequent", default="50,100,200")
    ap.add_argument("--best", default="10,25,50,100")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.data, "test_2016_flickr.de"), encoding="utf-8") as f:
        refs = f.read().splitlines()
    convert = os.path.join(args.build, "converter", "tern-convert")
    rows = []
    for k in map(int, args.frequent.split(",")):
        for n in map(int, args.best.split(",")):
            model = os.path.join(args.out, f"sl-{k}-{n}.tern")
            subprocess.run([convert, "-q", args.checkpoint, model, "--weights", args.weights, "--shortlist",
                            os.path.join(args.data, "train.en"), os.path.join(args.data, "train.de"),
                            "--shortlist-frequent", str(k), "--shortlist-best", str(n)], check=True)
            if not rows:  # the same file without its shortlist, once
                g = translate(args, model, 1, ["--no-shortlist"], refs)
                b = translate(args, model, 4, ["--no-shortlist"], refs)
                rows.append(("none", "-", g, b))
            g = translate(args, model, 1, [], refs)
            b = translate(args, model, 4, [], refs)
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
