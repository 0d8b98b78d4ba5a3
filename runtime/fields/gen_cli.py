"""The CLI: the option flags and their reader. Written into the files by generate.py."""

from gen_common import *  # noqa: F401,F403 - the table and the shared helpers


# ---------------------------------------------------------------- CLI
def cli_member(o):
    return o.name.replace(".", "_")


def gen_cli():
    """(option_flags.h: the values and their options; option_flags_cli.inc: the CLI11 flags)."""
    out = ["// " + BANNER,
           "// `tern translate`'s flag for each plain option of the table: their values (OptionFlags) and the",
           "// options they set (ApplyOptionFlags); main.cc adds the flags (option_flags_cli.inc). Ranges are the",
           "// library's (CheckOptionRanges: the CLI checks options before it writes anything, exit 2).",
           "#pragma once", "", "#include <cstdint>", "#include <optional>", "#include <string>", "",
           "#include \"tern/options.h\"", "#include \"tern/status.h\"", "", "namespace tern::cli {", "",
           "// The flags' values; unset: not given (the option keeps its default).", "struct OptionFlags {"]
    for o in PLAIN:
        if not o.cli:
            continue
        k = o.kind
        t = {"bool": "bool", "u32": "std::optional<uint32_t>", "u64": "std::optional<uint64_t>", "f32": "std::optional<float>",
             "opt_u32": "std::optional<uint32_t>", "opt_f32": "std::optional<float>", "opt_bool": "std::optional<bool>",
             "str": "std::string", "syntaxes": "std::optional<std::string>", "enum:HfRules": "std::optional<uint32_t>",
             "enum:Markup": "std::string", "opt_enum:EarlyStopping": "std::string"}[k]
        out.append("  %s %s%s;  // %s" % (t, cli_member(o), " = false" if k == "bool" else "", o.cli))
    out += ["};", ""]
    add = ["// " + BANNER, "// Included by targets/desktop/main.cc: the flag of each plain option (option_flags.h).", "",
           "void AddOptionFlags(CLI::App* app, tern::cli::OptionFlags* f) {"]
    for o in PLAIN:
        if not o.cli:
            continue
        k, m, flag = o.kind, cli_member(o), o.cli
        help_ = (o.cli_help or first_sentence(o.doc)).replace('"', '\\"')
        if k == "bool":
            add.append("  app->add_flag(\"%s\", f->%s, \"%s\");" % (flag, m, help_))
        elif k == "enum:Markup":
            add.append("  app->add_flag(\"%s{strict}\", f->%s, \"%s\")->check(CLI::IsMember({\"strict\", \"lenient\", \"xml\"}));" %
                       (flag, m, "inline HTML/XML kept through translation: strict (default; markup not well-formed fails its "
                        "line), lenient (repaired as a browser would) or xml (app strings' inline XML, no void elements)"))
        elif k == "opt_enum:EarlyStopping":
            add.append("  app->add_option(\"%s\", f->%s, \"%s\")->check(CLI::IsMember({\"false\", \"true\", \"never\"}));" % (flag, m, help_))
        elif k == "opt_bool":
            add.append("  app->add_option(\"%s\", f->%s, \"%s\");" % (flag, m, help_))
        else:
            add.append("  app->add_option(\"%s\", f->%s, \"%s\");" % (flag, m, help_))
    add += ["}", ""]
    out += ["// Sets each given flag's option (a negated flag, --no-x, clears a default-true option).",
            "inline Status ApplyOptionFlags(const OptionFlags& f, TranslateOptions* o) {"]
    for o in PLAIN:
        if not o.cli:
            continue
        k, m, mm = o.kind, cli_member(o), o.member
        if k == "bool":
            out.append("  if (f.%s) o->%s = %s;" % (m, mm, "false" if o.default else "true"))
        elif k in ("u32", "u64", "f32", "opt_u32", "opt_f32", "opt_bool"):
            out.append("  if (f.%s) o->%s = *f.%s;" % (m, mm, m))
        elif k == "str":
            out.append("  o->%s = f.%s;" % (mm, m))
        elif k == "syntaxes":
            out.append("  if (f.%s) {" % m)
            out.append("    TERN_ASSIGN_OR_RETURN(o->%s, PlaceholderSyntaxesFromNames(*f.%s));" % (mm, m))
            out.append("  }")
        elif k == "enum:HfRules":
            out.append("  if (f.%s) o->%s = static_cast<HfRules>(*f.%s);  // CheckOptionRanges names a bad one" % (m, mm, m))
        elif k == "enum:Markup":
            out.append("  if (!f.%s.empty()) o->%s = f.%s == \"lenient\" ? Markup::kHtmlLenient : f.%s == \"xml\" ? Markup::kXml : Markup::kHtml;" % (m, mm, m, m))
        elif k == "opt_enum:EarlyStopping":
            out.append("  if (!f.%s.empty()) o->%s = f.%s == \"true\" ? EarlyStopping::kTrue : f.%s == \"never\" ? EarlyStopping::kNever : EarlyStopping::kFalse;" % (m, mm, m, m))
    out += ["  return Status::Ok();", "}", "",
            "// A message of the library that names an option (\"beam_size 0: must be at least 1\") with its flag first.",
            "inline std::string WithFlag(const std::string& message) {"]
    for o in PLAIN:
        if o.cli:
            out.append("  if (message.rfind(\"%s \", 0) == 0) return \"%s: \" + message;" % (o.pyname, o.cli))
    out += ["  return message;", "}", "", "}  // namespace tern::cli", ""]
    return "\n".join(out), "\n".join(add)
