#!/usr/bin/env python3
"""Writes every binding's code for the per-call options from runtime/fields/fields.py (its docstring says what
each file is). `generate.py` rewrites the files; `generate.py --check` prints the ones that differ and exits 1
(CTest `fields_current`). Standard library only."""

import argparse
import difflib
import sys

from gen_common import ROOT  # noqa: E402 (gen_common puts this folder on sys.path)
from gen_c import *  # noqa: F401,F403
from gen_cli import *  # noqa: F401,F403
from gen_cpp import *  # noqa: F401,F403
from gen_java import *  # noqa: F401,F403
from gen_js import *  # noqa: F401,F403
from gen_python import *  # noqa: F401,F403
from gen_tests import *  # noqa: F401,F403
from gen_common import replace_between  # noqa: F401


def outputs():
    return {
        "runtime/include/tern/translate_options.h": gen_cpp_struct(),
        "runtime/include/tern/tern_translate_params.h": gen_c_header(),
        "runtime/src/api/c_options_fields.inc": gen_c_conversion(),
        "runtime/src/session/option_checks.inc": gen_checks(),
        "runtime/src/serving/sharing_fields.inc": gen_sharing(),
        "runtime/src/api/chunk_fields.inc": gen_chunks(),
        "runtime/src/session/continuous_fields.inc": gen_continuous(),
        "runtime/src/session/resolved_members.inc": gen_resolved_members(),
        "runtime/src/session/resolved_fields.inc": gen_resolved(),
        "targets/python/src/option_keywords.inc": gen_py_keywords(),
        "targets/python/tern/_tern.pyi": pyi_text(),
        "targets/android/jni/options_fields.inc": gen_jni(),
        "targets/android/java/dev/tern/Translator.java": replace_between(
            "targets/android/java/dev/tern/Translator.java", "// BEGIN fields: Hypothesis", "// END fields: Hypothesis",
            gen_java_hypothesis(), replace_between(
                "targets/android/java/dev/tern/Translator.java", "// BEGIN fields: Options", "// END fields: Options",
                gen_java_options())),
        "runtime/src/base/options_echo.inc": gen_echo(),
        "runtime/include/tern/result_fields.h": gen_result_header(),
        "runtime/include/tern/tern.h": replace_between(
            "runtime/include/tern/tern.h", "/* BEGIN fields: results */", "/* END fields: results */", gen_c_result_decls()),
        "runtime/src/api/c_result_fields.inc": gen_c_result_accessors(),
        "targets/python/src/result_fields.inc": gen_py_results(),
        "targets/android/jni/result_fields.inc": gen_jni_results(),
        "tests/fields/c_results_dump.inc": gen_c_results_dump(),
        "targets/android/test/FieldResults.java": gen_java_results_dump(),
        "targets/wasm/options_json.inc": gen_json_options(),
        "targets/wasm/results_json.inc": gen_json_results(),
        "targets/wasm/js/fields.d.ts": gen_dts(),
        "tests/fields/values.json": gen_values_json(),
        "tests/fields/c_values.inc": gen_c_values(),
        "tests/fields/cpp_values.inc": gen_cpp_values(),
        "targets/android/test/FieldValues.java": gen_java_values(),
        "targets/desktop/option_flags.h": gen_cli()[0],
        "targets/desktop/option_flags_cli.inc": gen_cli()[1],
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--check", action="store_true", help="exit 1 if a committed file differs from the table's")
    args = ap.parse_args()
    stale = []
    for rel, text in outputs().items():
        path = ROOT / rel
        old = path.read_text(encoding="utf-8") if path.exists() else ""
        if old == text:
            continue
        if args.check:
            stale.append(rel)
            sys.stdout.writelines(difflib.unified_diff(old.splitlines(True), text.splitlines(True), rel, rel + " (table)", n=1))
        else:
            path.write_text(text, encoding="utf-8")
            print("wrote", rel)
    if stale:
        print("\nnot what runtime/fields/fields.py gives (run /usr/bin/python3 runtime/fields/generate.py):", *stale, sep="\n  ")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
