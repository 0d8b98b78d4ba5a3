"""Where a decoding step's time goes in tern and in CTranslate2, side by side: tern's own profile
(`tern-bench --profile`, Translator::profile) and CTranslate2's (its ENABLE_PROFILING build, through
bench/ct2_profile.cc), on the same checkpoint, sentences and decoding length, one thread each, the two
interleaved --trials times. Prints the CPU, each system's total and the operations grouped the same way
(median of the trials, ms), and each side's raw figures.

    /usr/bin/python3 bench/profile_vs_ct2.py --tern-model M.int8.tern --ct2-model DIR --ct2-profile ct2-profile
        --spm source.spm [--beam 4] [--batch 16] [--max-length 64] [--trials 3]

The groups: the int8 GEMMs with their quantization and output scaling (tern: decoder_linear and
output_projection; CTranslate2: Gemm, Quantize, DequantizeGemmOutput, which also hold its encoder's), attention
(tern: self_attention, cross_attention, cross_kv; CTranslate2: MatMul, SoftMax, Concat, Gather: its KV cache
grows by concatenation and is reordered by gathering after each beam step), log-softmax, top-k and the beam
(tern: softmax_topk, beam_bookkeeping; CTranslate2: LogSoftMax, TopK, beam_search), tern's encoder, and the rest.
Both profilers time their own scopes, which costs some time on each side: compare the groups, and the
tokens/s of bench/vs_ctranslate2.py for the totals.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "..", "shared", "data", "multi30k", "test_2016_flickr.en")

GROUPS = [
    ("int8 GEMMs, quantize, output scaling", ["decoder_linear", "output_projection"], ["Gemm", "Quantize", "DequantizeGemmOutput"]),
    ("attention (and the KV cache)", ["self_attention", "cross_attention", "cross_kv"], ["MatMul", "SoftMax", "Concat", "Gather"]),
    ("log-softmax, top-k, beam", ["softmax_topk", "beam_bookkeeping"], ["LogSoftMax", "TopK", "beam_search"]),
    ("encoder (CTranslate2: in the groups above)", ["encoder"], []),
]


def sentences(n: int) -> list[str]:
    if os.path.exists(DATA):
        with open(DATA, encoding="utf-8") as f:
            return [line.strip() for line in f][:n]
    base = ["A man in a blue shirt is standing on a ladder.", "Two young children are playing in the sand."]
    return [base[i % len(base)] for i in range(n)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tern-model", required=True)
    ap.add_argument("--ct2-model", required=True)
    ap.add_argument("--ct2-profile", required=True, help="bench/ct2_profile.cc built against CTranslate2")
    ap.add_argument("--spm", required=True, help="the checkpoint's source.spm")
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--beam", type=int, default=4)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--max-length", type=int, default=64)
    ap.add_argument("--trials", type=int, default=3)
    args = ap.parse_args()
    import sentencepiece as spm

    texts = sentences(args.batch)
    sp = spm.SentencePieceProcessor(model_file=args.spm)
    with tempfile.TemporaryDirectory() as tmp:
        text_file, token_file = os.path.join(tmp, "in.txt"), os.path.join(tmp, "in.tok")
        with open(text_file, "w", encoding="utf-8") as f:
            f.write("\n".join(texts) + "\n")
        with open(token_file, "w", encoding="utf-8") as f:
            f.write("\n".join(" ".join(p + ["</s>"]) for p in sp.encode(texts, out_type=str)) + "\n")
        tern, ct2, cpu = [], [], ""
        for _ in range(args.trials):
            out = subprocess.run([os.path.join(args.build, "bench/tern-bench"), "-m", args.tern_model, "--input", text_file,
                                  "--output", "/dev/null", "--beam", str(args.beam), "--batch", str(args.batch), "--threads",
                                  "1", "--limit", str(args.batch), "--max-length", str(args.max_length), "--profile"],
                                 capture_output=True, text=True, check=True).stdout
            j = json.loads(out)
            cpu = j["cpu"]
            tern.append(dict(j["profile_ms"], total=j["seconds"] * 1000, tok_s=j["tokens_per_s"]))
            lines = subprocess.run([args.ct2_profile, args.ct2_model, token_file, str(args.beam), str(args.max_length - 1)],
                                   capture_output=True, text=True, check=True, env=dict(os.environ, OMP_NUM_THREADS="1")
                                   ).stdout.splitlines()
            head = lines[0].split()
            c = {"total": float(head[1]) * 1000, "tok_s": float(head[5])}
            for line in lines[1:]:
                m = re.match(r"\s*[\d.]+%\s+[\d.]+%\s+[\d.]+%\s+(.+?)\s+([\d.]+)ms", line)
                if m:
                    c[m.group(1)] = float(m.group(2))
            ct2.append(c)

    def med(rows, keys):
        return statistics.median(sum(r.get(k, 0.0) for k in keys) for r in rows)

    print(f"CPU: {cpu}. beam {args.beam} x batch {args.batch}, {args.max_length} decoder steps, 1 thread, "
          f"{args.trials} interleaved trials, median ms.\n")
    print("| | tern | CTranslate2 | tern / CTranslate2 |")
    print("|---|---|---|---|")
    t_total, c_total = med(tern, ["total"]), med(ct2, ["total"])
    grouped_t, grouped_c = set(), set()
    for name, tk, ck in GROUPS:
        t, c = med(tern, tk), med(ct2, ck)
        grouped_t.update(tk), grouped_c.update(ck)
        print(f"| {name} | {t:,.0f} | {c:,.0f} | {t / c:.2f} |" if c else f"| {name} | {t:,.0f} | | |")
    rest_t = statistics.median(r["total"] - sum(v for k, v in r.items() if k in grouped_t) for r in tern)
    rest_c = statistics.median(r["total"] - sum(v for k, v in r.items() if k in grouped_c) for r in ct2)
    print(f"| the rest | {rest_t:,.0f} | {rest_c:,.0f} | |")
    print(f"| total (profiled) | {t_total:,.0f} | {c_total:,.0f} | {t_total / c_total:.2f} |")
    print(f"| tokens/s (profiled) | {med(tern, ['tok_s']):,.1f} | {med(ct2, ['tok_s']):,.1f} | |")
    print("\ntern:", json.dumps({k: round(statistics.median(r.get(k, 0.0) for r in tern), 1) for k in tern[0]}))
    print("CTranslate2:", json.dumps({k: round(statistics.median(r.get(k, 0.0) for r in ct2), 1) for k in ct2[0]}))


if __name__ == "__main__":
    main()
