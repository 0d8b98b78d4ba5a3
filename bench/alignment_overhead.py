#!/usr/bin/env python3
"""What per-token scores and alignment cost: tern-bench on the first N sentences of test_2016_flickr, greedy,
batch 1, one thread, with and without --scores --alignment, runs interleaved (plain, with, plain, with, ...).
Prints the CPU, every run's tokens/s, the medians, and the ratio with/without of each adjacent pair (its
median and range): the machine's drift cancels within a pair.

    /usr/bin/python3 bench/alignment_overhead.py [--n 500] [--trials 5] [--beam 1] [--threads 1]
"""
import argparse
import json
import os
import statistics
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bench", default=os.path.join(ROOT, "build/bench/tern-bench"))
    ap.add_argument("--model", default=os.path.join(ROOT, "models/en-de/en-de.int8.tern"))
    ap.add_argument("--data", default=os.path.join(ROOT, "../shared/data/multi30k/test_2016_flickr.en"))
    ap.add_argument("--n", type=int, default=500)
    ap.add_argument("--trials", type=int, default=5)
    ap.add_argument("--beam", type=int, default=1)
    ap.add_argument("--threads", type=int, default=1)
    a = ap.parse_args()
    with open(a.data, encoding="utf-8") as f:
        lines = [next(f) for _ in range(a.n)]
    with tempfile.NamedTemporaryFile("w", suffix=".en", delete=False, encoding="utf-8") as f:
        f.writelines(lines)
        src = f.name
    outputs = {}

    def run(extra):
        out = src + (".with" if extra else ".plain")
        p = subprocess.run([a.bench, "-m", a.model, "--input", src, "--output", out, "--beam", str(a.beam),
                            "--threads", str(a.threads)] + extra, capture_output=True, text=True, check=True)
        with open(out, encoding="utf-8") as f:
            outputs[bool(extra)] = f.read()
        return json.loads(p.stdout.strip().splitlines()[-1])

    plain, with_, ratios = [], [], []
    cpu = None
    for _ in range(a.trials):
        r0 = run([])
        r1 = run(["--scores", "--alignment"])
        cpu = r0["cpu"]
        plain.append(r0["tokens_per_s"])
        with_.append(r1["tokens_per_s"])
        ratios.append(r1["tokens_per_s"] / r0["tokens_per_s"])
    os.unlink(src)
    print("CPU:", cpu)
    print(f"{a.n} sentences of test_2016_flickr, beam {a.beam}, batch 1, {a.threads} thread(s), {a.trials} "
          f"interleaved pairs; {r0['target_tokens']} target tokens per run")
    print("without scores/alignment, tokens/s:", " ".join(f"{x:.0f}" for x in plain))
    print("with scores + alignment,  tokens/s:", " ".join(f"{x:.0f}" for x in with_))
    print(f"median {statistics.median(plain):.0f} vs {statistics.median(with_):.0f} tokens/s; with/without per pair: "
          f"median {statistics.median(ratios):.3f}, range {min(ratios):.3f}-{max(ratios):.3f}")
    print("same translations with and without:", outputs[False] == outputs[True])


if __name__ == "__main__":
    main()
