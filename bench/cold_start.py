"""Cold start: a fresh process per run, from exec to the first translated sentence, tern against CTranslate2 on
the same checkpoint, one thread. Each run is one Python process that imports the library, loads the model,
makes the translator, translates one sentence and reports, from inside itself: the import, load and first-
sentence times (ms), peak RSS (VmHWM), and from /proc/self/smaps_rollup its PSS and private bytes. The two
systems alternate, --runs times each; a second process on the same model is started while the first is still
alive (--second), to show what each process adds when the model is shared through the page cache.

    /usr/bin/python3 bench/cold_start.py [--tern-model M.tern] [--ct2-model DIR] [--spm-dir DIR]
        [--runs 5] [--max-length 64] [--second] [--drop-caches] [--packed-cache DIR] [--build build]

Without --tern-model it measures the OPUS-MT classic shape (random weights) with the real en-mg tokenizers
(--spm-dir, default $TERN_OPUS_ASSETS/en-mg, else ~/.cache/tern/opus-assets/en-mg: scripts/get-opus-assets.sh),
made once into bench/results/cold-start/ by converter/pytorch/make_opus_shape.py and tern-convert.

A CTranslate2 program must load its model and two SentencePiece models (source.spm to encode, target.spm to
decode) before it translates; tern's file holds both tokenizers. CTranslate2's load is reported both ways:
"load_ms" is its Translator alone, "load_spm_ms" its Translator and the two SentencePiece loads;
"exec_to_first_ms" counts them, "exec_to_first_no_spm_ms" does not (tern: the same figures twice).

--packed-cache DIR adds "tern+cache": the same model loaded with LoadOptions::packed_cache_dir = DIR, whose
cache file an unmeasured run writes first, so every measured run maps the packed weights instead of packing.

--drop-caches writes 3 to /proc/sys/vm/drop_caches before every run (root only: otherwise the runs are warm,
and the table says so). Both systems pay the Python interpreter's start and their module's import (NumPy's
included): "exec to first sentence" is what an app written in Python waits; "load" and "first sentence" are
the libraries' own parts. tern loads the model its default way, reading it into private memory (a copy nobody
can truncate under it); --mmap maps it instead (Model.load(mmap=True): its pages are shared between processes). CTranslate2 is not part of tern: build it from its source release outside this
repository (its Python module on PYTHONPATH, its library on LD_LIBRARY_PATH); docs/performance.md says how.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SENTENCE = "A man in a blue shirt is standing on a ladder."

# Run in the child: argv[1] is a JSON dict. Prints one JSON line; with "hold", then waits for a line on stdin.
CHILD = r"""
import json, sys, time
t_exec = float(sys.argv[2])
a = json.loads(sys.argv[1])
t0 = time.time()
if a["system"].startswith("tern"):
    import tern
    t1 = time.time()
    m = tern.Model.load(a["model"], mmap=a["mmap"], packed_cache_dir=a.get("cache") or False)
    t = tern.Translator(m, threads=1)
    t2 = time.time()
    text = t.translate_batch([a["sentence"]], max_length=a["max_length"])[0].text
else:
    import ctranslate2, sentencepiece as spm
    t1 = time.time()
    t = ctranslate2.Translator(a["model"], device="cpu", inter_threads=1, intra_threads=1, compute_type="int8")
    t_translator = time.time()
    sp = spm.SentencePieceProcessor(model_file=a["spm_dir"] + "/source.spm")
    sp_target = spm.SentencePieceProcessor(model_file=a["spm_dir"] + "/target.spm")
    t2 = time.time()
    # tern's max_length counts the </s> position, CTranslate2's max_decoding_length does not
    text = sp_target.decode(t.translate_batch([sp.encode(a["sentence"], out_type=str) + ["</s>"]],
                                              max_decoding_length=a["max_length"] - 1)[0].hypotheses[0])
t3 = time.time()
if not a["system"].startswith("tern"):
    spm_ms = (t2 - t_translator) * 1e3
    t2 = t_translator  # load_ms: the Translator alone; load_spm_ms adds the two SentencePiece loads
else:
    spm_ms = 0.0
mem = {}
for line in open("/proc/self/smaps_rollup"):
    k, _, v = line.partition(":")
    if k in ("Rss", "Pss", "Private_Clean", "Private_Dirty"):
        mem[k] = int(v.split()[0]) / 1024
for line in open("/proc/self/status"):
    if line.startswith("VmHWM:"):
        mem["peak_rss"] = int(line.split()[1]) / 1024
print(json.dumps({"interpreter_ms": (t0 - t_exec) * 1e3, "import_ms": (t1 - t0) * 1e3, "load_ms": (t2 - t1) * 1e3,
                  "load_spm_ms": (t2 - t1) * 1e3 + spm_ms, "first_ms": (t3 - t2) * 1e3 - spm_ms, "exec_to_first_ms": (t3 - t_exec) * 1e3,
                  "exec_to_first_no_spm_ms": (t3 - t_exec) * 1e3 - spm_ms, "text": text[:60],
                  "private_mib": mem["Private_Clean"] + mem["Private_Dirty"], "pss_mib": mem["Pss"],
                  "peak_rss_mib": mem["peak_rss"]}), flush=True)
if a.get("hold"):
    sys.stdin.readline()
"""


def default_assets():
    root = os.environ.get("TERN_OPUS_ASSETS") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "tern", "opus-assets")
    d = os.path.join(root, "en-mg")
    return d if os.path.isfile(os.path.join(d, "source.spm")) else None


def make_model(args):
    """The classic shape with the real tokenizers of --spm-dir, random weights, int8 (made once)."""
    work = os.path.join(ROOT, "bench", "results", "cold-start")
    ckpt, model = os.path.join(work, "checkpoint"), os.path.join(work, "classic.int8.tern")
    if not os.path.isfile(model):
        data = os.path.join(os.environ.get("TERN_SHARED_DIR") or os.path.join(ROOT, "..", "shared"), "data", "multi30k")
        subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "converter", "pytorch", "make_opus_shape.py"), ckpt,
                        "--shape", "classic", "--data", data, "--assets", args.spm_dir], check=True)
        subprocess.run([os.path.join(args.build, "converter", "tern-convert"), "-q", ckpt, model, "--weights", "int8"],
                       check=True)
    return model


def child(args, system, hold=False):
    a = {"system": system, "sentence": SENTENCE, "hold": hold, "max_length": args.max_length,
         "model": args.tern_model if system.startswith("tern") else args.ct2_model, "spm_dir": args.spm_dir,
         "cache": args.packed_cache if system == "tern+cache" else None, "mmap": args.mmap}
    env = dict(os.environ, OMP_NUM_THREADS="1")
    env.pop("TERN_PACKED_CACHE_DIR", None)
    if system.startswith("tern"):
        env["PYTHONPATH"] = os.path.join(args.build, "python") + os.pathsep + env.get("PYTHONPATH", "")
    p = subprocess.Popen([sys.executable, "-c", CHILD, json.dumps(a), repr(time.time())], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, text=True, env=env)
    line = p.stdout.readline()
    if not line:
        p.wait()
        raise SystemExit(f"{system}: the child failed (exit {p.returncode})")
    return p, json.loads(line)


def measure(args, system):
    if args.drop_caches:
        subprocess.run(["sync"], check=False)
        with open("/proc/sys/vm/drop_caches", "w") as f:
            f.write("3\n")
    first, r = child(args, system, hold=args.second)
    if args.second:
        second, r2 = child(args, system)
        second.wait()
        r["second_private_mib"] = r2["private_mib"]
        r["second_pss_mib"] = r2["pss_mib"]
        first.communicate("\n")
    else:
        first.wait()
    return r


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tern-model", help="default: the classic shape with the real en-mg tokenizers (made once)")
    ap.add_argument("--ct2-model")
    ap.add_argument("--spm-dir", default=default_assets(), help="the checkpoint's tokenizer files (source.spm, "
                    "target.spm, vocab.json, config.json): the real en-mg ones by default")
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--max-length", type=int, default=64, help="decoded positions of the first sentence (random "
                    "weights decode to the cap), tern's count: CTranslate2 gets one less (no </s> position)")
    ap.add_argument("--second", action="store_true", help="also a second process while the first is alive")
    ap.add_argument("--drop-caches", action="store_true")
    ap.add_argument("--packed-cache", metavar="DIR", help="also 'tern+cache': tern with its packed-weights cache in DIR "
                    "(written by one unmeasured run first), beside tern packing at load")
    ap.add_argument("--mmap", action="store_true", help="tern maps the model (Model.load(mmap=True)) instead of its "
                    "default, reading it into private memory")
    args = ap.parse_args()
    if args.drop_caches and not os.access("/proc/sys/vm/drop_caches", os.W_OK):
        raise SystemExit("--drop-caches: /proc/sys/vm/drop_caches is not writable here (root only)")
    if (args.ct2_model or not args.tern_model) and not (args.spm_dir and os.path.isfile(os.path.join(args.spm_dir, "source.spm"))):
        raise SystemExit("no tokenizer files: --spm-dir DIR, TERN_OPUS_ASSETS, or scripts/get-opus-assets.sh")
    if not args.tern_model:
        args.tern_model = make_model(args)
    systems = ["tern"] + (["tern+cache"] if args.packed_cache else []) + (["ctranslate2"] if args.ct2_model else [])
    if args.packed_cache:
        child(args, "tern+cache")[0].wait()  # writes the cache file
    runs = {s: [] for s in systems}
    for _ in range(args.runs):
        for s in systems:
            runs[s].append(measure(args, s))
    keys = ["exec_to_first_ms", "exec_to_first_no_spm_ms", "interpreter_ms", "import_ms", "load_ms", "load_spm_ms", "first_ms", "peak_rss_mib", "pss_mib",
            "private_mib"] + (["second_private_mib", "second_pss_mib"] if args.second else [])
    print("| system | " + " | ".join(keys) + " |")
    print("|---|" + "---|" * len(keys))
    for s in systems:
        cells = []
        for k in keys:
            v = [r[k] for r in runs[s]]
            cells.append(f"{statistics.median(v):.1f} ({min(v):.1f}-{max(v):.1f})")
        print(f"| {s} | " + " | ".join(cells) + " |")
    print("\nmedian (range) of", args.runs, "runs each, alternating;", "page cache dropped before each run"
          if args.drop_caches else "warm page cache", "; first outputs:",
          "; ".join(f"{s}: {runs[s][0]['text']!r}" for s in systems))
    info = subprocess.run([os.path.join(args.build, "targets/desktop/tern"), "translate", "-m", args.tern_model,
                           "--threads", "1", "--max-length", "4", "--verbose"],
                          input="A dog.\n", capture_output=True, text=True).stderr
    print(next((l for l in info.splitlines() if l.startswith("tern: cpu:")), "tern: cpu: unknown"))


if __name__ == "__main__":
    sys.exit(main())
