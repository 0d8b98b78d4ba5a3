#!/usr/bin/env python3
"""The GIL is released while tern translates: sentences/s of the first N lines of test_2016_flickr in one
Python thread (one Translator) against two Python threads (two Translators on one Model, each the same N
lines, so the two have equal work), every Translator with threads=1. The peer in the same run is C++:
tern-bench --translators 1 and 2 (one Translator per std::thread, the same lines, beam and batch). Runs
interleave (Python 1, 2, C++ 1, 2, ...); prints each trial, the median and range of sentences/s and of the
ratio 2 threads / 1 thread, and the CPU.

    PYTHONPATH=build/python /usr/bin/python3 bench/python_threads.py [--n 200] [--beam 4] [--trials 5]
"""
import argparse
import json
import os
import statistics
import subprocess
import threading
import time

import tern

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def run(translators, lines, beam):
    threads = [threading.Thread(target=t.translate_batch, args=(lines,), kwargs={"beam_size": beam}) for t in translators]
    start = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return len(lines) * len(translators) / (time.perf_counter() - start)


def peer(bench, model, data, n, beam, translators, batch):
    out = subprocess.run([bench, "-m", model, "--input", data, "--output", "/dev/null", "--limit", str(n), "--threads", "1",
                          "--beam", str(beam), "--batch", str(batch), "--translators", str(translators)],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().split("\n")[-1])["sentences_per_s"]


def summary(name, r1, r2):
    ratios = [b / c for b, c in zip(r2, r1)]
    return ("%s: 1 thread median %.1f (%.1f-%.1f) sentences/s; 2 threads median %.1f (%.1f-%.1f); ratio median %.2f "
            "(%.2f-%.2f)" % (name, statistics.median(r1), min(r1), max(r1), statistics.median(r2), min(r2), max(r2),
                             statistics.median(ratios), min(ratios), max(ratios)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default=os.path.join(ROOT, "models/en-de/en-de.int8.tern"))
    ap.add_argument("--data", default=os.path.join(ROOT, "../shared/data/multi30k/test_2016_flickr.en"))
    ap.add_argument("--tern-bench", default=os.path.join(ROOT, "build/bench/tern-bench"))
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--beam", type=int, default=4)
    ap.add_argument("--trials", type=int, default=5)
    a = ap.parse_args()
    print("CPU:", tern.cpu_summary())
    with open(a.data, encoding="utf-8") as f:
        lines = [line.rstrip("\n") for line in f][: a.n]
    model = tern.Model.load(a.model)
    one = [tern.Translator(model, threads=1)]
    two = [tern.Translator(model, threads=1), tern.Translator(model, threads=1)]
    run(one, lines[:20], a.beam), run(two, lines[:20], a.beam)  # warm-up: packed weights, caches
    batch = one[0].max_batch
    r1, r2, c1, c2 = [], [], [], []
    for trial in range(a.trials):
        r1.append(run(one, lines, a.beam))
        r2.append(run(two, lines, a.beam))
        c1.append(peer(a.tern_bench, a.model, a.data, a.n, a.beam, 1, batch))
        c2.append(peer(a.tern_bench, a.model, a.data, a.n, a.beam, 2, batch))
        print("trial %d: Python %.1f / %.1f sentences/s (1 / 2 threads, ratio %.2f); C++ %.1f / %.1f (ratio %.2f)"
              % (trial + 1, r1[-1], r2[-1], r2[-1] / r1[-1], c1[-1], c2[-1], c2[-1] / c1[-1]))
    print("%d sentences per thread, beam %d, batch %d:" % (a.n, a.beam, batch))
    print("  " + summary("Python tern.Translator", r1, r2))
    print("  " + summary("C++ tern-bench", c1, c2))

if __name__ == "__main__":
    main()
