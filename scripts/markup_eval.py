"""Markup through translation, measured: inserts inline HTML into Multi30k sentences with a seeded random
generator, translates the marked-up lines with `tern translate --html` and the same text without markup
with plain `tern translate`, and reports

  - tags preserved: the share of lines whose output is well-formed (every start tag closed, in order) and
    holds exactly the input's tags, attributes as written, in the input's order of start tags;
  - BLEU (scripts/bleu.py, against the references) of the --html output with its tags removed and its
    character references decoded, next to BLEU of the plain translation of the tag-free text (the text the
    markup represents); the two should be within 0.5;
  - placement: for the bold word (and the linked phrase), its dictionary translation (IBM Model 1 on
    Multi30k train, scripts/lexicon.py) where that word occurs in the plain translation: the share of
    such cases where it is inside the <b> (the <a>) element of the --html output.

What each line gets (seed --seed, one decision per line): a word in <b>...</b> (a content word: three
letters or more, not one of STOP's function words, when the line has one); a phrase of two or three
words in <a href="https://example.com/?q=1&amp;lang=en" title="a > b">...</a> (a '>' inside quotes); a
<br> at a clause boundary (after ", ", before " while ", " and ", " as ", " where ") when the line has one; an
entity: the line's apostrophes as &#39;, or else an &amp; where the line says " and " (a different
character, so the plain text says " & " too).

    /usr/bin/python3 scripts/markup_eval.py --tern build/targets/desktop/tern \
        --model models/en-de/en-de.int8.tern --data ../shared/data/multi30k
"""
from __future__ import annotations

import argparse
import html
import os
import random
import re
import subprocess
import sys
from typing import List, Optional, Tuple

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from alignment_eval import read  # noqa: E402
from bleu import bleu  # noqa: E402
from lexicon import Lexicon, words  # noqa: E402

_TAG = re.compile(r"<(/?)([A-Za-z][\w:-]*)((?:[^>\"']|\"[^\"]*\"|'[^']*')*)>")
HREF = '<a href="https://example.com/?q=1&amp;lang=en" title="a > b">'
STOP = {"the", "and", "are", "for", "with", "from", "his", "her", "its", "their", "while", "who", "that", "into",
        "onto", "one", "two", "some", "has", "have", "this", "out", "off", "down", "next", "near", "front"}
CLAUSE = re.compile(r"(, | while | and | as | where )")


def mark_up(line: str, rng: random.Random) -> Tuple[str, Optional[str], List[str]]:
    """(the line with markup, the bold word, the linked words). Text outside tags is escaped."""
    ws = words(line)
    if not ws:
        return html.escape(line, quote=False), None, []
    content = [i for i, (w, _, _) in enumerate(ws) if len(w) >= 3 and w.isalpha() and w not in STOP]
    bold = rng.choice(content) if content else rng.randrange(len(ws))
    link: List[int] = []
    others = [i for i in range(len(ws) - 1) if i != bold and i + 1 != bold]
    if others:
        start = rng.choice(others)
        n = 3 if start + 2 < len(ws) and start + 2 != bold and rng.random() < 0.5 else 2
        link = list(range(start, start + n))
    br = None
    clauses = [m.start() + (1 if m.group(0) == ", " else 0) for m in CLAUSE.finditer(line)
               if not any(ws[i][1] < m.start() < ws[i][2] for i in [bold] + link)]
    if clauses:
        br = rng.choice(clauses)
    # Character positions -> what goes before / after them.
    before: dict = {}
    after: dict = {}
    before.setdefault(ws[bold][1], []).append("<b>")
    after.setdefault(ws[bold][2], []).insert(0, "</b>")
    if link:
        before.setdefault(ws[link[0]][1], []).append(HREF)
        after.setdefault(ws[link[-1]][2], []).insert(0, "</a>")
    if br is not None:
        before.setdefault(br, []).append("<br>")
    amp_at = None
    if "'" not in line:
        m = re.search(r" and ", line)
        if m:
            amp_at = m.start() + 1  # the 'a' of "and": "and" becomes "&amp;"
    out = []
    i = 0
    while i <= len(line):
        out.extend(after.get(i, []))
        out.extend(before.get(i, []))
        if i == len(line):
            break
        if amp_at is not None and i == amp_at:
            out.append("&amp;")
            i += 3
            continue
        ch = line[i]
        out.append("&#39;" if ch == "'" else html.escape(ch, quote=False))
        i += 1
    return "".join(out), ws[bold][0], [ws[i][0] for i in link]


def plain_text(marked: str) -> str:
    """What the markup represents: tags out (a <br> between two words is a space), references decoded."""
    t = re.sub(r"(?<=\S)<br>(?=\S)", " ", marked)
    return html.unescape(_TAG.sub("", t))


def strip_output(out: str) -> str:
    """An --html output without its tags: tern writes the plain translation between them."""
    return html.unescape(_TAG.sub("", out))


def tags(text: str) -> List[str]:
    return [m.group(0) for m in _TAG.finditer(text)]


def well_formed(text: str) -> bool:
    stack: List[str] = []
    for m in _TAG.finditer(text):
        name = m.group(2).lower()
        if name == "br":
            continue
        if m.group(1):
            if not stack or stack.pop() != name:
                return False
        else:
            stack.append(name)
    return not stack


def inside(text: str, open_tag: str, close_tag: str) -> List[str]:
    """The words inside the element that starts with open_tag (tags removed)."""
    b = text.find(open_tag)
    if b < 0:
        return []
    e = text.find(close_tag, b)
    if e < 0:
        return []
    return [w for w, _, _ in words(strip_output(text[b + len(open_tag):e]))]


def translate(tern: str, model: str, lines: List[str], extra: List[str]) -> List[str]:
    p = subprocess.run([tern, "translate", "-m", model, "--threads", "2"] + extra, input="\n".join(lines) + "\n",
                       capture_output=True, text=True, check=False)
    if p.returncode not in (0, 1):
        raise SystemExit(f"tern failed ({p.returncode}): {p.stderr}")
    out = p.stdout.split("\n")[:-1]
    if len(out) != len(lines):
        raise SystemExit(f"tern gave {len(out)} lines for {len(lines)}: {p.stderr[:2000]}")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tern", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--split", default="test_2016_flickr")
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--extra", default="", help="more tern translate arguments, e.g. '--beam 1'")
    ap.add_argument("--show", type=int, default=3, help="print this many examples")
    a = ap.parse_args()
    src = read(os.path.join(a.data, f"{a.split}.en"), a.limit)
    ref = read(os.path.join(a.data, f"{a.split}.de"), a.limit)
    rng = random.Random(a.seed)
    marked = [mark_up(s, rng) for s in src]
    html_in = [m for m, _, _ in marked]
    plain_in = [plain_text(m) for m in html_in]
    extra = a.extra.split()
    html_out = translate(a.tern, a.model, html_in, extra + ["--html"])
    plain_out = translate(a.tern, a.model, plain_in, extra)

    kept = 0
    for i, o in zip(html_in, html_out):
        kept += int(well_formed(o) and sorted(tags(o)) == sorted(tags(i)) and
                    [t for t in tags(o) if not t.startswith("</")] == [t for t in tags(i) if not t.startswith("</")])
    stripped = [strip_output(o) for o in html_out]
    b_html = bleu(stripped, ref)[0]
    b_plain = bleu(plain_out, ref)[0]
    same = sum(1 for s, p in zip(stripped, plain_out) if " ".join(s.split()) == " ".join(p.split()))

    lex = Lexicon.train(read(os.path.join(a.data, "train.en"), None), read(os.path.join(a.data, "train.de"), None))
    bold_n = bold_ok = link_n = link_ok = 0
    for (m, bw, lw), o, p in zip(marked, html_out, plain_out):
        pw = {w for w, _, _ in words(p)}
        t = lex.best_target(bw) if bw else None
        if t and t in pw:
            bold_n += 1
            bold_ok += int(t in inside(o, "<b>", "</b>"))
        ts = [lex.best_target(w) for w in lw]
        ts = [x for x in ts if x and x in pw]
        if ts:
            link_n += 1
            link_ok += int(any(x in inside(o, HREF, "</a>") for x in ts))
    print(f"{a.split}: {len(src)} lines, seed {a.seed}, {sum(1 for l in html_in if '<br>' in l)} with <br>, "
          f"{sum(1 for l in html_in if '&#39;' in l or '&amp;' in l.replace(HREF, ''))} with an entity in the text")
    print(f"tags preserved (well-formed, exactly the input's tags): {kept}/{len(src)} = {100.0 * kept / len(src):.1f}%")
    print(f"BLEU --html, tags removed: {b_html:.2f}; plain translation of the tag-free text: {b_plain:.2f} "
          f"(difference {b_html - b_plain:+.2f}); identical text on {same}/{len(src)} lines")
    print(f"placement: bold word's dictionary translation inside <b>: {bold_ok}/{bold_n} = "
          f"{100.0 * bold_ok / max(1, bold_n):.1f}%; a linked word's inside <a>: {link_ok}/{link_n} = "
          f"{100.0 * link_ok / max(1, link_n):.1f}%")
    for i in range(min(a.show, len(src))):
        print(f"  in:  {html_in[i]}\n  out: {html_out[i]}")


if __name__ == "__main__":
    main()
