"""Goldens from CTranslate2 itself for the options tern follows from it (tests/data/ct2_coverage.json, read by
tests/test_ct2_goldens.cc): the bundled checkpoint converted by CTranslate2's own MarianMTLoader in float32
(bench/ct2_convert.py --quantization float32), beam 4 x 2 hypotheses, coverage_penalty 0.2 and 1.0, one
sentence per call (CTranslate2's coverage term changes with the other sentences of its batch: the padded
source columns), its other defaults (length_penalty 1, min_decoding_length 1, max_decoding_length 256), each
source given with its </s> as MarianTokenizer makes it (CTranslate2 appends nothing for Marian models).

    LD_LIBRARY_PATH=CT2/lib PYTHONPATH=CT2/python /usr/bin/python3 bench/ct2_goldens.py CT2_F32_MODEL_DIR \\
        [--out tests/data/ct2_coverage.json]

CTranslate2 is not part of tern: build it outside this repository (docs/performance.md says how).
"""
import argparse
import json
import os

import ctranslate2
import sentencepiece as spm

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# tests/data/bundled.en and more of the kind: sentences where the penalty matters.
EXTRA = [
    "A girl in a karate uniform is breaking a stick with a front kick.",
    "Group of Asian boys wait for meat to cook over barbecue.",
    "A man in an orange hat starring at something.",
    "Five people in winter jackets and helmets stand in the snow, with snowmobiles in the background.",
    "People are fixing the roof of a house.",
    "A man in light colored clothing photographs a group of men wearing dark suits and hats standing around a woman dressed in a strapless gown.",
]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model")
    ap.add_argument("--out", default=os.path.join(ROOT, "tests/data/ct2_coverage.json"))
    a = ap.parse_args()
    ck = os.path.join(ROOT, "models/en-de/checkpoint")
    sp = spm.SentencePieceProcessor(model_file=os.path.join(ck, "source.spm"))
    with open(os.path.join(ck, "vocab.json"), encoding="utf-8") as f:
        vocab = json.load(f)
    with open(os.path.join(ROOT, "tests/data/bundled.en"), encoding="utf-8") as f:
        texts = [l.rstrip("\n") for l in f] + EXTRA
    t = ctranslate2.Translator(a.model, intra_threads=1)
    out = {"ctranslate2": ctranslate2.__version__, "beam_size": 4, "num_hypotheses": 2, "cases": []}
    for text in texts:
        pieces = sp.encode(text, out_type=str) + ["</s>"]
        case = {"text": text, "source_ids": [vocab.get(p, vocab["<unk>"]) for p in pieces], "coverage": {}}
        for beta in (0.0, 0.2, 1.0):
            r = t.translate_batch([pieces], beam_size=4, num_hypotheses=2, coverage_penalty=beta, return_scores=True)[0]
            case["coverage"][str(beta)] = [{"ids": [vocab[p] for p in h], "score": s} for h, s in zip(r.hypotheses, r.scores)]
        out["cases"].append(case)
    with open(a.out, "w", encoding="utf-8") as f:
        json.dump(out, f, ensure_ascii=False, indent=1)
    print("wrote", a.out, len(out["cases"]), "sentences")


if __name__ == "__main__":
    main()
