"""Python: the keyword reader, the stub (_tern.pyi) and the result attributes. Written into the files by generate.py."""

from gen_common import *  # noqa: F401,F403 - the table and the shared helpers


def py_stub_type(o):
    k = o.kind
    if k == "special":
        return o.py_type
    return {"bool": "bool", "u32": "int", "u64": "int", "f32": "float", "opt_u32": "Optional[int]",
            "opt_f32": "Optional[float]", "opt_bool": "Optional[bool]", "str": "str", "syntaxes": "str",
            "enum:HfRules": "int", "enum:Markup": "Optional[str]", "opt_enum:EarlyStopping": "Union[None, bool, str]"}[k]


def py_stub_default(o):
    k = o.kind
    if k == "special":
        return o.py_default
    if k.startswith("opt") or k == "enum:Markup":
        return "None"
    if k == "str":
        return '""'
    if k == "syntaxes":
        return '"default"'
    if k == "enum:HfRules":
        return "5"
    if k == "bool":
        return "True" if o.default else "False"
    return repr(o.default)


def py_keywords(call):
    """The (keyword, option) pairs a Python call takes: "texts", "ids", "score_texts", "score_ids"."""
    out = []
    for o in OPTIONS:
        if not o.pyname or (o.kind == "special" and o.py_type is None):
            continue
        if call.startswith("score") and not o.score:
            continue
        if call in ("ids", "score_ids") and o.texts_only:
            continue
        out.append((o.pyname, o))
    return out


def gen_py_keywords():
    out = ["// " + BANNER,
           "// Included by targets/python/src/call_options.cc: each plain option's keyword, its conversion from Python",
           "// (TypeError naming the keyword for a value of another type) and the keywords each call takes.", "",
           "// Sets the plain option `key` from `v`; false when `key` is not a plain option (a special one, or none).",
           "// `text` keeps the bytes of the table's one text option.",
           "bool SetPlainKeyword(const std::string& key, py::handle v, TranslateOptions* o, std::string* text) {"]
    assert sum(o.kind == "str" for o in PLAIN) <= 1, "one text slot: give SetPlainKeyword one per str field"
    for o in PLAIN:
        k, m = o.kind, o.member
        out.append("  if (key == \"%s\") {" % o.pyname)
        if k == "bool":
            out.append("    o->%s = Cast<bool>(key, v);" % m)
        elif k in ("u32", "u64", "f32"):
            t = {"u32": "uint32_t", "u64": "uint64_t", "f32": "float"}[k]
            out.append("    o->%s = Cast<%s>(key, v);" % (m, t))
        elif k == "opt_u32":
            out.append("    o->%s = v.is_none() ? std::optional<uint32_t>() : Cast<uint32_t>(key, v);" % m)
        elif k == "opt_f32":
            out.append("    o->%s = v.is_none() ? std::optional<float>() : Cast<float>(key, v);" % m)
        elif k == "opt_bool":
            out.append("    o->%s = v.is_none() ? std::optional<bool>() : Cast<bool>(key, v);" % m)
        elif k == "str":
            out.append("    *text = Cast<std::string>(key, v);")
            out.append("    o->%s = *text;" % m)
        elif k == "syntaxes":
            out.append("    o->%s = Syntaxes(Cast<std::string>(key, v));" % m)
        elif k == "enum:HfRules":
            out.append("    o->%s = HfRulesOf(Cast<int>(key, v));" % m)
        elif k == "enum:Markup":
            out.append("    o->%s = MarkupOf(v);" % m)
        elif k == "opt_enum:EarlyStopping":
            out.append("    o->%s = EarlyStoppingOf(v);" % m)
        else:
            raise ValueError(k)
        out += ["    return true;", "  }"]
    out += ["  return false;", "}", ""]
    for call in ("texts", "ids", "score_texts", "score_ids"):
        names = [n for n, _ in py_keywords(call)]
        out.append("// The option keywords of a %s call." % call.replace("_", " "))
        out.append("constexpr const char* k%sKeywords[] = {%s};" % (
            "".join(p.title() for p in call.split("_")), ", ".join('"%s"' % n for n in names)))
    out.append("")
    return "\n".join(out)


def gen_py_stub_params(call, indent):
    parts = ["%s: %s = %s" % (n, py_stub_type(o), py_stub_default(o)) for n, o in py_keywords(call)]
    lines, line = [], indent
    for p in parts:
        if len(line) + len(p) + 2 > 118:
            lines.append(line.rstrip())
            line = indent
        line += p + ", "
    lines.append(line.rstrip())
    return lines


def py_result_doc(r):
    if r.kind in PY_DTYPE:
        pre = PY_DTYPE[r.kind] + " " + ("[len(tokens), len(source_ids)] or None" if r.kind == "matrix" else "")
        return (pre.strip() + ": " + r.doc)
    if r.kind == "spans":
        return "[(begin, end)]: " + r.doc
    return r.doc


def gen_py_results():
    out = ["// " + BANNER,
           "// Included by targets/python/src/results.cc: tern.Hypothesis' and tern.TranslationResult's fields, their",
           "// copies from the one result record (tern::OwnedResult) and their pybind definitions.", "",
           "struct PyHypothesisFields {"]
    py_member = {"text": "py::str %s;", "f32": "float %s = 0.f;", "spans": "py::list %s;", "matrix": "py::object %s = py::none();"}
    for r in HYP:
        out.append("  " + (py_member.get(r.kind) or "py::array_t<%s> %%s;" % CPP_ELEM[r.kind]) % r.name)
    out += ["};", "", "struct PyResultFields {"]
    for r in RES:
        out.append("  " + (py_member.get(r.kind) or "py::array_t<%s> %%s;" % CPP_ELEM[r.kind]) % r.name)
    out += ["};", ""]
    def fill(rows, src, dst):
        body = []
        for r in rows:
            if r.kind == "text":
                body.append("  %s->%s = Text(%s.%s);" % (dst, r.name, src, r.name))
            elif r.kind == "f32":
                body.append("  %s->%s = %s.%s;" % (dst, r.name, src, r.name))
            elif r.kind == "spans":
                body.append("  %s->%s = Spans(%s.%s);" % (dst, r.name, src, r.name))
            elif r.kind == "matrix":
                body.append("  %s->%s = Matrix(%s.%s, %s.tokens.size());" % (dst, r.name, src, r.name, src))
            else:
                body.append("  %s->%s = Array(%s.%s);" % (dst, r.name, src, r.name))
        return body
    out += ["void FillHypothesisFields(const OwnedHypothesis& c, PyHypothesisFields* h) {"] + fill(HYP, "c", "h") + ["}", ""]
    out += ["void FillResultFields(const OwnedResult& c, PyResultFields* r) {"] + fill(RES, "c", "r") + ["}", ""]
    for cls, rows in (("PyHypothesisFields", HYP), ("PyResultFields", RES)):
        out.append("// The fields' read-only attributes on c, a py::class_ of a type derived from %s." % cls)
        out.append("template <typename Class>")
        out.append("void Define%s(Class& c) {" % cls[2:])
        for r in rows:
            out.append("  c.def_readonly(\"%s\", &%s::%s, \"%s\");" % (r.name, cls, r.name, py_result_doc(r).replace('"', '\\"')))
        out += ["}", ""]
    return "\n".join(out)


def pyi_result_lines(rows, indent):
    ty = {"text": "str", "f32": "float", "spans": "List[Tuple[int, int]]",
          "matrix": "Optional[npt.NDArray[np.float32]]"}
    out = []
    for r in rows:
        t = ty.get(r.kind) or "npt.NDArray[np.%s]" % PY_DTYPE[r.kind]
        out.append("%s%s: %s" % (indent, r.name, t))
    return out


def pyi_text():
    path = "targets/python/tern/_tern.pyi"
    text = (ROOT / path).read_text(encoding="utf-8")
    for call in ("texts", "ids", "score_texts", "score_ids"):
        begin, end = "# fields: %s keywords" % call, "# end fields: %s keywords" % call
        while begin in text:
            a = text.index(begin)
            indent = text[text.rindex("\n", 0, a) + 1:a]
            a2 = text.index("\n", a) + 1
            b = text.index(end, a2)
            b = text.rindex("\n", 0, b) + 1
            body = "".join(l + "\n" for l in gen_py_stub_params(call, indent))
            text = text[:a] + "\x00" + text[a + len(begin):a2] + body + text[b:]
        text = text.replace("\x00", begin)
    text = replace_between(path, "# fields: Hypothesis", "# end fields: Hypothesis", pyi_result_lines(HYP, "    "), text)
    return replace_between(path, "# fields: TranslationResult", "# end fields: TranslationResult", pyi_result_lines(RES, "    "), text)
