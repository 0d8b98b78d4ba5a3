"""Records what CTranslate2 itself does with every keyword case of the shim's conformance test
(tests/python_package/ct2_keyword_cases.py) into tests/data/ct2_keywords.json, beside what the shim does, and
says where they differ (test_ctranslate2_compat.py then holds the shim to it). Each case runs in a fresh process
with a 6 GiB address space and a 90 s limit: some values make CTranslate2 allocate without bound or crash, and
those outcomes are recorded as such ("MemoryError", "crash(-11)").

    LD_LIBRARY_PATH=CT2/lib PYTHONPATH=CT2/python /usr/bin/python3 bench/ct2_keywords.py CT2_INT8_MODEL_DIR [BUILD]

CT2_INT8_MODEL_DIR: the bundled checkpoint converted by bench/ct2_convert.py; BUILD: tern's build directory (default
build; its python/ package is the one measured: keep it unchanged while this runs, about 35 minutes). CTranslate2 is not part of tern:
build it outside this repository (docs/performance.md says how). Differences need a reason in WHY below.
"""
import json
import os
import resource
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "python_package"))
import ct2_keyword_cases as kc  # noqa: E402

# Why tern differs on purpose (docs/python.md), by the first part of a case's name that matches.
WHY = [
    ("max_batch_size=1099511627776", "CTranslate2 allocates by it (MemoryError); tern's batches are chunks of its Translators' max_batch"),
    ("beam_size=1", "tern's beams go up to tern.MAX_BEAM (64)"),
    ("patience=", "tern's beam search ends by transformers' rules: patience 1 only"),
    ("length_penalty=", "a non-finite penalty gives NaN scores in CTranslate2; tern refuses it (InvalidArgumentError is a ValueError)"),
    ("coverage_penalty=", "a non-finite penalty gives NaN scores in CTranslate2; tern refuses it"),
    ("repetition_penalty=", "a non-finite penalty gives NaN scores in CTranslate2; tern refuses it"),
    ("prefix_bias_beta=", "tern has no biased decoding"),
    ("return_logits_vocab=", "tern returns no vocabulary logits"),
    ("sampling_topk=", "tern samples with beam_size 1 only (CTranslate2's beam sampling; topk 2 with beam 2 crashed it)"),
    ("sampling_temperature=", "CTranslate2 aborted (SIGABRT) here; tern samples"),
]


def run_one(which, model, index, build):
    if which == "ctranslate2":
        import ctranslate2
    else:
        sys.path.insert(0, os.path.join(build, "python"))
        from tern.compat import ctranslate2
    import sentencepiece as spm
    sp = spm.SentencePieceProcessor(model_file=os.path.join(ROOT, "models/en-de/checkpoint/source.spm"))
    name, call = kc.cases(ctranslate2, model, lambda t: sp.encode(t, out_type=str) + ["</s>"])[index]
    print(kc.outcome(call))


def run_all(which, model, build):
    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (6 << 30, 6 << 30))
    names = [n for n, _ in kc.cases(None, None, lambda t: [])]
    res = {}
    for i, name in enumerate(names):
        try:
            p = subprocess.run([sys.executable, __file__, "--one", which, model, str(i), build], capture_output=True, text=True,
                               timeout=90, preexec_fn=limit)
            lines = p.stdout.strip().splitlines()
            res[name] = lines[-1] if lines and p.returncode == 0 else "crash(%d)" % p.returncode
        except subprocess.TimeoutExpired:
            res[name] = "timeout"
        print(i, name, res[name], flush=True)
    return res


def main():
    if sys.argv[1] == "--one":
        return run_one(sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5])
    build = os.path.abspath(sys.argv[2]) if len(sys.argv) > 2 else os.path.join(ROOT, "build")
    ct2 = run_all("ctranslate2", sys.argv[1], build)
    tern = run_all("tern", os.path.join(ROOT, "models/en-de/en-de.int8.tern"), build)
    import ctranslate2
    out = {"ctranslate2": ctranslate2.__version__, "model": "the bundled checkpoint (CTranslate2: bench/ct2_convert.py, int8)",
           "cases": {}}
    for name, got in ct2.items():
        e = {"ctranslate2": got}
        if tern[name] != got:
            e["tern"] = tern[name]
            e["why"] = next(w for key, w in WHY if key in name)
        out["cases"][name] = e
    with open(os.path.join(ROOT, "tests/data/ct2_keywords.json"), "w", encoding="utf-8") as f:
        json.dump(out, f, indent=1, ensure_ascii=False)
    print(sum("tern" in e for e in out["cases"].values()), "of", len(out["cases"]), "differ")


if __name__ == "__main__":
    main()
