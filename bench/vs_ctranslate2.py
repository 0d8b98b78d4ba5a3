"""tern against CTranslate2 on the same checkpoint, same sentences, same decoding length, one thread, each
configuration in its own process, the two systems interleaved --trials times. Prints the CPU, tokens/s of each
(median and range) and their ratio per trial (median and range).

    /usr/bin/python3 bench/vs_ctranslate2.py --tern-model M.tern --ct2-model DIR --spm source.spm
        [--configs greedy:1,beam4:1,beam4:16,greedy:16] [--sentences 32] [--max-length 64] [--trials 3]

CTranslate2 is not part of tern: build it from its source release outside this repository (its Python
module on PYTHONPATH, its library on LD_LIBRARY_PATH) and convert the same checkpoint with its converter;
docs/performance.md says how the figures there were made. With random weights (converter/pytorch/
make_opus_shape.py) every sentence decodes to --max-length tokens in both systems, so tokens/s compare the
same work: decoder steps x sentences / seconds (each sentence's best hypothesis).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SENTENCES = ["A man in a blue shirt is standing on a ladder.", "Two young children are playing in the sand.",
             "A woman is riding a bicycle down the street.", "A black dog runs through the grass.",
             "People are walking on a busy street in the city.", "A little girl climbs into a wooden playhouse."]

CT2_RUN = r"""
import json, sys, time, ctranslate2, sentencepiece as spm
a = json.loads(sys.argv[1])
sp = spm.SentencePieceProcessor(model_file=a["spm"])
src = [s + ["</s>"] for s in sp.encode(a["texts"], out_type=str)]  # MarianTokenizer's tokens: CTranslate2 appends no </s>
t = ctranslate2.Translator(a["model"], device="cpu", inter_threads=1, intra_threads=1, compute_type="int8")
t.translate_batch(src[: a["batch"]], beam_size=a["beam"], max_decoding_length=a["max_length"])  # warm-up
t0 = time.perf_counter()
steps = 0
for i in range(0, len(src), a["batch"]):
    for r in t.translate_batch(src[i : i + a["batch"]], beam_size=a["beam"], max_decoding_length=a["max_length"],
                               max_batch_size=a["batch"]):
        steps += len(r.hypotheses[0]) + 1   # its tokens and the </s> or cap that ended it
print(json.dumps({"tokens_per_s": steps / (time.perf_counter() - t0)}))
"""


def run_tern(args, texts_file, beam, batch):
    out = subprocess.run([os.path.join(args.build, "bench/tern-bench"), "-m", args.tern_model, "--input", texts_file,
                          "--output", "/dev/null", "--beam", str(beam), "--batch", str(batch), "--threads", "1",
                          "--limit", str(args.sentences), "--max-length", str(args.max_length)],
                         capture_output=True, text=True, check=True).stdout
    j = json.loads(out)
    return j["tokens_per_s"], j["cpu"]


def run_ct2(args, texts, beam, batch):
    env = dict(os.environ, OMP_NUM_THREADS="1")
    a = {"spm": args.spm, "texts": texts, "model": args.ct2_model, "beam": beam, "batch": batch,
         "max_length": args.max_length - 1}  # tern's max_length counts the </s> position
    out = subprocess.run([sys.executable, "-c", CT2_RUN, json.dumps(a)], capture_output=True, text=True, check=True,
                         env=env).stdout
    return json.loads(out)["tokens_per_s"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tern-model", required=True)
    ap.add_argument("--ct2-model", required=True)
    ap.add_argument("--spm", required=True, help="the checkpoint's source.spm")
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--configs", default="greedy:1,beam4:1,beam4:16,greedy:16")
    ap.add_argument("--sentences", type=int, default=32)
    ap.add_argument("--max-length", type=int, default=64)
    ap.add_argument("--trials", type=int, default=3)
    args = ap.parse_args()
    texts = [SENTENCES[i % len(SENTENCES)] for i in range(args.sentences)]
    texts_file = os.path.join(args.build, "vs_ctranslate2.en")
    with open(texts_file, "w") as f:
        f.write("\n".join(texts) + "\n")
    print("| search | batch | M | tern tok/s | CTranslate2 tok/s | tern / CTranslate2 (median, range) |")
    print("|---|---|---|---|---|---|")
    cpu = ""
    for c in args.configs.split(","):
        search, batch = c.split(":")
        beam, batch = (4 if search == "beam4" else 1), int(batch)
        tern, ct2, ratio = [], [], []
        for _ in range(args.trials):
            t, cpu = run_tern(args, texts_file, beam, batch)
            c2 = run_ct2(args, texts, beam, batch)
            tern.append(t), ct2.append(c2), ratio.append(t / c2)
        print(f"| {search} | {batch} | {beam * batch} | {statistics.median(tern):.0f} | {statistics.median(ct2):.0f} | "
              f"{statistics.median(ratio):.2f}x ({min(ratio):.2f}-{max(ratio):.2f}) |", flush=True)
    print(f"\nCPU: {cpu}. {args.sentences} sentences, {args.max_length} decoder steps each, 1 thread, {args.trials} "
          "interleaved trials.")


if __name__ == "__main__":
    sys.exit(main())
