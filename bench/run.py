"""The side-by-side benchmark: tern int8 and f32 against the same checkpoint in PyTorch float32 and
PyTorch dynamic int8, on the bundled model and Multi30k test_2016_flickr (1,000 sentences), greedy and
beam 4, batch 1 and 16, 1 and 2 threads. Every configuration runs in its own process (so peak RSS and
load time are its own). Prints and writes a Markdown table, the tern/PyTorch ratios from the same run,
and a PNG plot of throughput by configuration.

    /usr/bin/python3 bench/run.py [--limit N] [--out bench/results]     (needs a built tern: build/)
        [--opus-shapes classic] [--opus-sentences 100] [--opus-max-length 64] [--opus-beams 1,4]

Then the real-size benchmark of bench/opus_shape.py (int8, int4, mixed, with and without a shortlist, weight
bytes per token, Raspberry Pi roofline) for each of --opus-shapes.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import bleu  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import opus_shape  # noqa: E402
import report  # noqa: E402


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"bench: {' '.join(cmd)} failed:\n{p.stderr}")
    return json.loads(p.stdout.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=os.path.join(ROOT, "..", "shared", "data", "multi30k"))
    ap.add_argument("--model-dir", default=os.path.join(ROOT, "models", "en-de"))
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "results"))
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--batches", default="1,16")
    ap.add_argument("--beams", default="1,4")
    ap.add_argument("--opus-shapes", default="classic",
                    help="real OPUS-MT shapes to benchmark too (bench/opus_shape.py): classic, tc-big, both, or '' for none")
    opus_shape.add_arguments(ap)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    src = os.path.join(args.data, "test_2016_flickr.en")
    with open(os.path.join(args.data, "test_2016_flickr.de"), encoding="utf-8") as f:
        refs = f.read().splitlines()
    if args.limit:
        refs = refs[: args.limit]
    ckpt = os.path.join(args.model_dir, "checkpoint")
    f32 = os.path.join(args.out, "en-de.f32.tern")
    subprocess.run([os.path.join(args.build, "converter", "tern-convert"), "-q", ckpt, f32, "--weights", "f32",
                    "--max-source-tokens", "128", "--max-target-tokens", "128"], check=True)
    systems = [
        ("tern int8", lambda o: [os.path.join(args.build, "bench", "tern-bench"), "-m",
                                 os.path.join(args.model_dir, "en-de.int8.tern")] + o),
        ("tern f32", lambda o: [os.path.join(args.build, "bench", "tern-bench"), "-m", f32] + o),
        ("PyTorch f32", lambda o: ["/usr/bin/python3", os.path.join(ROOT, "bench", "torch_bench.py"),
                                   "--checkpoint", ckpt, "--dtype", "f32"] + o),
        ("PyTorch int8", lambda o: ["/usr/bin/python3", os.path.join(ROOT, "bench", "torch_bench.py"),
                                    "--checkpoint", ckpt, "--dtype", "int8"] + o),
    ]
    rows = []
    for beam in map(int, args.beams.split(",")):
        for batch in map(int, args.batches.split(",")):
            for threads in map(int, args.threads.split(",")):
                for name, cmd in systems:
                    out = os.path.join(args.out, f"{name.replace(' ', '_')}.b{beam}.n{batch}.t{threads}.de")
                    opts = ["--input", src, "--output", out, "--beam", str(beam), "--batch", str(batch),
                            "--threads", str(threads)] + (["--limit", str(args.limit)] if args.limit else [])
                    r = run(cmd(opts))
                    with open(out, encoding="utf-8") as f:
                        r["bleu"] = bleu.bleu(f.read().splitlines(), refs)[0]
                    r["name"] = name
                    rows.append(r)
                    with open(os.path.join(args.out, "results.partial.json"), "w") as f:
                        json.dump(rows, f, indent=1)
                    print(f"{name:13s} beam {beam} batch {batch:2d} threads {threads}: {r['tokens_per_s']:8.1f} tok/s "
                          f"{r['sentences_per_s']:7.1f} sent/s p50 {r['latency_p50_ms']:7.1f} ms BLEU {r['bleu']:.2f}",
                          flush=True)
    report.render(rows, args.out, [n for n, _ in systems])
    opus_rows = []
    for shape in filter(None, args.opus_shapes.split(",")):
        opus_rows += opus_shape.run_shape(args, shape)
    if opus_rows:
        opus_shape.render(opus_rows, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
