// ICU MessageFormat messages (markup/icu_message.h, tern/icu_message.h): the parse tree of ICU's grammar,
// errors naming the byte, the rebuild around translations, and translation on the bundled model keeping
// the same arguments, case keys and '#'.
#include <string>
#include <vector>

#include "doctest/doctest.h"
#include "markup/icu_message.h"
#include "tern/icu_message.h"
#include "test_util.h"

using namespace tern;
using namespace tern::test;

namespace {

markup::IcuMessage ParseOk(std::string_view s, bool fluent = false) {
  markup::IcuMessage m;
  const Status st = markup::ParseIcuMessage(s, &m, fluent);
  REQUIRE_MESSAGE(st.ok(), st.message());
  return m;
}

std::string ParseError(std::string_view s, bool fluent = false) {
  markup::IcuMessage m;
  const Status st = markup::ParseIcuMessage(s, &m, fluent);
  REQUIRE_FALSE(st.ok());
  CHECK(st.code() == StatusCode::kInvalidArgument);
  return st.message();
}

std::string Sub(std::string_view s, TextSpan x) { return std::string(s.substr(x.begin, x.end - x.begin)); }

// The message's syntax with every text's letters taken out: two messages with the same skeleton have the
// same arguments, case keys and '#' in the same nesting.
std::string Skeleton(std::string_view s, bool fluent = false) {
  const markup::IcuMessage m = ParseOk(s, fluent);
  std::string out;
  struct Walk {
    std::string_view s;
    const markup::IcuMessage& m;
    std::string& out;
    void Text(size_t t) {
      const markup::IcuText& x = m.texts[t];
      out += "<";
      for (size_t a : x.arguments) Arg(a);
      out += std::string(x.numbers.size(), '#') + ">";
    }
    void Arg(size_t a) {
      const markup::IcuArgument& arg = m.arguments[a];
      if (arg.messages.empty()) {
        out += Sub(s, arg.span);
        return;
      }
      // The argument's own syntax: its bytes outside its sub-messages.
      size_t at = arg.span.begin;
      for (size_t sub : arg.messages) {
        out += Sub(s, {at, m.texts[sub].span.begin});
        Text(sub);
        at = m.texts[sub].span.end;
      }
      out += Sub(s, {at, arg.span.end});
    }
  } w{s, m, out};
  w.Text(0);
  return out;
}

}  // namespace

TEST_CASE("ICU MessageFormat: arguments, plural and select cases, '#', apostrophes") {
  const std::string s = "You have {count, plural, offset:1 =0 {no files} one {# file} other {# files}} in {folder}.";
  const markup::IcuMessage m = ParseOk(s);
  REQUIRE(m.texts.size() == 4);
  REQUIRE(m.arguments.size() == 2);
  CHECK(m.texts[0].arguments.size() == 2);
  CHECK(Sub(s, m.arguments[1].span) == "{folder}");
  REQUIRE(m.arguments[0].messages.size() == 3);
  CHECK(Sub(s, m.texts[m.arguments[0].messages[0]].span) == "no files");
  CHECK(Sub(s, m.texts[m.arguments[0].messages[1]].span) == "# file");
  CHECK(m.texts[m.arguments[0].messages[1]].numbers.size() == 1);
  // select: '#' is text there; nested plural inside select; a simple argument with a style; quoting.
  const std::string g = "{g, select, female {{n, plural, one {She has # cat} other {She has # cats}}} other {It's #{n, number, integer}}}";
  const markup::IcuMessage n = ParseOk(g);
  CHECK(n.arguments.size() == 3);
  CHECK(n.texts.size() == 5);
  CHECK(Sub(g, n.arguments[2].span) == "{n, number, integer}");
  CHECK(n.texts[n.arguments[0].messages[1]].numbers.empty());  // select's "other": '#' is a character
  const markup::IcuMessage q = ParseOk("Type '{name}' or it''s {n, plural, other {'#' is # here}}");
  CHECK(q.arguments.size() == 1);  // '{name}' is quoted text
  CHECK(q.texts[q.arguments[0].messages[0]].numbers.size() == 1);  // '#' quoted, the second one counts
  CHECK(ParseOk("No arguments at all.").texts.size() == 1);
}

TEST_CASE("ICU MessageFormat: a malformed message is refused, naming what and the byte") {
  CHECK(ParseError("Hello {name") == "ICU MessageFormat: '{' at byte 6 is not closed");
  CHECK(ParseError("Hello }") == "ICU MessageFormat: '}' at byte 6 closes nothing");
  CHECK(ParseError("{n, plural, one {# file} other {# files}") == "ICU MessageFormat: '{' at byte 0 is not closed");
  CHECK(ParseError("{n, plural,}") == "ICU MessageFormat: 'plural' without its cases at byte 0");
  CHECK(ParseError("{n, select, male}") == "ICU MessageFormat: case 'male' at byte 12 without its message");
  CHECK(ParseError("{}") == "ICU MessageFormat: an argument without a name at byte 0");
  CHECK(ParseError("{n, plural, one {x} other {y") == "ICU MessageFormat: '{' at byte 26 is not closed");
  std::string deep;
  for (int i = 0; i < 40; ++i) deep += "{n, select, other {";
  for (int i = 0; i < 40; ++i) deep += "}}";
  CHECK(ParseError(deep).find("nested deeper than 32 levels") != std::string::npos);
}

TEST_CASE("Fluent: select expressions' variants are texts of their own, placeables are kept whole") {
  const std::string s = "{ $count -> [one] Manage this recording *[other] Manage { $count } recordings }, { -brand }";
  const markup::IcuMessage m = ParseOk(s, true);
  REQUIRE(m.arguments.size() == 3);
  REQUIRE(m.arguments[0].messages.size() == 2);
  CHECK(Sub(s, m.texts[m.arguments[0].messages[0]].span) == " Manage this recording ");
  CHECK(Sub(s, m.texts[m.arguments[0].messages[1]].span) == " Manage { $count } recordings ");
  CHECK(Sub(s, m.arguments[2].span) == "{ -brand }");
  // Written on lines (as in an .ftl file): a key starts a variant only first on its line, so "[beta]" is text.
  const std::string lines = "{ NUMBER($n, type: \"ordinal\") ->\n    [1] See the [beta] notes\n   *[other] See { $n } notes\n}";
  const markup::IcuMessage l = ParseOk(lines, true);
  REQUIRE(l.arguments.size() == 2);
  REQUIRE(l.arguments[0].messages.size() == 2);
  CHECK(Sub(lines, l.texts[l.arguments[0].messages[0]].span) == " See the [beta] notes\n   ");
  // On one line a key after a space starts the next variant.
  CHECK(ParseOk("{ $n -> [one] a [beta] b *[other] c }", true).arguments[0].messages.size() == 3);
  // Nested selects; no quoting or '#' in a variant.
  const markup::IcuMessage n = ParseOk("{ $g -> [f] { $n -> [one] it's # one *[other] many } *[other] x }", true);
  CHECK(n.arguments.size() == 2);
  CHECK(n.texts[n.arguments[1].messages[0]].numbers.empty());
  // Malformed: each names the byte.
  CHECK(ParseError("{ $n -> [one] x }", true) == "Fluent: the select expression at byte 0 needs one default variant (*[key])");
  CHECK(ParseError("{ $n -> *[one] x *[other] y }", true) ==
        "Fluent: the select expression at byte 0 needs one default variant (*[key])");
  CHECK(ParseError("{ $n -> one *[other] x }", true) == "Fluent: 'o' at byte 8 where a variant key ([one], *[other]) belongs");
  CHECK(ParseError("{ $n -> [one] x *[other] y", true) == "Fluent: the select expression's '{' is not closed (its variant at byte 24)");
  CHECK(ParseError("{ $n x }", true) == "Fluent: '{' at byte 0 is not closed");
  CHECK(ParseError("a {\"x }", true) == "Fluent: the string literal in '{' at byte 2 is not closed");
  // String literals (Fluent's escapes) are kept whole.
  const std::string lit = "Type {\"{\"} or { \"\\\"\" } now";
  const markup::IcuMessage e = ParseOk(lit, true);
  REQUIRE(e.arguments.size() == 2);
  CHECK(Sub(lit, e.arguments[1].span) == "{ \"\\\"\" }");
  // Without `fluent` a select expression is not ICU: refused; "{$n}" is still an argument kept whole.
  CHECK(ParseError("{ $n -> [one] x *[other] y }") == "ICU MessageFormat: '-' at byte 5 in the argument at byte 0");
  CHECK(ParseOk("Hello {$n}").arguments.size() == 1);
  // The rebuild puts each variant's translation back into the select expression's own syntax.
  std::vector<std::string> tr(m.texts.size());
  tr[0] = "{ -brand }: { $count -> [one] Manage this recording *[other] Manage { $count } recordings }";
  tr[m.arguments[0].messages[0]] = " Diese Aufnahme verwalten ";
  tr[m.arguments[0].messages[1]] = " { $count } Aufnahmen verwalten ";
  std::string out;
  REQUIRE(markup::RebuildIcuMessage(s, m, tr, &out).ok());
  CHECK(out == "{ -brand }: { $count -> [one] Diese Aufnahme verwalten *[other] { $count } Aufnahmen verwalten }");
}

TEST_CASE("ICU MessageFormat: pieces to translate and the rebuild around their translations") {
  const std::string s = "{count, plural, one {# file} other {# files}} in {folder}.";
  const markup::IcuMessage m = ParseOk(s);
  std::string text;
  std::vector<TextSpan> keep;
  REQUIRE(markup::IcuPiece(s, m, 0, &text, &keep));  // " in ." has letters
  CHECK(text == s);
  REQUIRE(keep.size() == 2);
  CHECK(keep[0].begin == 0);
  CHECK(!markup::IcuPiece("{n, plural, other {#}}", ParseOk("{n, plural, other {#}}"), 1, &text, &keep));
  std::vector<std::string> tr(m.texts.size());
  tr[0] = "{folder} enthält {count, plural, one {# file} other {# files}}.";  // reordered by the model
  tr[m.arguments[0].messages[0]] = "# Datei";
  tr[m.arguments[0].messages[1]] = "# Dateien";
  std::string out;
  REQUIRE(markup::RebuildIcuMessage(s, m, tr, &out).ok());
  CHECK(out == "{folder} enthält {count, plural, one {# Datei} other {# Dateien}}.");
  tr[0] = "Dateien in {folder}.";  // the plural argument lost
  const Status lost = markup::RebuildIcuMessage(s, m, tr, &out);
  CHECK(lost.message() == "ICU MessageFormat: the translation lost the argument at byte 0");
}

TEST_CASE("ICU MessageFormat through the bundled model: the same arguments, case keys and '#'") {
  auto t = MakeTranslator(LoadOrFail(BundledModel()));
  const std::vector<std::string> msgs = {
      "{count, plural, one {A dog runs in the park.} other {# dogs run in the park.}}",
      "{gender, select, female {She plays with a ball.} male {He plays with a ball.} other {They play with a ball.}}",
      "A man sits with {name} on a bench.",
      "Two dogs play {n, plural, =0 {with no ball} one {with # ball} other {with # balls}} in the snow.",
      "A woman reads {title",
      "{n, plural, other {#}}",
  };
  std::vector<std::string_view> in(msgs.begin(), msgs.end());
  std::vector<IcuTranslation> out;
  TranslateOptions o;
  o.beam_size = 1;
  REQUIRE(TranslateIcuMessages(*t, Span<const std::string_view>(in.data(), in.size()), o, &out).ok());
  REQUIRE(out.size() == msgs.size());
  for (size_t i = 0; i < msgs.size(); ++i) {
    CAPTURE(msgs[i]);
    if (i == 4) {
      CHECK(!out[i].ok());
      CHECK(out[i].error_message == "ICU MessageFormat: '{' at byte 14 is not closed");
      continue;
    }
    REQUIRE_MESSAGE(out[i].ok(), out[i].error_message);
    CAPTURE(out[i].text);
    CHECK(Skeleton(out[i].text) == Skeleton(msgs[i]));
    if (i != 5) CHECK(out[i].text != msgs[i]);  // 5 has nothing to translate
  }
  CHECK(out[5].text == msgs[5]);
  CHECK(out[0].text.find("Hund") != std::string::npos);
  TranslateOptions prefixed;
  const std::string_view prefix[] = {"Ein"};
  prefixed.target_prefix = Span<const std::string_view>(prefix, 1);
  CHECK(TranslateIcuMessages(*t, Span<const std::string_view>(in.data(), 1), prefixed, &out).code() == StatusCode::kInvalidArgument);
  // Rich-text tags in the cases (Lingui): with xml markup the tags, the '#' inside them and the spaces come back.
  const std::string_view rich[] = {"{n, plural, one {<0>#</0> dog runs} other {<0>#</0> dogs run}}"};
  TranslateOptions xml;
  xml.markup = Markup::kXml;
  REQUIRE(TranslateIcuMessages(*t, Span<const std::string_view>(rich, 1), xml, &out).ok());
  REQUIRE(out[0].ok());
  CAPTURE(out[0].text);
  CHECK(out[0].text.rfind("{n, plural, one {<0>#</0> ", 0) == 0);
  CHECK(out[0].text.find("} other {<0>#</0> ") != std::string::npos);
  // Fluent select expressions (placeholder_syntaxes' Fluent bit, on by default), on one line and on lines;
  // without the bit the same message fails alone as ICU.
  const std::string_view fluent[] = {"{ $n -> [one] A dog runs in the park. *[other] { $n } dogs run in the park. }",
                                     "{ $n ->\n    [one] A man sits on a bench.\n   *[other] { $n } men sit on a bench.\n}"};
  REQUIRE(TranslateIcuMessages(*t, Span<const std::string_view>(fluent, 2), o, &out).ok());
  for (size_t i = 0; i < 2; ++i) {
    REQUIRE_MESSAGE(out[i].ok(), out[i].error_message);
    CAPTURE(out[i].text);
    CHECK(Skeleton(out[i].text, true) == Skeleton(fluent[i], true));
    CHECK(out[i].text != fluent[i]);
  }
  CHECK(out[1].text.find("\n   *[other] { $n } ") != std::string::npos);  // the lines and indents as written
  TranslateOptions no_fluent = o;
  no_fluent.placeholder_syntaxes &= ~placeholder_syntax::kFluent;
  REQUIRE(TranslateIcuMessages(*t, Span<const std::string_view>(fluent, 1), no_fluent, &out).ok());
  CHECK(out[0].error_message == "ICU MessageFormat: '-' at byte 5 in the argument at byte 0");
}
