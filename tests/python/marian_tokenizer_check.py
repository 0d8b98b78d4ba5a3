"""Checks `tern tokenize` against MarianTokenizer's rules applied with the sentencepiece library and the
model's own vocab.json (transformers models/marian/tokenization_marian.py): a leading ">>xxx<<" code (the
text starts with ">>", the code runs to the first "<<") becomes its vocabulary id, the rest is split by
source.spm into pieces, each piece maps to its vocab.json id (a piece vocab.json lacks to <unk>), and
</s> is appended. Also checks `--target` (target.spm and the target vocabulary) and `--target-lang`.

    /usr/bin/python3 tests/python/marian_tokenizer_check.py CHECKPOINT_DIR TERN MODEL.tern
Exit status 0 when every case agrees; each disagreement is printed.
"""
import json
import os
import subprocess
import sys

import sentencepiece as spm

CASES = [
    "A man in a blue shirt is standing on a ladder.",
    "Café à la crème, naïve façade, Ångström, Übermaß.",
    "In 2024, 3.14159 × 10^6 people paid €12,50 (or $13.99).",
    "I ❤️ my 🐕 and 🍕! 👩‍👩‍👧",
    "Привет, мир. 你好，世界。 مرحبا بالعالم. नमस्ते दुनिया। Γειά σου κόσμε.",
    "   leading and trailing spaces   ",
    "tabs\tand  double  spaces",
    "",
    ">>por<< Hello there.",
    ">>pob<<Hello without a space.",
    ">>por<<",
    ">>xyz<< an unknown code.",
    "Hello >>por<< in the middle.",
    ">> alone and << later",
    "<unk> </s> <pad> as text",
]


def marian_ids(text, sp, vocab, unk):
    code = []
    if text.startswith(">>") and text.find("<<") != -1:
        end = text.find("<<")
        code, text = [text[: end + 2]], text[end + 2:]
    pieces = sp.encode(text, out_type=str)
    return [vocab.get(p, unk) for p in code + pieces]


def tern_ids(tern, model, lines, extra):
    out = subprocess.run([tern, "tokenize", "-m", model] + extra, input="\n".join(lines) + "\n",
                         capture_output=True, text=True, encoding="utf-8")
    if out.returncode != 0:
        raise SystemExit(f"tern tokenize failed ({out.returncode}): {out.stderr}")
    return [[int(x) for x in line.split()] for line in out.stdout.split("\n")[: len(lines)]]


def main():
    ckpt, tern, model = sys.argv[1:4]
    vocab = json.load(open(os.path.join(ckpt, "vocab.json"), encoding="utf-8"))
    tv_path = os.path.join(ckpt, "target_vocab.json")
    tvocab = json.load(open(tv_path, encoding="utf-8")) if os.path.exists(tv_path) else vocab
    eos, unk = vocab["</s>"], vocab["<unk>"]
    src = spm.SentencePieceProcessor(model_file=os.path.join(ckpt, "source.spm"))
    tgt = spm.SentencePieceProcessor(model_file=os.path.join(ckpt, "target.spm"))
    failures = 0

    def compare(name, expected, got):
        nonlocal failures
        for text, e, g in zip(CASES, expected, got):
            if e != g:
                failures += 1
                print(f"DIFFER ({name}) {text!r}:\n  MarianTokenizer {e}\n  tern            {g}")

    compare("source", [marian_ids(t, src, vocab, unk) + [eos] for t in CASES], tern_ids(tern, model, CASES, []))
    compare("target", [marian_ids(t, tgt, tvocab, tvocab["<unk>"]) + [tvocab["</s>"]] for t in CASES],
            tern_ids(tern, model, CASES, ["--target"]))
    langs = [k for k in vocab if k.startswith(">>") and k.endswith("<<") and len(k) > 4]
    if langs:  # --target-lang L: the same ids as the text with ">>L<< " in front (its own code replaced)
        lang = langs[0][2:-2]
        plain = [t for t in CASES if not t.startswith(">>")]
        want = [marian_ids(f">>{lang}<< " + t, src, vocab, unk) + [eos] for t in plain]
        got = tern_ids(tern, model, plain, ["--target-lang", lang])
        for text, e, g in zip(plain, want, got):
            if e != g:
                failures += 1
                print(f"DIFFER (--target-lang {lang}) {text!r}:\n  expected {e}\n  tern     {g}")
    print(f"marian_tokenizer_check: {len(CASES)} cases x {3 if langs else 2} modes, {failures} differences "
          f"({'language tokens ' + ' '.join(langs) if langs else 'no language tokens'})")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
