"""BLEU of the bundled model in every weight layout, side by side from one run (issue 13): f32, int8, the
4-bit layouts (qc4w; qb4w with 32-, 64- and 128-column blocks; int4 = qb4w-32; mixed = qb4w feed-forward
with int8 attention and embeddings), greedy and beam 4 on Multi30k test_2016_flickr, with the file size
and the weight bytes a decoder step reads (from `tern translate --profile`, greedy, batch 1).

    /usr/bin/python3 scripts/weight_formats_bleu.py [--data ../shared/data/multi30k] [--build build]
        [--out /tmp/tern-weight-formats]
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

# (label, --weights, --int4-block)
LAYOUTS = [("f32", "f32", 64), ("int8", "int8", 64), ("qc4w", "qc4w", 64), ("qb4w, 32-column blocks (= int4)", "int4", 32),
           ("qb4w, 64-column blocks", "qb4w", 64), ("qb4w, 128-column blocks", "qb4w", 128),
           ("mixed (qb4w-32 feed-forward, int8 attention)", "mixed", 32),
           ("mixed (qb4w-64 feed-forward, int8 attention)", "mixed", 64)]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=os.path.join(ROOT, "..", "shared", "data", "multi30k"))
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--checkpoint", default=os.path.join(ROOT, "models", "en-de", "checkpoint"))
    ap.add_argument("--out", default="/tmp/tern-weight-formats")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    src = os.path.join(args.data, "test_2016_flickr.en")
    with open(os.path.join(args.data, "test_2016_flickr.de"), encoding="utf-8") as f:
        refs = f.read().splitlines()
    tern = os.path.join(args.build, "targets", "desktop", "tern")
    rows = []
    for label, weights, block in LAYOUTS:
        model = os.path.join(args.out, f"{weights}-{block}.tern")
        subprocess.run([os.path.join(args.build, "converter", "tern-convert"), "-q", args.checkpoint, model, "--weights",
                        weights, "--int4-block", str(block)], check=True)
        scores = []
        step_mib = None
        for beam in (1, 4):
            out = os.path.join(args.out, "hyp.txt")
            cmd = [tern, "translate", "-m", model, "-i", src, "-o", out, "--beam", str(beam), "--no-split", "--threads", "1"]
            if beam == 1:
                cmd += ["--batch", "1", "--profile"]
            p = subprocess.run(cmd, capture_output=True, text=True, check=True)
            with open(out, encoding="utf-8") as f:
                scores.append(bleu.bleu(f.read().splitlines(), refs)[0])
            m = re.search(r"a decoder step reads ([\d.]+) MiB of weights", p.stderr)
            if m:
                step_mib = float(m.group(1))
        rows.append((label, scores[0], scores[1], os.path.getsize(model) / 1048576, step_mib))
        print(f"{label}: greedy {scores[0]:.2f}, beam 4 {scores[1]:.2f}", flush=True)
    print(f"\nBundled en-de model, test_2016_flickr (1,000 sentences), 1 thread. BLEU: {bleu.SIGNATURE}.\n")
    print("| weights | BLEU greedy | BLEU beam 4 | file MiB | weight MiB read per decoder step |")
    print("|---|---|---|---|---|")
    for label, g, b, mib, step in rows:
        print(f"| {label} | {g:.2f} | {b:.2f} | {mib:.2f} | {step:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
