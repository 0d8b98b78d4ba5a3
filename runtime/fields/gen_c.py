"""The C API: tern_translate_params, its reader, and the result accessors' declarations and bodies. Written into the files by generate.py."""

from gen_common import *  # noqa: F401,F403 - the table and the shared helpers


def c_sentinel_note(o):
    k = o.kind
    if k == "opt_u32":
        return "0: the file's" if o.c_type == "uint32_t" else "-1 (default): the file's"
    if k == "opt_f32":
        return "NAN (default): the file's"
    if k == "opt_bool":
        return "1 on, 0 off; -1 (default): the file's"
    if k == "opt_enum:EarlyStopping":
        return "0 false, 1 true, 2 \"never\"; -1 (default): the file's"
    if k == "enum:HfRules":
        return "5 (default) or 4; 0 = 5"
    if k == "enum:Markup":
        return "0 (default): plain text; 1 html; 2 html-lenient (repaired); 3 xml (app strings' inline XML)"
    if k == "bool":
        return "nonzero: on; default %d" % (1 if o.default else 0)
    if k == "str":
        return "NULL or \"\" (default): none"
    if k == "syntaxes":
        return "tern::placeholder_syntax bits (TERN_PLACEHOLDER_*; default TERN_PLACEHOLDER_DEFAULT); tern_placeholder_syntaxes reads names"
    if k == "u32" and o.name == "n_best":
        return "default 1 (0 = 1)"
    if k in ("u32", "u64", "f32"):
        return "default %s" % (("%g" % o.default) if isinstance(o.default, float) else o.default)
    return ""


def c_default(o):
    k = o.kind
    if k == "opt_u32":
        return "0" if o.c_type == "uint32_t" else "-1"
    if k == "opt_f32":
        return "NAN"
    if k in ("opt_bool", "opt_enum:EarlyStopping"):
        return "-1"
    if k == "enum:HfRules":
        return "5"
    if k == "enum:Markup":
        return "0"
    if k == "bool":
        return "1" if o.default else "0"
    if k == "str":
        return "nullptr"
    if k == "syntaxes":
        return "TERN_PLACEHOLDER_DEFAULT"
    if isinstance(o.default, float):
        return "%sf" % repr(o.default)
    return str(o.default)


def gen_c_header():
    out = ["/* " + BANNER, " * tern_translate_params: the C API's per-call options (tern::TranslateOptions). Included by",
           " * tern/tern_params.h (include tern/tern.h). */", "#ifndef TERN_TERN_TRANSLATE_PARAMS_H_",
           "#define TERN_TERN_TRANSLATE_PARAMS_H_", "#ifndef TERN_TERN_PARAMS_H_",
           "#error \"include tern/tern.h, which includes this header\"", "#endif", "",
           "/** Per-call options; from tern_translate_default_params(). Fields after `auto_protect` were added later: a",
           " * caller compiled before them passes a smaller struct_size and gets their defaults. */",
           "typedef struct tern_translate_params {",
           "  size_t struct_size; /**< set by tern_translate_default_params() (see tern_model_params) */"]
    def comment(doc):
        return ["  /** %s */" % doc] if len(doc) <= 108 else ["  /**"] + wrap(doc, 112, "   * ") + ["   */"]

    for o in OPTIONS:
        if o.kind == "special":
            for t, n, doc in C_SPECIAL[o.name]:
                out += comment(doc)
                out.append("  %s %s;" % (t, n))
            continue
        out += comment(first_sentence(o.doc) + " " + c_sentinel_note(o))
        out.append("  %s %s;" % (c_type(o), o.cname))
    out += ["} tern_translate_params;", "", "#endif /* TERN_TERN_TRANSLATE_PARAMS_H_ */", ""]
    return "\n".join(out)


def gen_c_conversion():
    out = ["// " + BANNER,
           "// Included by api/c_options.cc: the plain fields of tern_translate_params into TranslateOptions, and their",
           "// defaults. A C value that no C++ value means is refused naming the field (CallOptions::Refuse), never",
           "// read as \"the file's\"; out-of-range values of a C++ type reach CheckOptionRanges, which names them.", "",
           "void CallOptions::ReadPlain(const tern_translate_params& p) {", "  TranslateOptions& o = options_;"]
    for o in PLAIN:
        m, c, k = o.member, o.cname, o.kind
        if k == "bool":
            out.append("  o.%s = p.%s != 0;" % (m, c))
        elif k in ("u32", "u64", "f32", "syntaxes"):
            out.append("  o.%s = %sp.%s;" % (m, "p.%s == 0 ? 1 : " % c if m == "n_best" else "", c))
        elif k == "opt_u32" and o.c_type == "uint32_t":
            out.append("  if (p.%s) o.%s = p.%s;" % (c, m, c))
        elif k == "opt_u32":
            out.append("  if (p.%s >= 0) o.%s = static_cast<uint32_t>(p.%s);" % (c, m, c))
            out.append("  else if (p.%s != -1) Refuse(\"%s\", p.%s, \"0 or more; -1: the file's\");" % (c, c, c))
        elif k == "opt_f32":
            out.append("  if (!std::isnan(p.%s)) o.%s = p.%s;" % (c, m, c))
        elif k == "opt_bool":
            out.append("  if (p.%s == 0 || p.%s == 1) o.%s = p.%s == 1;" % (c, c, m, c))
            out.append("  else if (p.%s != -1) Refuse(\"%s\", p.%s, \"0, 1; -1: the file's\");" % (c, c, c))
        elif k == "opt_enum:EarlyStopping":
            out.append("  if (p.%s >= 0 && p.%s <= 2) o.%s = static_cast<EarlyStopping>(p.%s);" % (c, c, m, c))
            out.append("  else if (p.%s != -1) Refuse(\"%s\", p.%s, \"0 false, 1 true, 2 never; -1: the file's\");" % (c, c, c))
        elif k == "enum:HfRules":
            out.append("  o.%s = p.%s == 0 ? HfRules::kTransformers5 : static_cast<HfRules>(p.%s);  // checked by CheckOptionRanges" % (m, c, c))
        elif k == "enum:Markup":
            out.append("  o.%s = p.%s >= 0 && p.%s <= 255 ? static_cast<Markup>(p.%s) : static_cast<Markup>(0xff);  // checked" % (m, c, c, c))
        elif k == "str":
            out.append("  o.%s = p.%s ? std::string_view(p.%s) : std::string_view();" % (m, c, c))
        else:
            raise ValueError(k)
    out += ["}", "", "void DefaultPlainParams(tern_translate_params* p) {"]
    for o in PLAIN:
        out.append("  p->%s = %s;" % (o.cname, c_default(o)))
    out += ["}", "", "// Where the first release of tern_translate_params ended (CallOptions reads at least that much).",
            "constexpr size_t kFirstReleaseParamsBytes = offsetof(tern_translate_params, %s);" % C_FIRST_RELEASE_END, ""]
    return "\n".join(out)


def c_result_decl(r):
    hyp = r.level == "hypothesis"
    who = "hypothesis k of sentence i" if hyp else "sentence i"
    args = "const tern_results* results, size_t i" + (", size_t k" if hyp else "")
    if r.kind == "text":
        return ["/** %s of %s: %s. NUL-terminated, *length bytes before the NUL; NULL if absent. */" % (r.name, who, r.doc),
                "TERN_API const char* tern_result_%s(%s, size_t* length);" % (r.name, args)]
    if r.kind == "f32":
        return ["/** %s of %s: %s. 0 if absent. */" % (r.name, who, r.doc),
                "TERN_API float tern_result_%s(%s);" % (r.name, args)]
    if r.kind == "matrix":
        return ["/** %s of %s: %s. *rows x *cols floats; NULL if absent. */" % (r.name, who, r.doc),
                "TERN_API const float* tern_result_%s(%s, size_t* rows, size_t* cols);" % (r.name, args)]
    return ["/** %s of %s: %s. *count entries; NULL if absent (never for a translated input). */" % (r.name, who, r.doc),
            "TERN_API const %s* tern_result_%s(%s, size_t* count);" % (C_ELEM[r.kind], r.name, args)]


def gen_c_result_decls():
    out = []
    for r in RESULTS:
        doc, decl = c_result_decl(r)
        lines = wrap(doc[4:], 112, " * ")
        out += ["/**" + lines[0][2:]] + lines[1:] + [decl]
    return out


def gen_c_result_accessors():
    out = ["// " + BANNER,
           "// Included by api/c_results.cc inside extern \"C\": every result field's accessor (tern.h), reading the one",
           "// result record (tern::OwnedResult) through Sentence / Hyp / Array.", ""]
    for r in RESULTS:
        hyp = r.level == "hypothesis"
        args = "const tern_results* r, size_t i" + (", size_t k" if hyp else "")
        get = "const tern::OwnedHypothesis* h = Hyp(r, i, k);" if hyp else "const tern::OwnedResult* h = Sentence(r, i);"
        if r.kind == "text":
            out += ["const char* tern_result_%s(%s, size_t* length) {" % (r.name, args), "  " + get,
                    "  if (length) *length = h ? h->%s.size() : 0;" % r.name,
                    "  return h ? h->%s.c_str() : nullptr;  // empty is \"\", not the NULL of a failure" % r.name, "}"]
        elif r.kind == "f32":
            out += ["float tern_result_%s(%s) {" % (r.name, args), "  " + get, "  return h ? h->%s : 0.f;" % r.name, "}"]
        elif r.kind == "matrix":
            out += ["const float* tern_result_%s(%s, size_t* rows, size_t* cols) {" % (r.name, args), "  " + get,
                    "  const bool has = h && !h->%s.empty() && !h->tokens.empty();" % r.name,
                    "  const size_t n = has ? h->tokens.size() : 0;",
                    "  if (rows) *rows = n;", "  if (cols) *cols = n ? h->%s.size() / n : 0;" % r.name,
                    "  return has ? h->%s.data() : nullptr;" % r.name, "}"]
        else:
            t = C_ELEM[r.kind]
            owner = "tern::OwnedHypothesis" if hyp else "tern::OwnedResult"
            out += ["static_assert(sizeof(%s) == sizeof(decltype(%s::%s)::value_type), \"tern_result_%s: the C element is the record's\");"
                    % (t, owner, r.name, r.name),
                    "const %s* tern_result_%s(%s, size_t* count) {" % (t, r.name, args), "  " + get,
                    "  return reinterpret_cast<const %s*>(Array(h ? &h->%s : nullptr, count));" % (t, r.name), "}"]
        out.append("")
    return "\n".join(out)
