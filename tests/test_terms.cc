// Terminology: glossaries (tern/glossary.h: checks, errors with line numbers), constrained decoding
// (search/constraints.h: the state, the row rules, dynamic beam allocation) and do-not-translate spans
// (markup/protect.h, translate="no"), each through the bundled model.
#include <chrono>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "doctest/doctest.h"
#include "markup/protect.h"
#include "search/constraints.h"
#include "tern/glossary.h"
#include "glossary_util.h"
#include "test_util.h"

using namespace tern;
using namespace tern::test;

namespace {


std::string ParseError(const Model& m, const std::string& tsv) {
  auto g = Glossary::Parse(m, tsv, "g.tsv");
  return g.ok() ? "(no error)" : g.status().message();
}

// A sentence's constraints, built by hand: `terms` target token sequences over source tokens [b, e).
struct Fixture {
  std::vector<uint32_t> tokens;
  std::vector<uint16_t> off, len;
  std::vector<uint32_t> src_begin, src_end;
  SentenceConstraints View() const {
    SentenceConstraints sc;
    sc.tokens = tokens.data(), sc.off = off.data(), sc.len = len.data();
    sc.src_begin = src_begin.data(), sc.src_end = src_end.data();
    sc.n = static_cast<uint32_t>(off.size());
    return sc;
  }
  void Add(std::vector<uint32_t> ids, uint16_t b, uint16_t e) {
    off.push_back(static_cast<uint16_t>(tokens.size()));
    len.push_back(static_cast<uint16_t>(ids.size()));
    src_begin.push_back(b), src_end.push_back(e);
    tokens.insert(tokens.end(), ids.begin(), ids.end());
  }
};

}  // namespace

TEST_CASE("glossary files: every bad line named, duplicates name both lines, the vocabulary must spell a target") {
  auto m = LoadOrFail(BundledModel());
  CHECK(GlossaryOf(*m, "# comment\n\ndog\tKöter\r\nred ball\tkarminroter Spielball\ndog\tKöter\n")->size() == 2);
  CHECK(ParseError(*m, "dog\tKöter\ncat\n") == "g.tsv:2: no tab (a line is: source term, tab, target term)");
  CHECK(ParseError(*m, "dog\tKöter\tHund\n") == "g.tsv:1: more than two fields");
  CHECK(ParseError(*m, "\tKöter\n") == "g.tsv:1: empty source term");
  CHECK(ParseError(*m, "dog\t \n") == "g.tsv:1: empty target term");
  CHECK(ParseError(*m, "dog\tKöter\ncat\tKatze\ndog\tHund\n") ==
        "g.tsv:3: source term 'dog' is also g.tsv:1 with another target ('Köter' and 'Hund')");
  CHECK(ParseError(*m, "dog\tK\xc3\n") == "g.tsv:1: target term: invalid UTF-8 at byte 1");
  CHECK(ParseError(*m, "d\x01og\tHund\n") == "g.tsv:1: control character in the source term at byte 1");
  CHECK(ParseError(*m, "dog\t{Hund}\n") == "g.tsv:1: the target vocabulary cannot spell '{Hund}' (a piece it lacks)");
  CHECK(ParseError(*m, "dog\t" + std::string(300, 'a') + "\n") == "g.tsv:1: target term of 300 bytes (at most 256)");
  // In-memory entries are numbered.
  GlossaryEntry e[] = {{"dog", "Köter"}, {"", "x"}};
  auto g = Glossary::Create(*m, e);
  REQUIRE(!g.ok());
  CHECK(g.status().message() == "entry 2: empty source term");
  // A file that is not there, or not a regular file.
  CHECK(Glossary::Load(*m, "/nonexistent/g.tsv").status().code() == StatusCode::kNotFound);
  CHECK(Glossary::Load(*m, "/dev/null").status().message() == "/dev/null: not a regular file (a character device)");
}

TEST_CASE("glossary of 50,000 entries: loads, and matching stays per sentence") {
  auto m = LoadOrFail(BundledModel());
  std::string tsv;
  for (int i = 0; i < 50000; ++i) tsv += "term" + std::to_string(i) + "\tBegriff" + std::to_string(i) + "\n";
  tsv += "dog\tKöter\n";
  const auto t0 = std::chrono::steady_clock::now();
  auto g = GlossaryOf(*m, tsv);
  MESSAGE("50,001 entries: " << std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() << " s, "
                              << g->bytes() / 1048576.0 << " MiB");
  CHECK(g->size() == 50001);
  auto t = MakeTranslator(m);
  std::string_view in[] = {"A dog runs through the snow."};
  TranslateOptions o;
  o.glossary = g.get();
  Span<const TranslationResult> r;
  REQUIRE(t->Translate(in, o, &r).ok());
  CHECK(Count(r[0].best().text, "Köter") == 1);
}

TEST_CASE("glossary terms come out once per occurrence, greedy and beam, and other sentences are unchanged") {
  auto m = LoadOrFail(BundledModel());
  auto t = MakeTranslator(m);
  auto g = GlossaryOf(*m, "dog\tKöter\nsnow\tSchneedecke\nred ball\tkarminroter Spielball\n");
  std::string_view in[] = {"A dog runs through the snow.", "Two men are talking.",
                           "A little girl plays with a red ball on the beach.", "The dog and the other dog play.",
                           "The Dog Show opens.", "Dog owners walk."};
  for (uint32_t beam : {1u, 4u}) {
    CAPTURE(beam);
    TranslateOptions o;
    o.beam_size = beam;
    Span<const TranslationResult> r;
    REQUIRE(t->Translate(in, o, &r).ok());
    std::vector<std::string> plain;
    for (const auto& x : r) plain.emplace_back(x.best().text);
    o.glossary = g.get();
    REQUIRE(t->Translate(in, o, &r).ok());
    CHECK(Count(r[0].best().text, "Köter") == 1);
    CHECK(Count(r[0].best().text, "Schneedecke") == 1);
    CHECK(r[1].best().text == plain[1]);  // no term: the same translation
    CHECK(Count(r[2].best().text, "karminroter Spielball") == 1);
    CHECK(Count(r[3].best().text, "Köter") == 2);
    CHECK(r[4].best().text == plain[4]);  // "Dog" inside a sentence is not "dog" without case_insensitive
    CHECK(Count(r[5].best().text, "Köter") == 1);  // but a lower-case term matches its capital at a sentence's start
    // Each term is its own word (nothing glued to it).
    const std::string_view s = r[0].best().text;
    const size_t at = s.find("Köter");
    REQUIRE(at != std::string_view::npos);
    CHECK((at + 6 == s.size() || s[at + 6] == ' ' || s[at + 6] == '.' || s[at + 6] == ','));
  }
  GlossaryOptions ci;
  ci.case_insensitive = true;
  auto gi = GlossaryOf(*m, "dog\tKöter\n", ci);
  TranslateOptions o;
  o.glossary = gi.get();
  Span<const TranslationResult> r;
  REQUIRE(t->Translate(Span<const std::string_view>(in + 4, 1), o, &r).ok());
  CHECK(Count(r[0].best().text, "Köter") == 1);
}

TEST_CASE("glossary limits: more than 16 occurrences in a sentence fail it alone") {
  auto m = LoadOrFail(BundledModel());
  auto t = MakeTranslator(m);
  auto g = GlossaryOf(*m, "dog\tKöter\n");
  std::string many = "A dog";
  for (int i = 0; i < 16; ++i) many += " and a dog";
  many += ".";
  std::string_view in[] = {many, "A dog sleeps."};
  TranslateOptions o;
  o.glossary = g.get();
  o.split_sentences = false;
  Span<const TranslationResult> r;
  REQUIRE(t->Translate(in, o, &r).ok());
  CHECK(r[0].error == StatusCode::kResourceExhausted);
  CHECK(r[0].error_message == "glossary terms exceed 16 occurrences or 256 target tokens in one sentence");
  REQUIRE(r[1].ok());
  CHECK(Count(r[1].best().text, "Köter") == 1);
}

TEST_CASE("constraint state: tokens advance a started constraint, a wrong one abandons it, the last one meets it") {
  Fixture f;
  f.Add({10, 11, 12}, 1, 2);
  f.Add({20}, 4, 5);
  const SentenceConstraints sc = f.View();
  using namespace constraint_state;
  uint32_t s = AdvanceConstraint(sc, 0, 10);
  CHECK(Started(s) == 1);
  CHECK(Progress(s) == 1);
  CHECK(ConstraintTokensMet(sc, s) == 1);
  s = AdvanceConstraint(sc, s, 11);
  s = AdvanceConstraint(sc, s, 12);
  CHECK(Met(s) == 1u);
  CHECK(JustMet(s));
  CHECK(ConstraintTokensMet(sc, s) == 3);
  s = AdvanceConstraint(sc, s, 5);
  CHECK(!JustMet(s));
  CHECK(Met(AdvanceConstraint(sc, s, 20)) == 3u);
  const uint32_t abandoned = AdvanceConstraint(sc, AdvanceConstraint(sc, 0, 10), 99);
  CHECK(Started(abandoned) == 0);
  CHECK(Met(abandoned) == 0);
}

TEST_CASE("constraint rows: the next token forced, </s> banned while unmet, a start forced when it must fit or where it aligns") {
  Fixture f;
  f.Add({3, 4}, 2, 3);
  const SentenceConstraints sc = f.View();
  const VocabMap v = IdentityMap(8, nullptr);
  const float inf = std::numeric_limits<float>::infinity();
  auto row = [] { return std::vector<float>{-1, -2, -0.5f, -3, -4, -5, -6, -7}; };
  using namespace constraint_state;
  // Unmet and not started: only </s> (id 0) is banned.
  std::vector<float> r = row();
  ConstrainRow(sc, 0, 0, 20, 0, v, -1, false, r.data());
  CHECK(r[0] == -inf);
  CHECK(r[2] == -0.5f);
  // Started: its next token only, with its own score.
  r = row();
  ConstrainRow(sc, Make(0, 1, 1), 1, 20, 0, v, -1, false, r.data());
  for (size_t k = 0; k < 8; ++k) CHECK(r[k] == (k == 4 ? -4.f : -inf));
  // Two tokens left and three positions to the cap (one for </s>): must start now.
  r = row();
  ConstrainRow(sc, 0, 17, 20, 0, v, -1, false, r.data());
  CHECK(r[3] == -3.f);
  CHECK(r[2] == -inf);
  // Greedy: the alignment reaches the term's source token 2: start.
  r = row();
  ConstrainRow(sc, 0, 1, 20, 0, v, 2, true, r.data());
  CHECK(r[3] == -3.f);
  CHECK(r[1] == -inf);
  // Met: its first token is not generated again; the last step is left to </s>.
  r = row();
  ConstrainRow(sc, Make(1, 0, 0), 5, 20, 0, v, -1, false, r.data());
  CHECK(r[3] == -inf);
  CHECK(r[0] == -1.f);
  r = row();
  ConstrainRow(sc, 0, 19, 20, 0, v, -1, false, r.data());
  CHECK(r == row());
}

TEST_CASE("dynamic beam allocation: one candidate per bank in turn, best bank first, then by score") {
  // 6 candidates: banks (met) 0, 0, 0, 1, 2, 2; beam 3 takes the best of banks 2, 1, 0.
  float score[] = {-1, -2, -3, -9, -8, -7}, logprob[6] = {};
  uint32_t token[] = {1, 2, 3, 4, 5, 6}, beam[6] = {}, met[] = {0, 0, 0, 1, 2, 2};
  const Candidates c{score, logprob, token, beam, met};
  REQUIRE(AllocateBanks(c, 6, 3) == 3);
  CHECK(token[0] == 1);  // written back by score
  CHECK(token[1] == 6);
  CHECK(token[2] == 4);
  // Beam 5: two rounds; the second takes the next of bank 2 and of bank 0.
  float score2[] = {-1, -2, -3, -9, -8, -7};
  uint32_t token2[] = {1, 2, 3, 4, 5, 6}, met2[] = {0, 0, 0, 1, 2, 2};
  const Candidates c2{score2, logprob, token2, beam, met2};
  REQUIRE(AllocateBanks(c2, 6, 5) == 5);
  CHECK(std::vector<uint32_t>(token2, token2 + 5) == std::vector<uint32_t>{1, 2, 6, 5, 4});
}

TEST_CASE("placeholders: found, taken out, put back verbatim") {
  std::vector<TextSpan> s;
  const std::string t = "Click {0} or %1$s, see https://example.com/a?b=1. Mail anna.b@example.org; 5 km, 10% and 3.5 GB {{x}}.";
  markup::FindPlaceholders(t, &s);
  std::vector<std::string> found;
  for (const TextSpan& x : s) found.push_back(t.substr(x.begin, x.end - x.begin));
  CHECK(found == std::vector<std::string>{"{0}", "%1$s", "https://example.com/a?b=1", "anna.b@example.org", "5 km", "10%",
                                          "3.5 GB", "{{x}}"});
  s.clear();
  markup::FindPlaceholders("100% sure, 5 kilos, { spaced }, %sure, a@b, www.", &s);
  CHECK(s.size() == 1);  // only 100%
  markup::Parsed p;
  REQUIRE(markup::Protect("Click {0} now", {{6, 9}}, &p).ok());
  CHECK(p.text == "Click now");
  CHECK(p.elements.size() == 1);
  CHECK(p.elements[0].open == "{0}");
  CHECK(markup::Protect("abc", {{2, 1}}, &p).message() == "do-not-translate span [2, 1) overlaps another, is out of order or leaves the text");
  CHECK(markup::Protect("\xc3\xa9t\xc3\xa9", {{1, 3}}, &p).message() == "do-not-translate span [1, 3) cuts a UTF-8 character");
  CHECK(markup::TranslateNo("<span translate=\"no\">"));
  CHECK(markup::TranslateNo("<b class=x TRANSLATE='No'>"));
  CHECK(!markup::TranslateNo("<span translate=\"yes\">"));
  CHECK(!markup::TranslateNo("<span data-translate=\"no\">"));
}

TEST_CASE("do-not-translate spans through Translate: placeholders, the caller's spans, translate=\"no\"") {
  auto m = LoadOrFail(BundledModel());
  auto t = MakeTranslator(m);
  std::string_view in[] = {"A dog runs 5 km through the snow with {name}.", "A man reads a book.", "Two dogs play."};
  TranslateOptions o;
  o.keep_placeholders = true;
  Span<const TranslationResult> r;
  REQUIRE(t->Translate(in, o, &r).ok());
  CHECK(Count(r[0].best().text, "5 km") == 1);
  CHECK(Count(r[0].best().text, "{name}") == 1);
  // The caller's span: "book" is kept as it is.
  KeepSpan k[] = {{1, {14, 18}}};
  o.keep_placeholders = false;
  o.keep_spans = k;
  REQUIRE(t->Translate(in, o, &r).ok());
  CHECK(Count(r[1].best().text, "book") == 1);
  KeepSpan bad[] = {{2, {5, 99}}};
  o.keep_spans = bad;
  REQUIRE(t->Translate(in, o, &r).ok());
  CHECK(!r[2].ok());
  CHECK(r[2].error_message == "do-not-translate span [5, 99) overlaps another, is out of order or leaves the text");
  CHECK(r[0].ok());
  // With markup the spans are marked up instead.
  o.keep_spans = {};
  o.markup = Markup::kHtml;
  o.keep_placeholders = true;
  REQUIRE(t->Translate(in, o, &r).ok());  // placeholders in markup's text: test_markup.cc
  o.keep_placeholders = false;
  std::string_view html[] = {"A <span translate=\"no\">Golden Retriever</span> runs in the <b>snow</b>."};
  REQUIRE(t->Translate(html, o, &r).ok());
  CHECK(Count(r[0].best().text, "<span translate=\"no\">Golden Retriever</span>") == 1);
  CHECK(Count(r[0].best().text, "<b>") == 1);
}
