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

markup::IcuMessage ParseOk(std::string_view s) {
  markup::IcuMessage m;
  const Status st = markup::ParseIcuMessage(s, &m);
  REQUIRE_MESSAGE(st.ok(), st.message());
  return m;
}

std::string ParseError(std::string_view s) {
  markup::IcuMessage m;
  const Status st = markup::ParseIcuMessage(s, &m);
  REQUIRE_FALSE(st.ok());
  CHECK(st.code() == StatusCode::kInvalidArgument);
  return st.message();
}

std::string Sub(std::string_view s, TextSpan x) { return std::string(s.substr(x.begin, x.end - x.begin)); }

// The message's syntax with every text's letters taken out: two messages with the same skeleton have the
// same arguments, case keys and '#' in the same nesting.
std::string Skeleton(std::string_view s) {
  const markup::IcuMessage m = ParseOk(s);
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
}
