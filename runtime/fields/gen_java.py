"""Java and JNI: Translator.Options, its JNI reader, Hypothesis and its JNI conversion. Written into the files by generate.py."""

from gen_common import *  # noqa: F401,F403 - the table and the shared helpers


def java_field(o):
    k = o.kind
    t, d, note = {
        "bool": ("boolean", "true" if o.default else "false", ""),
        "u32": ("int", str(o.default), ""), "u64": ("long", str(o.default), ""),
        "f32": ("float", "%sf" % repr(o.default), ""),
        "opt_u32": ("int", "0" if o.c_type == "uint32_t" else "-1", "0: the file's" if o.c_type == "uint32_t" else "-1: the file's"),
        "opt_f32": ("float", "Float.NaN", "NaN: the file's"), "opt_bool": ("Boolean", "null", "null: the file's"),
        "str": ("String", "null", "null: none"), "syntaxes": ("String", '"default"', "names, comma-separated"),
        "enum:HfRules": ("int", "5", "5 or 4"), "enum:Markup": ("String", "null", "\"html\", \"html-lenient\", \"xml\"; null: plain text"),
        "opt_enum:EarlyStopping": ("String", "null", "\"false\", \"true\" or \"never\"; null: the file's"),
    }[k]
    return t, d, note


def gen_java_options():
    out = []
    for o in OPTIONS:
        if o.kind == "special":
            if o.name in JAVA_SPECIAL:
                out += ["    /**"] + wrap(JAVA_SPECIAL_DOC[o.name], 112, "     * ") + ["     */"]
                out.append("    " + JAVA_SPECIAL[o.name])
            continue
        t, d, note = java_field(o)
        doc = first_sentence(o.doc) + (" " + note[:1].upper() + note[1:] + "." if note else "")
        out += ["    /**"] + wrap(doc.replace("<", "&lt;").replace(">", "&gt;"), 112, "     * ") + ["     */"]
        out.append("    public %s %s = %s;" % (t, o.javaname, d))
    return out


def gen_jni():
    out = ["// " + BANNER,
           "// Included by targets/android/jni/jni_options.cc: each plain Translator.Options field into tern_translate_params",
           "// (the C API then converts and checks them as for any C caller). False: a Java exception is pending.", "",
           "bool ReadPlainOptions(JNIEnv* env, jobject options, jclass c, tern_translate_params* p, OptionStorage* keep) {"]
    for o in PLAIN:
        k, c, j = o.kind, o.cname, o.javaname
        if k == "bool":
            out.append("  p->%s = env->GetBooleanField(options, env->GetFieldID(c, \"%s\", \"Z\")) == JNI_TRUE ? 1 : 0;" % (c, j))
        elif k in ("u32",):
            out.append("  p->%s = NonNegative(\"%s\", env->GetIntField(options, env->GetFieldID(c, \"%s\", \"I\")), keep);" % (c, j, j))
        elif k == "u64":
            out.append("  p->%s = static_cast<uint64_t>(env->GetLongField(options, env->GetFieldID(c, \"%s\", \"J\")));" % (c, j))
        elif k in ("f32", "opt_f32"):
            out.append("  p->%s = env->GetFloatField(options, env->GetFieldID(c, \"%s\", \"F\"));" % (c, j))
        elif k == "opt_u32":
            if o.c_type == "uint32_t":
                out.append("  p->%s = NonNegative(\"%s\", env->GetIntField(options, env->GetFieldID(c, \"%s\", \"I\")), keep);" % (c, j, j))
            else:
                out.append("  p->%s = env->GetIntField(options, env->GetFieldID(c, \"%s\", \"I\"));  // below -1: refused by the C API" % (c, j))
        elif k == "enum:HfRules":
            out.append("  p->%s = NonNegative(\"%s\", env->GetIntField(options, env->GetFieldID(c, \"%s\", \"I\")), keep);" % (c, j, j))
        elif k == "opt_bool":
            out.append("  p->%s = BooleanOrNull(env, options, c, \"%s\");" % (c, j))
        elif k == "str":
            out.append("  p->%s = StringField(env, options, c, \"%s\", &keep->lang);" % (c, j))
        elif k == "syntaxes":
            out.append("  if (!SyntaxesField(env, options, c, \"%s\", &p->%s)) return false;" % (j, c))
        elif k == "enum:Markup":
            out.append("  if (!EnumField(env, options, c, \"%s\", {\"\", \"html\", \"html-lenient\", \"xml\"}, 0, &p->%s)) return false;" % (j, c))
        elif k == "opt_enum:EarlyStopping":
            out.append("  if (!EnumField(env, options, c, \"%s\", {\"false\", \"true\", \"never\"}, -1, &p->%s)) return false;" % (j, c))
        else:
            raise ValueError(k)
    out += ["  return !env->ExceptionCheck();", "}", ""]
    return "\n".join(out)


def java_params():
    ps = []
    for r in HYP:
        ps.append(("byte[]" if r.kind == "text" else JAVA_TYPE[r.kind], r.javaname))
        if r.kind == "matrix":
            ps += [("int", r.javaname + "Rows"), ("int", r.javaname + "Cols")]
    return ps


def wrap_call(head, args, tail, indent, width=110):
    """head + args joined by ", " + tail, wrapped at `width` with continuation lines at `indent`."""
    lines, line = [], head
    for i, a in enumerate(args):
        piece = a + (", " if i + 1 < len(args) else tail)
        if len(line) + len(piece.rstrip()) > width and line.strip() != head.strip():
            lines.append(line.rstrip())
            line = indent
        line += piece
    lines.append(line.rstrip())
    return lines


def gen_java_hypothesis():
    out = ["  // " + BANNER,
           "  /** One output sequence (the result table's hypothesis fields; spans in UTF-16 units of text). */",
           "  public static final class Hypothesis {"]
    for r in HYP:
        doc = r.doc.replace("</s>", "{@code </s>}")
        if r.kind == "spans":
            doc += " ([begin, end] pairs in UTF-16 units)"
        lines = wrap(doc + " */", 110, "     * ")
        out += ["    /**" + lines[0][6:]] + lines[1:]
        out.append("    public final %s %s;" % (JAVA_TYPE[r.kind], r.javaname))
        if r.kind == "matrix":
            out.append("    public final int %sRows, %sCols;" % (r.javaname, r.javaname))
    ps = java_params()
    sig = ", ".join("%s %s" % ("String" if t == "byte[]" else t, n) for t, n in ps)
    out += [""] + wrap_call("    Hypothesis(", sig.split(", "), ") {", "        ")
    for _, n in ps:
        out.append("      this.%s = %s;" % (n, n))
    out += ["    }", "  }", "",
            "  // Called by the native code for each hypothesis (targets/android/jni/result_fields.inc; text as UTF-8).",
            ] + wrap_call("  private static Hypothesis makeHypothesis(", ["%s %s" % (t, n) for t, n in ps], ") {", "      ")
    args = ", ".join(("%s == null ? null : new String(%s, StandardCharsets.UTF_8)" % (n, n)) if t == "byte[]" else n for t, n in ps)
    out += wrap_call("    return new Hypothesis(", args.split(", "), ");", "        ") + ["  }"]
    return out


def gen_jni_results():
    sig = "(" + "".join(JNI_SIG[r.kind] + ("II" if r.kind == "matrix" else "") for r in HYP) + ")Ldev/tern/Translator$Hypothesis;"
    out = ["// " + BANNER,
           "// Included by targets/android/jni/jni_results.cc: Translator.Hypothesis k of sentence i from the C accessors,",
           "// every field of the result table through Translator.makeHypothesis.", "",
           "constexpr char kMakeHypothesisSignature[] = \"%s\";" % sig, "",
           "// nullptr: an exception is pending.",
           "jobject MakeHypothesis(JNIEnv* env, jclass cls, const ResultMethods& m, const tern_results* r, size_t i, size_t k) {",
           "  LocalRefs refs{env, {}};", "  size_t text_len = 0;",
           "  const char* text = tern_result_text(r, i, k, &text_len);",
           "  const std::vector<jint> utf16 = text ? Utf16Offsets(text, text_len) : std::vector<jint>(1, 0);"]
    call = []
    for r in HYP:
        n = r.name
        if r.kind == "text":
            out += ["  jbyteArray j_%s = text ? Bytes(env, refs, text, text_len) : nullptr;" % n,
                    "  if (text && !j_%s) return nullptr;" % n]
        elif r.kind == "f32":
            out.append("  const jfloat j_%s = tern_result_%s(r, i, k);" % (n, n))
        elif r.kind in ("u32s", "i32s"):
            out += ["  size_t n_%s = 0;" % n, "  const %s* c_%s = tern_result_%s(r, i, k, &n_%s);" % (CPP_ELEM[r.kind], n, n, n),
                    "  jintArray j_%s = IntsOf(env, refs, c_%s, c_%s ? n_%s : 0);" % (n, n, n, n),
                    "  if (!j_%s) return nullptr;" % n]
        elif r.kind == "f32s":
            out += ["  size_t n_%s = 0;" % n, "  const float* c_%s = tern_result_%s(r, i, k, &n_%s);" % (n, n, n),
                    "  jfloatArray j_%s = Floats(env, refs, c_%s, c_%s ? n_%s : 0);" % (n, n, n, n),
                    "  if (!j_%s) return nullptr;" % n]
        elif r.kind == "spans":
            out += ["  size_t n_%s = 0;" % n, "  const tern_text_span* c_%s = tern_result_%s(r, i, k, &n_%s);" % (n, n, n),
                    "  jintArray j_%s = Spans(env, refs, c_%s, c_%s ? n_%s : 0, utf16);" % (n, n, n, n),
                    "  if (!j_%s) return nullptr;" % n]
        elif r.kind == "matrix":
            out += ["  size_t rows_%s = 0, cols_%s = 0;" % (n, n),
                    "  const float* c_%s = tern_result_%s(r, i, k, &rows_%s, &cols_%s);" % (n, n, n, n),
                    "  jfloatArray j_%s = c_%s ? Floats(env, refs, c_%s, rows_%s * cols_%s) : nullptr;" % (n, n, n, n, n),
                    "  if (c_%s && !j_%s) return nullptr;" % (n, n)]
        call.append("j_" + n)
        if r.kind == "matrix":
            call += ["static_cast<jint>(rows_%s)" % n, "static_cast<jint>(cols_%s)" % n]
    out += ["  jobject out = env->CallStaticObjectMethod(cls, m.make_hypothesis, %s);" % ", ".join(call),
            "  return env->ExceptionCheck() ? nullptr : out;", "}", ""]
    return "\n".join(out)
