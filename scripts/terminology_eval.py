"""Terminology, measured on Multi30k test_2016_flickr with a seeded glossary and seeded placeholders:

  - the glossary: 200 source words of the test set (three letters or more, not a function word), each
    mapped to a German word that IBM Model 1 (scripts/lexicon.py, Multi30k train) gives it as a
    translation but that the model does not produce in the lines holding the source word (checked
    first, on the plain translation); cased as train.de writes it most often;
  - required terms present: for every occurrence of a glossary source word in a line (a whole word, any
    case), its target term must be in the translation (a whole word); also the share of lines where each
    term comes out exactly as often as its source word occurs;
  - lines with no glossary word: their translation with the glossary must be the plain one (identical);
  - BLEU of the lines with terms against the reference with the term substituted (in each reference the
    word the lexicon gives the source word most probability is replaced by the term), with and without
    the glossary;
  - placeholders: 100 lines (seeded) get one of {0}, %s, a URL, an e-mail address or a number with a unit
    inserted between two words; translated with --keep-placeholders, each must come out verbatim, once;
  - time of the glossary runs next to the plain runs (same lines, interleaved).

    /usr/bin/python3 scripts/terminology_eval.py --tern build/targets/desktop/tern \\
        --model models/en-de/en-de.int8.tern --data ../shared/data/multi30k
"""
from __future__ import annotations

import argparse
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from typing import Dict, List, Tuple

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from alignment_eval import read  # noqa: E402
from bleu import bleu  # noqa: E402
from lexicon import Lexicon, words  # noqa: E402

STOP = {"the", "and", "are", "for", "with", "from", "his", "her", "its", "their", "while", "who", "that", "into",
        "onto", "one", "two", "some", "has", "have", "this", "out", "off", "down", "next", "near", "front", "there",
        "they", "him", "she", "was", "other", "each", "all", "but", "being", "very", "three", "four", "five"}
PLACEHOLDERS = ["{0}", "%s", "https://example.com/p?id={n}", "user{n}@example.org", "{n} km"]


def translate(tern: str, model: str, lines: List[str], extra: List[str]) -> Tuple[List[str], float]:
    t0 = time.monotonic()
    p = subprocess.run([tern, "translate", "-m", model, "--threads", "1"] + extra, input="\n".join(lines) + "\n",
                       capture_output=True, text=True, check=False)
    seconds = time.monotonic() - t0
    if p.returncode not in (0, 1):
        raise SystemExit(f"tern failed ({p.returncode}): {p.stderr}")
    out = p.stdout.split("\n")[:-1]
    if len(out) != len(lines):
        raise SystemExit(f"tern gave {len(out)} lines for {len(lines)}: {p.stderr[:2000]}")
    return out, seconds


def count_word(text: str, w: str) -> int:
    """Occurrences of w in text as a whole word, any case (a hyphen joins words: tern's words end at spaces
    and punctuation other than '-')."""
    return len(re.findall(r"(?<![\w-])" + re.escape(w) + r"(?![\w-])", text, flags=re.IGNORECASE))


def casing(lines: List[str]) -> Dict[str, str]:
    seen: Dict[str, Counter] = defaultdict(Counter)
    for l in lines:
        for m in re.finditer(r"\w+", l):
            seen[m.group(0).lower()][m.group(0)] += 1
    return {k: c.most_common(1)[0][0] for k, c in seen.items()}


def make_glossary(src: List[str], plain: List[str], lex: Lexicon, cased: Dict[str, str], n: int,
                  rng: random.Random) -> Dict[str, str]:
    freq = Counter(w for s in src for w, _, _ in words(s) if len(w) >= 3 and w.isalpha() and w not in STOP)
    cands = sorted(freq)
    rng.shuffle(cands)
    out: Dict[str, str] = {}
    for w in cands:
        if len(out) == n:
            break
        produced = {x for s, p in zip(src, plain) if count_word(s, w) for x, _, _ in words(p)}
        row = sorted(lex.t.get(w, {}).items(), key=lambda kv: (-kv[1], kv[0]))
        for t, p in row[:20]:
            if p < 0.01 or len(t) < 3 or not t.isalpha() or t in produced or t == w:
                continue
            out[w] = cased.get(t, t)
            break
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tern", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--split", default="test_2016_flickr")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--terms", type=int, default=200)
    ap.add_argument("--placeholder-lines", type=int, default=100)
    ap.add_argument("--beams", default="4,1")
    ap.add_argument("--save-glossary", default="", help="also write the first beam's glossary here (TSV)")
    a = ap.parse_args()
    src = read(os.path.join(a.data, f"{a.split}.en"))
    ref = read(os.path.join(a.data, f"{a.split}.de"))
    lex = Lexicon.train(read(os.path.join(a.data, "train.en")), read(os.path.join(a.data, "train.de")))
    cased = casing(read(os.path.join(a.data, "train.de")))
    cpu = subprocess.run([a.tern, "translate", "-m", a.model, "-v"], input="", capture_output=True, text=True).stderr
    m = re.search(r"^tern: cpu: (.*)$", cpu, re.M)
    print("CPU:", m.group(1) if m else "?")

    for beam in [int(b) for b in a.beams.split(",")]:
        extra = ["--beam", str(beam)]
        plain, t_plain = translate(a.tern, a.model, src, extra)
        gloss = make_glossary(src, plain, lex, cased, a.terms, random.Random(a.seed))
        with tempfile.NamedTemporaryFile("w", suffix=".tsv", delete=False, encoding="utf-8") as f:
            for s, t in sorted(gloss.items()):
                f.write(f"{s}\t{t}\n")
            gpath = f.name
        if a.save_glossary and beam == int(a.beams.split(",")[0]):
            with open(a.save_glossary, "w", encoding="utf-8") as f:
                f.writelines(f"{s}\t{t}\n" for s, t in sorted(gloss.items()))
        out, t_gloss = translate(a.tern, a.model, src, extra + ["--glossary", gpath, "--glossary-ignore-case"])
        # the same runs again, interleaved, for time
        _, t_plain2 = translate(a.tern, a.model, src, extra)
        _, t_gloss2 = translate(a.tern, a.model, src, extra + ["--glossary", gpath, "--glossary-ignore-case"])
        required = present = lines_t = exact = 0
        with_t, without = [], []
        for i, (s, o) in enumerate(zip(src, out)):
            need = {w: count_word(s, w) for w in gloss if count_word(s, w)}
            if not need:
                without.append(i)
                continue
            with_t.append(i)
            lines_t += 1
            ok_exact = True
            for w, k in need.items():
                got = count_word(o, gloss[w])
                required += k
                present += min(k, got)
                ok_exact &= got == k
            exact += ok_exact
        same = sum(1 for i in without if out[i] == plain[i])
        sub_ref = []
        for i in with_t:
            r = ref[i]
            for w in gloss:
                if not count_word(src[i], w):
                    continue
                rw = [(lex.prob(x, w), x) for x, _, _ in words(r)]
                if rw and max(rw)[0] > 0:
                    target = max(rw)[1]
                    r = re.sub(r"\b" + re.escape(target) + r"\b", gloss[w], r, count=1, flags=re.IGNORECASE)
            sub_ref.append(r)
        b_gloss = bleu([out[i] for i in with_t], sub_ref)[0]
        b_plain = bleu([plain[i] for i in with_t], sub_ref)[0]
        b_orig_g = bleu([out[i] for i in with_t], [ref[i] for i in with_t])[0]
        b_orig_p = bleu([plain[i] for i in with_t], [ref[i] for i in with_t])[0]
        b_without = (bleu([out[i] for i in without], [ref[i] for i in without])[0],
                     bleu([plain[i] for i in without], [ref[i] for i in without])[0])
        print(f"\nbeam {beam}: glossary of {len(gloss)} terms ({gpath}); {lines_t} of {len(src)} lines hold one")
        print(f"  required terms present: {present}/{required} = {100.0 * present / max(1, required):.1f}%; "
              f"lines with every term exactly as often as its source word: {exact}/{lines_t} = "
              f"{100.0 * exact / max(1, lines_t):.1f}%")
        print(f"  lines without a term: {same}/{len(without)} identical to the plain translation; BLEU "
              f"{b_without[0]:.2f} (plain {b_without[1]:.2f})")
        print(f"  lines with terms, BLEU against the reference with the terms substituted: {b_gloss:.2f} with the "
              f"glossary, {b_plain:.2f} without; against the original reference: {b_orig_g:.2f} / {b_orig_p:.2f}")
        print(f"  time for {len(src)} lines, 1 thread: plain {t_plain:.2f} s, {t_plain2:.2f} s; with the glossary "
              f"{t_gloss:.2f} s, {t_gloss2:.2f} s (ratio {(t_gloss + t_gloss2) / (t_plain + t_plain2):.2f}x)")
        for i in with_t[:3]:
            print(f"    {src[i]}\n    plain: {plain[i]}\n    terms: {out[i]}")
        os.unlink(gpath)

    # placeholders
    prng = random.Random(a.seed + 1)
    picks = sorted(prng.sample(range(len(src)), a.placeholder_lines))
    lines, inserted = [], []
    for k, i in enumerate(picks):
        ws = src[i].split(" ")
        ph = PLACEHOLDERS[k % len(PLACEHOLDERS)].replace("{n}", str(prng.randrange(2, 99)))
        at = prng.randrange(1, len(ws)) if len(ws) > 1 else 1
        lines.append(" ".join(ws[:at] + [ph] + ws[at:]))
        inserted.append(ph)
    out, _ = translate(a.tern, a.model, lines, ["--keep-placeholders"])
    intact = sum(1 for o, ph in zip(out, inserted) if o.count(ph) == 1)
    base, _ = translate(a.tern, a.model, [src[i] for i in picks], [])
    stripped = [" ".join(o.replace(ph, " ").split()) for o, ph in zip(out, inserted)]
    print(f"\nplaceholders: {intact}/{len(lines)} come out verbatim, once ({', '.join(PLACEHOLDERS)}); BLEU of those "
          f"lines with the placeholder taken out {bleu(stripped, [ref[i] for i in picks])[0]:.2f}, the same lines "
          f"without one {bleu(base, [ref[i] for i in picks])[0]:.2f}")
    for l, o in list(zip(lines, out))[:5]:
        print(f"    {l}\n    {o}")


if __name__ == "__main__":
    main()
