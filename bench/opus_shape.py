"""The real-size benchmark (issue 13): a random-weight model with the shapes of a real OPUS-MT model (real
config and tokenizer files from ~/.cache/tern/opus-assets when scripts/get-opus-assets.sh has fetched
them, else generated stand-ins), converted to int8 and to 4-bit layouts, with and without a lexical
shortlist built by tern-convert from Multi30k's training text through the model's own tokenizers.
Every configuration decodes the same sentences, greedy (and beam 4), batch 1, 1 thread, a fixed number of
tokens per sentence (random weights seldom choose </s>), each in its own process. Prints and writes a
Markdown table with tokens/s, the weight bytes read per generated token (counted by the runtime), the
mean shortlist size, the ratios to int8 without a shortlist from the same run, and a roofline for the
Raspberry Pi 4 and 5: the tokens/s that their DRAM bandwidth allows at these bytes per token.

    /usr/bin/python3 bench/opus_shape.py [--shape classic] [--sentences 100] [--max-length 64]
        [--beams 1,4] [--out bench/results]                  (also run by bench/run.py --opus-shapes)

Bandwidths used for the roofline (bytes per token / bandwidth = the least time a token can take when every
weight byte comes from DRAM; compute is not counted, so real devices are slower):
  Raspberry Pi 4: 5.5 GB/s, STREAM copy measured on a Pi 4 (http://www.sci-pi.org.uk/bench/stream.html:
                  Copy 5527 MB/s, best rate 5562 MB/s); its LPDDR4-3200 on a 32-bit bus peaks at 12.8 GB/s.
  Raspberry Pi 5: 17.1 GB/s, the peak of its LPDDR4X-4267 on a 32-bit bus (Raspberry Pi 5 product brief:
                  LPDDR4X-4267 SDRAM); no measured STREAM figure is cited, so this bound is optimistic.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ASSETS = {"classic": "en-mg", "tc-big": "tc-big-en-pt"}
SHORTLIST_FREQUENT, SHORTLIST_BEST = 100, 25  # tern-convert's defaults (docs/evaluation.md, "Shortlists")
ROOFLINES = [("Pi 4 (5.5 GB/s STREAM)", 5.5e9), ("Pi 5 (17.1 GB/s peak)", 17.1e9)]
# (name, tern-convert --weights, shortlist in the file, use it)
SYSTEMS = [("int8", "int8", False), ("int8 + shortlist", "int8", True), ("int4", "int4", False),
           ("int4 + shortlist", "int4", True), ("mixed + shortlist", "mixed", True), ("qc4w + shortlist", "qc4w", True)]


def assets_dir(shape):
    root = os.environ.get("TERN_OPUS_ASSETS") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "tern", "opus-assets")
    d = os.path.join(root, ASSETS[shape])
    return d if os.path.isfile(os.path.join(d, "vocab.json")) else None


def prepare(args, shape):
    """The checkpoint and one .tern per weight layout (with a shortlist); reused when present."""
    work = os.path.join(args.out, f"opus-{shape}")
    ckpt = os.path.join(work, "checkpoint")
    if not os.path.isfile(os.path.join(ckpt, "model.safetensors")):
        cmd = ["/usr/bin/python3", os.path.join(ROOT, "converter", "pytorch", "make_opus_shape.py"), ckpt, "--shape", shape,
               "--data", args.data]
        a = assets_dir(shape)
        if a:
            cmd += ["--assets", a]
        subprocess.run(cmd, check=True)
    files = {}
    for weights in sorted({w for _, w, _ in SYSTEMS}):
        path = os.path.join(work, f"{shape}.{weights}.sl{SHORTLIST_FREQUENT}-{SHORTLIST_BEST}.tern")
        if not os.path.isfile(path):
            subprocess.run([os.path.join(args.build, "converter", "tern-convert"), "-q", ckpt, path, "--weights", weights,
                            "--shortlist", os.path.join(args.data, "train.en"), os.path.join(args.data, "train.de"),
                            "--shortlist-frequent", str(SHORTLIST_FREQUENT), "--shortlist-best", str(SHORTLIST_BEST)],
                           check=True)
        files[weights] = path
    return files, assets_dir(shape) is not None


def run_one(args, model, beam, shortlist, src):
    cmd = [os.path.join(args.build, "bench", "tern-bench"), "-m", model, "--input", src, "--output", os.devnull,
           "--beam", str(beam), "--batch", "1", "--threads", "1", "--max-length", str(args.max_length)]
    if not shortlist:
        cmd.append("--no-shortlist")
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"bench: {' '.join(cmd)} failed:\n{p.stderr}")
    return json.loads(p.stdout.strip().splitlines()[-1])


def run_shape(args, shape):
    files, real_assets = prepare(args, shape)
    src = os.path.join(args.out, "opus-input.en")
    with open(os.path.join(args.data, "test_2016_flickr.en"), encoding="utf-8") as f:
        lines = f.read().splitlines()[: args.sentences]
    with open(src, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    rows = []
    for beam in map(int, args.beams.split(",")):
        for name, weights, shortlist in SYSTEMS:
            r = run_one(args, files[weights], beam, shortlist, src)
            r.update(name=name, shape=shape, real_assets=real_assets, max_length=args.max_length)
            rows.append(r)
            print(f"{shape} {name:18s} beam {beam}: {r['tokens_per_s']:7.1f} tok/s, "
                  f"{r['weight_bytes_per_token'] / 1048576:6.2f} MiB/token, shortlist {r['mean_output_columns']:.0f}",
                  flush=True)
    return rows


def render(rows, out_dir):
    cpu = next((r["cpu"] for r in rows), "unknown")
    shapes = sorted({r["shape"] for r in rows})
    lines = []
    for shape in shapes:
        sr = [r for r in rows if r["shape"] == shape]
        assets = "real tokenizer and config files" if sr[0]["real_assets"] else "stand-in tokenizer files of the real size"
        lines += [f"CPU: {cpu}. Shape `{shape}` ({assets}, random weights), {sr[0]['sentences']} sentences of "
                  f"test_2016_flickr, batch 1, 1 thread, at most {sr[0]['max_length']} tokens per sentence "
                  f"({sr[0]['target_tokens'] / max(1, sr[0]['sentences']):.0f} on average). Shortlist: IBM Model 1 over Multi30k "
                  f"train ({SHORTLIST_FREQUENT} frequent, {SHORTLIST_BEST} per source token).", "",
                  "| weights | search | tokens/s | vs int8 | weight MiB read / token | vs int8 | mean shortlist | file MiB | "
                  + " | ".join(f"roofline {n} tok/s" for n, _ in ROOFLINES) + " |",
                  "|---|---|---|---|---|---|---|---|" + "---|" * len(ROOFLINES)]
        for beam in sorted({r["beam"] for r in sr}):
            br = [r for r in sr if r["beam"] == beam]
            base = next(r for r in br if r["name"] == "int8")
            for r in br:
                bpt = r["weight_bytes_per_token"]
                roof = " | ".join(f"{bw / bpt:.0f}" for _, bw in ROOFLINES)
                lines.append(f"| {r['name']} | {'greedy' if beam == 1 else 'beam ' + str(beam)} | {r['tokens_per_s']:.0f} | "
                             f"{r['tokens_per_s'] / base['tokens_per_s']:.2f}x | {bpt / 1048576:.2f} | "
                             f"{bpt / base['weight_bytes_per_token']:.2f} | {r['mean_output_columns']:.0f} | "
                             f"{r['file_mib']:.1f} | {roof} |")
        lines.append("")
    lines.append("Roofline: tokens/s if every weight byte read per token streamed from DRAM at that bandwidth and "
                 "nothing else cost time (Pi 4: STREAM copy measured by sci-pi.org.uk; Pi 5: LPDDR4X-4267 x 32-bit peak).")
    text = "\n".join(lines)
    print(text)
    with open(os.path.join(out_dir, "opus_shape.md"), "w") as f:
        f.write(text + "\n")
    with open(os.path.join(out_dir, "opus_shape.json"), "w") as f:
        json.dump(rows, f, indent=1)
    return text


def add_arguments(ap):
    ap.add_argument("--opus-sentences", dest="sentences", type=int, default=100)
    ap.add_argument("--opus-max-length", dest="max_length", type=int, default=64)
    ap.add_argument("--opus-beams", dest="beams", default="1,4")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=os.path.join(ROOT, "..", "shared", "data", "multi30k"))
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "results"))
    ap.add_argument("--shape", default="classic", help="classic, tc-big, or both comma-separated")
    add_arguments(ap)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    rows = []
    for shape in args.shape.split(","):
        rows += run_shape(args, shape)
    render(rows, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
