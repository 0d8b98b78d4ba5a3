"""The C++ side of the tables: TranslateOptions, the range checks, the engine's sharing rule, the continuous
call's refusals, the resolved options, the chunker's per-input fields, the options echo and the result lists. Written into the files by generate.py."""

from gen_common import *  # noqa: F401,F403 - the table and the shared helpers


# ---------------------------------------------------------------- C++: the struct
def gen_cpp_struct():
    out = ["// " + BANNER,
           "// tern::SamplingOptions and tern::TranslateOptions: what one Translate / TranslateIds / Score call may",
           "// choose. Include tern/options.h (it declares the types these use).",
           "#pragma once", "", "#ifndef TERN_OPTIONS_TYPES_DECLARED",
           "#error \"include tern/options.h, which includes this header\"", "#endif", "",
           "#include <cstdint>", "#include <optional>", "#include <string_view>", "", "namespace tern {", "",
           "/// Sampling in place of greedy search's argmax (transformers' generate(do_sample=True), with its warpers in",
           "/// its order: temperature, then top-k, then top-p; runtime/src/search/sampling.h). Defaults are",
           "/// transformers' (top_k 50).",
           "struct SamplingOptions {"]
    for o in OPTIONS:
        if o.name.startswith("sampling."):
            out += wrap(o.doc, 116, "  /// ")
            out.append("  %s %s%s;" % (cpp_type(o), o.name.split(".")[1], cpp_default(o)))
    out += ["  /// The smallest temperature a call takes (CheckOptionRanges).",
            "  static constexpr float kMinTemperature = 1e-6f;",
            "  /// Every field equal (the engine shares a call between requests with equal options).",
            "  bool operator==(const SamplingOptions& o) const {",
            "    return " + " && ".join("%s == o.%s" % (f, f) for f in
                                        [o.name.split(".")[1] for o in OPTIONS if o.name.startswith("sampling.")]) + ";",
            "  }", "};", "",
            "/// Per-call options. An empty optional means the file's default (GenerationDefaults).",
            "struct TranslateOptions {"]
    sampling_done = False
    for o in OPTIONS:
        if o.name.startswith("sampling."):
            if not sampling_done:
                out += ["  /// Sampling in place of argmax (greedy search only); off by default.", "  SamplingOptions sampling;"]
                sampling_done = True
            continue
        out += wrap(o.doc, 116, "  /// ")
        out.append("  %s %s%s;" % (cpp_type(o), o.name, cpp_default(o)))
    out += ["};", "", "}  // namespace tern", ""]
    return "\n".join(out)


# ---------------------------------------------------------------- C++: ranges and sharing
def gen_checks():
    out = ["// " + BANNER,
           "// Included by session/batch.cc: CheckOptionRanges, one rule per field of the table, the same for every",
           "// binding (they all reach the C++ options) and the CLI. Limits of the Translator (max_beam, n_best against",
           "// beam_size, the decoder's layers) are ResolveOptions' own.", "",
           "Status CheckOptionRanges(const TranslateOptions& o) {"]
    for o in OPTIONS:
        if not o.check:
            continue
        cond, what = CHECKS[o.check]
        v = "o." + o.member
        opt = o.kind.startswith("opt")
        out.append("  {")
        if opt:
            out.append("    if (%s) {" % v)
            out.append("      const auto& v = *%s;" % v)
            ind = "      "
        else:
            out.append("    const auto& v = %s;" % v)
            ind = "    "
        value = {"f32": "FieldValue(v)", "opt_f32": "FieldValue(v)", "u32": "std::to_string(v)",
                 "opt_u32": "std::to_string(v)", "syntaxes": "std::to_string(v)"}.get(
            o.kind, "std::to_string(static_cast<int>(v))" if "enum" in o.kind else "std::to_string(v.size())")
        label = o.pyname
        out.append("%sif (!(%s))" % (ind, cond))
        out.append("%s  return Status(StatusCode::kInvalidArgument, \"%s \" + %s + \": must be %s\");" % (ind, label, value, what.replace('"', '\\"')))
        if opt:
            out.append("    }")
        out.append("  }")
    out += ["  return Status::Ok();", "}", ""]
    return "\n".join(out)


def gen_sharing():
    out = ["// " + BANNER,
           "// Included by serving/sharing.cc: which requests may share an engine call, from each field's sharing rule.", "",
           "// Requests that differ in an \"equal\" field, or point at different objects in a \"same\" one, never share.",
           "bool SameOptions(const TranslateOptions& x, const TranslateOptions& y) {", "  return true"]
    for o in OPTIONS:
        if o.share == "equal":
            out.append("         && x.%s == y.%s" % (o.member, o.member))
        elif o.share == "same":
            if o.cpp_type.startswith("Span"):
                out.append("         && x.%s.data() == y.%s.data() && x.%s.size() == y.%s.size()" % ((o.member,) * 4))
            else:
                out.append("         && x.%s == y.%s" % (o.member, o.member))
    out[-1] += ";"
    out += ["}", "", "// A request with an \"alone\" field set runs alone (its callbacks, its per-input data, its second pass).",
            "bool RunsAlone(const TranslateOptions& o) {", "  return false"]
    for o in OPTIONS:
        if o.share == "alone":
            if o.cpp_type in ("TokenCallback", "AbortCallback", "void*"):
                out.append("         || o.%s != nullptr" % o.member)
            elif o.cpp_type and o.cpp_type.startswith("Span"):
                out.append("         || !o.%s.empty()" % o.member)
            else:
                out.append("         || o.%s != %s" % (o.member, o.default))
    out[-1] += ";"
    out += ["}", ""]
    return "\n".join(out)


def set_expr(o, var="o"):
    """C++ for "option `o` is not its default" on TranslateOptions `var`."""
    if o.cpp_type in ("TokenCallback", "AbortCallback", "void*", "const Glossary*"):
        return "%s.%s != nullptr" % (var, o.member)
    if o.cpp_type and o.cpp_type.startswith("Span"):
        return "!%s.%s.empty()" % (var, o.member)
    if o.kind == "bool":
        return "%s.%s" % (var, o.member) if not o.default else "!%s.%s" % (var, o.member)
    return "%s.%s != %s" % (var, o.member, cpp_default(o)[len(" = "):])


def gen_continuous():
    out = ["// " + BANNER,
           "// Included by session/continuous_call.cc: what a continuous call refuses (the table's CONTINUOUS column).", "",
           "// The first option of the table's CONTINUOUS column that `o` sets, named as the table names it; nullptr when",
           "// it sets none (every other option a continuous call shares).",
           "const char* ContinuousRefusal(const TranslateOptions& o) {"]
    for o in OPTIONS:
        if o.continuous:
            out.append("  if (%s) return \"%s\";" % (set_expr(o), o.continuous))
    out += ["  return nullptr;", "}", ""]
    return "\n".join(out)


def resolved_type(o):
    """The C++ type of a resolved value (an optional resolves to its value)."""
    return {"opt_u32": "uint32_t", "opt_f32": "float", "opt_bool": "bool", "bool": "bool", "u32": "uint32_t",
            "f32": "float"}.get(o.kind) or cpp_type(o)


def search_options_members():
    """The members of search/search.h's SearchOptions, which ResolvedOptions derives from (not generated again)."""
    import re
    text = (ROOT / "runtime" / "src" / "search" / "search.h").read_text(encoding="utf-8")
    body = text[text.index("struct SearchOptions {"):]
    body = body[:body.index("};")]
    return set(re.findall(r"^\s+[\w:<>]+\s+(\w+)\s*(?:=[^;]*)?;", body, re.M))


def gen_resolved_members():
    out = ["// " + BANNER,
           "// Included inside session/batch.h's ResolvedOptions: the members the table resolves (RESOLVED) that",
           "// SearchOptions (its base, search/search.h) lacks, each with the call's value, or the model file's",
           "// default when the call leaves it unset."]
    inherited = search_options_members()
    for o in OPTIONS:
        if o.resolved and "." not in o.resolved and o.resolved not in inherited:
            out.append("%s %s = %s;  // TranslateOptions::%s" % (resolved_type(o), o.resolved,
                                                                   cpp_default(o)[len(" = "):] or "{}", o.member))
    return "\n".join(out) + "\n"


def gen_resolved():
    out = ["// " + BANNER,
           "// Included by session/batch.cc: the options the table resolves (RESOLVED): the call's value, or for an",
           "// unset optional one the model file's default (GenerationDefaults). ResolveOptions runs it first.", "",
           "void ResolveFromTable(const GenerationDefaults& g, const TranslateOptions& o, ResolvedOptions* r) {"]
    for o in OPTIONS:
        if not o.resolved:
            continue
        if o.file_default:
            out.append("  r->%s = o.%s.value_or(g.%s);" % (o.resolved, o.member, o.file_default))
        else:
            out.append("  r->%s = o.%s;" % (o.resolved, o.member))
    out += ["}", ""]
    return "\n".join(out)


def gen_chunks():
    """(chunk_fields.inc: each chunk's part of the per-input fields, for tern/call_chunks.h)."""
    out = ["// " + BANNER,
           "// Included by api/call_chunks.cc: the per-input fields of inputs [b, e) of a call (per_input in the table).", "",
           "// \"slice\" fields (one entry per input, or none) are cut to [b, e); \"by_text\" ones keep the entries that",
           "// name an input in [b, e), renumbered from 0, in *by_text (which `out` then views).",
           "void SliceInputFields(const TranslateOptions& whole, size_t b, size_t e, std::vector<KeepSpan>* by_text,",
           "                      TranslateOptions* out) {"]
    n_by_text = 0
    for o in OPTIONS:
        if o.per_input == "slice":
            out.append("  if (!whole.%s.empty()) out->%s = decltype(whole.%s)(whole.%s.data() + b, e - b);" % ((o.member,) * 4))
        elif o.per_input == "by_text":
            n_by_text += 1
            out += ["  by_text->clear();",
                    "  for (const KeepSpan& k : whole.%s)" % o.member,
                    "    if (k.text >= b && k.text < e) by_text->push_back({k.text - b, k.span});",
                    "  out->%s = Span<const KeepSpan>(by_text->data(), by_text->size());" % o.member]
        elif o.per_input:
            raise SystemExit("%s: per_input %r (slice or by_text)" % (o.name, o.per_input))
    if n_by_text > 1:
        raise SystemExit("one by_text field only (SliceInputFields has one list for it)")
    out += ["}", "", "// A \"slice\" field with entries must have one per input, a \"by_text\" entry must name an input:",
            "// kInvalidArgument naming the field otherwise.",
            "Status CheckCounts(const TranslateOptions& whole, size_t n) {"]
    for o in OPTIONS:
        if o.per_input == "slice":
            out += ["  if (!whole.%s.empty() && whole.%s.size() != n)" % (o.member, o.member),
                    "    return Status(StatusCode::kInvalidArgument, \"%s: \" + std::to_string(whole.%s.size()) + \" entries for \" +" % (o.name, o.member),
                    "                                                    std::to_string(n) + \" inputs (one per input, or none)\");"]
        elif o.per_input == "by_text":
            out += ["  for (const KeepSpan& k : whole.%s)" % o.member,
                    "    if (k.text >= n)",
                    "      return Status(StatusCode::kInvalidArgument, \"%s: text \" + std::to_string(k.text) + \" of \" + std::to_string(n));" % o.name]
    out += ["  return Status::Ok();", "}", ""]
    return "\n".join(out)


# ---------------------------------------------------------------- the echo and the fields test's values
def gen_echo():
    out = ["// " + BANNER,
           "// Included by base/options_echo.cc: every option's value, as the fields test reads it (name=value; \"-\"",
           "// for an unset optional; a callback or pointer \"set\" or \"-\"; per-input data its count).", "",
           "std::string EchoOptions(const TranslateOptions& o) {", "  std::string s;",
           "  auto add = [&](const char* name, const std::string& v) { s += s.empty() ? \"\" : \" \"; s += name; s += '='; s += v; };"]
    for o in OPTIONS:
        m, k = o.member, o.kind
        if k == "bool":
            v = "o.%s ? \"1\" : \"0\"" % m
        elif k in ("u32", "u64", "syntaxes"):
            v = "std::to_string(o.%s)" % m
        elif k == "f32":
            v = "Float(o.%s)" % m
        elif k == "opt_u32":
            v = "o.%s ? std::to_string(*o.%s) : \"-\"" % (m, m)
        elif k == "opt_f32":
            v = "o.%s ? Float(*o.%s) : \"-\"" % (m, m)
        elif k == "opt_bool":
            v = "o.%s ? (*o.%s ? \"1\" : \"0\") : \"-\"" % (m, m)
        elif k == "str":
            v = "std::string(o.%s)" % m
        elif k.startswith("enum:"):
            v = "std::to_string(static_cast<int>(o.%s))" % m
        elif k.startswith("opt_enum:"):
            v = "o.%s ? std::to_string(static_cast<int>(*o.%s)) : \"-\"" % (m, m)
        elif o.cpp_type.startswith("Span"):
            v = "std::to_string(o.%s.size())" % m
        else:
            v = "o.%s ? \"set\" : \"-\"" % m
        out.append("  add(\"%s\", %s);" % (m, v))
    out += ["  return s;", "}", ""]
    return "\n".join(out)


def macro(name, items, doc):
    lines = ["/// " + l for l in doc] + ["#define %s(X) \\" % name]
    for i, it in enumerate(items):
        lines.append("  %s%s" % (it, " \\" if i + 1 < len(items) else ""))
    return lines


def gen_result_header():
    out = ["// " + BANNER,
           "// The result table (runtime/fields/fields.py RESULTS) as X-macro lists: tern::Hypothesis and",
           "// tern::OwnedHypothesis, tern::TranslationResult and tern::OwnedResult declare these members; the copies",
           "// between them (tern/owned_result.h), the search's track channels (search/track_copy.h) and the echo",
           "// of results (base/results_echo.h) follow the lists.", "#pragma once", ""]
    out += macro("TERN_HYPOTHESIS_FIELDS", ["X(%s)" % r.name for r in HYP],
                 ["Every field of a hypothesis: X(member)."]) + [""]
    out += macro("TERN_RESULT_FIELDS", ["X(%s)" % r.name for r in RES],
                 ["Every field of a result besides its status and its hypotheses: X(member)."]) + [""]
    out += macro("TERN_RESULT_CHANNELS", ["X(%s, %s, %s)" % (CPP_ELEM[r.kind], r.channel, r.name) for r in HYP if r.channel],
                 ["The per-token channels the search writes into its tracks: X(element type, track channel, Hypothesis member)."])
    return "\n".join(out) + "\n"
