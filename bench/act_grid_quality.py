"""Issue 59, quality first: the int8 model with activations on a 7-bit grid (128 levels, [-64, 63]) against
today's 8-bit grid (qd8, 256 levels) and against f32, on Multi30k test_2016_flickr, greedy and beam 4.

For each configuration: corpus BLEU (scripts/bleu.py, sacrebleu's 13a), lines identical to f32's output, and
the mean |log-probability difference| per token against f32 when each model scores f32's own translations
(score_batch: every token's log-probability, </s> included; a translation longer than the Translator's target
limit cannot be scored and is left out of that mean). The grid is chosen per process by the
experiment switch TERN_EXPERIMENT_ACT_BITS (runtime/src/nn/row_quantizer.cc), so each configuration runs in
a process of its own. Uses the Python package (the build tree's build/python, or an installed tern).

    /usr/bin/python3 bench/act_grid_quality.py --f32 build/bundled/en-de.f32.tern \
        --int8 models/en-de/en-de.int8.tern [--int8-w7 W7.int8.tern] [--layers fc2.] [--data ../shared/data/multi30k]
        [--lines 1000] [--json OUT]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run_one(model: str, src: list, refs: list, f32_out: dict | None) -> dict:
    """In this process: translations (greedy, beam 4), their BLEU, and f32's outputs scored by this model."""
    sys.path.insert(0, os.path.join(ROOT, "scripts"))
    sys.path.insert(1, os.path.join(ROOT, "build", "python"))
    import bleu  # noqa: E402
    import tern  # noqa: E402
    m = tern.Model.load(model)
    t = tern.Translator(m, threads=1)
    out = {}
    for beam in (1, 4):
        hyps = [r.text for r in t.translate_batch(src, beam_size=beam)]
        score = bleu.bleu(hyps, refs)[0]
        entry = {"bleu": score, "texts": hyps}
        if f32_out is not None:
            want = f32_out[str(beam)]["texts"]
            entry["identical_to_f32"] = sum(a == b for a, b in zip(hyps, want))
            mine = t.score_batch(src, want, on_error="keep")
            theirs = f32_out[str(beam)]["logprobs"]
            diffs = [abs(float(a) - b) for r, ref in zip(mine, theirs) if r.ok and ref is not None
                     for a, b in zip(r.hypotheses[0].token_logprobs, ref)]
            entry["mean_abs_logprob_diff"] = sum(diffs) / max(1, len(diffs))
            entry["tokens_compared"] = len(diffs)
        else:
            # A translation longer than the Translator's target limit cannot be scored: left out (None).
            scored = t.score_batch(src, hyps, on_error="keep")
            entry["logprobs"] = [[float(x) for x in r.hypotheses[0].token_logprobs] if r.ok else None for r in scored]
            entry["unscored"] = sum(not r.ok for r in scored)
        out[str(beam)] = entry
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--f32", required=True, help="the f32 model (the reference)")
    ap.add_argument("--int8", required=True, help="the int8 model of the same checkpoint")
    ap.add_argument("--int8-w7", help="the same checkpoint converted with 7-bit weights "
                    "(TERN_EXPERIMENT_WEIGHT_BITS=7 tern-convert ... --weights int8): a row with 8-bit activations")
    ap.add_argument("--layers", action="append", default=[],
                    help="a row with 7-bit activations in these linear layers only (comma-separated parts of their "
                    "weights' names, TERN_EXPERIMENT_ACT_LAYERS; e.g. fc2. or decoder.layers.5.); repeatable")
    ap.add_argument("--data", default=os.path.join(ROOT, "..", "shared", "data", "multi30k"))
    ap.add_argument("--src", default="en")
    ap.add_argument("--tgt", default="de")
    ap.add_argument("--lines", type=int, default=1000)
    ap.add_argument("--json", help="write every figure here")
    ap.add_argument("--worker", help=argparse.SUPPRESS)  # internal: MODEL (stdin: the job as JSON)
    a = ap.parse_args()
    if a.lines < 1:
        ap.error(f"--lines {a.lines}: at least 1")
    if a.worker:
        job = json.load(sys.stdin)
        json.dump(run_one(a.worker, job["src"], job["refs"], job.get("f32")), sys.stdout)
        return 0
    base = os.path.join(a.data, "test_2016_flickr")
    try:
        with open(f"{base}.{a.src}", encoding="utf-8") as f:
            src = f.read().splitlines()[: a.lines]
        with open(f"{base}.{a.tgt}", encoding="utf-8") as f:
            refs = f.read().splitlines()[: a.lines]
    except OSError as e:
        print(f"act_grid_quality: {e}", file=sys.stderr)
        return 1

    def worker(model: str, bits: str, f32: dict | None, layers: str = "") -> dict:
        env = dict(os.environ, TERN_EXPERIMENT_ACT_BITS=bits, TERN_EXPERIMENT_ACT_LAYERS=layers)
        job = json.dumps({"src": src, "refs": refs, "f32": f32})
        p = subprocess.run([sys.executable, os.path.abspath(__file__), "--f32", a.f32, "--int8", a.int8,
                            "--worker", model], input=job, capture_output=True, text=True, env=env)
        if p.returncode != 0:
            raise SystemExit(f"act_grid_quality: the worker for {model} (bits {bits}) failed:\n{p.stderr}")
        return json.loads(p.stdout)

    f32 = worker(a.f32, "8", None)
    rows = {"f32": f32, "int8, 8-bit activations": worker(a.int8, "8", f32),
            "int8, 7-bit activations": worker(a.int8, "7", f32)}
    if a.int8_w7:
        rows["int8, 7-bit weights, 8-bit activations"] = worker(a.int8_w7, "8", f32)
    for layers in a.layers:
        rows[f"int8, 7-bit activations in {layers} only"] = worker(a.int8, "7", f32, layers)
    print(f"test_2016_flickr {a.src}->{a.tgt}, {len(src)} lines")
    print("| model | greedy BLEU | beam 4 BLEU | greedy lines = f32 | beam 4 lines = f32 | greedy mean |dlogp| | beam 4 mean |dlogp| |")
    print("|---|---|---|---|---|---|---|")
    for name, r in rows.items():
        g, b = r["1"], r["4"]
        if name == "f32":
            print(f"| {name} | {g['bleu']:.2f} | {b['bleu']:.2f} | - | - | - | - |")
        else:
            print(f"| {name} | {g['bleu']:.2f} | {b['bleu']:.2f} | {g['identical_to_f32']} | {b['identical_to_f32']} | "
                  f"{g['mean_abs_logprob_diff']:.4f} | {b['mean_abs_logprob_diff']:.4f} |")
    if a.json:
        for r in rows.values():
            for e in r.values():
                e.pop("texts", None), e.pop("logprobs", None)
        with open(a.json, "w", encoding="utf-8") as f:
            json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
