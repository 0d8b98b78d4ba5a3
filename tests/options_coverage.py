#!/usr/bin/env python3
"""Every tern::TranslateOptions field (runtime/include/tern/options.h) is reachable from each binding, or is a
gap listed here with its reason (CTest `options_coverage`). A new field fails this test until each binding
takes it or the gap is written down; a gap that a binding has since closed fails it too (stale entry).

    /usr/bin/python3 tests/options_coverage.py --root .

Bindings and where a field's name is looked for (as the binding spells it):
  C        runtime/include/tern/tern.h           tern_translate_params' members
  Python   targets/python/src/translator_py.cc   translate_batch's keyword arguments
  Java     targets/android/java/dev/tern/Translator.java   Translator.Options' fields (camelCase)
  CLI      targets/desktop/*.cc                  --flags (kebab-case)
  engine   runtime/src/serving/sharing.cc        SameCall compares it (or may_share refuses requests with it)
"""
import argparse
import glob
import os
import re
import sys

# Names a binding uses for a field when they are not the field's own (after the case change).
RENAMED = {
    "C": {"on_token": "token_callback", "on_token_user_data": "token_user_data", "abort": "abort_callback",
          "logits_processors": "logits_callback", "sampling": "do_sample"},
    "Python": {"on_token": "callback", "on_token_user_data": "callback", "abort": "cancel", "abort_user_data": "cancel",
               "sampling": "do_sample"},
    "Java": {"on_token": "TokenListener", "on_token_user_data": "TokenListener", "abort": "TokenListener",
             "abort_user_data": "TokenListener", "glossary": "useGlossary", "sampling": "doSample"},
    "CLI": {"beam_size": "beam", "return_scores": "scores", "return_alignment": "format", "hf_rules": "hf-rules",
            "split_sentences": "no-split", "use_shortlist": "no-shortlist", "markup": "html", "on_token": "stream",
            "target_lang": "target-lang", "target_prefix_ids": "target-prefix", "sampling": "sample",
            "suppress_sequences": "suppress", "auto_protect": "no-auto-protect"},
}
# What a binding does not take yet, and why. Closing a gap means removing its line.
GAPS = {
    "C": {},
    "Python": {},
    "Java": {"target_prefix_ids": "Translator.Options.targetPrefix takes texts (the Java API translates texts only)"},
    "CLI": {"max_length_ratio": "the file's default only",
            "on_token_user_data": "the CLI's own callback", "abort": "Ctrl-C ends the process",
            "abort_user_data": "the CLI's own callback", "keep_spans": "no way to mark spans in a line of text",
            "logits_processors": "C++ objects: an API for programs, not the command line",
            "return_attention": "a matrix per token: the APIs' results (C++, C, Python); --format json has token_sources",
            "end_tokens": "target ids: an option of the APIs (C++, C, Python, the CTranslate2 shim)"},
}
ENGINE_BY_MAY_SHARE = {"on_token", "on_token_user_data", "abort", "abort_user_data", "keep_spans", "target_prefix",
                       "target_prefix_ids"}


def fields(root):
    text = open(os.path.join(root, "runtime/include/tern/options.h"), encoding="utf-8").read()
    body = text[text.index("struct TranslateOptions {"):]
    body = body[: body.index("\n};")]
    out = []
    for line in body.splitlines():
        line = line.split("///")[0].strip()
        m = re.match(r"^[A-Za-z0-9_:<>*,\s]+?[\s*&>]([a-z_][a-z0-9_]*)\s*(=[^;]*)?;$", line)
        if m:
            out.append(m.group(1))
    return out


def camel(name):
    head, *rest = name.split("_")
    return head + "".join(w.capitalize() for w in rest)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    root = ap.parse_args().root
    read = lambda *ps: "\n".join(open(os.path.join(root, p), encoding="utf-8").read() for p in ps)
    c_h = read("runtime/include/tern/tern_params.h")
    c_params = c_h[c_h.index("typedef struct tern_translate_params"):]
    c_params = c_params[: c_params.index("} tern_translate_params;")]
    sources = {
        "C": lambda n: re.search(r"\b%s\b" % re.escape(n), c_params),
        "Python": lambda n: ('py::arg("%s")' % n) in read("targets/python/src/translator_py.cc"),
        "Java": lambda n: re.search(r"\b%s\b" % re.escape(n), read("targets/android/java/dev/tern/Translator.java")),
        "CLI": lambda n: ('"--%s' % n) in "\n".join(open(p, encoding="utf-8").read()
                                                  for p in glob.glob(os.path.join(root, "targets/desktop/*.cc"))),
    }
    sharing = read("runtime/src/serving/sharing.cc")
    names = fields(root)
    failures = []
    if len(names) < 20:
        failures.append("options.h: found only %d TranslateOptions fields: %s" % (len(names), names))
    for f in names:
        for binding, has in sources.items():
            spelled = RENAMED.get(binding, {}).get(f) or {"Java": camel(f), "CLI": f.replace("_", "-")}.get(binding, f)
            found = bool(has(spelled))
            gap = GAPS.get(binding, {}).get(f)
            if not found and not gap:
                failures.append("%s: TranslateOptions::%s is not reachable (looked for %r); add it, or list the gap "
                                "with its reason in tests/options_coverage.py" % (binding, f, spelled))
            if found and gap:
                failures.append("%s: TranslateOptions::%s is reachable now (%r): remove its gap line" % (binding, f, spelled))
        if f not in ENGINE_BY_MAY_SHARE and not re.search(r"x\.%s\b" % f, sharing):
            failures.append("engine: SameCall (runtime/src/serving/sharing.cc) does not compare TranslateOptions::%s" % f)
    for binding, gaps in GAPS.items():
        for f in gaps:
            if f not in names:
                failures.append("%s: gap for %s, which TranslateOptions no longer has" % (binding, f))
    for line in failures:
        print("options_coverage: " + line)
    n_gaps = sum(len(g) for g in GAPS.values())
    print("options_coverage: %d fields x %d bindings, %d gaps listed, %d failures" % (len(names), len(sources), n_gaps, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
