"""BLEU of the bundled model on Multi30k test_2016_flickr (en->de): the PyTorch float reference (greedy
and beam 4), tern f32 and tern int8 (greedy and beam 4), each with sentences/s, from one run.

    /usr/bin/python3 scripts/evaluate.py [--model-dir models/en-de] [--data ../shared/data/multi30k]
        [--threads 1] [--batch 16] [--limit N] [--markdown OUT.md]

Needs the Python package (docs/python.md: the build tree's build/python, or an installed tern). The f32
.tern is converted from the checkpoint into build/ at the start; the int8 one is the bundled file. All systems
decode with the same limits: at most --max-length generated tokens, length penalty 1, n-best 1.
Prints a Markdown table and sacreBLEU-style scores with their signature.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "converter", "pytorch"))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
sys.path.insert(1, os.path.join(ROOT, "build", "python"))  # the build tree's package, unless one is installed
import bleu  # noqa: E402
import tern  # noqa: E402
import generate  # noqa: E402
from tokenizer import MarianTokenizer  # noqa: E402


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read().splitlines()


def torch_translate(model, tok, lines, beam, batch, max_length, procs):
    """Translates in batches of similar length (like tern); returns texts in input order and seconds."""
    ids = [tok.encode_source(l) for l in lines]
    order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
    out = [None] * len(ids)
    t0 = time.perf_counter()
    for s in range(0, len(order), batch):
        chunk = order[s: s + batch]
        srcs = [ids[i] for i in chunk]
        if beam == 1:
            res = [h for h, _ in generate.greedy(model, srcs, max_length=max_length, procs=procs)]
        else:
            res = [r[0][0] for r in generate.beam_search(model, srcs, beam=beam, max_length=max_length, procs=procs)]
        for i, h in zip(chunk, res):
            out[i] = tok.decode_target(h)
    return out, time.perf_counter() - t0


def tern_translate(path, lines, beam, batch, threads, max_length):
    """Translates with the package (sentence splitting on, as the CLI); returns texts and seconds."""
    translator = tern.Translator(tern.Model.load(path), threads=threads, max_batch=batch)
    t0 = time.perf_counter()
    out = translator.translate_batch(lines, beam_size=beam, max_length=max_length)
    return [r.text for r in out], time.perf_counter() - t0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model-dir", default=os.path.join(ROOT, "models", "en-de"))
    ap.add_argument("--data", default=os.path.join(ROOT, "..", "shared", "data", "multi30k"))
    ap.add_argument("--split", default="test_2016_flickr")
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--max-length", type=int, default=128)
    ap.add_argument("--limit", type=int, default=0, help="first N sentences only (smoke runs)")
    ap.add_argument("--markdown", help="also write the table here")
    args = ap.parse_args()

    torch.set_num_threads(args.threads)
    src, ref = read(os.path.join(args.data, f"{args.split}.en")), read(os.path.join(args.data, f"{args.split}.de"))
    work = os.path.join(args.build, "evaluate")
    os.makedirs(work, exist_ok=True)
    if args.limit:
        src, ref = src[: args.limit], ref[: args.limit]

    ckpt = os.path.join(args.model_dir, "checkpoint")
    int8 = os.path.join(args.model_dir, "en-de.int8.tern")
    f32 = os.path.join(work, "en-de.f32.tern")
    tern.convert(ckpt, f32, weights="f32")

    model = generate.load(ckpt)
    tok = MarianTokenizer(ckpt)
    procs = generate.processors_of(model, ckpt)
    rows = []
    for beam in (1, 4):
        hyp, sec = torch_translate(model, tok, src, beam, args.batch, args.max_length, procs)
        rows.append((f"PyTorch f32 (reference)", beam, hyp, sec))
    for name, path in (("tern f32", f32), ("tern int8", int8)):
        for beam in (1, 4):
            hyp, sec = tern_translate(path, src, beam, args.batch, args.threads, args.max_length)
            rows.append((name, beam, hyp, sec))

    lines = [f"Multi30k {args.split} en->de, {len(src)} sentences, batch {args.batch}, {args.threads} thread(s), "
             f"max {args.max_length} generated tokens, length penalty 1. BLEU: {bleu.SIGNATURE}", "",
             "| system | search | BLEU | sentences/s |", "|---|---|---|---|"]
    for name, beam, hyp, sec in rows:
        score = bleu.bleu(hyp, ref)[0]
        lines.append(f"| {name} | {'greedy' if beam == 1 else f'beam {beam}'} | {score:.2f} | {len(src) / sec:.1f} |")
    for name, beam, hyp, sec in rows:
        lines.append(f"\n{name}, {'greedy' if beam == 1 else f'beam {beam}'}: {bleu.format_score(hyp, ref)}")
    text = "\n".join(lines)
    print(text)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
