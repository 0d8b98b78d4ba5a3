// Every parser of outside text runs in linear time (docs/reliability.md, rounds three and four): markup
// references and tags, tag transfer, placeholders, glossary terms, and a run of characters the model lacks;
// each 1 MiB line is timed against a plain line of the same size.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "marian_checkpoint.h"
#include "markup/html.h"
#include "markup/protect.h"
#include "markup/transfer.h"
#include "tern/glossary.h"
#include "tern/logits_processor.h"
#include "tern/tern.h"
#include "tern/tokenize.h"
#include "test_util.h"

using namespace tern;
using namespace tern::test;

namespace {

// The fastest of three runs of f, in seconds (the ratio tests compare two such figures taken together).
double Fastest(const std::function<void()>& f) {
  double best = 1e9;
  for (int k = 0; k < 3; ++k) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return best;
}

// `unit` repeated to 1 MiB.
std::string Repeat(const std::string& unit, size_t bytes = size_t{1} << 20) {
  std::string s;
  s.reserve(bytes + unit.size());
  while (s.size() < bytes) s += unit;
  return s;
}

}  // namespace

TEST_CASE("markup: references and tags in linear time, translate=\"no\" nests, lenient stays well-formed") {
  using markup::Mode;
  using markup::Parsed;
  auto parse = [](std::string_view line, Mode mode, Parsed* p) { return markup::Parse(line, mode, p); };
  // #7: a translate="no" element with an element of its own name inside: kept whole, in both modes.
  for (Mode mode : {Mode::kStrict, Mode::kLenient}) {
    Parsed p;
    REQUIRE(parse("<span translate=\"no\">big <span>red</span> car</span> drives.", mode, &p).ok());
    REQUIRE(p.elements.size() == 1);
    CHECK(p.elements[0].open == "<span translate=\"no\">big <span>red</span> car</span>");
    CHECK(p.text == " drives.");
  }
  // #8: lenient repairs of raw elements left open: closed where the line (script) or the enclosing element
  // (translate="no") ends, with what they leave open inside; the repaired output parses strictly.
  struct Case {
    const char* line;
    const char* verbatim;
  } cases[] = {
      {"<i>Mann<script>x sleeps.</i>", "<script>x sleeps.</i></script>"},
      {"<i>Mann<style>x sleeps.</i>", "<style>x sleeps.</i></style>"},
      {"<b>A man <span translate=\"no\">keep <i>this</b> sleeps.", "<span translate=\"no\">keep <i>this</i></span>"},
      {"<b>A man <span translate=\"no\">keep <i>this</span></b> sleeps.", "<span translate=\"no\">keep <i>this</i></span>"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.line);
    Parsed p;
    REQUIRE(parse(c.line, Mode::kLenient, &p).ok());
    bool found = false;
    for (const auto& e : p.elements) found |= e.open == c.verbatim;
    CHECK(found);
    Parsed strict;
    CHECK_FALSE(parse(c.line, Mode::kStrict, &strict).ok());
  }
  // #12: a tag name is every byte to a space, '/' or '>': </bé> does not close <b>.
  Parsed p;
  const Status s = parse("A <b>dog</bé> runs.", Mode::kStrict, &p);
  REQUIRE_FALSE(s.ok());
  CHECK(s.message() == "markup: </bé> at byte 8 has no open <bé>");
}

TEST_CASE("every parser of outside text is linear (1 MiB lines, ratio to a plain line)") {
  const std::string plain = Repeat("a dog ");
  markup::Parsed p;
  const double base = Fastest([&] { (void)markup::Parse(plain, markup::Mode::kLenient, &p); });
  std::string refs;  // 40,000+ distinct references (#5)
  for (uint32_t cp = 0x4e00; refs.size() < (size_t{1} << 20); ++cp) {
    char buf[16];
    std::snprintf(buf, sizeof(buf), "&#x%x;", cp > 0x9fff ? 0x4e00 + cp % 0x5000 : cp);
    refs += buf;
  }
  const std::pair<const char*, std::string> lines[] = {
      {"distinct references", refs},
      {"'<a ' repeated (#6)", Repeat("<a ")},
      {"'&' without ';'", Repeat("&")},
      {"'&amp' without ';'", Repeat("&amp")},
      {"unterminated quotes in tags", Repeat("<a href=\"")},
      {"quotes opened and closed, no '>'", Repeat("<a b=\"x\" ")},
      {"translate=no nested, unterminated", Repeat("<span translate=\"no\">")},
      {"translate=no terminated", Repeat("<b translate=\"no\">x</b>")},
      {"script unterminated", Repeat("<script>")},
      {"comments unterminated", Repeat("<!--")},
      {"declarations unterminated", Repeat("<!x")},
      {"end tags without start", Repeat("</b>")},
      {"nested elements", Repeat("<b>")},
      {"elements", Repeat("<b>x</b> ")},
      {"CDATA unterminated", Repeat("<![CDATA[")},
      {"style unterminated", Repeat("<style>x")},
      {"text under deep nesting, separated", Repeat("<b>", 2997) + Repeat("<br>a")},
  };
  for (const auto& entry : lines) {  // (clang 14 cannot capture a structured binding in a lambda)
    const char* what = entry.first;
    const std::string& line = entry.second;
    CAPTURE(what);
    const double t = Fastest([&] { (void)markup::Parse(line, markup::Mode::kLenient, &p); });
    const double ts = Fastest([&] { (void)markup::Parse(line, markup::Mode::kStrict, &p); });
    // Linear work is within a small factor of the plain line (measured: under 15x); quadratic work on 1 MiB
    // is thousands of times it.
    CHECK(t < 60 * base + 0.05);
    CHECK(ts < 60 * base + 0.05);
  }
  // Placeholders, URLs, e-mail addresses, numbers with units (protect.h).
  std::vector<TextSpan> spans;
  const double pbase = Fastest([&] { spans.clear(), markup::FindPlaceholders(plain, &spans); });
  for (const std::string& line : {Repeat("%"), Repeat("%1$"), Repeat("{"), Repeat("{{x"), Repeat("@"), Repeat("a.b@"),
                                  Repeat("1.1."), Repeat("1"), Repeat("http://x"), Repeat("www."), Repeat("a@b.c")}) {
    CAPTURE(line.substr(0, 8));
    const double t = Fastest([&] { spans.clear(), markup::FindPlaceholders(line, &spans); });
    const std::string quarter = line.substr(0, line.size() / 4);
    const double tq = Fastest([&] { spans.clear(), markup::FindPlaceholders(quarter, &spans); });
    // Linear: four times the bytes take about four times as long (quadratic: sixteen). The constant against a
    // plain line is loose: a parser per '%' costs 70x a plain byte under qemu on bionic (CI's Android stage).
    CHECK(t < 8 * tq + 0.05);
    CHECK(t < 300 * pbase + 0.05);
  }
  // The converter's JSON files: 1 MiB of nesting, of keys, of a string (config.json, vocab.json).
  Hyperparameters hp;
  std::vector<std::string> pieces;
  const std::string flat = "{" + Repeat("\"k\": 1, ", (1 << 20) - 16) + "\"d_model\": 1}";
  const double jbase = Fastest([&] { (void)convert::ParseMarianConfig(flat, "config.json", &hp); });
  for (const std::string& text : {Repeat("["), Repeat("{\"a\":"), "\"" + Repeat("\\u00e9") + "\"", Repeat("{\"a\": [1, 2, ")}) {
    CAPTURE(text.substr(0, 8));
    const double t = Fastest([&] { (void)convert::ParseMarianConfig(text, "config.json", &hp); });
    const double v = Fastest([&] { (void)convert::ParseVocab(text, "vocab.json", &pieces); });
    CHECK(t < 60 * jbase + 0.1);
    CHECK(v < 60 * jbase + 0.1);
  }
  // Glossary TSV: 1 MiB of lines with and without tabs, and one line of 1 MiB.
  auto m = LoadOrFail(BundledModel());
  const double gbase = Fastest([&] { (void)Glossary::Parse(*m, Repeat("dog\tHund\n", 1 << 16), "g"); });
  for (const std::string& tsv : {Repeat("\t", 1 << 20), Repeat("a\n"), Repeat("#\n"), Repeat("\r\n"), Repeat("a b c d e\tHund\n", 1 << 16)}) {
    const double t = Fastest([&] { (void)Glossary::Parse(*m, tsv, "g"); });
    CHECK(t < 60 * gbase + 0.1);
  }
}

TEST_CASE("tag transfer is linear in a line's elements (empty elements after runs of spaces, a tail of marks)") {
  // Each empty element's position was checked against the whole line's final marks and the spaces before
  // it: 50,000 " <br>" took 3.1 s in `tern translate --html` (2026-11-29), 0.15 s since.
  auto line_of = [](size_t n, const std::string& unit) {
    std::string s = "A dog runs";
    for (size_t i = 0; i < n; ++i) s += unit;
    return s;
  };
  const std::string tr = "Ein Hund rennt.";
  const TextSpan tokens[] = {{0, 3}, {4, 8}, {9, 14}, {14, 15}};
  const int32_t none[] = {-1, -1, -1, -1};
  for (const std::string unit : {" <br>", "<br>.", " <br>?"}) {
    CAPTURE(unit);
    markup::Parsed full, quarter;
    REQUIRE(markup::Parse(line_of(80000, unit), markup::Mode::kLenient, &full).ok());
    REQUIRE(markup::Parse(line_of(20000, unit), markup::Mode::kLenient, &quarter).ok());
    const markup::AlignedTranslation at{tr, Span<const TextSpan>(tokens, 4), Span<const int32_t>(none, 4), {}};
    std::vector<size_t> ob, oe;
    std::string out;
    const double t = Fastest([&] { out = markup::Transfer(full, at, &ob, &oe); });
    CHECK(out.size() == tr.size() + 80000 * 4);
    const double tq = Fastest([&] { (void)markup::Transfer(quarter, at, &ob, &oe); });
    CHECK(t < 8 * tq + 0.05);  // linear: four times the elements, about four times as long (quadratic: sixteen)
  }
}

TEST_CASE("a run of characters the model lacks is one unknown piece, and the abort check comes before tokenizing") {
  // SentencePiece's encoder was quadratic in such a run (1 MB of '{': 24 s); tern's unigram encoder
  // (text/spm_encoder.h) is linear: test_spm_encoder.cc compares the times and the pieces. Here the API's side.
  auto m = LoadOrFail(BundledModel());
  TranslatorConfig c;
  c.max_source_tokens = 16;
  auto t = MakeTranslator(m, c);
  const std::string unknown(1000000, '{'), plain(1000000, 'a');
  std::string_view in[] = {unknown, plain};
  Span<const TranslationResult> r;
  REQUIRE(t->Translate(in, {}, &r).ok());
  CHECK_MESSAGE(r[0].ok(), r[0].error_message);  // a few ids: translated
  REQUIRE_FALSE(r[1].ok());                      // a million ids: too long, alone
  CHECK(r[1].error == StatusCode::kResourceExhausted);
  // The abort callback is asked before each input is tokenized: a call aborted at once tokenizes nothing
  // (the too-long text would otherwise fail as too long, after a pass over its megabyte).
  int asked = 0;
  TranslateOptions o;
  o.abort = [](void* data) { return ++*static_cast<int*>(data) >= 1; };
  o.abort_user_data = &asked;
  const Status st = t->Translate(in, o, &r);
  CHECK(st.code() == StatusCode::kCancelled);
  CHECK(asked == 1);
  for (size_t i = 0; i < 2; ++i) {
    CHECK(r[i].error == StatusCode::kCancelled);
    CHECK(std::string(r[i].error_message) == "cancelled by the caller");
  }
  // Aborted after the first input: both fail as cancelled, neither was translated.
  asked = 0;
  o.abort = [](void* data) { return ++*static_cast<int*>(data) >= 2; };
  CHECK(t->Translate(in, o, &r).code() == StatusCode::kCancelled);
  CHECK(r[0].error == StatusCode::kCancelled);
  CHECK(r[1].error == StatusCode::kCancelled);
  // The next call on the same Translator works.
  std::string_view one[] = {"A dog runs."};
  REQUIRE(t->Translate(one, {}, &r).ok());
  CHECK(r[0].ok());
}

