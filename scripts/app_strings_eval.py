"""App strings through tern, measured: reads message catalogs, translates their source strings with
`tern translate --keep-placeholders` (ICU MessageFormat messages with `--icu-messages`) and prints the table
of issue 40:

  - placeholders kept: the share of strings with placeholders whose every placeholder comes back verbatim and
    as many times as in the source;
  - ICU structure: the share of ICU messages (and Fluent select expressions, which go through --icu-messages
    too) whose output has the same argument heads and case keys, in order;
  - inside a word: placeholders of the output glued to a letter on a side where the source had none;
  - after the final stop: placeholders that had two or more words after them in the source and come after
    the output's final . ! or ?.

Catalogs (by extension): .po / .pot (msgid and msgid_plural), Android strings.xml (<string>, <item>, inline
markup kept), Fluent .ftl (message values and attributes, multi-line ones joined), i18next / react-intl .json,
Flutter .arb and Rails .yml (string values, nested), XLIFF .xlf / .xliff and Qt .ts (<source>), .NET .resx
(<value>), Java .properties, iOS .strings, .txt (a string per line). Strings are
read from the files given; the script ships none (take real catalogs of real projects, several per syntax).

    /usr/bin/python3 scripts/app_strings_eval.py --tern build/targets/desktop/tern \
        --model models/en-de/en-de.int8.tern CATALOG...
"""
from __future__ import annotations

import argparse
import html
import json
import os
import platform
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from typing import Dict, List, Optional

# The placeholder syntaxes of tern's default set (runtime/src/markup/placeholder_syntax.h), as the source
# side of the measurement sees them.
PLACEHOLDER = re.compile(r"%\([A-Za-z_][\w.]*\)[-+#0]*\d*(?:\.\d+)?[diouxXeEfFgGcrsa]"  # Python %(name)s
                         r"|%\{[A-Za-z_]\w*\}"                                          # Ruby %{name}
                         r"|%(?:\d+\$)?[-+ #0']*(?:\d+|\*)?(?:\.(?:\d+|\*))?(?:hh|h|ll|l|L|q|j|z|t)?[diouxXeEfFgGaAcsp@]"
                         r"|\{\{[^{}\s]+\}\}|\{\s*[$-][\w.-]+\s*\}|\{[^{}\s]{1,64}\}"    # i18next, Fluent, brace
                         r"|\{\s*(?:[A-Z][A-Z0-9_-]*|-[\w.-]+)\([^{}()\n]*\)\s*\}"                # Fluent calls
                         r"|\$t\([^()\s]+\)")
ICU = re.compile(r"\{\s*[\w.]+\s*,\s*(?:plural|select|selectordinal)\s*,"
                 r"|\{\s*(?:\$[\w-]+|-[\w.-]+|[A-Z][A-Z0-9_-]*\([^{}()]*\))\s*->")  # ... or a Fluent select expression
# Rich-text tags of message catalogs (Lingui, react-intl, i18next's Trans): <0>..</0>, <bold>..</bold>, <br/>.
# Strings that hold them are translated with --html=xml as well, and their tags count as placeholders.
RICH = re.compile(r"</?(?:\d+|[a-z][\w:-]*)(?:\s[^<>]*)?/?>")


def has_rich(s: str) -> bool:
    """Rich text: a tag closed by its own end tag (<0>..</0>, <xliff:g ..>..</xliff:g>) or an XLIFF-style
    self-closing one with attributes (<x id="2"/>), not a lone "<object>" of a command's usage."""
    opened = set(re.findall(r"<(\d+|[a-z][\w:-]*)(?:\s[^<>]*)?>", s))
    return (any(name in opened for name in re.findall(r"</(\d+|[a-z][\w:-]*)\s*>", s))
            or re.search(r"<[a-z][\w:-]*\s[^<>]*=[^<>]*/>", s) is not None)


def spans_of(s: str, rich: bool) -> List["re.Match[str]"]:
    """The placeholders (and with `rich`, the rich-text tags) of s, in order."""
    tags = list(RICH.finditer(s)) if rich else []
    inside = lambda m: any(t.start() < m.start() < t.end() for t in tags)  # a placeholder in an attribute is the tag's
    found = [m for m in PLACEHOLDER.finditer(s) if not inside(m)] + tags
    return sorted(found, key=lambda m: m.start())


def unescape_backslashes(s: str) -> str:
    """Java .properties / iOS .strings escapes: \\n \\t \\uXXXX, and a backslash before any other character."""
    return re.sub(r"\\(u[0-9a-fA-F]{4}|.)", lambda m: chr(int(m.group(1)[1:], 16)) if len(m.group(1)) == 5
                  else {"n": "\n", "t": "\t", "r": "\r"}.get(m.group(1), m.group(1)), s, flags=re.S)


def inner_xml(s: str) -> str:
    """An XML element's content as an app passes it on: CDATA opened, entities decoded unless it holds tags."""
    s = s.strip()
    if s.startswith("<![CDATA[") and s.endswith("]]>"):
        return s[9:-3]
    return s if has_rich(s) or re.search(r"<\w[^>]*/>", s) else html.unescape(s)


def read_catalog(path: str) -> List[str]:
    ext = os.path.splitext(path)[1].lower()
    raw = open(path, "rb").read()
    text = raw.decode("utf-16") if raw[:2] in (b"\xff\xfe", b"\xfe\xff") else raw.decode("utf-8-sig")
    out: List[str] = []
    if ext in (".po", ".pot"):
        for m in re.finditer(r'^(msgid|msgid_plural) ((?:"(?:[^"\\]|\\.)*"\s*)+)', text, re.M):
            s = "".join(json.loads(q) for q in re.findall(r'"(?:[^"\\]|\\.)*"', m.group(2)))
            if s:
                out.append(s)
    elif ext == ".xml":  # Android: <string> and <item> (plurals, arrays), with their inline markup (<a>, <b>, <xliff:g>)
        ET.fromstring(text)  # (well-formed, or an error naming the line)
        for m in re.finditer(r"<(string|item)(?=[\s>])[^>]*?(?<!/)>(.*?)</\1\s*>", text, re.S):
            s = inner_xml(m.group(2))
            if s.strip():
                out.append(s.replace("\\'", "'").replace('\\"', '"').replace("\\n", "\n").replace("\\@", "@"))
    elif ext in (".xlf", ".xliff", ".ts"):  # XLIFF <source> (with <x/>, <g>, <ph> inline), Qt Linguist <source>
        for m in re.finditer(r"<source\b[^>]*?(?<!/)>(.*?)</source\s*>", text, re.S):
            if inner_xml(m.group(1)).strip():
                out.append(inner_xml(m.group(1)))
    elif ext == ".resx":  # .NET: <data name="..."><value>..</value>, not the typed (binary, file) resources
        for m in re.finditer(r"<data\b([^>]*)>\s*<value>(.*?)</value>", text, re.S):
            if "type=" not in m.group(1) and "mimetype=" not in m.group(1) and m.group(2).strip():
                out.append(html.unescape(m.group(2)))
    elif ext == ".properties":  # Java: key = value (or key: value), a trailing backslash goes on, # and ! comments
        for m in re.finditer(r"^[ \t]*(?![#!])(?:[^=:\s\\]|\\.)+[ \t]*[=:]?[ \t]*((?:[^\n\\]|\\(?:.|\n[ \t]*))*)$", text, re.M):
            s = unescape_backslashes(re.sub(r"\\\n[ \t]*", "", m.group(1)))
            if s.strip():
                out.append(s)
    elif ext == ".strings":  # iOS / macOS: "key" = "value"; (UTF-8 or UTF-16, comments /* */ and //)
        for m in re.finditer(r'"(?:[^"\\]|\\.)*"\s*=\s*"((?:[^"\\]|\\.)*)"\s*;', text):
            if m.group(1).strip():
                out.append(unescape_backslashes(m.group(1)))
    elif ext == ".ftl":
        # Message values and attributes (".title = ..."): a value goes on over the indented lines after it
        # (Fluent's multi-line patterns and select expressions) up to the next attribute, entry or comment.
        value: Optional[List[str]] = None
        for line in text.split("\n") + [""]:
            entry = re.match(r"^[ \t]*\.?-?[A-Za-z][\w-]*[ \t]*=[ \t]*(.*)$", line)
            if value is not None and not entry and line[:1] in (" ", "\t") and line.strip():
                value.append(line.strip())
                continue
            if value is not None and " ".join(value).strip():
                out.append(" ".join(value).strip())
            value = [entry.group(1)] if entry and not line.lstrip().startswith("-") else None
    elif ext in (".json", ".arb", ".yml", ".yaml"):  # i18next, react-intl, Flutter .arb; Rails i18n (python3-yaml)
        def walk(v):
            if isinstance(v, dict):
                for k, x in v.items():
                    if not (ext == ".arb" and str(k).startswith("@")):  # .arb: "@key" holds the metadata
                        walk(x)
            elif isinstance(v, str) and v.strip():
                out.append(v)
        if ext in (".json", ".arb"):
            walk(json.loads(text))
        else:
            import yaml
            walk(yaml.safe_load(text))
    else:
        out = [line for line in text.splitlines() if line.strip()]
    return [" ".join(s.split()) for s in out]


def translate(tern: str, model: str, lines: List[str], extra: List[str], errors: Optional[Dict[str, str]] = None) -> List[str]:
    """The translations of `lines` (a line that failed: ""); `errors` gets each failed line's error message."""
    if not lines:
        return []
    r = subprocess.run([tern, "translate", "-m", model, "--beam", "4"] + extra, input="\n".join(lines) + "\n",
                       capture_output=True, text=True)
    out = r.stdout.split("\n")[: len(lines)]
    for m in re.finditer(r"^tern: line (\d+): (.*)$", r.stderr, re.M):
        if errors is not None and 0 < int(m.group(1)) <= len(lines):
            errors[lines[int(m.group(1)) - 1]] = m.group(2)
    return out + [""] * (len(lines) - len(out))


def cpu() -> str:
    try:
        for line in open("/proc/cpuinfo", encoding="utf-8"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.machine()


def past_brace(s: str, i: int) -> int:
    """The index after the '}' that closes an argument whose '{' came before i (nested braces counted)."""
    depth = 1
    while i < len(s) and depth:
        depth += {"{": 1, "}": -1}.get(s[i], 0)
        i += 1
    return i


def icu_skeleton(s: str) -> List[str]:
    """Argument heads and case keys in order ('{name', '{name,plural', 'one{', '=0{'), read by a small parser
    of the message: a case's text ('{result}' in 'one {result}') is text, not an argument."""
    out: List[str] = []

    def message(i: int, nested: bool) -> int:  # text up to the '}' that closes a case (or the end)
        while i < len(s):
            c = s[i]
            if c == "'" and i + 1 < len(s) and s[i + 1] in "{}'":  # ICU quoting: '{' ... ' or ''
                close = s.find("'", i + 2) if s[i + 1] != "'" else i + 1
                i = (close if close >= 0 else len(s) - 1) + 1
            elif c == "{":
                i = argument(i + 1)
            elif c == "}" and nested:
                return i + 1
            else:
                i += 1
        return i

    def argument(i: int) -> int:  # after '{'
        m = re.match(r"\s*([\w.$-]*)\s*(?:,\s*(\w+)\s*)?", s[i:])
        name, kind = m.group(1), m.group(2)
        out.append("{" + name + ("," + kind if kind else ""))
        i += m.end()
        if kind in ("plural", "select", "selectordinal") and i < len(s) and s[i] == ",":
            i += 1
            while i < len(s):
                k = re.match(r"\s*(?:offset:\s*\d+\s*)?((?:=\d+)|[\w-]+)?\s*", s[i:])
                i += k.end()
                if i < len(s) and s[i] == "{" and k.group(1):
                    out.append(k.group(1) + "{")
                    i = message(i + 1, True)
                    continue
                if i < len(s) and s[i] == "}":
                    return i + 1
                i += 1
            return i
        return past_brace(s, i)  # another argument (number, date, a style): to its closing brace

    message(0, False)
    return out


def fluent_skeleton(s: str) -> List[str]:
    """Placeable heads and variant keys in order ('{$n->', '[one]', '*[other]', '{$n'), read by a small parser of
    the one-line form: a variant's pattern runs to the next key after a space or to its select's '}'."""
    out: List[str] = []
    key = re.compile(r"\*?\[\s*[\w.-]+\s*\]")

    def pattern(i: int, variant: bool) -> int:
        while i < len(s):
            if variant and (s[i] == "}" or (s[i] in "[*" and key.match(s, i) and (i == 0 or s[i - 1] == " "))):
                return i
            i = placeable(i + 1) if s[i] == "{" else i + 1
        return i

    def placeable(i: int) -> int:  # after '{'
        m = re.compile(r"\s*([^{}\s(]+(?:\([^()]*\))?)\s*(->)?").match(s, i)
        out.append("{" + re.sub(r"\s+", "", m.group(1)) + ("->" if m.group(2) else ""))
        i = m.end()
        while m.group(2) and i < len(s):
            i = re.compile(r"\s*").match(s, i).end()
            k = key.match(s, i)
            if not k:
                break
            out.append(re.sub(r"\s+", "", k.group(0)))
            i = pattern(k.end(), True)
        return past_brace(s, i)

    pattern(0, False)
    return out


def structure(s: str) -> List[str]:
    return fluent_skeleton(s) if re.search(r"\{[^{}]*->", s) else icu_skeleton(s)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tern", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--no-icu", action="store_true",
                    help="ICU messages as plain strings with --keep-placeholders (how tern did before --icu-messages)")
    ap.add_argument("--show-failures", action="store_true",
                    help="print each string that fails a measure (to stderr): source, output and what failed")
    ap.add_argument("catalogs", nargs="+")
    args = ap.parse_args()
    strings: List[str] = []
    for c in args.catalogs:
        strings += read_catalog(c)
    icu = [s for s in strings if ICU.search(s)]
    plain = [s for s in strings if not ICU.search(s) and PLACEHOLDER.search(s) and not has_rich(s)]
    rich = [s for s in strings if not ICU.search(s) and has_rich(s)]
    icu_flags = ["--keep-placeholders"] if args.no_icu else ["--icu-messages"]
    icu_rich = [s for s in icu if has_rich(s)]
    out_icu_rich = iter(translate(args.tern, args.model, icu_rich, icu_flags + ["--html=xml"]))
    out_icu_plain = iter(translate(args.tern, args.model, [s for s in icu if not has_rich(s)], icu_flags))
    out_icu = [next(out_icu_rich) if has_rich(s) else next(out_icu_plain) for s in icu]
    out_plain = translate(args.tern, args.model, plain, ["--keep-placeholders"])
    refused: Dict[str, str] = {}  # rich strings whose markup is not well formed: each fails alone, with its error
    out_rich = translate(args.tern, args.model, rich, ["--keep-placeholders", "--html=xml"], refused)
    refused = {s: e for s, e in refused.items() if e.startswith("markup: ")}
    for s, e in refused.items():
        if args.show_failures:
            print("refused: %r: %s" % (s, e), file=sys.stderr)
    kept_rich = [(s, o) for s, o in zip(rich, out_rich) if s not in refused]
    plain, out_plain = plain + [s for s, _ in kept_rich], out_plain + [o for _, o in kept_rich]
    rich_set = set(rich)
    kept = inside = after = had_words_after = spans = 0
    for src, out in zip(plain, out_plain):
        found = spans_of(src, src in rich_set)
        phs = [m.group(0) for m in found]
        ok = all(out.count(p) == src.count(p) for p in set(phs))
        kept += ok
        if not ok and args.show_failures:
            print("placeholders: %r -> %r" % (src, out), file=sys.stderr)
        final = max(out.rfind("."), out.rfind("!"), out.rfind("?"))
        seen = {}  # the k-th occurrence of a placeholder in the source is compared with its k-th in the output
        for m in found:
            p = m.group(0)
            spans += 1
            at = -1
            for _ in range(seen.get(p, 0) + 1):
                at = out.find(p, at + 1)
                if at < 0:
                    break
            seen[p] = seen.get(p, 0) + 1
            if at < 0:
                continue
            before_src = src[m.start() - 1] if m.start() > 0 else " "
            after_src = src[m.end()] if m.end() < len(src) else " "
            before_out = out[at - 1] if at > 0 else " "
            after_out = out[at + len(p)] if at + len(p) < len(out) else " "
            if RICH.fullmatch(p):  # a tag: inside a word only with letters on both sides (a start tag opens a word)
                glued = before_out.isalpha() and after_out.isalpha() and not (before_src.isalpha() and after_src.isalpha())
            else:
                glued = (before_out.isalpha() and not before_src.isalpha()) or (after_out.isalpha() and not after_src.isalpha())
            inside += glued
            if glued and args.show_failures:
                print("inside a word: %r -> %r" % (src, out), file=sys.stderr)
            # (a placeholder the source itself has after a . ! ? , "reference. HEAD path: '%s'", may stay there)
            src_final = max(src.rfind("."), src.rfind("!"), src.rfind("?"))
            rest = RICH.sub(" ", PLACEHOLDER.sub(" ", src[m.end():]))  # words, not the tags and placeholders after it
            if len(re.findall(r"\w+", rest)) >= 2 and not 0 <= src_final < m.start():
                had_words_after += 1
                moved = final >= 0 and at > final
                after += moved
                if moved and args.show_failures:
                    print("after the final stop: %r -> %r" % (src, out), file=sys.stderr)
    same_icu = 0
    for s_icu, o_icu in zip(icu, out_icu):
        same = structure(s_icu) == structure(o_icu) and o_icu != ""
        same_icu += same
        if not same and args.show_failures:
            print("ICU structure: %r -> %r" % (s_icu, o_icu), file=sys.stderr)
    pct = lambda a, b: "%d / %d (%.0f%%)" % (a, b, 100.0 * a / b) if b else "0 / 0"
    print("app strings: %d strings from %d catalogs; CPU %s; model %s%s" % (len(strings), len(args.catalogs), cpu(), args.model,
                                                                            "; ICU messages as plain strings" if args.no_icu else ""))
    print("| what | tern |")
    print("|---|---|")
    print("| strings whose every placeholder comes back verbatim and as often | %s |" % pct(kept, len(plain)))
    print("| strings refused: rich-text markup not well formed (each fails alone, its error names the tag) | %d |"
          % len(refused))
    print("| ICU messages with the same arguments and case keys | %s |" % pct(same_icu, len(icu)))
    print("| placeholders glued to a letter they were not next to | %s |" % pct(inside, spans))
    print("| placeholders moved after the final . ! ? (of those with 2+ words after them) | %s |" % pct(after, had_words_after))
    return 0


if __name__ == "__main__":
    sys.exit(main())
