"""Real HTML through `tern translate --html`, measured: reads the paragraphs of HTML documents (the inner HTML of
each <p>, <li>, <dd>, <td>, <th> and <h1>..<h6> that holds an inline element, whitespace collapsed, one per
line), translates them with beam 4 and prints the HTML rows of issue 40's table:

  - tags kept: the share of paragraphs whose output holds the input's tags, as written, in the same order;
  - elements left empty: elements whose source held text and whose output holds none;
  - tags inside a word: tags of the output with a letter on both sides where the source had none there;
  - code kept: <code>, <kbd>, <samp> and <var> elements whose content comes back verbatim (kept by default;
    `--translate-code` turns that off).

Documents are read from the files given; the script ships none (take real documentation of real projects).

    /usr/bin/python3 scripts/html_eval.py --tern build/targets/desktop/tern \
        --model models/en-de/en-de.int8.tern DOC.html...
"""
from __future__ import annotations

import argparse
import re
import subprocess
import sys
from typing import List, Tuple

TAG = re.compile(r"<(/?)([A-Za-z][\w:-]*)((?:[^>\"']|\"[^\"]*\"|'[^']*')*)>")
BLOCK = re.compile(r"<(p|li|dd|td|th|h[1-6])\b[^>]*>(.*?)</\1\s*>", re.S | re.I)
VOID = {"br", "img", "wbr", "hr", "input", "meta", "link", "area", "base", "col", "embed", "source", "track"}
CODE = {"code", "kbd", "samp", "var"}


def paragraphs(path: str) -> List[str]:
    text = open(path, encoding="utf-8").read()
    text = re.sub(r"<!--.*?-->", "", text, flags=re.S)
    out = []
    for m in BLOCK.finditer(text):
        inner = " ".join(m.group(2).split())
        if TAG.search(inner) and not BLOCK.search(inner) and "<p" not in inner.lower():  # innermost, inline only
            out.append(inner)
    return out


def elements(s: str) -> List[Tuple[str, str, str]]:
    """(start tag, name, inner HTML) of each non-void element, in the order of their start tags."""
    stack, out = [], []
    for m in TAG.finditer(s):
        name = m.group(2).lower()
        if m.group(1) == "":
            if name in VOID or m.group(0).endswith("/>"):
                continue
            out.append([m.group(0), name, m.end(), None])
            stack.append(len(out) - 1)
        else:
            while stack:
                i = stack.pop()
                if out[i][1] == name:
                    out[i][3] = m.start()
                    break
    return [(t, n, s[b:e] if e is not None else "") for t, n, b, e in out]


def text_of(inner: str) -> str:
    return TAG.sub("", inner).strip()


def glued_tags(s: str) -> List[str]:
    """Tags with a letter right before and right after them (in a word)."""
    return [m.group(0) for m in TAG.finditer(s)
            if m.start() > 0 and s[m.start() - 1].isalpha() and m.end() < len(s) and s[m.end()].isalpha()]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tern", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--show", type=int, default=0, help="print this many failing paragraphs")
    ap.add_argument("docs", nargs="+")
    a = ap.parse_args()
    lines: List[str] = []
    for d in a.docs:
        lines += paragraphs(d)
    r = subprocess.run([a.tern, "translate", "-m", a.model, "--beam", "4", "--html"], input="\n".join(lines) + "\n",
                       capture_output=True, text=True)
    outs = (r.stdout.split("\n") + [""] * len(lines))[: len(lines)]
    same = empty = had_text = inside = code_kept = code = 0
    shown = 0
    for src, out in zip(lines, outs):
        ok = [m.group(0) for m in TAG.finditer(src)] == [m.group(0) for m in TAG.finditer(out)]
        same += ok
        se, oe = elements(src), elements(out)
        bad = not ok
        if ok and len(se) == len(oe):
            for (_, name, s_in), (_, _, o_in) in zip(se, oe):
                if text_of(s_in):
                    had_text += 1
                    empty += not text_of(o_in)
                    bad |= not text_of(o_in)
                if name in CODE:
                    code += 1
                    code_kept += s_in == o_in
                    bad |= s_in != o_in
        new = len(glued_tags(out)) - len(glued_tags(src))
        inside += max(0, new)
        if (bad or new > 0) and shown < a.show:
            print("  in: ", src, "\n  out:", out)
            shown += 1
    pct = lambda x, n: "%d / %d (%.0f%%)" % (x, n, 100.0 * x / n) if n else "0 / 0"
    print("html: %d paragraphs from %d documents; model %s" % (len(lines), len(a.docs), a.model))
    print("| what | tern |")
    print("|---|---|")
    print("| paragraphs with the input's tags, as written, in order | %s |" % pct(same, len(lines)))
    print("| elements left empty (of those whose source held text) | %s |" % pct(empty, had_text))
    print("| tags inside a word where the source had none | %d |" % inside)
    print("| code, kbd, samp, var content verbatim | %s |" % pct(code_kept, code))
    return 0


if __name__ == "__main__":
    sys.exit(main())
