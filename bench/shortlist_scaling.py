#!/usr/bin/env python3
"""Shortlist building grows linearly with the corpus: tern-convert --shortlist on Multi30k train repeated
1, 2 and 4 times, and on the worst case that was quadratic before (2,500 words as one line pair, and the
same words as 250 line pairs). Prints, per corpus, the words (source + target), the seconds and peak RSS
of the conversion minus those of the same conversion without a shortlist, and both per million words.

    /usr/bin/python3 bench/shortlist_scaling.py [--convert build/converter/tern-convert]
"""
import argparse
import os
import subprocess
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def measure(cmd):
    """(seconds, peak RSS MiB) of one run of cmd."""
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, ru = os.wait4(p.pid, 0)
    sec = time.monotonic() - t0
    err = p.stderr.read().decode()
    if status != 0:
        raise SystemExit(f"{' '.join(cmd)} failed: {err}")
    return sec, ru.ru_maxrss / 1024.0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--convert", default=os.path.join(ROOT, "build/converter/tern-convert"))
    ap.add_argument("--checkpoint", default=os.path.join(ROOT, "models/en-de/checkpoint"))
    ap.add_argument("--data", default=os.path.join(ROOT, "../shared/data/multi30k"))
    a = ap.parse_args()
    tmp = tempfile.mkdtemp()
    src = open(os.path.join(a.data, "train.en")).read().splitlines()
    tgt = open(os.path.join(a.data, "train.de")).read().splitlines()
    corpora = []

    def write(name, s_lines, t_lines):
        ps, pt = os.path.join(tmp, name + ".en"), os.path.join(tmp, name + ".de")
        with open(ps, "w") as f:
            f.write("\n".join(s_lines) + "\n")
        with open(pt, "w") as f:
            f.write("\n".join(t_lines) + "\n")
        words = sum(len(l.split()) for l in s_lines) + sum(len(l.split()) for l in t_lines)
        corpora.append((name, ps, pt, words))

    for k in (1, 2, 4):
        write(f"train x{k}", src * k, tgt * k)
    # The case that was quadratic (23 s and 462 MiB before): 2,500 words of train as one line pair. Such a
    # pair is now left out (over 200 tokens a side); the same words as 250 line pairs, with and without it.
    s_words, t_words = " ".join(src[:400]).split()[:2500], " ".join(tgt[:400]).split()[:2500]
    s_lines = [" ".join(s_words[i:i + 10]) for i in range(0, 2500, 10)]
    t_lines = [" ".join(t_words[i:i + 10]) for i in range(0, 2500, 10)]
    write("2,500 words as 250 line pairs", s_lines, t_lines)
    write("the same + them as 1 line pair (left out)", s_lines + [" ".join(s_words)], t_lines + [" ".join(t_words)])
    out = os.path.join(tmp, "out.tern")
    base_s, base_mib = measure([a.convert, "-q", a.checkpoint, out])
    print(f"tern-convert without a shortlist: {base_s:.2f} s, peak RSS {base_mib:.1f} MiB (subtracted below)")
    print("| corpus | words | seconds | s / M words | MiB | MiB / M words |")
    print("|---|---|---|---|---|---|")
    for name, ps, pt, words in corpora:
        sec, mib = measure([a.convert, "-q", a.checkpoint, out, "--shortlist", ps, pt])
        ds, dm = max(0.0, sec - base_s), max(0.0, mib - base_mib)
        print(f"| {name} | {words:,} | {ds:.2f} | {ds / words * 1e6:.2f} | {dm:.1f} | {dm / words * 1e6:.1f} |")


if __name__ == "__main__":
    main()
