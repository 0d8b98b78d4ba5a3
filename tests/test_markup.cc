// Markup through translation: the parser (what is recognized, what is refused and how lenient mode
// repairs it, the bounds), the tag transfer (exactly the input's tags, well nested, placed by alignment,
// whatever the alignment: a seeded property test), and Translate() with TranslateOptions::markup on the
// bundled model.
#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "markup/html.h"
#include "markup/protect.h"
#include "markup/punctuation.h"
#include "markup/transfer.h"
#include "test_util.h"

using namespace tern;
using namespace tern::test;
using markup::Element;
using markup::Mode;
using markup::Parsed;

namespace {

Parsed ParseOk(std::string_view line, Mode mode = Mode::kStrict) {
  Parsed p;
  const Status s = markup::Parse(line, mode, &p);
  REQUIRE_MESSAGE(s.ok(), s.message());
  REQUIRE(p.origin.size() == p.text.size());
  return p;
}

std::string ParseError(std::string_view line) {
  Parsed p;
  const Status s = markup::Parse(line, Mode::kStrict, &p);
  REQUIRE_FALSE(s.ok());
  CHECK(s.code() == StatusCode::kInvalidArgument);
  return s.message();
}

// The tags of a marked-up string in order ("<b>", "</b>", "<br>", ...; comments and script as one item).
std::vector<std::string> Tags(const Parsed& p) {
  std::vector<std::string> out;
  for (const Element& e : p.elements) out.push_back(e.open), out.push_back(e.close);
  return out;
}

// A translation whose tokens are words (split at spaces), token k aligned to source word align[k].
struct Fake {
  std::string text;
  std::vector<TextSpan> token_spans, source_spans;
  std::vector<int32_t> sources;
  markup::AlignedTranslation View() const {
    return {text, {token_spans.data(), token_spans.size()}, {sources.data(), sources.size()},
            {source_spans.data(), source_spans.size()}};
  }
};

std::vector<TextSpan> Words(const std::string& s) {
  std::vector<TextSpan> w;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && s[i] == ' ') ++i;
    const size_t b = i;
    while (i < s.size() && s[i] != ' ') ++i;
    if (i > b) w.push_back({b, i});
  }
  return w;
}

Fake MakeFake(const Parsed& p, const std::string& target, std::vector<int32_t> align) {
  Fake f;
  f.text = target;
  f.token_spans = Words(target);
  f.source_spans = Words(p.text);
  f.sources = std::move(align);
  REQUIRE(f.sources.size() == f.token_spans.size());
  return f;
}

// A translation `target` with the given token spans, token k aligned to source word sources[k] of p.
Fake Tokens(const Parsed& p, const std::string& target, std::vector<TextSpan> spans, std::vector<int32_t> sources) {
  Fake f;
  f.text = target;
  f.token_spans = std::move(spans);
  f.source_spans = Words(p.text);
  f.sources = std::move(sources);
  REQUIRE(f.sources.size() == f.token_spans.size());
  return f;
}

std::string Transfer(const Parsed& p, const Fake& f) {
  std::vector<size_t> ob, oe;
  return markup::Transfer(p, f.View(), &ob, &oe);
}

// Re-parses `out` strictly (it must be well formed) and checks it holds `want`'s tags in the same order.
void CheckSameTags(const std::string& out, const std::vector<std::string>& want) {
  Parsed again;
  const Status s = markup::Parse(out, Mode::kStrict, &again);
  REQUIRE_MESSAGE(s.ok(), s.message() << " in " << out);
  std::vector<std::string> got;
  for (const Element& e : again.elements) got.push_back(e.open), got.push_back(e.close);
  std::vector<std::string> a = want, b = got;
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  CHECK_MESSAGE(a == b, out);
}

}  // namespace

TEST_CASE("markup: tags, void elements, references and word separation") {
  const Parsed p = ParseOk("A <b>big</b> dog &amp; a cat<br>sleeps &copy; <i>un<b>believ</b>ably</i>.");
  CHECK(p.text == "A big dog & a cat sleeps \xc2\xa9 unbelievably.");
  REQUIRE(p.elements.size() == 4);
  CHECK(p.elements[0].open == "<b>");
  CHECK(p.text.substr(p.elements[0].begin, p.elements[0].end - p.elements[0].begin) == "big");
  CHECK(p.elements[1].kind == Element::Kind::kVerbatim);  // <br>: a space between "cat" and "sleeps"
  CHECK(p.elements[1].open == "<br>");
  CHECK(p.elements[3].parent == 2);  // <b> inside <i>, inside a word
  CHECK(p.text.substr(p.elements[3].begin, p.elements[3].end - p.elements[3].begin) == "believ");
  // The decoded '&' maps back to the whole reference.
  const size_t amp = p.text.find('&');
  const auto [b, e] = markup::LineSpan(p, amp, amp + 1);
  CHECK(b == 17);
  CHECK(e == 22);
  std::string escaped;
  markup::AppendEscaped("Tom & Jerry \xc2\xa9 <3", p, &escaped);
  CHECK(escaped == "Tom &amp; Jerry &copy; &lt;3");
}

TEST_CASE("markup: comments, CDATA, script and style are kept verbatim and never translated") {
  const Parsed p = ParseOk("a <!-- note --> b <![CDATA[ <b>x</b> ]]> c <script>if (a<b) f();</script> d "
                           "<style>p > b {}</style> e <?php x ?> <!DOCTYPE html>");
  CHECK(p.text.find("note") == std::string::npos);
  CHECK(p.text.find("if (a") == std::string::npos);
  CHECK(p.text.find("p > b") == std::string::npos);
  for (const Element& e : p.elements) CHECK(e.kind == Element::Kind::kVerbatim);
  CHECK(p.elements.size() == 6);
  CHECK(p.elements[2].open == "<script>if (a<b) f();</script>");
}

TEST_CASE("markup: code, kbd, samp, var, pre and class=\"notranslate\" are kept verbatim unless the call translates code") {
  const char* line = "Run <code>make all</code>, press <kbd>Ctrl</kbd>, see <samp>ok</samp> in <var>dir</var>: "
                     "<pre>a <b>b</b></pre> <span class=\"x notranslate\">Foo Bar</span> <code translate=\"yes\">ls</code> "
                     "<span class=\"notranslated\">text</span> <p class='NoTranslate'>Keep</p>";
  Parsed p;
  REQUIRE(markup::Parse(line, Mode::kStrict, &p).ok());
  for (const char* kept : {"make all", "Ctrl", "ok", "dir", "a b", "Foo Bar", "Keep"}) {
    CAPTURE(kept);
    CHECK(p.text.find(kept) == std::string::npos);
  }
  CHECK(p.text.find("ls") != std::string::npos);    // translate="yes" on the tag
  CHECK(p.text.find("text") != std::string::npos);  // "notranslated" is another class
  size_t verbatim = 0;
  for (const Element& e : p.elements) verbatim += e.kind == Element::Kind::kVerbatim;
  CHECK(verbatim == 7);
  CHECK(p.elements[0].open == "<code>make all</code>");
  Parsed q;  // translate_code: only translate="no" is kept
  REQUIRE(markup::Parse(line, Mode::kStrict, &q, true).ok());
  for (const char* text : {"make all", "Ctrl", "ok", "dir", "Foo Bar", "Keep"}) CHECK(q.text.find(text) != std::string::npos);
  CHECK(markup::AttributeValue("<a class = 'x y' href=\"u\">", "class").value() == "x y");
  CHECK(markup::AttributeValue("<a href=u class=z>", "class").value() == "z");
  CHECK(!markup::AttributeValue("<a subclass=\"z\">", "class").has_value());
  CHECK(!markup::AttributeValue("<a class=\"z>", "class").has_value());
}

TEST_CASE("markup: attribute values may hold '>', and a '<' that starts nothing is text") {
  const Parsed p = ParseOk("<a title=\"a>b\" href='x?y=1&amp;z'>link</a> and 3 < 4 & 5 > 2");
  REQUIRE(p.elements.size() == 1);
  CHECK(p.elements[0].open == "<a title=\"a>b\" href='x?y=1&amp;z'>");  // attributes verbatim
  CHECK(p.text == "link and 3 < 4 & 5 > 2");
}

TEST_CASE("markup: strict mode names what is not well formed and where") {
  CHECK(ParseError("<b>x") == "markup: <b> at byte 0 is not closed");
  CHECK(ParseError("<b><i>x</b></i>") == "markup: </b> at byte 7 does not close <i> (byte 3)");
  CHECK(ParseError("a </b>") == "markup: </b> at byte 2 has no open <b>");
  CHECK(ParseError("x <!-- y") == "markup: comment at byte 2 is not terminated");
  CHECK(ParseError("x <![CDATA[ y") == "markup: CDATA section at byte 2 is not terminated");
  CHECK(ParseError("<b title=\"x>") == "markup: tag at byte 0 is not terminated");
  CHECK(ParseError("a <script>x") == "markup: <script> at byte 2 is not closed");
}

TEST_CASE("markup: lenient mode repairs as a browser would, and loses no text") {
  Parsed p = ParseOk("<b><i>x</b>y</i> z </u> <em>w", Mode::kLenient);
  CHECK(p.text == "xy z  w");
  REQUIRE(p.elements.size() == 3);
  CHECK(p.elements[1].close == "</i>");  // closed by </b>
  CHECK(p.elements[0].close == "</b>");
  CHECK(p.elements[2].close == "</em>");  // closed at the end
  p = ParseOk("a <!-- b <x", Mode::kLenient);
  CHECK(p.text == "a <!-- b <x");
  p = ParseOk("a <script>b", Mode::kLenient);
  CHECK(p.text == "a ");
}

TEST_CASE("markup: bounds: 10,000 tags in a line work, more than the limit or too deep is refused") {
  std::string line;
  for (int i = 0; i < 10000; ++i) line += "<b>w" + std::to_string(i) + "</b> ";
  const Parsed p = ParseOk(line);
  CHECK(p.elements.size() == 10000);
  std::vector<int32_t> align;
  for (int i = 0; i < 10000; ++i) align.push_back(9999 - i);  // every word reversed
  std::string target;
  for (int i = 0; i < 10000; ++i) target += "v" + std::to_string(i) + " ";
  CheckSameTags(Transfer(p, MakeFake(p, target, align)), Tags(p));
  std::string many;
  for (size_t i = 0; i <= markup::kMaxElements; ++i) many += "<br>";
  Parsed q;
  CHECK(markup::Parse(many, Mode::kLenient, &q).message() == "markup: more than 100000 elements in one line");
  std::string deep;
  for (size_t i = 0; i <= markup::kMaxDepth; ++i) deep += "<i>";
  CHECK(markup::Parse(deep, Mode::kLenient, &q).message() == "markup: elements nested deeper than 1000");
}

TEST_CASE("tag transfer: tags go around the aligned words, keep the tree, and come out escaped") {
  Parsed p = ParseOk("A <b>big</b> dog &amp; a cat.");
  std::string out = Transfer(p, MakeFake(p, "Ein großer Hund & eine Katze.", {0, 1, 2, 3, 4, 5}));
  CHECK(out == "Ein <b>großer</b> Hund &amp; eine Katze.");
  // Reordered words: each tag follows its word; siblings keep their source order.
  p = ParseOk("<b>red</b> <i>car</i>");
  out = Transfer(p, MakeFake(p, "voiture rouge", {1, 0}));
  CHECK(out == "voiture <b>rouge</b><i></i>");
  CheckSameTags(out, Tags(p));
  // A void element goes after the last word aligned to what precedes it.
  p = ParseOk("Dogs run<br>and cats sleep");
  out = Transfer(p, MakeFake(p, "Hunde rennen und Katzen schlafen", {0, 1, 2, 3, 4}));
  CHECK(out == "Hunde rennen<br> und Katzen schlafen");
  // A tag inside a word stays on that word's piece when the alignment says so.
  p = ParseOk("<a href=\"/x\">two words</a> here");
  out = Transfer(p, MakeFake(p, "hier zwei Wörter", {2, 0, 1}));
  CHECK(out == "hier <a href=\"/x\">zwei Wörter</a>");
  // One stray token aligned into an element (here the final '.') does not stretch it over the sentence:
  // the run of aligned words wins, and the next sibling still finds its word (was "<a>reparieren das Dach
  // eines Hauses .</a><b></b>" when an element went from its first aligned token to its last).
  p = ParseOk("People <a href=\"/r\">are fixing the</a> roof of a <b>house</b>.");
  out = Transfer(p, MakeFake(p, "Leute reparieren das Dach eines Hauses .", {0, 2, 3, 4, 6, 7, 2}));
  CHECK(out == "Leute <a href=\"/r\">reparieren das</a> Dach eines <b>Hauses</b> .");
}

TEST_CASE("tag transfer: an element its siblings left without words takes the next free word, never a sibling's") {
  // "two"'s aligned word stands before "one"'s, so siblings in source order leave it nothing there; it wraps
  // the next word after it (was "zwei <q>eins</q><q></q> und mehr").
  Parsed p = ParseOk("<q>one</q> <q>two</q> and more");
  std::string out = Transfer(p, MakeFake(p, "zwei eins und mehr", {1, 0, 2, 3}));
  CHECK(out == "zwei <q>eins</q> <q>und</q> mehr");
  CheckSameTags(out, Tags(p));
  // Up to where a later sibling's own words begin: "x" is free, "drei" is <b>'s.
  p = ParseOk("<q>one</q> <q>two</q> <b>three</b> end");
  out = Transfer(p, MakeFake(p, "zwei eins x drei ende", {1, 0, 3, 2, 3}));
  CHECK(out == "zwei <q>eins</q> <q>x</q> <b>drei</b> ende");
  out = Transfer(p, MakeFake(p, "zwei eins drei ende", {1, 0, 2, 3}));
  // No free word before <b>'s: left empty (its word "zwei" stands before its sibling's).
  CHECK(out == "zwei <q>eins</q><q></q> <b>drei</b> ende");
  // Several in a row take the free words in turn, up to the last word.
  p = ParseOk("<q>a</q> <q>b</q> <q>c</q> rest of it");
  out = Transfer(p, MakeFake(p, "B C A rest of", {1, 2, 0, 3, 4}));
  CHECK(out == "B C <q>A</q> <q>rest</q> <q>of</q>");
  CheckSameTags(out, Tags(p));
  out = Transfer(p, MakeFake(p, "B C A rest", {1, 2, 0, 3}));
  CHECK(out == "B C <q>A</q> <q>rest</q><q></q>");
  // An element whose words the model dropped (no token aligns into it) and that no word is left for keeps
  // its source text (was "<q>X</q><q></q><q></q>"). The kept source text is escaped as markup text, references in the input's spelling; glued to the words
  // it was glued to, and no others.
  p = ParseOk("<q>x</q> <q>a &lt;b&gt; &amp;&nbsp;c</q>, <q>y</q>z");
  out = Transfer(p, MakeFake(p, "X", {0}));
  CHECK(out == "<q>X</q> <q>a &lt;b&gt; &amp;&nbsp;c</q> <q>y</q>");
}

TEST_CASE("tag transfer: random trees and random alignments give well-formed output with exactly the input's tags") {
  std::mt19937 rng(20261126);
  const char* names[] = {"b", "i", "a", "span", "em"};
  for (int round = 0; round < 300; ++round) {
    CAPTURE(round);
    std::string line;
    std::vector<std::string> open;
    const int words = 1 + static_cast<int>(rng() % 12);
    for (int w = 0; w < words; ++w) {
      const int r = static_cast<int>(rng() % 6);
      if (r == 0 && open.size() < 4) {
        open.push_back(names[rng() % 5]);
        line += "<" + open.back() + ">";
      } else if (r == 1 && !open.empty()) {
        line += "</" + open.back() + ">";
        open.pop_back();
      } else if (r == 2) {
        line += "<br>";
      }
      line += "w" + std::to_string(w) + " ";
    }
    while (!open.empty()) line += "</" + open.back() + ">", open.pop_back();
    const Parsed p = ParseOk(line);
    const size_t src_words = Words(p.text).size();
    const int tgt_words = 1 + static_cast<int>(rng() % 14);
    std::string target;
    std::vector<int32_t> align;
    for (int k = 0; k < tgt_words; ++k) {
      target += "t" + std::to_string(k) + (k + 1 < tgt_words ? " " : "");
      align.push_back(rng() % 5 == 0 ? -1 : static_cast<int32_t>(rng() % std::max<size_t>(1, src_words)));
    }
    CheckSameTags(Transfer(p, MakeFake(p, target, align)), Tags(p));
  }
}

TEST_CASE("Translate with markup: tags around the translated words, a broken line fails alone, spans into the marked-up texts") {
  auto t = MakeTranslator(LoadOrFail(BundledModel()));
  std::string_view in[] = {"A man in a blue shirt is standing on a <b>ladder</b>.",
                           "Two dogs <i>play</i> in the snow.<br>A child &amp; a woman watch.", "A <b>broken line.",
                           "A man <u>with a hat</b>."};
  TranslateOptions o;
  o.beam_size = 1;
  o.markup = Markup::kHtml;
  Span<const TranslationResult> r;
  REQUIRE(t->Translate(in, o, &r).ok());
  REQUIRE(r[0].ok());
  CHECK(r[0].best().text.find("<b>Leiter</b>") != std::string_view::npos);
  REQUIRE(r[1].ok());
  CHECK(r[1].best().text.find("<i>") != std::string_view::npos);
  CHECK(r[1].best().text.find("<br>") != std::string_view::npos);
  // Every '&' of the output starts a reference (the model may translate "&" as "und").
  for (size_t at = r[1].best().text.find('&'); at != std::string_view::npos; at = r[1].best().text.find('&', at + 1))
    CHECK(r[1].best().text.substr(at, 5) == "&amp;");
  CHECK(r[2].error_message == "markup: <b> at byte 2 is not closed");
  CHECK(r[3].error_message == "markup: </b> at byte 19 has no open <b>");
  // Spans: a token's span is its text in the marked-up output, a source span its text in the input.
  const Hypothesis& h = r[0].best();
  bool found = false;
  for (size_t k = 0; k < h.tokens.size(); ++k) {
    const TextSpan s = h.token_spans[k];
    if (h.text.substr(s.begin, s.end - s.begin) != "Leiter") continue;
    found = true;
    const TextSpan src = r[0].source_spans[static_cast<size_t>(h.token_sources[k])];
    CHECK(in[0].substr(src.begin, src.end - src.begin) == "ladder");
  }
  CHECK(found);
  // Lenient: the broken lines are repaired and translated.
  o.markup = Markup::kHtmlLenient;
  REQUIRE(t->Translate(in, o, &r).ok());
  CHECK(r[2].ok());
  CHECK(r[3].ok());
  CheckSameTags(std::string(r[3].best().text), {"<u>", "</u>"});
  // Code is kept verbatim (TranslateOptions::translate_code: false by default).
  std::string_view code[] = {"Type <code>make all</code> in the shell."};
  REQUIRE(t->Translate(code, o, &r).ok());
  REQUIRE(r[0].ok());
  CHECK(r[0].best().text.find("<code>make all</code>") != std::string_view::npos);
  // Streaming cannot be combined with markup.
  o.on_token = [](const TokenEvent&, void*) { return true; };
  CHECK(t->Translate(in, o, &r).message() == "markup cannot be combined with on_token: tags go in when a sentence is complete");
}

TEST_CASE("markup: a kept span goes before the final full stop it preceded, and never inside a word") {
  // "with {name}." : the final '.' aligned to "with" would put the span after it; it stays before.
  Parsed p;
  REQUIRE(markup::Protect("A dog runs with {name}.", {TextSpan{16, 22}}, &p).ok());
  CHECK(p.text == "A dog runs with .");
  const Fake f = Tokens(p, "Ein Hund rennt mit.", {{0, 3}, {4, 8}, {9, 14}, {15, 18}, {18, 19}}, {0, 1, 2, 3, 3});
  CHECK(Transfer(p, f) == "Ein Hund rennt mit {name}.");
  // After the final mark in the source, it stays after the translation's too.
  Parsed q;
  REQUIRE(markup::Protect("A dog runs. {name}", {TextSpan{12, 18}}, &q).ok());
  const Fake g = Tokens(q, "Ein Hund rennt.", {{0, 3}, {4, 8}, {9, 14}, {14, 15}}, {0, 1, 2, 2});
  CHECK(Transfer(q, g) == "Ein Hund rennt. {name}");
  // A mid-sentence span whose alignment lands after the final '.' (aligned to the first word) stays before it.
  Parsed m;
  REQUIRE(markup::Protect("A dog {0} runs.", {TextSpan{6, 9}}, &m).ok());
  const Fake mf = Tokens(m, "Ein Hund läuft.", {{0, 3}, {4, 8}, {9, 15}, {15, 16}}, {0, 1, 2, 0});
  CHECK(Transfer(m, mf) == "Ein Hund läuft {0}.");
  // "A dog {0} runs.": the alignment says after "Hund", which is inside "Hundchen": the span goes after the word.
  Parsed r;
  REQUIRE(markup::Protect("A dog {0} runs.", {TextSpan{6, 9}}, &r).ok());
  CHECK(r.text == "A dog runs.");
  const Fake h = Tokens(r, "Ein Hundchen läuft.", {{0, 3}, {4, 8}, {8, 12}, {13, 19}, {19, 20}}, {0, 1, 2, 2, 2});
  CHECK(Transfer(r, h) == "Ein Hundchen {0} läuft.");
  // An empty HTML element, likewise: never between "Hund" and "chen".
  const Parsed e = ParseOk("A dog<br> runs.");
  const Fake k = Tokens(e, "Ein Hundchen läuft.", {{0, 3}, {4, 8}, {8, 12}, {13, 19}, {19, 20}}, {0, 1, 2, 2, 2});
  CHECK(Transfer(e, k) == "Ein Hundchen<br> läuft.");
  // Between two marks of the source's tail ("Trainers: {n}!" leaves "Trainers: !"): the '!' was after it, so
  // it stays before the translation's final mark (it went after "Trainer." before).
  Parsed t;
  REQUIRE(markup::Protect("Trainers: {n}!", {TextSpan{10, 13}}, &t).ok());
  const Fake tf = Tokens(t, "Trainer.", {{0, 7}, {7, 8}}, {0, 0});  // the "." aligned to "Trainers:"
  CHECK(Transfer(t, tf) == "Trainer {n}.");
  // An element with no text of its own, likewise, and never glued to a word it was not glued to
  // (Bluesky's 'No results found for “<0>{query}</0>”.' came out as "Boden<0>{query}</0>.").
  const std::string_view line = "No results for “<0>{query}</0>”.";
  std::vector<TextSpan> keep;
  markup::FindPlaceholders(line, &keep);
  Parsed x;
  REQUIRE(markup::Parse(line, Mode::kXml, &x, false, Span<const TextSpan>(keep.data(), keep.size())).ok());
  const Fake xf = Tokens(x, "Keine Ergebnisse für.", {{0, 5}, {6, 16}, {17, 20}, {20, 21}}, {0, 1, 2, 2});
  CHECK(Transfer(x, xf) == "Keine Ergebnisse für <0>{query}</0>.");
  // An element with text that ended before the source's final mark does not take the translation's in
  // (Bluesky's "Please <0>contact our moderation team</0> if you believe this is an error." ended
  // "...Mannschaften.</0>"): the '.' aligned to "team" stays outside.
  const Parsed c = ParseOk("Please <b>contact the team</b> now.");
  const Fake cf = Tokens(c, "Bitte das Team kontaktieren.", {{0, 5}, {6, 10}, {11, 14}, {15, 27}, {27, 28}}, {0, 2, 3, 1, 3});
  CHECK(Transfer(c, cf) == "Bitte <b>das Team kontaktieren</b>.");
}

TEST_CASE("markup: a kept span is never glued to a word it was not glued to") {
  // NewPipe's 'Turn on "%1$s" in the settings': the quotes were the span's neighbours, and the model put it
  // right after a word ("Smmen%1$s" before this rule); a full stop stays next to it.
  Parsed p;
  REQUIRE(markup::Protect("Turn on \"%1$s\" now.", {TextSpan{9, 13}}, &p).ok());
  CHECK(p.text == "Turn on \"\" now.");
  const Fake f = Tokens(p, "Schalte Modus ein.", {{0, 7}, {8, 13}, {14, 17}, {17, 18}}, {0, 2, 3, 3});
  CHECK(Transfer(p, f) == "Schalte Modus %1$s ein.");
  const Fake g = Tokens(p, "Schalte Modus.", {{0, 7}, {8, 13}, {13, 14}}, {0, 2, 3});
  CHECK(Transfer(p, g) == "Schalte Modus %1$s.");
  // HTML's kept elements likewise (WCAG's "The formula (<code>L1/L2</code>) ...": "et<code>L1/L2</code>").
  const Parsed h = ParseOk("Use (<code>L1/L2</code>) now.");
  CHECK(h.text == "Use () now.");
  const Fake k = Tokens(h, "Nutze jetzt.", {{0, 5}, {6, 11}, {11, 12}}, {0, 2, 2});
  CHECK(Transfer(h, k) == "Nutze <code>L1/L2</code> jetzt.");
  // A kept element a word touched in the source may touch one in the output.
  const Parsed w = ParseOk("Use x<code>L1</code>y now.");
  const Fake v = Tokens(w, "Nutze xy jetzt.", {{0, 5}, {6, 7}, {7, 8}, {9, 14}, {14, 15}}, {0, 1, 1, 2, 2});
  CHECK(Transfer(w, v) == "Nutze xy<code>L1</code> jetzt.");
  // A kept span last in an element with text: the space it owes outlives the element's end tag (b1fe95b;
  // "...</b>jetzt" when the end tag reset it).
  const std::string_view bl = "Press x<b>OK {n}</b> now.";  // (x: no widening to whole words)
  std::vector<TextSpan> bk;
  markup::FindPlaceholders(bl, &bk);
  Parsed b;
  REQUIRE(markup::Parse(bl, Mode::kXml, &b, false, Span<const TextSpan>(bk.data(), bk.size())).ok());
  const Fake bf = Tokens(b, "Drücke OKjetzt.", {{0, 7}, {8, 10}, {10, 15}, {15, 16}}, {0, 1, 2, 2});
  CHECK(Transfer(b, bf) == "Drücke <b>OK {n}</b> jetzt.");
}

TEST_CASE("markup: a kept span with words after it stays before a final mark the model added") {
  // Diaspora's "You can use %{markdown_link} to format your post" (no final mark): the translation ended with
  // one, aligned to the first word, and the span came after it.
  Parsed p;
  REQUIRE(markup::Protect("Use {link} to format", {TextSpan{4, 10}}, &p).ok());
  const Fake f = Tokens(p, "Formatieren mit.", {{0, 11}, {12, 15}, {15, 16}}, {2, 1, 0});
  CHECK(Transfer(p, f) == "Formatieren mit {link}.");
  // At the source's end too: no sentence ended before it there, so it goes before the mark the model added
  // (it stayed at the end before 2026-11-29: "Formatieren mit. {link}").
  Parsed q;
  REQUIRE(markup::Protect("Format with {link}", {TextSpan{12, 18}}, &q).ok());
  const Fake g = Tokens(q, "Formatieren mit.", {{0, 11}, {12, 15}, {15, 16}}, {0, 1, 1});
  CHECK(Transfer(q, g) == "Formatieren mit {link}.");
  // Nor does it cross an earlier sentence's end (Signal's "... with %@ members or less. Adding more ...": the
  // first sentence's '.' aligned before the span, which came out as "auf. %@ Ein ...").
  Parsed s;
  REQUIRE(markup::Protect("Best with {n} or less. Add more.", {TextSpan{10, 13}}, &s).ok());
  const Fake h = Tokens(s, "Am besten weniger. Mehr.", {{0, 2}, {3, 9}, {10, 17}, {17, 18}, {19, 23}, {23, 24}},
                        {0, 0, 3, 1, 5, 6});
  CHECK(Transfer(s, h) == "Am besten weniger {n}. Mehr.");
  // A span that followed a sentence's end in the source may follow one in the output; "z.B." and "3." end
  // no sentence.
  Parsed d;
  REQUIRE(markup::Protect("Done. {n} files.", {TextSpan{6, 9}}, &d).ok());
  const Fake k = Tokens(d, "Fertig. Dateien.", {{0, 6}, {6, 7}, {8, 15}, {15, 16}}, {0, 0, 1, 1});
  CHECK(Transfer(d, k) == "Fertig. {n} Dateien.");
  CHECK(markup::SentenceEndBefore("Siehe z.B. ", 11) == std::string_view::npos);
  CHECK(markup::SentenceEndBefore("am 3. ", 6) == std::string_view::npos);
  CHECK(markup::SentenceEndBefore("Er kam. ", 8) == 6);
  CHECK(markup::SentenceEndBefore("Er kam?\xe2\x80\x9d ", 11) == 6);
  CHECK(markup::SentenceEndBefore("Er kam: ", 8) == std::string_view::npos);
  CHECK(markup::FinalMarkEnd("Trainers: !\" ", 8) == 11);  // the '!' is the last final mark; '"' closes only
  CHECK(markup::FinalMarkEnd("Trainers: !", 11) == 11);     // none from there on
  CHECK(markup::FinalMarkEnd("go. now.", 2) == 3);          // "now" stops the reading
}

TEST_CASE("markup: xml mode for app strings: numbered and named tags pair, nothing is void, no HTML defaults") {
  // HTML reads <link> as void: its end tag has nothing to close.
  Parsed p;
  CHECK(markup::Parse("Read <link>the terms</link>.", Mode::kStrict, &p).message() ==
        "markup: </link> at byte 20 has no open <link>");
  p = ParseOk("Read <link>the terms</link> and <0>unmute</0> <br/>now <code>x</code><script>y</script>.", Mode::kXml);
  CHECK(p.text == "Read the terms and unmute now y.");
  REQUIRE(p.elements.size() == 5);
  CHECK(p.elements[0].kind == Element::Kind::kPair);
  CHECK(p.elements[0].open == "<link>");
  CHECK(p.elements[0].close == "</link>");
  CHECK(p.text.substr(p.elements[0].begin, p.elements[0].end - p.elements[0].begin) == "the terms");
  CHECK(p.elements[1].open == "<0>");
  CHECK(p.text.substr(p.elements[1].begin, p.elements[1].end - p.elements[1].begin) == "unmute");
  CHECK(p.elements[2].kind == Element::Kind::kVerbatim);  // self-closing
  // <code> is kept verbatim as in HTML (it was translated in xml mode before 2026-11-29: a Fluent string's
  // "<code>about:config</code>" came back "<code>Dieser</code>"), unless translate_code; a script is text.
  CHECK(p.elements[3].kind == Element::Kind::kVerbatim);
  CHECK(p.elements[4].kind == Element::Kind::kPair);
  REQUIRE(markup::Parse("now <code>x</code>.", Mode::kXml, &p, /*translate_code=*/true).ok());
  CHECK(p.elements[0].kind == Element::Kind::kPair);
  // Strict: an element left open fails the line; translate="no" still keeps its element verbatim.
  CHECK(markup::Parse("Press <0>here", Mode::kXml, &p).message() == "markup: <0> at byte 6 is not closed");
  p = ParseOk("Open <app translate=\"no\">Tern Files</app> now.", Mode::kXml);
  CHECK(p.text.find("Tern Files") == std::string::npos);
}

TEST_CASE("Translate with xml markup: an app string's numbered tag comes back once around its words") {
  auto t = MakeTranslator(LoadOrFail(BundledModel()));
  std::string_view in[] = {"A man <0>rides a bike</0> on the street.", "Two dogs play in the <link>snow</link>."};
  TranslateOptions o;
  o.beam_size = 1;
  o.markup = Markup::kXml;
  Span<const TranslationResult> r;
  REQUIRE(t->Translate(in, o, &r).ok());
  for (size_t i = 0; i < 2; ++i) {
    CAPTURE(i);
    REQUIRE(r[i].ok());
    const std::string out(r[i].best().text);
    const std::string open = i == 0 ? "<0>" : "<link>", close = i == 0 ? "</0>" : "</link>";
    REQUIRE(out.find(open) != std::string::npos);
    CHECK(out.find(open, out.find(open) + 1) == std::string::npos);
    CHECK(out.find(close) != std::string::npos);
    CHECK(out.find(open) < out.find(close));
    Parsed again;
    CHECK(markup::Parse(out, Mode::kXml, &again).ok());
  }
  o.markup = static_cast<Markup>(4);
  CHECK(t->Translate(in, o, &r).message() == "markup 4: must be 0 (none), 1 (html), 2 (html-lenient) or 3 (xml)");
}

TEST_CASE("tag transfer: an element whose words the model dropped wraps the word where it maps, never nothing") {
  // "big" has no aligned target token (the model dropped it): <b> wraps the next word instead of "<b></b>".
  Parsed p = ParseOk("A <b>big</b> dog runs.");
  std::string out = Transfer(p, MakeFake(p, "Ein Hund läuft.", {0, 2, 3}));
  CHECK(out == "Ein <b>Hund</b> läuft.");
  // At the end of the translation: the word before.
  p = ParseOk("Dogs run <i>fast</i>");
  out = Transfer(p, MakeFake(p, "Hunde rennen", {0, 1}));
  CHECK(out == "Hunde <i>rennen</i>");
  // An element of no word (spaces, punctuation) stays a point.
  p = ParseOk("Dogs run<i> </i>fast");
  out = Transfer(p, MakeFake(p, "Hunde rennen schnell", {0, 1, 2}));
  CHECK(out == "Hunde rennen<i></i> schnell");
}

TEST_CASE("markup with placeholders: those in the text are kept verbatim, those inside tags are left alone") {
  std::string_view line = "Unmute <0>@{username}</0> at <a href=\"https://x.org/{id}\">%s</a> now.";
  std::vector<TextSpan> keep;
  markup::FindPlaceholders(line, &keep);
  Parsed p;
  REQUIRE(markup::Parse(line, Mode::kXml, &p, false, Span<const TextSpan>(keep.data(), keep.size())).ok());
  CHECK(p.text.find("{username}") == std::string::npos);
  CHECK(p.text.find("%s") == std::string::npos);
  CHECK(p.text.find('@') == std::string::npos);  // a mention's '@' goes with its placeholder (the model dropped it)
  size_t verbatim = 0;
  for (const Element& e : p.elements) verbatim += e.kind == Element::Kind::kVerbatim;
  CHECK(verbatim == 2);
  CHECK(p.elements[0].open == "<0>");
  // Through the translator: every placeholder and tag comes back once.
  auto t = MakeTranslator(LoadOrFail(BundledModel()));
  std::string_view in[] = {"A man <0>with {count} dogs</0> rides a bike on the street.",
                           "Two dogs play in the <b>snow</b> with %s and https://tern.dev/a?b=1&amp;c=2 today."};
  TranslateOptions o;
  o.beam_size = 1;
  o.markup = Markup::kXml;
  o.keep_placeholders = true;
  Span<const TranslationResult> r;
  REQUIRE(t->Translate(in, o, &r).ok());
  for (size_t i = 0; i < 2; ++i) {
    CAPTURE(i);
    REQUIRE(r[i].ok());
    const std::string out(r[i].best().text);
    CAPTURE(out);
    for (const char* x : i == 0 ? std::vector<const char*>{"{count}", "<0>", "</0>"}
                                : std::vector<const char*>{"%s", "https://tern.dev/a?b=1&amp;c=2", "<b>", "</b>"}) {
      CHECK_MESSAGE(Count(out, x) == 1, x);
    }
    Parsed again;
    CHECK(markup::Parse(out, Mode::kXml, &again).ok());
  }
  // A caller's span that cuts a character fails its text alone.
  const KeepSpan bad{0, TextSpan{1, 3}};
  std::string_view umlaut[] = {"\xc3\xbc<b>x</b>"};
  o.keep_placeholders = false;
  o.keep_spans = Span<const KeepSpan>(&bad, 1);
  REQUIRE(t->Translate(umlaut, o, &r).ok());
  CHECK(r[0].error_message == "do-not-translate span [1, 3) leaves the text or cuts a UTF-8 character");
}
