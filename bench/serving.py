"""Serving many requests: tern.Engine against tern's static batches and CTranslate2, same model, same
sentences, each run in its own process (peak RSS per process), the systems interleaved --trials times.

    /usr/bin/python3 bench/serving.py --tern-model M.tern --ct2-model DIR --spm source.spm \
        [--data test_2016_flickr.en] [--sentences 2000] [--replicas 2] [--beams 4,1] [--batch 16]
        [--max-length 0] [--trials 3] [--load 0.5,0.9] [--arrivals 300] [--baseline-build OLD_BUILD]

Throughput (sentences/s, tokens/s of the best hypotheses): tern Engine.translate_iterable (--replicas
replicas x 1 thread, max_batch_size --batch; continuous batching), the same engine with
continuous_batching=False ("engine static": each call a static batch), tern static (as many Translators in as many threads, each
taking fixed batches of --batch in turn: what tern offered before the engine), CTranslate2
translate_iterable (inter_threads --replicas, intra_threads 1, max_batch_size --batch, batch_type examples).
Latency under load: single sentences arriving as a Poisson process at --load x the engine's measured
capacity; p50 / p99 from arrival to completion (tern: the Future's done time; CTranslate2:
translate_batch(asynchronous=True), its completion polled every 1 ms). --max-length > 0 caps decoding (tern's
count, </s> included; CTranslate2 gets one less); give it for random-weight models (every sentence then
decodes to the cap in both).

--baseline-build runs tern's three systems once more from another build (an earlier commit's, with its
Python module), interleaved with this build's in every trial: a refactor's before and after in one run.

CTranslate2 is not part of tern: build it outside this repository (docs/performance.md says how).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

RUN = r"""
import json, random, sys, threading, time
a = json.loads(sys.argv[1])
texts = a["texts"]
ml = a["max_length"] or None
out = {}
if a["system"] == "ct2":
    import ctranslate2, sentencepiece as spm
    sp = spm.SentencePieceProcessor(model_file=a["spm"])
    src = [s + ["</s>"] for s in sp.encode(texts, out_type=str)]  # MarianTokenizer's tokens: CTranslate2 appends no </s>
    t = ctranslate2.Translator(a["ct2"], device="cpu", inter_threads=a["replicas"], intra_threads=1, compute_type="int8")
    kw = dict(beam_size=a["beam"], max_decoding_length=(ml - 1) if ml else 256)
    t.translate_batch(src[:4], **kw)
    if a["mode"] == "throughput":
        t0 = time.perf_counter()
        tokens = sum(len(r.hypotheses[0]) + 1 for r in t.translate_iterable(iter(src), max_batch_size=a["batch"], **kw))
        out["seconds"] = time.perf_counter() - t0
        out["tokens"] = tokens
    else:
        def submit(i):
            return t.translate_batch([src[i]], asynchronous=True, **kw)[0]
else:
    sys.path.insert(0, a["pypath"])
    import tern
    m = tern.Model.load(a["tern"])
    kw = dict(beam_size=a["beam"], max_length=ml)
    if a["mode"] == "static":
        trs = [tern.Translator(m, threads=1, max_batch=a["batch"]) for _ in range(a["replicas"])]
        batches = [texts[i:i + a["batch"]] for i in range(0, len(texts), a["batch"])]
        trs[0].translate_batch(texts[:4], **kw)
        counts = [0] * len(trs)
        def work(k):
            for b in batches[k::len(trs)]:
                counts[k] += sum(len(r.hypotheses[0].tokens) for r in trs[k].translate_batch(b, **kw))
        t0 = time.perf_counter()
        th = [threading.Thread(target=work, args=(k,)) for k in range(len(trs))]
        [x.start() for x in th]; [x.join() for x in th]
        out["seconds"] = time.perf_counter() - t0
        out["tokens"] = sum(counts)
    else:
        e = tern.Engine(m, replicas=a["replicas"], threads=1, max_batch=a["batch"],
                        continuous_batching=a.get("continuous", True))
        e.translate_batch(texts[:4], **kw)
        if a["mode"] == "throughput":
            t0 = time.perf_counter()
            tokens = sum(len(r.hypotheses[0].tokens) for r in e.translate_iterable(iter(texts), max_batch_size=a["batch"], **kw))
            out["seconds"] = time.perf_counter() - t0
            out["tokens"] = tokens
        else:
            def submit(i):
                return e.submit([texts[i]], **kw)
if a["mode"] == "latency":
    rnd = random.Random(1)
    n, rate = a["arrivals"], a["rate"]
    arrive, done_at, futs = [], [None] * n, []
    t0 = time.perf_counter(); next_t = t0
    pending = []
    for i in range(n):
        next_t += rnd.expovariate(rate)
        while True:
            now = time.perf_counter()
            for j in list(pending):
                if futs[j].done():
                    done_at[j] = now; pending.remove(j)
            if now >= next_t: break
            time.sleep(min(0.001, next_t - now))
        arrive.append(time.perf_counter())
        futs.append(submit(i % len(texts))); pending.append(i)
    while pending:
        now = time.perf_counter()
        for j in list(pending):
            if futs[j].done():
                done_at[j] = now; pending.remove(j)
        time.sleep(0.001)
    lat = sorted((d - s) * 1000 for d, s in zip(done_at, arrive))
    out["p50_ms"] = lat[len(lat) // 2]; out["p99_ms"] = lat[min(len(lat) - 1, int(len(lat) * 0.99))]
import resource
out["peak_rss_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps(out))
"""


def run(args, **kw):
    a = {"tern": args.tern_model, "ct2": args.ct2_model, "spm": args.spm, "replicas": args.replicas, "batch": args.batch,
         "max_length": args.max_length, "pypath": os.path.join(kw.pop("build", args.build), "python"),
         "arrivals": args.arrivals, "rate": 0}
    a.update(kw)
    p = subprocess.run([sys.executable, "-c", RUN, json.dumps(a)], capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"serving: {kw['system']} {kw['mode']}: {p.stderr[-2000:]}")
    return json.loads(p.stdout.strip().splitlines()[-1])


def span(v, fmt="{:.1f}"):
    return (fmt + " ({}-{})").format(statistics.median(v), fmt.format(min(v)), fmt.format(max(v)))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tern-model", required=True)
    ap.add_argument("--ct2-model", help="CTranslate2's conversion of the same checkpoint (omit: tern only)")
    ap.add_argument("--spm", help="the checkpoint's source.spm (for CTranslate2)")
    ap.add_argument("--data", default=os.path.join(ROOT, "..", "shared", "data", "multi30k", "test_2016_flickr.en"))
    ap.add_argument("--sentences", type=int, default=2000)
    ap.add_argument("--replicas", type=int, default=2)
    ap.add_argument("--beams", default="4,1")
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--max-length", type=int, default=0)
    ap.add_argument("--trials", type=int, default=3)
    ap.add_argument("--load", default="0.5,0.9", help="arrival rates as fractions of the engine's capacity ('' = none)")
    ap.add_argument("--arrivals", type=int, default=300)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--baseline-build", help="another build whose tern systems run beside this one's (before / after)")
    args = ap.parse_args()
    try:
        loads = [float(x) for x in args.load.split(",") if x]
    except ValueError:
        ap.error(f"--load: comma-separated fractions of the capacity, got {args.load!r}")
    if any(not 0 < x < 10 for x in loads):
        ap.error(f"--load: each fraction must lie in (0, 10) ('' for no latency runs), got {args.load!r}")
    lines = [l for l in open(args.data, encoding="utf-8").read().splitlines() if l.strip()]
    texts = (lines * (args.sentences // max(1, len(lines)) + 1))[: args.sentences]
    sys.path.insert(0, os.path.join(args.build, "python"))
    import tern
    print("cpu:", tern.cpu_summary())
    systems = [("tern engine", "tern", "throughput", True, args.build), ("engine static", "tern", "throughput", False, args.build),
               ("tern static", "tern", "static", True, args.build)]
    if args.baseline_build:
        systems += [(name + " (base)", s, m, c, args.baseline_build) for name, s, m, c, _ in systems]
    if args.ct2_model:
        systems.append(("CTranslate2", "ct2", "throughput", True, args.build))
    for beam in [int(b) for b in args.beams.split(",")]:
        res = {name: [] for name, _, _, _, _ in systems}
        for _ in range(args.trials):  # interleaved
            for name, system, mode, continuous, build in systems:
                res[name].append(run(args, system=system, mode=mode, beam=beam, texts=texts, continuous=continuous, build=build))
        print(f"\nthroughput, beam {beam}, {len(texts)} sentences, {args.replicas} replicas x 1 thread, batch {args.batch}:")
        eng = [r["tokens"] / r["seconds"] for r in res["tern engine"]]
        for name, _, _, _, _ in systems:
            tps = [r["tokens"] / r["seconds"] for r in res[name]]
            sps = [len(texts) / r["seconds"] for r in res[name]]
            ratio = [e / t for e, t in zip(eng, tps)]
            print(f"  {name:19s} {span(sps)} sentences/s, {span(tps)} tokens/s, engine / this {span(ratio, '{:.2f}')}, "
                  f"peak RSS {span([r['peak_rss_mib'] for r in res[name]])} MiB")
        if args.baseline_build:  # this build over the baseline, trial by trial
            for name in ("tern engine", "engine static", "tern static"):
                ratio = [(r["tokens"] / r["seconds"]) / (b["tokens"] / b["seconds"])
                         for r, b in zip(res[name], res[name + " (base)"])]
                print(f"  {name:19s} this build / baseline {span(ratio, '{:.3f}')}")
        cap = statistics.median([len(texts) / r["seconds"] for r in res["tern engine"]])
        for load in loads:
            kinds = [("tern engine", "tern", True), ("engine static", "tern", False)]
            kinds += [("CTranslate2", "ct2", True)] if args.ct2_model else []
            lat = {name: [] for name, _, _ in kinds}
            for _ in range(args.trials):
                for name, system, continuous in kinds:
                    lat[name].append(run(args, system=system, mode="latency", beam=beam, texts=texts[:500], rate=cap * load,
                                         continuous=continuous))
            print(f"  latency at {load:.0%} of the engine's capacity ({cap * load:.1f} sentences/s, {args.arrivals} arrivals):")
            for name, rows in lat.items():
                print(f"    {name:13s} p50 {span([r['p50_ms'] for r in rows])} ms, p99 {span([r['p99_ms'] for r in rows])} ms")


if __name__ == "__main__":
    main()
