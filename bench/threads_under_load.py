#!/usr/bin/env python3
"""Threads on a busy CPU: seconds for `tern translate` of the first N sentences of test_2016_flickr with
--threads 1 and 2, on an idle CPU and with other processes keeping every core busy (--load busy loops per
core, default 3: a load average of about 6 on 2 cores). Runs are interleaved; each row gives the median
and range of --trials runs and the ratio to 1 thread in the same condition. Also prints how many decoder
steps ran on one thread (tern's ThreadPolicy, runtime/src/nn/thread_policy.h).

    /usr/bin/python3 bench/threads_under_load.py [--n 200] [--beam 4] [--trials 3] [--load 3]
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tern", default=os.path.join(ROOT, "build/targets/desktop/tern"))
    ap.add_argument("--model", default=os.path.join(ROOT, "models/en-de/en-de.int8.tern"))
    ap.add_argument("--data", default=os.path.join(ROOT, "../shared/data/multi30k/test_2016_flickr.en"))
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--beam", type=int, default=4)
    ap.add_argument("--trials", type=int, default=3)
    ap.add_argument("--load", type=int, default=3, help="busy loops per core while loaded")
    ap.add_argument("--threads", default="1,2")
    a = ap.parse_args()
    threads = [int(t) for t in a.threads.split(",")]
    cores = os.cpu_count() or 1
    with open(a.data) as f:
        lines = [next(f) for _ in range(a.n)]
    with tempfile.NamedTemporaryFile("w", suffix=".en", delete=False) as f:
        f.writelines(lines)
        src = f.name
    cpu = subprocess.run([a.tern, "translate", "-m", a.model, "-v"], stdin=subprocess.DEVNULL, capture_output=True,
                         text=True).stderr
    print("CPU:", re.search(r"^tern: cpu: (.*)$", cpu, re.M).group(1))
    print(f"{a.n} sentences, beam {a.beam}, {a.trials} interleaved trials; loaded = {a.load * cores} busy loops on "
          f"{cores} cores")
    times, single = {}, {}

    def run(load, th):
        t0 = time.monotonic()
        p = subprocess.run([a.tern, "translate", "-m", a.model, "--beam", str(a.beam), "--threads", str(th), "-i", src,
                            "-o", "/dev/null", "-v"], capture_output=True, text=True, check=True)
        times.setdefault((load, th), []).append(time.monotonic() - t0)
        m = re.search(r"tern: (\d+) of (\d+) decoder steps ran on one thread", p.stderr)
        if m:
            single.setdefault((load, th), []).append(int(m.group(1)) / int(m.group(2)))

    for _ in range(a.trials):
        for th in threads:
            run("idle", th)
        hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(a.load * cores)]
        time.sleep(1)
        try:
            for th in threads:
                run("loaded", th)
        finally:
            for h in hogs:
                h.kill()
            for h in hogs:
                h.wait()
        time.sleep(1)
    os.unlink(src)
    print("| CPU | threads | seconds (median) | range | vs 1 thread | decoder steps on one thread |")
    print("|---|---|---|---|---|---|")
    for load in ("idle", "loaded"):
        one = statistics.median(times[(load, 1)]) if (load, 1) in times else None
        for th in threads:
            v = times[(load, th)]
            med = statistics.median(v)
            s = single.get((load, th))
            frac = f"{100 * statistics.median(s):.0f}%" if s else "-"
            print(f"| {load} | {th} | {med:.2f} | {min(v):.2f}-{max(v):.2f} | "
                  f"{med / one:.2f}x | {frac} |" if one else f"| {load} | {th} | {med:.2f} | - | - | {frac} |")


if __name__ == "__main__":
    main()
