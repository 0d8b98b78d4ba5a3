#!/usr/bin/env python3
"""Speed of the int8 path before and after a change (issue 31: tern's own qd8 quantization and the exact
epilogue must cost at most 5%): tern-bench of two builds on the bundled int8 model, runs interleaved (old,
new, old, new, ...) so both see the same machine; prints each pair's tokens/s and the median and range of
new / old per configuration, and the CPU.

    /usr/bin/python3 bench/int8_identity_speed.py --old OLD/build/bench/tern-bench [--new build/bench/tern-bench]
        [--limit 200] [--trials 5]
"""
import argparse
import json
import os
import statistics
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def bench(binary, model, data, limit, beam, batch, threads):
    out = subprocess.run([binary, "-m", model, "--input", data, "--output", "/dev/null", "--limit", str(limit), "--beam",
                          str(beam), "--batch", str(batch), "--threads", str(threads)], check=True, capture_output=True,
                         text=True).stdout
    return json.loads(out.strip().split("\n")[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--old", required=True)
    ap.add_argument("--new", default=os.path.join(ROOT, "build/bench/tern-bench"))
    ap.add_argument("--model", default=os.path.join(ROOT, "models/en-de/en-de.int8.tern"))
    ap.add_argument("--data", default=os.path.join(ROOT, "../shared/data/multi30k/test_2016_flickr.en"))
    ap.add_argument("--limit", type=int, default=200)
    ap.add_argument("--trials", type=int, default=5)
    a = ap.parse_args()
    configs = [("greedy, batch 1, 1 thread", 1, 1, 1), ("beam 4, batch 8, 1 thread", 4, 8, 1), ("greedy, batch 1, 2 threads", 1, 1, 2)]
    cpu = None
    for name, beam, batch, threads in configs:
        ratios, old_tps, new_tps = [], [], []
        for _ in range(a.trials):
            o = bench(a.old, a.model, a.data, a.limit, beam, batch, threads)
            n = bench(a.new, a.model, a.data, a.limit, beam, batch, threads)
            cpu = n["cpu"]
            old_tps.append(o["tokens_per_s"]), new_tps.append(n["tokens_per_s"])
            ratios.append(n["tokens_per_s"] / o["tokens_per_s"])
        print("%s: old %.0f (%.0f-%.0f) tokens/s, new %.0f (%.0f-%.0f); new/old median %.3f (%.3f-%.3f)" % (
            name, statistics.median(old_tps), min(old_tps), max(old_tps), statistics.median(new_tps), min(new_tps),
            max(new_tps), statistics.median(ratios), min(ratios), max(ratios)), flush=True)
    print("CPU:", cpu)


if __name__ == "__main__":
    main()
