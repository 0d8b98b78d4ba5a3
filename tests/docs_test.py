#!/usr/bin/env python3
"""Runs the code of README.md and docs/*.md, so the documentation cannot drift from the code (CTest `docs`).

    /usr/bin/python3 tests/docs_test.py --root . --build build [PAGE ...]

Checks, for every page:
  - README.md is under 200 lines and links every page of docs/; every relative link of every page names a
    file that exists (an anchor after '#' is not checked);
  - every fenced code block in a language it can run is run, in order, in one scratch directory per page
    (it holds links to the repository's models/, scripts/, converter/, targets/, tests/, bench/ and the build
    tree as build/; `tern` and `tern-convert` are on PATH; files a block writes are there for the next):
      sh, bash   a transcript when lines start with "$ " (each command runs; the lines after it up to the next
                 "$ " are its expected output; a line "..." stands for any lines); otherwise the block runs as
                 a script that must succeed;
      cpp, c     a complete program, or statements after #include lines (wrapped in main): compiled against
                 the build's libtern.so and run;
      python     run by /usr/bin/python3 with the build's package first on its path;
      java       a class with main, or statements (wrapped in one): compiled against dev.tern and run with
                 the build's JNI library;
    a ```text block right after a block (blank lines between) is that block's expected output;
  - a block that must not run says why on the line before its fence: <!-- docs-test: skip: REASON -->.
Blocks in other languages (text, json, cmake, tsv, ...) are data, never run.
"""
from __future__ import annotations

import argparse
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

RUNNABLE = {"sh", "bash", "cpp", "c", "python", "java"}
SKIP = re.compile(r"<!--\s*docs-test:\s*skip:\s*(\S.*?)\s*-->")
LINK = re.compile(r"\]\(([^)#\s]+)(#[^)]*)?\)")


class Block:
    def __init__(self, page, line, lang, code, skip, output):
        self.page, self.line, self.lang, self.code, self.skip, self.output = page, line, lang, code, skip, output


def blocks_of(page: pathlib.Path):
    lines = page.read_text(encoding="utf-8").split("\n")
    found, i = [], 0
    while i < len(lines):
        m = re.match(r"^(\s*)```(\S*)\s*$", lines[i])
        if not m:
            i += 1
            continue
        indent, lang, start = m.group(1), m.group(2).lower(), i
        body = []
        i += 1
        while i < len(lines) and not re.match(r"^\s*```\s*$", lines[i]):
            body.append(lines[i][len(indent):] if lines[i].startswith(indent) else lines[i].lstrip())
            i += 1
        i += 1
        marker = SKIP.search(lines[start - 1]) if start > 0 else None
        bad_marker = start > 0 and "docs-test" in lines[start - 1] and not marker
        found.append(dict(line=start + 1, lang=lang, code="\n".join(body), skip=marker.group(1) if marker else None,
                          bad_marker=bad_marker, end=i))
    # A text block right after a runnable one is its expected output.
    out = []
    for k, b in enumerate(found):
        if b["lang"] == "text" and k > 0 and found[k - 1]["lang"] in RUNNABLE:
            between = lines[found[k - 1]["end"]:b["line"] - 1]
            if all(not x.strip() for x in between):
                continue
        expected = None
        if k + 1 < len(found) and found[k + 1]["lang"] == "text":
            between = lines[b["end"]:found[k + 1]["line"] - 1]
            if all(not x.strip() for x in between):
                expected = found[k + 1]["code"]
        blk = Block(page, b["line"], b["lang"], b["code"], b["skip"], expected)
        blk.bad_marker = b["bad_marker"]
        out.append(blk)
    return out


def matches(expected: str, got: str) -> bool:
    """Line by line, trailing spaces ignored; a line "..." matches any lines (up to the next expected one)."""
    exp = [x.rstrip() for x in expected.rstrip("\n").split("\n")] if expected.strip() else []
    out = [x.rstrip() for x in got.rstrip("\n").split("\n")] if got.strip() else []

    def m(i, j):
        if i == len(exp):
            return j == len(out)
        if exp[i] == "...":
            return any(m(i + 1, k) for k in range(j, len(out) + 1))
        return j < len(out) and exp[i] == out[j] and m(i + 1, j + 1)

    return m(0, 0)


class Runner:
    def __init__(self, root: pathlib.Path, build: pathlib.Path):
        self.root, self.build = root, build
        self.env = dict(os.environ)
        self.env["PATH"] = f"{build / 'targets/desktop'}:{build / 'converter'}:{self.env.get('PATH', '')}"
        self.env["PYTHONPATH"] = f"{build / 'python'}:{self.env.get('PYTHONPATH', '')}"
        self.env.pop("TERN_MODEL", None)

    def scratch(self) -> pathlib.Path:
        d = pathlib.Path(tempfile.mkdtemp(prefix="tern-docs-"))
        for name in ("models", "scripts", "converter", "targets", "tests", "bench", "schema", "runtime"):
            (d / name).symlink_to(self.root / name)
        (d / "build").symlink_to(self.build)
        return d

    def run(self, args, cwd, stdin=None, timeout=300):
        r = subprocess.run(args, cwd=cwd, env=self.env, input=stdin, capture_output=True, text=True, timeout=timeout)
        return r.returncode, r.stdout, r.stderr

    def shell(self, b: Block, cwd):
        lines = b.code.split("\n")
        if not any(x.startswith("$ ") for x in lines):
            rc, out, err = self.run(["bash", "-euo", "pipefail", "-c", b.code], cwd)
            return (None if rc == 0 else f"exit {rc}\n{err[-2000:]}"), out
        # A transcript: "$ command" (continued while a line ends with '\' or '|'), then its output.
        k = 0
        while k < len(lines):
            if not lines[k].startswith("$ "):
                k += 1
                continue
            cmd = [lines[k][2:]]
            while cmd[-1].rstrip().endswith(("\\", "|")) and k + 1 < len(lines):
                k += 1
                cmd.append(lines[k])
            k += 1
            expected = []
            while k < len(lines) and not lines[k].startswith("$ "):
                expected.append(lines[k])
                k += 1
            command = "\n".join(cmd)
            # A '# comment' after the command is part of the shell line; the expected output follows.
            rc, out, err = self.run(["bash", "-o", "pipefail", "-c", command], cwd)
            want = "\n".join(expected).strip("\n")
            if not matches(want, out):
                return f"$ {command}\nexpected:\n{want}\ngot (exit {rc}):\n{out}{err[-1000:]}", out
        return None, ""

    def native(self, b: Block, cwd):
        code = b.code
        if "main(" not in code:
            head = [x for x in code.split("\n") if x.startswith("#include")]
            body = [x for x in code.split("\n") if not x.startswith("#include")]
            extra = ["#include <stdio.h>", "#include <string.h>"] if b.lang == "c" else ["#include <iostream>", "#include <string>"]
            code = "\n".join(extra + head + ["int main(void) {" if b.lang == "c" else "int main() {"] + body + ["  return 0;", "}"])
        src = cwd / f"doc_{b.line}.{b.lang}"
        src.write_text(code)
        exe = cwd / f"doc_{b.line}"
        compiler = ["cc", "-std=c11"] if b.lang == "c" else ["c++", "-std=c++17"]
        rc, out, err = self.run(compiler + ["-Wall", "-o", str(exe), str(src), f"-I{self.root / 'runtime/include'}",
                                            f"-L{self.build / 'runtime'}", "-ltern", f"-Wl,-rpath,{self.build / 'runtime'}"], cwd)
        if rc != 0:
            return f"does not compile:\n{err[-3000:]}", ""
        rc, out, err = self.run([str(exe)], cwd)
        return (None if rc == 0 else f"exit {rc}\n{err[-2000:]}"), out

    def python(self, b: Block, cwd):
        rc, out, err = self.run(["/usr/bin/python3", "-c", b.code], cwd)
        return (None if rc == 0 else f"exit {rc}\n{err[-3000:]}"), out

    def java(self, b: Block, cwd):
        classes = self.build / "targets/android/classes"
        jni = self.build / "targets/android"
        if not shutil.which("javac") or not (jni / "libtern_jni.so").exists():
            return "SKIP", ""
        code = b.code
        name = f"DocExample{b.line}"
        if "class " not in code:
            imports = [x for x in code.split("\n") if x.startswith("import ")]
            body = [x for x in code.split("\n") if not x.startswith("import ")]
            code = "\n".join(["import dev.tern.*;"] + imports + [f"public class {name} {{",
                                                               "  public static void main(String[] args) throws Exception {"] +
                             ["    " + x for x in body] + ["  }", "}"])
        else:
            name = re.search(r"public class (\w+)", code).group(1)
        src = cwd / f"{name}.java"
        src.write_text(code)
        rc, out, err = self.run(["javac", "-cp", str(classes), "-d", str(cwd / "jclasses"), str(src)], cwd)
        if rc != 0:
            return f"does not compile:\n{err[-3000:]}", ""
        rc, out, err = self.run(["java", f"-Djava.library.path={jni}", "-cp", f"{cwd / 'jclasses'}:{classes}", name], cwd)
        return (None if rc == 0 else f"exit {rc}\n{err[-2000:]}"), out

    def block(self, b: Block, cwd):
        if b.lang in ("sh", "bash"):
            return self.shell(b, cwd)
        if b.lang in ("cpp", "c"):
            return self.native(b, cwd)
        if b.lang == "python":
            return self.python(b, cwd)
        return self.java(b, cwd)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--root", type=pathlib.Path, required=True)
    ap.add_argument("--build", type=pathlib.Path, required=True)
    ap.add_argument("pages", nargs="*", type=pathlib.Path)
    args = ap.parse_args()
    root, build = args.root.resolve(), args.build.resolve()
    docs = sorted((root / "docs").glob("*.md"))
    pages = [p.resolve() for p in args.pages] or [root / "README.md"] + docs
    failures = []
    readme = (root / "README.md").read_text(encoding="utf-8")
    if len(readme.split("\n")) >= 200:
        failures.append(f"README.md: {len(readme.splitlines())} lines (fewer than 200)")
    for d in docs:
        if f"docs/{d.name}" not in readme:
            failures.append(f"README.md does not link docs/{d.name}")
    runner = Runner(root, build)
    for page in pages:
        text = page.read_text(encoding="utf-8")
        for target, _ in LINK.findall(text):
            if "://" in target or target.startswith("mailto:"):
                continue
            if not (page.parent / target).exists():
                failures.append(f"{page.relative_to(root)}: link to {target}: no such file")
        cwd = runner.scratch()
        ran = skipped = 0
        for b in blocks_of(page):
            where = f"{page.relative_to(root)}:{b.line} ({b.lang})"
            if getattr(b, "bad_marker", False):
                failures.append(f"{where}: a docs-test marker must read <!-- docs-test: skip: REASON -->")
            if b.lang not in RUNNABLE:
                continue
            if b.skip:
                skipped += 1
                continue
            try:
                error, out = runner.block(b, cwd)
            except subprocess.TimeoutExpired:
                error, out = "timed out", ""
            if error == "SKIP":
                skipped += 1
                continue
            ran += 1
            if error:
                failures.append(f"{where}: {error}")
            elif b.output is not None and not matches(b.output, out):
                failures.append(f"{where}: output differs\nexpected:\n{b.output}\ngot:\n{out}")
        print(f"{page.relative_to(root)}: {ran} blocks run, {skipped} skipped (reasons given)")
        shutil.rmtree(cwd, ignore_errors=True)
    for f in failures:
        print("FAILED: " + f, file=sys.stderr)
    print(f"docs_test: {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
