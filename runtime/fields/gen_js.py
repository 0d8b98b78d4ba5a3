"""JavaScript (targets/wasm): the options reader and result writer of web_api.cc, and fields.d.ts. Written into the files by generate.py."""

from gen_common import *  # noqa: F401,F403 - the table and the shared helpers


# ---------------------------------------------------------------- the JavaScript API (targets/wasm)
def js_type(o):
    k = o.kind
    if k in ("bool", "opt_bool"):
        return "boolean"
    if k in ("u32", "u64", "f32", "opt_u32", "opt_f32", "enum:HfRules"):
        return "number"
    if k == "str":
        return "string"
    if k == "enum:Markup":
        return "\"none\" | \"html\" | \"lenient\" | \"xml\""
    if k == "opt_enum:EarlyStopping":
        return "boolean | \"never\""
    if k == "syntaxes":
        return "string[]"
    raise ValueError(k)


def gen_json_options():
    out = ["// " + BANNER,
           "// Included by targets/wasm/web_api.cc: TranslateOptions from the JavaScript API's options object (JSON, the",
           "// table's camelCase names, as Java spells them), each value type-checked here and ranged by CheckOptionRanges.",
           "// The special rows (callbacks, per-input data, a glossary) are not options of the JavaScript API yet.", "",
           "Status OptionsFromJson(const nlohmann::json& j, TranslateOptions* o, std::deque<std::string>* strings) {",
           "  if (!j.is_object()) return Status(StatusCode::kInvalidArgument, \"options: an object\");",
           "  for (auto it = j.begin(); it != j.end(); ++it) {",
           "    const std::string& key = it.key();",
           "    const nlohmann::json& v = it.value();",
           "    if (v.is_null()) continue;  // undefined in JavaScript: the default"]
    first = True
    for o in PLAIN:
        k, m, name = o.kind, o.member, o.javaname
        out.append("    %sif (key == \"%s\") {" % ("" if first else "} else ", name))
        first = False
        def need(cond, what):
            out.append("      if (!(%s)) return Status(StatusCode::kInvalidArgument, \"options.%s: %s\");" % (cond, name, what))
        if k in ("bool", "opt_bool"):
            need("v.is_boolean()", "a boolean")
            out.append("      o->%s = v.get<bool>();" % m)
        elif k in ("u32", "opt_u32", "enum:HfRules"):
            need("v.is_number_integer() && v.get<int64_t>() >= 0 && v.get<int64_t>() <= 4294967295", "an integer in [0, 2^32)")
            if k == "enum:HfRules":
                out.append("      o->%s = static_cast<HfRules>(v.get<uint32_t>());  // CheckOptionRanges names a bad one" % m)
            else:
                out.append("      o->%s = v.get<uint32_t>();" % m)
        elif k == "u64":
            need("v.is_number_integer() && v.get<int64_t>() >= 0", "a non-negative integer")
            out.append("      o->%s = v.get<uint64_t>();" % m)
        elif k in ("f32", "opt_f32"):
            need("v.is_number()", "a number")
            out.append("      o->%s = static_cast<float>(v.get<double>());" % m)
        elif k == "str":
            need("v.is_string()", "a string")
            out.append("      strings->push_back(v.get<std::string>());")
            out.append("      o->%s = strings->back();" % m)
        elif k == "enum:Markup":
            need("v.is_string() && (v == \"none\" || v == \"html\" || v == \"lenient\" || v == \"xml\")",
                 "\\\"none\\\", \\\"html\\\", \\\"lenient\\\" or \\\"xml\\\"")
            out.append("      o->%s = v == \"html\" ? Markup::kHtml : v == \"lenient\" ? Markup::kHtmlLenient : v == \"xml\" ? Markup::kXml : Markup::kNone;" % m)
        elif k == "opt_enum:EarlyStopping":
            need("v.is_boolean() || v == \"never\"", "true, false or \\\"never\\\"")
            out.append("      o->%s = v.is_string() ? EarlyStopping::kNever : v.get<bool>() ? EarlyStopping::kTrue : EarlyStopping::kFalse;" % m)
        elif k == "syntaxes":
            need("v.is_array()", "an array of syntax names")
            out.append("      std::string names;")
            out.append("      for (const nlohmann::json& n : v) {")
            out.append("        if (!n.is_string()) return Status(StatusCode::kInvalidArgument, \"options.%s: names (strings)\");" % name)
            out.append("        names += (names.empty() ? \"\" : \",\") + n.get<std::string>();")
            out.append("      }")
            out.append("      TERN_ASSIGN_OR_RETURN(o->%s, PlaceholderSyntaxesFromNames(names));" % m)
        else:
            raise ValueError(k)
    out += ["    } else {",
            "      return Status(StatusCode::kInvalidArgument, \"options: no option '\" + key + \"' (tern.d.ts lists them)\");",
            "    }", "  }", "  return CheckOptionRanges(*o);", "}", ""]
    return "\n".join(out)


def gen_json_results():
    out = ["// " + BANNER,
           "// Included by targets/wasm/web_api.cc: a result as the JavaScript API's object, every field of the result",
           "// table under its camelCase name (spans as [begin, end] byte pairs; attention null unless asked for).", "",
           "nlohmann::json ResultJson(const TranslationResult& r) {",
           "  nlohmann::json out = {{\"ok\", r.ok()}};",
           "  if (!r.ok()) {",
           "    out[\"error\"] = std::string(r.error_message);",
           "    out[\"code\"] = static_cast<int>(r.error);",
           "    return out;",
           "  }"]
    def put(r, src, dst):
        n = "%s.%s" % (src, r.name)
        if r.kind == "text":
            return "  %s[\"%s\"] = std::string(%s);" % (dst, r.javaname, n)
        if r.kind == "f32":
            return "  %s[\"%s\"] = %s;" % (dst, r.javaname, n)
        if r.kind == "spans":
            return "  %s[\"%s\"] = Spans(%s);" % (dst, r.javaname, n)
        if r.kind == "matrix":
            return "  %s[\"%s\"] = %s.empty() ? nlohmann::json(nullptr) : Array(%s);" % (dst, r.javaname, n, n)
        return "  %s[\"%s\"] = Array(%s);" % (dst, r.javaname, n)
    for r in RES:
        out.append(put(r, "r", "out"))
    out += ["  nlohmann::json hyps = nlohmann::json::array();", "  for (const Hypothesis& h : r.hypotheses) {",
            "    nlohmann::json x;"]
    for r in HYP:
        out.append("  " + put(r, "h", "x"))
    out += ["    hyps.push_back(std::move(x));", "  }", "  out[\"hypotheses\"] = std::move(hyps);", "  return out;", "}", ""]
    return "\n".join(out)


def gen_dts():
    out = ["// " + BANNER, "// The JavaScript API of tern (targets/wasm/js/tern.mjs).", "",
           "/** Options of a translate call: the field table's options (runtime/fields/fields.py), camelCase. */",
           "export interface TranslateOptions {"]
    for o in PLAIN:
        doc = first_sentence(o.doc).replace("*/", "* /")
        out.append("  /** %s */" % doc)
        out.append("  %s?: %s;" % (o.javaname, js_type(o)))
    out += ["}", "", "/** One output sequence: the result table's hypothesis fields (runtime/fields/fields.py RESULTS). */",
            "export interface Hypothesis {"]
    ty = {"text": "string", "f32": "number", "u32s": "number[]", "i32s": "number[]", "f32s": "number[]",
          "spans": "[number, number][]", "matrix": "number[] | null"}
    for r in HYP:
        out.append("  /** %s */" % r.doc.replace("*/", "* /"))
        out.append("  %s: %s;" % (r.javaname, ty[r.kind]))
    out += ["}", "", "/** The outcome for one input: its hypotheses, or the error of that input alone. */",
            "export interface TranslationResult {", "  ok: boolean;", "  /** the input's own error (ok false) */",
            "  error?: string;", "  code?: number;", "  hypotheses?: Hypothesis[];"]
    for r in RES:
        out.append("  /** %s */" % r.doc.replace("*/", "* /"))
        out.append("  %s?: %s;" % (r.javaname, ty[r.kind]))
    out += ["}", ""]
    return "\n".join(out)
