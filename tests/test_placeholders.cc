// Placeholder syntaxes of app strings (markup/placeholder_syntax.h): each parser on what it must take, what
// it must leave (prose that looks like it), and every syntax kept verbatim and once through Translate with
// keep_placeholders on the bundled model.
#include <random>
#include <string>
#include <vector>

#include "doctest/doctest.h"
#include "markup/placeholder_syntax.h"
#include "markup/protect.h"
#include "test_util.h"

using namespace tern;
using namespace tern::test;

namespace {

std::vector<std::string> Found(const std::string& t) {
  std::vector<TextSpan> s;
  markup::FindPlaceholders(t, &s);
  std::vector<std::string> out;
  for (const TextSpan& x : s) out.push_back(t.substr(x.begin, x.end - x.begin));
  return out;
}

// The placeholder the parser `f` takes at the start of `t`, or "" when none.
template <typename F>
std::string At0(F f, std::string_view t) {
  const size_t e = f(t, 0);
  return std::string(t.substr(0, e));
}

size_t Occurrences(std::string_view text, std::string_view what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string_view::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

}  // namespace

TEST_CASE("placeholder syntaxes: printf in full, and the prose it must leave") {
  const auto Printf = [](std::string_view t, size_t i) { return markup::syntax::Printf(t, i); };
  for (const char* p : {"%s", "%d", "%i", "%u", "%5.2f", "%-3d", "%1$s", "%1$.2f", "%.*s", "%*d", "%*2$d", "%lu", "%lld",
                        "%hhx", "%zu", "%@", "%02X", "%+.3e", "%#o", "%'d", "%%", "%.2Lf", "%p", "%ls"})
    CHECK(At0(Printf, p) == p);
  CHECK(At0(Printf, "%1$.2fkm") == "%1$.2f");  // a position or precision: a letter may follow
  CHECK(At0(Printf, "%5dx") == "%5d");
  CHECK(At0(Printf, "%sK") == "%s");  // a unit or a single letter after a bare conversion (NewPipe's "%sK")
  CHECK(At0(Printf, "%dx faster") == "%d");
  CHECK(At0(Printf, "%dMB") == "%d");
  for (const char* prose : {"%sure", "%done", "%last", "% discount", "%", "%y", "%-", "%1$"}) CHECK(At0(Printf, prose).empty());
  // Where the caller says the text holds placeholders, a bare conversion before a word is one (git's
  // "%shint:%s%.*s%s" lost its first "%s" to the model before).
  CHECK(markup::syntax::Printf("%shint:%s", 0, true) == 2);
  CHECK(markup::syntax::Printf("%serror", 0, true) == 2);
  CHECK(markup::syntax::Printf("% discount", 0, true) == 0);
  std::vector<TextSpan> spans;
  markup::FindPlaceholders("%shint:%s%.*s%s", &spans, placeholder_syntax::kDefault | markup::kPrintfBeforeWords);
  REQUIRE(spans.size() == 4);
  CHECK(spans[0].begin == 0);
  CHECK(spans[0].end == 6);  // "%shint": the glued word goes with it
}

TEST_CASE("placeholder syntaxes: Python, Ruby, .NET, Fluent and i18next") {
  using namespace markup::syntax;
  CHECK(At0(PythonNamed, "%(count)d files") == "%(count)d");
  CHECK(At0(PythonNamed, "%(name)-10s") == "%(name)-10s");
  CHECK(At0(PythonNamed, "%(user.name)s") == "%(user.name)s");
  CHECK(At0(PythonNamed, "%(count) files").empty());
  CHECK(At0(PythonNamed, "%(1x)s").empty());
  CHECK(At0(RubyNamed, "%{name} left") == "%{name}");
  CHECK(At0(RubyNamed, "%{ name}").empty());
  CHECK(At0(Brace, "{0}") == "{0}");
  CHECK(At0(Brace, "{0,number}") == "{0,number}");
  CHECK(At0(Brace, "{name!r:>10}") == "{name!r:>10}");
  CHECK(At0(Brace, "{{count}}") == "{{count}}");
  CHECK(At0(Brace, "{ spaced }").empty());
  // ICU's simple arguments with spaces (react-intl, Lingui): "Trainers: <0>{trainersCount, number}</0>!"
  // was translated away before.
  CHECK(At0(Brace, "{trainersCount, number}!") == "{trainersCount, number}");
  CHECK(At0(Brace, "{catchDate, date, full}") == "{catchDate, date, full}");
  CHECK(At0(Brace, "{ price , number , ::currency/EUR }") == "{ price , number , ::currency/EUR }");
  for (const char* not_one : {"{n, plural, one {x} other {y}}", "{a, b}", "{spaced out, number}", "{n, number"})
    CHECK(At0(Brace, not_one).empty());
  CHECK(At0(Fluent, "{ $userName } added") == "{ $userName }");
  CHECK(At0(Fluent, "{$count}") == "{$count}");
  CHECK(At0(Fluent, "{ -brand-name }") == "{ -brand-name }");
  CHECK(At0(Fluent, "{ -brand.short }") == "{ -brand.short }");
  CHECK(At0(Fluent, "{ $var.attr }").empty());  // attributes are for terms
  CHECK(At0(Fluent, "{ NUMBER($n) }") == "{ NUMBER($n) }");  // functions, with named arguments and strings
  CHECK(At0(Fluent, "{ DATETIME($d, dateStyle:\"long\", timeStyle: \"a) b\") }.") ==
        "{ DATETIME($d, dateStyle:\"long\", timeStyle: \"a) b\") }");
  CHECK(At0(Fluent, "{ -brand(case: \"genitive\") }") == "{ -brand(case: \"genitive\") }");
  for (const char* bad : {"{ NUMBER }", "{ NUMBER($n }", "{ NUMBER({ $n }) }", "{ Number($n) }", "{ F(\"x) }", "{ -t(a }"})
    CHECK(At0(Fluent, bad).empty());
  CHECK(At0(Fluent, "{ F(\"" + std::string(300, 'a') + "\") }").empty());  // a bounded scan
  CHECK(At0(Fluent, "{ spaced }").empty());
  CHECK(At0(Fluent, "{ - }").empty());
  CHECK(At0(I18nextNesting, "$t(common.save)") == "$t(common.save)");
  CHECK(At0(I18nextNesting, "$t( spaced )").empty());
  CHECK(At0(I18nextNesting, "$t()").empty());
}

TEST_CASE("placeholder syntaxes: found in app strings, in order, and prose left alone") {
  // A mention's or hashtag's sigil goes with the placeholder ("Unmute <0>@{username}</0>" lost its '@'),
  // not an e-mail address's '@'.
  CHECK(Found("Follow @{name} and #{tag}, write to user@{domain}.") ==
        std::vector<std::string>{"@{name}", "#{tag}", "{domain}"});
  CHECK(Found("Deleted %(count)d of %d files (%.1f%%) for %{user} in { $folder }.") ==
        std::vector<std::string>{"%(count)d", "%d", "%.1f", "%%", "%{user}", "{ $folder }"});
  CHECK(Found("See $t(help.link) or {{name}}, {0,number} items, %1$s by %2$s.") ==
        std::vector<std::string>{"$t(help.link)", "{{name}}", "{0,number}", "%1$s", "%2$s"});
  CHECK(Found("Save 50%% now") == std::vector<std::string>{"50%%"});
  // Letters glued to a placeholder go with it (but not the letter of an escape such as \n).
  CHECK(Found("Size %sK or %dMB, {n}px, x%d, a\\n%s") == std::vector<std::string>{"%sK", "%dMB", "{n}px", "x%d", "%s"});
  CHECK(Found("100% sure, 50% discount, a %sure thing, $t is not, {spaced out}, it costs $5.").size() == 2);  // 100%, 50%
}

TEST_CASE("placeholder syntaxes: random strings of their characters give spans in order, inside the text") {
  // Run under the sanitizers too (CI): a parser reading past the end fails there.
  const std::string alphabet = "%{}$()t-.*'#+0123456789sdlhLzq@a $_x\n";
  std::mt19937 rng(5);
  for (int round = 0; round < 20000; ++round) {
    std::string t(rng() % 24, ' ');
    for (char& c : t) c = alphabet[rng() % alphabet.size()];
    std::vector<TextSpan> s;
    markup::FindPlaceholders(t, &s);
    size_t at = 0;
    for (const TextSpan& x : s) {
      CAPTURE(t);
      REQUIRE(x.begin >= at);
      REQUIRE(x.end > x.begin);
      REQUIRE(x.end <= t.size());
      at = x.end;
    }
  }
}

TEST_CASE("placeholder syntaxes through Translate: each kept verbatim and once") {
  auto m = LoadOrFail(BundledModel());
  auto t = MakeTranslator(m);
  const std::vector<std::pair<std::string, std::vector<std::string>>> cases = {
      {"A dog runs with %(name)s through the snow.", {"%(name)s"}},
      {"A man reads %1$.2f books and %2$s newspapers.", {"%1$.2f", "%2$s"}},
      {"A woman with { $userName } walks in the park.", {"{ $userName }"}},
      {"Two dogs play with %{owner} in the grass.", {"%{owner}"}},
      {"A child sees $t(animals.dog) near the water.", {"$t(animals.dog)"}},
      {"A boy eats %d apples at %.*s o'clock.", {"%d", "%.*s"}},
      {"%shint: %s", {"%shint"}},
      {"A %sdog runs through the snow.", {"%sdog"}},
  };
  std::vector<std::string_view> in;
  for (const auto& c : cases) in.push_back(c.first);
  TranslateOptions o;
  o.keep_placeholders = true;
  Span<const TranslationResult> r;
  REQUIRE(t->Translate(Span<const std::string_view>(in.data(), in.size()), o, &r).ok());
  for (size_t i = 0; i < cases.size(); ++i) {
    CAPTURE(cases[i].first);
    REQUIRE(r[i].ok());
    CAPTURE(r[i].best().text);
    for (const std::string& p : cases[i].second) CHECK(Occurrences(r[i].best().text, p) == 1);
  }
}

TEST_CASE("placeholder syntaxes: switched per call, shell's $VAR only when asked, names read and refused") {
  namespace ps = placeholder_syntax;
  CHECK(At0(markup::syntax::Shell, "$HOME/x") == "$HOME");
  CHECK(At0(markup::syntax::Shell, "${USER_NAME}!") == "${USER_NAME}");
  CHECK(At0(markup::syntax::Shell, "$5") == "");
  CHECK(At0(markup::syntax::Shell, "$ x") == "");
  CHECK(At0(markup::syntax::Shell, "${open") == "");
  CHECK(At0(markup::syntax::Shell, "$" + std::string(65, 'A')) == "");
  const std::string t = "Copy %s to $HOME or ${DIR} at https://example.org and mail a@b.org, 5 km.";
  auto found = [&](uint32_t syntaxes) {
    std::vector<TextSpan> s;
    markup::FindPlaceholders(t, &s, syntaxes);
    std::vector<std::string> out;
    for (const TextSpan& x : s) out.push_back(t.substr(x.begin, x.end - x.begin));
    return out;
  };
  // Without shell's syntax, ${DIR} holds a brace placeholder (kept as before: "{DIR}").
  CHECK(found(ps::kDefault) == std::vector<std::string>{"%s", "{DIR}", "https://example.org", "a@b.org", "5 km"});
  CHECK(found(ps::kDefault | ps::kShell) == std::vector<std::string>{"%s", "$HOME", "${DIR}", "https://example.org", "a@b.org", "5 km"});
  CHECK(found(ps::kPrintf | ps::kShell) == std::vector<std::string>{"%s", "$HOME", "${DIR}"});
  CHECK(found(0).empty());
  CHECK(found(ps::kUrl | ps::kEmail) == std::vector<std::string>{"https://example.org", "a@b.org"});
  CHECK(PlaceholderSyntaxesFromNames("default").value() == ps::kDefault);
  CHECK(PlaceholderSyntaxesFromNames(" printf , shell").value() == (ps::kPrintf | ps::kShell));
  CHECK(PlaceholderSyntaxesFromNames("none").value() == 0);
  CHECK(PlaceholderSyntaxesFromNames("all").value() == ps::kAll);
  CHECK(PlaceholderSyntaxesFromNames("printf,bogus").status().message() ==
        "placeholder syntax 'bogus' (printf, python-named, ruby-named, brace, fluent, i18next, shell, url, email, "
        "number-unit, default, all, none)");
  CHECK(!PlaceholderSyntaxesFromNames("").ok());
  // Through Translate: the shell variable kept once when asked; left to the model otherwise; bad bits refused.
  auto t2 = MakeTranslator(LoadOrFail(BundledModel()));
  const std::string_view in[] = {"A dog runs to $HOME with %s."};
  TranslateOptions o;
  o.keep_placeholders = true;
  o.placeholder_syntaxes = ps::kDefault | ps::kShell;
  Span<const TranslationResult> r;
  REQUIRE(t2->Translate(Span<const std::string_view>(in, 1), o, &r).ok());
  REQUIRE(r[0].ok());
  CHECK(Occurrences(r[0].best().text, "$HOME") == 1);
  CHECK(Occurrences(r[0].best().text, "%s") == 1);
  o.placeholder_syntaxes = ps::kAll + 1;
  CHECK(t2->CheckOptions(o).message() == "placeholder_syntaxes 1024: must be placeholder_syntax bits only (placeholder_syntax::kAll: 1023)");
}
