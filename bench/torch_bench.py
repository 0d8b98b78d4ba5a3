"""PyTorch side of the benchmark: the same checkpoint in float32 or dynamically quantized int8
(torch.ao.quantization.quantize_dynamic on every Linear, the output projection included), decoding with
the reference's incremental greedy / beam search (KV cache, no re-running of the prefix). Prints one JSON
object with the same fields as tern-bench.

    /usr/bin/python3 bench/torch_bench.py --checkpoint models/en-de/checkpoint --dtype f32|int8 \
        --input FILE --output FILE [--beam 1] [--batch 1] [--threads 1] [--limit N]
"""
from __future__ import annotations

import argparse
import copy
import json
import os
import resource
import sys
import time

os.environ.setdefault("GLOG_minloglevel", "2")  # before torch: qnnpack logs a warning per dynamic linear call
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "converter", "pytorch"))
import generate  # noqa: E402
from tokenizer import MarianTokenizer  # noqa: E402


def best_engine(model, tok, lines) -> str:
    """The fastest quantized engine this torch build has, timed by greedy-translating a few of the input
    sentences with each (Debian's torch 1.13 offers onednn and qnnpack, no fbgemm)."""
    times = {}
    for e in torch.backends.quantized.supported_engines:
        if e == "none":
            continue
        torch.backends.quantized.engine = e
        q = quantize(copy.deepcopy(model), e)
        srcs = [tok.encode_source(l) for l in lines[:8]]
        t = time.perf_counter()
        for s in srcs:
            generate.greedy(q, [s], max_length=64)
        times[e] = time.perf_counter() - t
    return min(times, key=times.get)


def quantize(model, engine):
    """Dynamic int8 on every nn.Linear; the tied output projection becomes an nn.Linear first so it is
    quantized too (as in tern)."""
    torch.backends.quantized.engine = engine
    emb = model.model.decoder.embed_tokens.weight
    head = nn.Linear(emb.shape[1], emb.shape[0], bias=True)
    with torch.no_grad():
        head.weight.copy_(emb)
        head.bias.copy_(model.final_logits_bias[0])
    model.lm_head = head
    model.logits = lambda x: model.lm_head(x)
    return torch.ao.quantization.quantize_dynamic(model, {nn.Linear}, dtype=torch.qint8)


def peak_rss_mib() -> float:
    """VmHWM of this process (ru_maxrss can carry the parent's peak across fork + exec)."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024.0
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--checkpoint", required=True)
    ap.add_argument("--dtype", choices=["f32", "int8"], default="f32")
    ap.add_argument("--input", required=True)
    ap.add_argument("--output", required=True)
    ap.add_argument("--beam", type=int, default=1)
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--max-length", type=int, default=128)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    with open(args.input, encoding="utf-8") as f:
        lines = f.read().splitlines()
    if args.limit:
        lines = lines[: args.limit]

    engine = None
    if args.dtype == "int8":  # choose the engine first, outside the timed load
        engine = best_engine(generate.load(args.checkpoint), MarianTokenizer(args.checkpoint), lines)
    t0 = time.perf_counter()
    model = generate.load(args.checkpoint)
    tok = MarianTokenizer(args.checkpoint)
    if engine:
        model = quantize(model, engine)
    load_ms = (time.perf_counter() - t0) * 1000
    procs = generate.processors_of(model, args.checkpoint)

    out, latency = [], []
    tokens = 0
    total = 0.0
    for s in range(0, len(lines), args.batch):
        chunk = lines[s: s + args.batch]
        a = time.perf_counter()
        srcs = [tok.encode_source(l) for l in chunk]
        if args.beam == 1:
            hyps = [h for h, _ in generate.greedy(model, srcs, max_length=args.max_length, procs=procs)]
        else:
            hyps = [r[0][0] for r in generate.beam_search(model, srcs, beam=args.beam, max_length=args.max_length,
                                                          procs=procs)]
        texts = [tok.decode_target(h) for h in hyps]
        dt = (time.perf_counter() - a) * 1000
        total += dt
        latency += [dt] * len(chunk)
        tokens += sum(len(h) + 1 for h in hyps)
        out += texts
    with open(args.output, "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")
    latency.sort()
    pct = lambda p: latency[min(len(latency) - 1, int(p * len(latency)))]  # noqa: E731
    file_bytes = os.path.getsize(os.path.join(args.checkpoint, "model.safetensors"))
    print(json.dumps({
        "system": f"PyTorch {args.dtype}" + (f" ({torch.backends.quantized.engine})" if args.dtype == "int8" else ""),
        "torch": torch.__version__, "beam": args.beam, "batch": args.batch, "threads": args.threads,
        "sentences": len(lines), "failed": 0, "target_tokens": tokens, "seconds": total / 1000,
        "sentences_per_s": len(lines) / (total / 1000), "tokens_per_s": tokens / (total / 1000),
        "latency_p50_ms": pct(0.5), "latency_p95_ms": pct(0.95), "load_ms": load_ms,
        "peak_rss_mib": peak_rss_mib(),
        "file_mib": file_bytes / 1048576.0}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
