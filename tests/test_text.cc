// Text handling around the model: paragraphs split into sentences and joined, MarianTokenizer's
// language codes, transformers' clean_up_tokenization.
#include <string>

#include <flatbuffers/flatbuffers.h>

#include "text/sentence_splitter.h"
#include "tern/tokenize.h"
#include "test_util.h"
#include "text/piece_index.h"
#include "text/tokenizer.h"

using namespace tern;
using namespace tern::test;

namespace {

std::string Best(Translator& t, std::string_view text, TranslateOptions o = {}) {
  Span<const TranslationResult> r;
  REQUIRE(t.Translate(Span<const std::string_view>(&text, 1), o, &r).ok());
  REQUIRE_MESSAGE(r[0].ok(), r[0].error_message);
  return std::string(r[0].best().text);
}

}  // namespace

TEST_CASE("a text of several sentences: each translated alone, joined with the whitespace between them") {
  if (!SentenceSplitter::Available()) return;  // built without ICU
  TranslatorConfig c;
  c.max_batch = 2;  // 5 sentences: three chunks
  auto t = MakeTranslator(LoadOrFail(ModelPath("post-swish", "f32")), c);
  const std::string a = "A man in a blue shirt.", b = "Two children play!", d = "The dog runs?", e = "A woman reads.",
                    f = "People walk.";
  const std::string para = a + " " + b + "  " + d + "\t" + e + " " + f;
  const std::string want = Best(*t, a) + " " + Best(*t, b) + "  " + Best(*t, d) + "\t" + Best(*t, e) + " " + Best(*t, f);
  CHECK(Best(*t, para) == want);
  TranslateOptions whole;
  whole.split_sentences = false;
  CHECK(Best(*t, para, whole) != want);  // the model sees one long input instead
  // Results stay in input order, with single-sentence texts around the paragraph.
  std::string_view in[] = {a, para};
  Span<const TranslationResult> r;
  REQUIRE(t->Translate(in, {}, &r).ok());
  CHECK(std::string(r[0].best().text) == Best(*t, a));
  CHECK(std::string(r[1].best().text) == want);
  // Ids are the sentences' ids one after the other; the score is their sum.
  CHECK(r[1].best().ids.size() > 0);
}

TEST_CASE("a sentence of a paragraph that fails makes its text fail, naming the sentence") {
  if (!SentenceSplitter::Available()) return;
  TranslatorConfig c;
  c.max_source_tokens = 12;
  auto t = MakeTranslator(LoadOrFail(ModelPath("post-swish", "int8")), c);
  std::string long_one = "The";  // upper case after ". ": a sentence of its own (UAX #29)
  for (int i = 0; i < 20; ++i) long_one += " man in the street";
  const std::string text = "A dog runs. " + long_one + ". Two children play.";
  std::string_view in[] = {text, "A dog runs."};
  Span<const TranslationResult> r;
  REQUIRE(t->Translate(in, {}, &r).ok());
  CHECK(r[0].error == StatusCode::kResourceExhausted);
  CHECK(std::string(r[0].error_message).find("sentence 2 of 3: ") == 0);
  CHECK(std::string(r[0].error_message).find("exceed max_source_tokens 12") != std::string::npos);
  CHECK(r[1].ok());
}

TEST_CASE("only texts that may hold several sentences reach ICU") {
  CHECK(SentenceSplitter::SurelyOneSentence("A dog runs."));
  CHECK(SentenceSplitter::SurelyOneSentence("A dog runs.\"  "));
  CHECK(SentenceSplitter::SurelyOneSentence("no terminator at all"));
  CHECK(SentenceSplitter::SurelyOneSentence(""));
  CHECK(!SentenceSplitter::SurelyOneSentence("A dog. A cat."));
  CHECK(!SentenceSplitter::SurelyOneSentence("Mr. Smith runs"));  // ICU decides (suppressions)
  CHECK(!SentenceSplitter::SurelyOneSentence("line one\nline two"));
  CHECK(!SentenceSplitter::SurelyOneSentence("Café."));  // non-ASCII: ICU decides
  if (!SentenceSplitter::Available()) return;
  auto s = SentenceSplitter::Create("en");
  REQUIRE(s.ok());
  std::vector<SentenceSpan> spans;
  const std::string_view text = "  First one. Second one!  Third one?\tMr. Smith stays whole.  ";
  REQUIRE(s.value()->Split(text, &spans).ok());
  REQUIRE(spans.size() == 4);
  CHECK(text.substr(spans[0].begin, spans[0].end - spans[0].begin) == "First one.");
  CHECK(text.substr(spans[0].end, spans[0].gap_end - spans[0].end) == " ");
  CHECK(text.substr(spans[1].end, spans[1].gap_end - spans[1].end) == "  ");
  CHECK(text.substr(spans[2].end, spans[2].gap_end - spans[2].end) == "\t");
  CHECK(text.substr(spans[3].begin, spans[3].end - spans[3].begin) == "Mr. Smith stays whole.");
}

TEST_CASE("language codes: MarianTokenizer's rule, --target-lang, unknown languages refused") {
  auto m = LoadOrFail(ModelPath("post-rules", "int8"));
  REQUIRE(m->language_tokens().size() == 2);
  CHECK(m->language_tokens()[0] == ">>por<<");
  CHECK(m->language_tokens()[1] == ">>pob<<");
  const auto& vocab = m->source_vocab();
  const uint32_t por = static_cast<uint32_t>(std::find(vocab.begin(), vocab.end(), ">>por<<") - vocab.begin());
  auto tok = TextTokenizer::Create(m);
  REQUIRE(tok.ok());
  std::vector<uint32_t> plain, coded, by_option, replaced, unknown;
  REQUIRE(tok.value()->Encode("A dog runs.", "", &plain).ok());
  REQUIRE(tok.value()->Encode(">>por<< A dog runs.", "", &coded).ok());
  REQUIRE(tok.value()->Encode("A dog runs.", "por", &by_option).ok());
  REQUIRE(tok.value()->Encode(">>pob<< A dog runs.", "por", &replaced).ok());
  REQUIRE(tok.value()->Encode(">>xyz<< A dog runs.", "", &unknown).ok());
  std::vector<uint32_t> want = {por};
  want.insert(want.end(), plain.begin(), plain.end());
  CHECK(coded == want);  // the code is one id, never split by SentencePiece
  CHECK(by_option == want);
  CHECK(replaced == want);  // the option's language wins
  CHECK(unknown[0] == m->hparams().unk_id);
  std::vector<uint32_t> ids;
  Status s = tok.value()->Encode("A dog.", "deu", &ids);
  CHECK(s.code() == StatusCode::kInvalidArgument);
  CHECK(s.message() == "the model has no target-language token >>deu<<");
  auto t = MakeTranslator(m);
  TranslateOptions o;
  o.target_lang = "deu";
  std::string_view in[] = {"A dog."};
  Span<const TranslationResult> r;
  s = t->Translate(in, o, &r);
  CHECK(s.code() == StatusCode::kInvalidArgument);
  CHECK(s.message() == "target_lang 'deu': the model has no >>deu<< token (it has >>por<<, >>pob<<)");
  o.target_lang = "por";
  CHECK(t->Translate(in, o, &r).ok());
}

TEST_CASE("clean_up_tokenization: transformers' rules, in order, over the whole text") {
  auto clean = [](std::string s) {
    s.resize(CleanUpTokenization(s.data(), s.size()));
    return s;
  };
  CHECK(clean("Hello , world !") == "Hello, world!");
  CHECK(clean("Is it ? Yes .") == "Is it? Yes.");
  CHECK(clean("I do n't know , I 'm sure it 's fine") == "I don't know, I'm sure it's fine");
  CHECK(clean("we 've and they 're") == "we've and they're");
  CHECK(clean("rock ' n roll") == "rock'n roll");
  CHECK(clean("a  .") == "a .");  // one space removed per match, as str.replace
  CHECK(clean("") == "");
}

TEST_CASE("a line that starts with a language code gives the code to each of its sentences") {
  // ">>por<< A cat sleeps. A dog runs." was split and only the first sentence got the code: the second
  // was translated into the default language. Each sentence must translate as it does alone with the code.
  if (!SentenceSplitter::Available()) return;
  auto m = LoadOrFail(ModelPath("post-rules", "int8"));
  auto t = MakeTranslator(m);
  TranslateOptions o;
  o.beam_size = 1;
  std::vector<uint32_t> want;
  for (std::string_view part : {">>por<< A cat sleeps.", ">>por<< A dog runs in the park."}) {
    std::string_view one[] = {part};
    Span<const TranslationResult> r;
    REQUIRE(t->Translate(one, o, &r).ok());
    REQUIRE(r[0].ok());
    want.insert(want.end(), r[0].best().ids.begin(), r[0].best().ids.end());
  }
  std::string_view line[] = {">>por<< A cat sleeps. A dog runs in the park."};
  Span<const TranslationResult> r;
  REQUIRE(t->Translate(line, o, &r).ok());
  REQUIRE(r[0].ok());
  CHECK(ToVector(r[0].best().ids) == want);
  // The same with the option instead of the code: identical.
  o.target_lang = "por";
  std::string_view plain[] = {"A cat sleeps. A dog runs in the park."};
  REQUIRE(t->Translate(plain, o, &r).ok());
  CHECK(ToVector(r[0].best().ids) == want);
}

TEST_CASE("clean_up_tokenization's origin map: each output byte's position in the input") {
  std::string s = "I do n't know , ok .";
  std::vector<uint32_t> origin(s.size());
  s.resize(CleanUpTokenization(s.data(), s.size(), origin.data()));
  REQUIRE(s == "I don't know, ok.");
  const std::string in = "I do n't know , ok .";
  for (size_t i = 0; i < s.size(); ++i) CHECK(in[origin[i]] == s[i]);
  CHECK(origin[4] == 5);  // "n't" moved left by one
}

TEST_CASE("source spans: each id's bytes in the text, the language code's, an empty one at the end for </s>") {
  auto model = LoadOrFail(BundledModel());
  auto tok = Tokenizer::Create(*model);
  REQUIRE(tok.ok());
  const std::string text = "A  man\twith \xc3\xa9" "clair, Na\xc3\xaf" "ve.";
  std::vector<uint32_t> ids(64);
  std::vector<TextSpan> spans(64);
  size_t n = 0;
  REQUIRE(tok.value()->Encode(text, "", ids.data(), ids.size(), &n, spans.data()).ok());
  REQUIRE(n >= 4);
  CHECK(text.substr(spans[0].begin, spans[0].end - spans[0].begin) == "A");
  CHECK(text.substr(spans[1].begin, spans[1].end - spans[1].begin) == "man");  // the double space left out
  for (size_t k = 1; k < n; ++k) CHECK(spans[k].begin >= spans[k - 1].end);
  CHECK(spans[n - 1].begin == text.size());  // </s>
  CHECK(spans[n - 1].end == text.size());
  // The ids are what Encode gives without spans.
  std::vector<uint32_t> plain(64);
  size_t m = 0;
  REQUIRE(tok.value()->Encode(text, "", plain.data(), plain.size(), &m).ok());
  CHECK(m == n);
  CHECK(std::equal(ids.begin(), ids.begin() + n, plain.begin()));
}

TEST_CASE("target spans: each token's bytes in the detokenized text, through the clean-up") {
  auto model = LoadOrFail(BundledModel());
  auto tok = Tokenizer::Create(*model, Tokenizer::Side::kTarget);
  REQUIRE(tok.ok());
  // Pieces by name from the target vocabulary.
  auto id = [&](std::string_view piece) {
    const auto& v = model->target_vocab();
    for (size_t i = 0; i < v.size(); ++i)
      if (v[i] == piece) return static_cast<uint32_t>(i);
    FAIL("no piece " << piece);
    return 0u;
  };
  // "\xe2\x96\x81" (a lone word boundary) before "," and "." makes " ," and " .", which the clean-up joins.
  const std::vector<uint32_t> ids = {id("\xe2\x96\x81" "Ein"), id("\xe2\x96\x81" "Hund"), id("\xe2\x96\x81"), id(","),
                                     id("\xe2\x96\x81" "der"), id("\xe2\x96\x81"), id("."), model->hparams().eos_id};
  std::vector<char> text(256);
  std::vector<TextSpan> spans(ids.size());
  std::vector<uint32_t> scratch(text.size());
  const size_t len = tok.value()->Decode(ids.data(), ids.size(), text.data(), text.size(), spans.data(), scratch.data());
  const std::string s(text.data(), len);
  const bool cleans = model->clean_up_tokenization_spaces();
  CHECK(s == (cleans ? "Ein Hund, der." : "Ein Hund , der ."));
  const char* want[] = {"Ein", "Hund", "", ",", "der", "", "."};
  for (size_t k = 0; k < 7; ++k) CHECK(s.substr(spans[k].begin, spans[k].end - spans[k].begin) == want[k]);
  CHECK(spans[7].begin == len);  // </s>
  // The same text as without spans.
  std::vector<char> plain(256);
  CHECK(tok.value()->Decode(ids.data(), ids.size(), plain.data(), plain.size()) == len);
}

TEST_CASE("piece index: every piece finds its first id, absent pieces none, at every id width") {
  for (size_t n : {size_t{1}, size_t{2}, size_t{3}, size_t{1000}, size_t{65535}, size_t{65536}, size_t{70000}}) {
    CAPTURE(n);
    std::vector<std::string> pieces;
    for (size_t i = 0; i < n; ++i) pieces.push_back("\xe2\x96\x81p" + std::to_string(i % 997 == 5 ? i - 1 : i));  // some twice
    // A vocabulary as a .tern stores it: a FlatBuffers vector of strings.
    flatbuffers::FlatBufferBuilder fbb;
    fbb.Finish(fbb.CreateVectorOfStrings(pieces));
    const auto* strings = flatbuffers::GetRoot<flatbuffers::Vector<flatbuffers::Offset<flatbuffers::String>>>(fbb.GetBufferPointer());
    const PieceList vocab(strings, strings->size());
    REQUIRE(vocab.size() == n);
    CHECK(vocab[n - 1] == pieces[n - 1]);
    PieceIndex index;
    index.Build(vocab);
    for (size_t i = 0; i < n; ++i) {
      const uint32_t want = i % 997 == 5 ? static_cast<uint32_t>(i - 1) : static_cast<uint32_t>(i);
      if (index.Find(vocab[i]) != want) REQUIRE(index.Find(vocab[i]) == want);  // REQUIRE once, not n times
    }
    CHECK(index.Find("absent") == PieceIndex::kNone);
    CHECK(index.Find("") == PieceIndex::kNone);
    CHECK(index.Find("\xe2\x96\x81p" + std::to_string(n + 3)) == PieceIndex::kNone);
  }
  PieceIndex empty;
  CHECK(empty.Find("a") == PieceIndex::kNone);
}
