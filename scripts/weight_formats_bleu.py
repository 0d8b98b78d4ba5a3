"""BLEU of the bundled model in every weight layout, side by side from one run (issue 13): f32, int8, the
4-bit layouts (qc4w; qb4w with 32-, 64- and 128-column blocks; int4 = qb4w-32; mixed = qb4w feed-forward
with int8 attention and embeddings), greedy and beam 4 on Multi30k test_2016_flickr, with the file size
and the weight bytes a decoder step reads (the Translator's profile counts, greedy, batch 1). Uses the Python
package (the build tree's build/python, or an installed tern).

    /usr/bin/python3 scripts/weight_formats_bleu.py [--data ../shared/data/multi30k] [--build build]
        [--out /tmp/tern-weight-formats]
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

# (label, --weights, --int4-block)
LAYOUTS = [("f32", "f32", 64), ("int8", "int8", 64), ("qc4w", "qc4w", 64), ("qb4w, 32-column blocks (= int4)", "int4", 32),
           ("qb4w, 64-column blocks", "qb4w", 64), ("qb4w, 128-column blocks", "qb4w", 128),
           ("mixed (qb4w-32 feed-forward, int8 attention)", "mixed", 32),
           ("mixed (qb4w-64 feed-forward, int8 attention)", "mixed", 64)]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=os.path.join(ROOT, "..", "shared", "data", "multi30k"))
    ap.add_argument("--checkpoint", default=os.path.join(ROOT, "models", "en-de", "checkpoint"))
    ap.add_argument("--out", default="/tmp/tern-weight-formats")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.data, "test_2016_flickr.en"), encoding="utf-8") as f:
        src = f.read().splitlines()
    with open(os.path.join(args.data, "test_2016_flickr.de"), encoding="utf-8") as f:
        refs = f.read().splitlines()
    rows = []
    for label, weights, block in LAYOUTS:
        path = os.path.join(args.out, f"{weights}-{block}.tern")
        tern.convert(args.checkpoint, path, weights=weights, int4_block=block)
        model = tern.Model.load(path)
        greedy = tern.Translator(model, threads=1, max_batch=1)  # batch 1: the bytes one sentence's step reads
        g = [r.text for r in greedy.translate_batch(src, beam_size=1, split_sentences=False)]
        p = greedy.profile
        step_mib = p["weight_bytes_read"] / p["decoder_steps"] / 1048576
        b = [r.text for r in tern.Translator(model, threads=1).translate_batch(src, beam_size=4, split_sentences=False)]
        scores = [bleu.bleu(g, refs)[0], bleu.bleu(b, refs)[0]]
        rows.append((label, scores[0], scores[1], os.path.getsize(path) / 1048576, step_mib))
        print(f"{label}: greedy {scores[0]:.2f}, beam 4 {scores[1]:.2f}", flush=True)
    print(f"\nBundled en-de model, test_2016_flickr (1,000 sentences), 1 thread. BLEU: {bleu.SIGNATURE}.\n")
    print("| weights | BLEU greedy | BLEU beam 4 | file MiB | weight MiB read per decoder step |")
    print("|---|---|---|---|---|")
    for label, g, b, mib, step in rows:
        print(f"| {label} | {g:.2f} | {b:.2f} | {mib:.2f} | {step:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
