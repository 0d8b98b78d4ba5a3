"""Throughput over the rows a decoder step computes (M = batch x beam: 1, 4, 16, 64) and weight formats, at
the OPUS-MT base shape (d_model 512, 6+6 layers, a 54,688-token vocabulary, random weights: every sentence
decodes to --max-length tokens), one thread. For each configuration, tern's own int8 GEMM (on CPUs without int8
dot products; qc4w: TERN_OWN_INT4=1) and XNNPACK's (TERN_OWN_INT8=0) run interleaved, --trials times each, in the same build; prints
the CPU, tokens/s (median and range), their ratio, and the share of the time in the matrix multiplies (the
encoder, the decoder's linear layers and the output projection, from the runtime's profile).

    /usr/bin/python3 bench/throughput.py [--weights int8,int4] [--sentences 32] [--max-length 64] [--trials 3]
        [--configs greedy:1,beam4:1,greedy:16,beam4:16] [--build build] [--work bench/results]

The model is made once in --work (converter/pytorch/make_opus_shape.py, then tern-convert per format).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GEMM_PARTS = ("encoder", "cross_kv", "decoder_linear", "output_projection")


def prepare(args):
    work = os.path.join(args.work, "opus-classic-6x6")
    ckpt = os.path.join(work, "checkpoint")
    if not os.path.isfile(os.path.join(ckpt, "model.safetensors")):
        subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "converter/pytorch/make_opus_shape.py"), ckpt, "--shape",
                        "classic", "--layers", "6"], check=True)
    files = {}
    for w in args.weights.split(","):
        path = os.path.join(work, f"classic.{w}.tern")
        if not os.path.isfile(path):
            subprocess.run([os.path.join(args.build, "converter/tern-convert"), "-q", ckpt, path, "--weights", w,
                            "--max-batch", "16", "--max-target-tokens", str(args.max_length)], check=True)
        files[w] = path
    text = os.path.join(work, "sentences.en")
    if not os.path.isfile(text):
        base = ["A man in a blue shirt is standing on a ladder.", "Two young children are playing in the sand.",
                "A woman is riding a bicycle down the street.", "A black dog runs through the grass."]
        with open(text, "w") as f:
            for i in range(256):
                f.write(base[i % 4] + "\n")
    return files, text


def run(args, model, text, beam, batch, own):
    env = dict(os.environ, TERN_OWN_INT8="1" if own else "0", TERN_OWN_INT4="1" if own else "0")
    cmd = [os.path.join(args.build, "bench/tern-bench"), "-m", model, "--input", text, "--output", "/dev/null",
           "--beam", str(beam), "--batch", str(batch), "--threads", "1", "--limit", str(args.sentences),
           "--max-length", str(args.max_length), "--profile"]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--work", default=os.path.join(ROOT, "bench/results"))
    ap.add_argument("--weights", default="int8,int4")
    ap.add_argument("--configs", default="greedy:1,beam4:1,greedy:16,beam4:16")
    ap.add_argument("--sentences", type=int, default=32)
    ap.add_argument("--max-length", type=int, default=64)
    ap.add_argument("--trials", type=int, default=3)
    args = ap.parse_args()
    files, text = prepare(args)
    configs = []
    for c in args.configs.split(","):
        search, batch = c.split(":")
        configs.append((search, 4 if search == "beam4" else 1, int(batch)))
    cpu = None
    print("| weights | search | batch | M | tern GEMM tok/s | XNNPACK tok/s | tern / XNNPACK (median, range) | "
          "GEMM share (tern) | GEMM share (XNNPACK) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for w, model in files.items():
        for search, beam, batch in configs:
            own, xnn, ratios, share = [], [], [], {True: [], False: []}
            for _ in range(args.trials):  # interleaved
                for flag in (True, False):
                    j = run(args, model, text, beam, batch, flag)
                    cpu = j["cpu"]
                    (own if flag else xnn).append(j["tokens_per_s"])
                    p = j["profile_ms"]
                    share[flag].append(sum(p[k] for k in GEMM_PARTS) / max(1e-9, sum(p.values())))
                ratios.append(own[-1] / xnn[-1])
            print(f"| {w} | {search} | {batch} | {batch * beam} | {statistics.median(own):.0f} | {statistics.median(xnn):.0f} | "
                  f"{statistics.median(ratios):.2f}x ({min(ratios):.2f}-{max(ratios):.2f}) | "
                  f"{100 * statistics.median(share[True]):.0f}% | {100 * statistics.median(share[False]):.0f}% |", flush=True)
    print(f"\nCPU: {cpu}. {args.sentences} sentences decoded to {args.max_length} tokens, 1 thread, {args.trials} interleaved "
          f"trials per system; tokens/s counts each sentence's best hypothesis.")


if __name__ == "__main__":
    sys.exit(main())
