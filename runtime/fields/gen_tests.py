"""The fields tests' data: a value of every option in each binding's syntax, and the result dumps of C and Java. Written into the files by generate.py."""

from gen_common import *  # noqa: F401,F403 - the table and the shared helpers


def echo_of(o, v):
    """The echo of test value v of option o."""
    k = o.kind
    if isinstance(v, bool):
        return "1" if v else "0"
    if k == "opt_enum:EarlyStopping":
        return str(["false", "true", "never"].index(v))
    if k == "enum:Markup":
        return str(["", "html", "html-lenient", "xml"].index(v))
    if k == "syntaxes":
        bits = {"printf": 1, "python-named": 2, "ruby-named": 4, "brace": 8, "fluent": 16, "i18next": 32, "shell": 64,
                "url": 128, "email": 256, "number-unit": 512}
        return str(sum(bits[n] for n in v.split(",")))
    if isinstance(v, float):
        return "%g" % v
    return str(v)


def test_rows():
    rows = []
    for o in PLAIN:
        assert o.name in fields.TEST_VALUES, "fields.TEST_VALUES has no value for " + o.name
        rows.append((o, fields.TEST_VALUES[o.name]))
    return rows


def c_literal(o, v):
    k = o.kind
    if isinstance(v, bool):
        return "1" if v else "0"
    if k in ("opt_enum:EarlyStopping", "enum:Markup", "syntaxes"):
        return echo_of(o, v) + ("u" if k == "syntaxes" else "")
    if k == "str":
        return '"%s"' % v
    if isinstance(v, float):
        return "%sf" % repr(v)
    return str(v) + ("u" if c_type(o) in ("uint32_t",) else "")


def gen_c_values():
    out = ["/* " + BANNER + " */",
           "/* Included by tests/test_c_fields.c: a non-default value of every plain option (fields.TEST_VALUES), and",
           " * what the library's echo must show for them. */", "",
           "static void SetFieldValues(tern_translate_params* p) {"]
    for o, v in test_rows():
        out.append("  p->%s = %s;" % (o.cname, c_literal(o, v)))
    out += ["}", "", "static const char* const kFieldEcho[] = {"]
    for o, v in test_rows():
        out.append('    "%s=%s",' % (o.member, echo_of(o, v)))
    out += ["};", ""]
    return "\n".join(out)


def cpp_literal(o, v):
    k = o.kind
    if isinstance(v, bool):
        return "true" if v else "false"
    if k == "opt_enum:EarlyStopping":
        return "EarlyStopping::k" + v.capitalize()
    if k == "enum:Markup":
        return {"xml": "Markup::kXml", "html": "Markup::kHtml"}[v]
    if k == "enum:HfRules":
        return "HfRules::kTransformers%d" % v
    if k == "syntaxes":
        return echo_of(o, v) + "u"
    if k == "str":
        return '"%s"' % v
    if isinstance(v, float):
        return "%sf" % repr(v)
    return str(v) + "u"


def gen_cpp_values():
    out = ["// " + BANNER,
           "// Included by tests/test_fields.cc: a non-default value of every plain option (fields.TEST_VALUES), and what",
           "// the library's echo must show for them.", "",
           "inline void SetFieldValues(TranslateOptions* o) {"]
    for o, v in test_rows():
        out.append("  o->%s = %s;" % (o.member, cpp_literal(o, v)))
    out += ["}", "", "inline const std::vector<std::string>& FieldEcho() {", "  static const std::vector<std::string> kEcho = {"]
    for o, v in test_rows():
        out.append('      "%s=%s",' % (o.member, echo_of(o, v)))
    out += ["  };", "  return kEcho;", "}", "",
            "// Copies the plain option `name` (its echo name) from `from` to *to; false for a name the table lacks.",
            "inline bool CopyField(const std::string& name, const TranslateOptions& from, TranslateOptions* to) {"]
    for o, v in test_rows():
        out.append("  if (name == \"%s\") return to->%s = from.%s, true;" % (o.member, o.member, o.member))
    out += ["  return false;", "}", ""]
    return "\n".join(out)


def java_literal(o, v):
    k = o.kind
    if isinstance(v, bool):
        return ("Boolean.TRUE" if v else "Boolean.FALSE") if k == "opt_bool" else ("true" if v else "false")
    if k in ("opt_enum:EarlyStopping", "enum:Markup", "syntaxes", "str"):
        return '"%s"' % v
    if isinstance(v, float):
        return "%sf" % repr(v)
    if k == "u64":
        return "%dL" % v
    return str(v)


def gen_java_values():
    out = ["// " + BANNER,
           "// The fields test's values (fields.TEST_VALUES) as Translator.Options fields, and the echo they must give.",
           "final class FieldValues {", "  private FieldValues() {}", "",
           "  static void set(dev.tern.Translator.Options o) {"]
    for o, v in test_rows():
        out.append("    o.%s = %s;" % (o.javaname, java_literal(o, v)))
    out += ["  }", "", "  static final String[] ECHO = {"]
    for o, v in test_rows():
        out.append('      "%s=%s",' % (o.member, echo_of(o, v)))
    out += ["  };", "}", ""]
    return "\n".join(out)


def gen_values_json():
    import json
    rows = []
    for o in OPTIONS:
        row = {"name": o.member, "kind": o.kind, "py": o.pyname or None, "cli": o.cli or None, "texts_only": o.texts_only,
               "score": o.score, "share": o.share}
        if o.name in fields.TEST_VALUES:
            v = fields.TEST_VALUES[o.name]
            row["value"] = v
            row["echo"] = echo_of(o, v)
            if o.cli:
                if o.kind == "bool":
                    row["cli_args"] = [o.cli]
                elif o.kind == "enum:Markup":
                    row["cli_args"] = ["%s=%s" % (o.cli, v)]
                else:
                    row["cli_args"] = [o.cli, str(v).lower() if isinstance(v, bool) else str(v)]
        rows.append(row)
    results = [{"name": r.name, "level": r.level, "kind": r.kind, "java": r.javaname} for r in RESULTS]
    return json.dumps({"generated": BANNER, "options": rows, "results": results}, indent=1) + "\n"


def gen_c_results_dump():
    """The C fields test's dump of a result set, in the echo's format (base/results_echo.h)."""
    out = ["// " + BANNER,
           "// Included by tests/test_c_fields.c: a result set written as the library's echo writes it",
           "// (base/results_echo.h), through the C accessors of every result field.", "",
           "static void DumpResults(FILE* f, const char* entry, const tern_results* r) {",
           "  const size_t n = tern_result_count(r);",
           "  fprintf(f, \"results %s n=%zu\\n\", entry, n);",
           "  for (size_t i = 0; i < n; ++i) {",
           "    size_t count = 0, rows = 0, cols = 0;", "    (void)rows, (void)cols;",
           "    const int ok = tern_result_error(r, i) == NULL;",
           "    fprintf(f, \"r i=%zu ok=%d\", i, ok);",
           "    if (ok) {"]
    def put(r, args, ind):
        n = r.name
        if r.kind == "text":
            return [ind + "{ const char* t = tern_result_%s(%s, &count); DumpText(f, \"%s\", t, t ? count : 0); }" % (n, args, n)]
        if r.kind == "f32":
            return [ind + "DumpF32(f, \"%s\", tern_result_%s(%s));" % (n, n, args)]
        if r.kind == "matrix":
            return [ind + "{ const float* a = tern_result_%s(%s, &rows, &cols); DumpF32s(f, \"%s\", a, a ? rows * cols : 0); }" % (n, args, n)]
        fn = {"u32s": "DumpU32s", "i32s": "DumpI32s", "f32s": "DumpF32s", "spans": "DumpSpans"}[r.kind]
        return [ind + "{ const %s* a = tern_result_%s(%s, &count); %s(f, \"%s\", a, a ? count : 0); }" % (C_ELEM[r.kind], n, args, fn, n)]
    for r in RES:
        out += put(r, "r, i", "      ")
    out += ["    }", "    fputc('\\n', f);", "    for (size_t k = 0; k < tern_result_hypotheses(r, i); ++k) {",
            "      fprintf(f, \"h i=%zu k=%zu\", i, k);"]
    for r in HYP:
        out += put(r, "r, i, k", "      ")
    out += ["      fputc('\\n', f);", "    }", "  }", "}", ""]
    return "\n".join(out)


def gen_java_results_dump():
    """The Java fields test's dump of results, in the echo's format (UTF-16 spans back to UTF-8 bytes)."""
    out = ["// " + BANNER,
           "// The Java fields test's dump of results: every field of the result table as Translator.Result and",
           "// Translator.Hypothesis give it, in the library's echo format (runtime/src/base/results_echo.h).",
           "import java.nio.charset.StandardCharsets;", "",
           "final class FieldResults {", "  private FieldResults() {}", "",
           "  static String dump(String entry, String[] inputs, dev.tern.Translator.Result[] rs) {",
           "    StringBuilder s = new StringBuilder();",
           "    s.append(\"results \").append(entry).append(\" n=\").append(rs.length).append('\\n');",
           "    for (int i = 0; i < rs.length; ++i) {", "      dev.tern.Translator.Result r = rs[i];",
           "      s.append(\"r i=\").append(i).append(\" ok=\").append(r.ok() ? 1 : 0);",
           "      if (r.ok()) {"]
    def put(r, obj, text):
        jn = "%s.%s" % (obj, r.javaname)
        if r.kind == "text":
            return "text(s, \"%s\", %s);" % (r.name, jn)
        if r.kind == "f32":
            return "f32(s, \"%s\", %s);" % (r.name, jn)
        if r.kind in ("u32s", "i32s"):
            return "ints(s, \"%s\", %s);" % (r.name, jn)
        if r.kind in ("f32s", "matrix"):
            return "f32s(s, \"%s\", %s);" % (r.name, jn)
        return "spans(s, \"%s\", %s, %s);" % (r.name, jn, text)
    for r in RES:
        out.append("        " + put(r, "r", "inputs[i]"))
    out += ["      }", "      s.append('\\n');",
            "      for (int k = 0; r.ok() && k < r.hypotheses.length; ++k) {", "        dev.tern.Translator.Hypothesis h = r.hypotheses[k];",
            "        s.append(\"h i=\").append(i).append(\" k=\").append(k);"]
    for r in HYP:
        out.append("        " + put(r, "h", "h.text"))
    out += ["        s.append('\\n');", "      }", "    }", "    return s.toString();", "  }", "",
            "  static void text(StringBuilder s, String name, String v) {",
            "    s.append(' ').append(name).append('=');",
            "    if (v != null) for (byte b : v.getBytes(StandardCharsets.UTF_8)) s.append(String.format(\"%02x\", b & 0xff));",
            "  }", "",
            "  static void f32(StringBuilder s, String name, float v) {",
            "    s.append(' ').append(name).append('=').append(String.format(\"%08x\", Float.floatToRawIntBits(v)));",
            "  }", "",
            "  static void f32s(StringBuilder s, String name, float[] v) {",
            "    s.append(' ').append(name).append('=');",
            "    for (int i = 0; v != null && i < v.length; ++i)",
            "      s.append(i > 0 ? \",\" : \"\").append(String.format(\"%08x\", Float.floatToRawIntBits(v[i])));",
            "  }", "",
            "  static void ints(StringBuilder s, String name, int[] v) {",
            "    s.append(' ').append(name).append('=');",
            "    for (int i = 0; v != null && i < v.length; ++i) s.append(i > 0 ? \",\" : \"\").append(v[i]);",
            "  }", "",
            "  // [begin, end] pairs in UTF-16 units of `text` as begin:end in its UTF-8 bytes.",
            "  static void spans(StringBuilder s, String name, int[] v, String text) {",
            "    s.append(' ').append(name).append('=');",
            "    for (int i = 0; v != null && i + 1 < v.length; i += 2)",
            "      s.append(i > 0 ? \",\" : \"\").append(bytes(text, v[i])).append(':').append(bytes(text, v[i + 1]));",
            "  }", "",
            "  static int bytes(String text, int utf16) {",
            "    return text.substring(0, utf16).getBytes(StandardCharsets.UTF_8).length;",
            "  }", "}", ""]
    return "\n".join(out)
