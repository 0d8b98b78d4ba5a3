#!/usr/bin/env python3
"""What a glossary costs: tern-bench on test_2016_flickr, 1 thread, batch 1, with and without --glossary
(a TSV, e.g. the one scripts/terminology_eval.py --save-glossary writes), runs interleaved, greedy and
beam 4; on all lines and on the lines that hold a term. Prints the CPU, tokens/s and sentences/s of every
run and the ratio with/without of each adjacent pair (median and range).

    /usr/bin/python3 scripts/terminology_eval.py ... --save-glossary /tmp/glossary.tsv
    /usr/bin/python3 bench/glossary_speed.py --glossary /tmp/glossary.tsv [--trials 5]
"""
import argparse
import json
import os
import re
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
    ap.add_argument("--glossary", required=True)
    ap.add_argument("--trials", type=int, default=5)
    a = ap.parse_args()
    with open(a.data, encoding="utf-8") as f:
        lines = [l.rstrip("\n") for l in f]
    with open(a.glossary, encoding="utf-8") as f:
        terms = [l.split("\t")[0] for l in f if "\t" in l]
    pat = re.compile(r"(?<![\w-])(" + "|".join(re.escape(t) for t in terms) + r")(?![\w-])", re.IGNORECASE)
    sets = {"all lines": lines, "lines with a term": [l for l in lines if pat.search(l)]}
    files = {}
    for name, ls in sets.items():
        with tempfile.NamedTemporaryFile("w", suffix=".en", delete=False, encoding="utf-8") as f:
            f.write("\n".join(ls) + "\n")
            files[name] = f.name
    out = tempfile.mktemp(suffix=".de")

    def run(src, beam, extra):
        p = subprocess.run([a.bench, "-m", a.model, "--input", src, "--output", out, "--beam", str(beam), "--threads", "1"]
                           + extra, capture_output=True, text=True, check=True)
        return json.loads(p.stdout.strip().splitlines()[-1])

    cpu = None
    print(f"glossary: {len(terms)} terms ({a.glossary}); {a.trials} interleaved pairs per row")
    print("| lines | search | tokens/s without | tokens/s with | sentences/s without | sentences/s with | with / without (sentences/s) |")
    print("|---|---|---|---|---|---|---|")
    for name, src in files.items():
        for beam in (1, 4):
            plain, gl, ratios = [], [], []
            for _ in range(a.trials):
                r0 = run(src, beam, [])
                r1 = run(src, beam, ["--glossary", a.glossary, "--glossary-ignore-case"])
                cpu = r0["cpu"]
                plain.append(r0)
                gl.append(r1)
                ratios.append(r1["sentences_per_s"] / r0["sentences_per_s"])
            med = lambda rs, k: statistics.median(x[k] for x in rs)
            print(f"| {name} ({len(sets[name])}) | {'greedy' if beam == 1 else 'beam 4'} | {med(plain, 'tokens_per_s'):.0f} | "
                  f"{med(gl, 'tokens_per_s'):.0f} | {med(plain, 'sentences_per_s'):.1f} | {med(gl, 'sentences_per_s'):.1f} | "
                  f"{statistics.median(ratios):.3f} ({min(ratios):.3f}-{max(ratios):.3f}) |")
    print("CPU:", cpu)
    print(f"glossary load: {gl[-1]['glossary_load_ms']:.1f} ms")
    for f in files.values():
        os.unlink(f)
    if os.path.exists(out):
        os.unlink(out)


if __name__ == "__main__":
    main()
