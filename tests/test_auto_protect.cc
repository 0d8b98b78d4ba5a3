// TranslateOptions::auto_protect (on by default, issue 40): a plain text's URLs, e-mail addresses and printf
// and brace placeholders come out verbatim without keep_placeholders, exactly as keep_placeholders with those
// syntaxes keeps them; a text without any is translated bit for bit as with auto_protect off; calls that
// cannot keep spans (on_token, target prefixes) translate such a text as it is; a continuous call (the engine's)
// takes it apart as Translate does (tests/test_continuous.cc compares every field).
#include <string>
#include <vector>

#include "tern/engine.h"
#include "tern/tern.h"
#include "test_util.h"

using namespace tern;
using namespace tern::test;

namespace {

const std::vector<std::string> kProtected = {
    "Visit https://example.com/en/help for the manual.", "Write to help@example.org if a man needs help.",
    "Delete {count} files from the red folder?", "Two men carried %d boxes and %s bags up the stairs."};
const std::vector<std::string> kPlain = {"A man in a blue shirt is standing on a ladder.", "Two dogs play in the snow."};
const std::vector<std::string> kSpans = {"https://example.com/en/help", "help@example.org", "{count}", "%d"};

struct Out {
  std::vector<std::string> texts;
  std::vector<std::vector<uint32_t>> ids;
  std::vector<float> scores;
  bool operator==(const Out& o) const { return texts == o.texts && ids == o.ids && scores == o.scores; }
};

Out Run(Translator& t, const std::vector<std::string>& texts, const TranslateOptions& o) {
  std::vector<std::string_view> v(texts.begin(), texts.end());
  Span<const TranslationResult> rs;
  REQUIRE(t.Translate(Span<const std::string_view>(v.data(), v.size()), o, &rs).ok());
  Out out;
  for (const TranslationResult& r : rs) {
    REQUIRE_MESSAGE(r.ok(), r.error_message);
    out.texts.emplace_back(r.best().text);
    out.ids.push_back(ToVector(r.best().ids));
    out.scores.push_back(r.best().score);
  }
  return out;
}

TranslateOptions Beam(uint32_t beam) {
  TranslateOptions o;
  o.beam_size = beam;
  o.max_length = 40;
  return o;
}

}  // namespace

TEST_CASE("auto_protect: URLs, e-mail addresses, printf and brace placeholders come out verbatim by default") {
  auto t = MakeTranslator(LoadOrFail(BundledModel()));
  for (uint32_t beam : {1u, 4u}) {
    CAPTURE(beam);
    const Out out = Run(*t, kProtected, Beam(beam));
    for (size_t i = 0; i < kProtected.size(); ++i) CHECK_MESSAGE(Count(out.texts[i], kSpans[i]) == 1, out.texts[i]);
    CHECK(Count(out.texts[3], "%s") == 1);
    TranslateOptions keep = Beam(beam);
    keep.keep_placeholders = true;
    keep.placeholder_syntaxes = placeholder_syntax::kAutoProtect;
    CHECK(Run(*t, kProtected, keep) == out);  // what keep_placeholders with those syntaxes gives
    TranslateOptions off = Beam(beam);
    off.auto_protect = false;
    const Out unprotected = Run(*t, kProtected, off);
    CHECK(Count(unprotected.texts[0], kSpans[0]) == 0);  // the bundled model mangles the address
  }
}

TEST_CASE("auto_protect: texts without such spans are translated bit for bit as with it off") {
  auto t = MakeTranslator(LoadOrFail(BundledModel()));
  TranslateOptions off = Beam(4);
  off.auto_protect = false;
  CHECK(Run(*t, kPlain, Beam(4)) == Run(*t, kPlain, off));
  // In a call with a protected text, each text gets what it gets alone.
  const std::vector<std::string> mixed = {kPlain[0], kProtected[0], kPlain[1]};
  const Out together = Run(*t, mixed, Beam(4));
  for (size_t i = 0; i < mixed.size(); ++i) {
    const Out alone = Run(*t, {mixed[i]}, Beam(4));
    CHECK(together.texts[i] == alone.texts[0]);
    CHECK(together.ids[i] == alone.ids[0]);
  }
  // A placeholder syntax switched off is not protected by default either.
  TranslateOptions no_url = Beam(4);
  no_url.placeholder_syntaxes = placeholder_syntax::kDefault & ~placeholder_syntax::kUrl;
  TranslateOptions off_url = no_url;
  off_url.auto_protect = false;
  CHECK(Run(*t, {kProtected[0]}, no_url) == Run(*t, {kProtected[0]}, off_url));
}

TEST_CASE("auto_protect: on_token and target prefixes translate such a text as it is, without an error") {
  auto t = MakeTranslator(LoadOrFail(BundledModel()));
  TranslateOptions off = Beam(1);
  off.auto_protect = false;
  const Out as_is = Run(*t, {kProtected[0]}, off);
  TranslateOptions streamed = Beam(1);
  std::string streamed_text;
  streamed.on_token = [](const TokenEvent& e, void* user) {
    *static_cast<std::string*>(user) += std::string(e.text);
    return true;
  };
  streamed.on_token_user_data = &streamed_text;
  CHECK(Run(*t, {kProtected[0]}, streamed) == as_is);
  CHECK(streamed_text == as_is.texts[0]);
  TranslateOptions prefixed = Beam(1);
  const std::string_view prefix = "Besuchen";
  prefixed.target_prefix = Span<const std::string_view>(&prefix, 1);
  TranslateOptions prefixed_off = prefixed;
  prefixed_off.auto_protect = false;
  CHECK(Run(*t, {kProtected[0]}, prefixed) == Run(*t, {kProtected[0]}, prefixed_off));
}

TEST_CASE("auto_protect: the engine's continuous calls give such texts what Translate gives") {
  auto m = LoadOrFail(BundledModel());
  auto t = MakeTranslator(m);
  std::vector<std::string> texts = kProtected;
  texts.insert(texts.end(), kPlain.begin(), kPlain.end());
  const Out expected = Run(*t, texts, Beam(4));
  EngineConfig c;
  c.replicas = 1;
  c.translator.threads = 1;
  c.continuous_batching = true;
  auto e = Engine::Create(m, c);
  REQUIRE(e.ok());
  std::vector<Ticket> tickets;
  for (const std::string& text : texts) {
    Request r;
    r.texts = {text};
    r.options = Beam(4);
    tickets.push_back(e.value()->Submit(std::move(r)).value());
  }
  for (size_t i = 0; i < texts.size(); ++i) {
    const RequestOutcome& out = tickets[i].Wait();
    REQUIRE(out.status.ok());
    REQUIRE(out.results.size() == 1);
    REQUIRE(out.results[0].ok());
    CHECK(out.results[0].best().text == expected.texts[i]);
  }
}
