// tern's SentencePiece encoder (text/spm_encoder.h) against the SentencePiece library it replaces: the same
// pieces and the same byte ranges for every text, on
//  - the bundled OPUS-MT en-de model's source and target SentencePiece models (unigram), the real OPUS-MT
//    tokenizers of $TERN_OPUS_ASSETS (../shared/opus-assets or ~/.cache/tern/opus-assets: en-mg, tc-big-en-pt)
//    when present, and the test models' BPE tokenizers (scripts/make-test-models.sh);
//  - every Multi30k split (train, val, test_2016_flickr; en, de, fr, cs) beside the repository
//    ($TERN_SHARED_DIR, else ../shared; skipped with a message without it; $TERN_SPM_LINES caps the lines
//    per file under sanitizers and emulators);
//  - app strings, markup, emoji, every kind of Unicode whitespace and compatibility character, and random
//    Unicode from a fixed seed;
//  - models built here (unigram and BPE) for what those lack: byte_fallback, user-defined symbols, unused
//    pieces, the whitespace options off, tied scores.
// Every comparison also runs the encoder over the piece trie tern-convert writes into a .tern
// (format/piece_trie.h), which a load maps instead of building: the same pieces and spans. Tries that fail
// their check are refused, in the encoder and in a whole file. And linear time: a run of characters no piece has (1 MB of '{') costs about what 1 MB of 'a' costs.
#include <chrono>
#include <cstring>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <unistd.h>

#include <sentencepiece_processor.h>

#include "base/utf8.h"
#include "model/model_impl.h"
#include "tern/tokenize.h"
#include "test_util.h"
#include "text/piece_encoder.h"
#include "text/piece_text.h"
#include "text/tokenizer.h"
#include "text/spm_encoder.h"
#include "piece_trie.h"
#include "tern_generated.h"

using namespace tern;
using namespace tern::test;
namespace fs = std::filesystem;

namespace {

std::string SharedDir() {
  const char* shared = std::getenv("TERN_SHARED_DIR");
  return shared ? std::string(shared) : std::string(TERN_SOURCE_DIR) + "/../shared";
}

std::string OpusAssetsDir() {
  if (const char* a = std::getenv("TERN_OPUS_ASSETS")) return a;
  if (fs::exists(SharedDir() + "/opus-assets")) return SharedDir() + "/opus-assets";
  const char* cache = std::getenv("XDG_CACHE_HOME");
  const char* home = std::getenv("HOME");
  return cache ? std::string(cache) + "/tern/opus-assets" : std::string(home ? home : "/nonexistent") + "/.cache/tern/opus-assets";
}

std::string ReadFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

std::vector<std::string> Lines(const std::string& path, size_t limit) {
  std::vector<std::string> lines;
  std::ifstream f(path);
  for (std::string line; lines.size() < limit && std::getline(f, line);) lines.push_back(line);
  return lines;
}

size_t LineLimit() {
  const char* env = std::getenv("TERN_SPM_LINES");
  return env ? std::strtoul(env, nullptr, 10) : SIZE_MAX;
}

// The bundled model's SentencePiece protos (source, target).
std::pair<std::string, std::string> BundledProtos() {
  auto m = LoadOrFail(BundledModel());
  return {std::string(m->impl().source_spm()), std::string(m->impl().target_spm())};
}

// A test model's BPE protos (source, target).
std::pair<std::string, std::string> TestModelProtos() {
  auto m = LoadOrFail(ModelPath("post-swish", "int8"));
  return {std::string(m->impl().source_spm()), std::string(m->impl().target_spm())};
}

// Encodes with both and compares pieces and spans; returns the number of texts compared. Stops at the
// first difference with a message naming the text.
struct Comparer {
  std::string name;
  std::unique_ptr<SpmEncoder> ours;
  format::ByteTrie trie;                // what tern-convert writes (format/piece_trie.h)
  std::unique_ptr<SpmEncoder> mapped;   // over it, as a load takes it from the file
  sentencepiece::SentencePieceProcessor library;
  SpmEncoder::Scratch scratch, mapped_scratch;
  std::vector<SpmEncoder::Piece> pieces, mapped_pieces;

  Comparer(const std::string& proto, std::string n) : name(std::move(n)) {
    auto e = SpmEncoder::Create(proto, name + ": ");
    REQUIRE_MESSAGE(e.ok(), e.status().message());
    ours = std::move(e).value();
    auto t = format::BuildPieceTrie(proto, name);
    REQUIRE_MESSAGE(t.ok(), t.status().message());
    trie = std::move(t).value();
    auto m = SpmEncoder::Create(proto, name + ": ", &trie.arrays());
    REQUIRE_MESSAGE(m.ok(), m.status().message());
    mapped = std::move(m).value();
    const auto st = library.LoadFromSerializedProto({proto.data(), proto.size()});
    REQUIRE_MESSAGE(st.ok(), name << ": " << st.ToString());
  }

  bool Same(const std::string& text) {
    ours->Encode(text, &scratch, &pieces);
    mapped->Encode(text, &mapped_scratch, &mapped_pieces);
    bool same_mapped = mapped_pieces.size() == pieces.size();
    for (size_t i = 0; same_mapped && i < pieces.size(); ++i)
      same_mapped = mapped_pieces[i].text == pieces[i].text && mapped_pieces[i].begin == pieces[i].begin &&
                    mapped_pieces[i].end == pieces[i].end && mapped_pieces[i].unknown == pieces[i].unknown;
    if (!same_mapped) FAIL_CHECK(name << ": text \"" << text << "\": the file's trie gives other pieces");
    const std::string spt = library.EncodeAsSerializedProto({text.data(), text.size()});
    std::vector<PieceSpan> want;
    REQUIRE(ForEachPiece(spt, [&](const PieceSpan& p) { want.push_back(p); }));
    bool same = want.size() == pieces.size();
    for (size_t i = 0; same && i < want.size(); ++i)
      same = want[i].piece == pieces[i].text && want[i].begin == pieces[i].begin && want[i].end == pieces[i].end;
    if (!same) {
      std::string got_s, want_s;
      for (const auto& p : pieces) got_s += "[" + std::string(p.text) + " " + std::to_string(p.begin) + "-" + std::to_string(p.end) + "]";
      for (const auto& p : want) want_s += "[" + std::string(p.piece) + " " + std::to_string(p.begin) + "-" + std::to_string(p.end) + "]";
      FAIL_CHECK(name << ": text \"" << text << "\"\n  tern:         " << got_s << "\n  SentencePiece: " << want_s);
    }
    return same && same_mapped;
  }

  size_t All(const std::vector<std::string>& texts) {
    size_t n = 0;
    for (const auto& t : texts) {
      if (!Same(t)) break;
      ++n;
    }
    return n;
  }
};


// Hand-written texts for what Multi30k lacks.
std::vector<std::string> HardTexts() {
  return {
      "", " ", "   ", "\t", "\n", " a", "a ", "  a  b  ", "a\tb", "a\u00a0b", "a\u3000b", "\u3000\u3000a\u3000",
      "a\u2009b\u200bc\u200dd\ufeffe", "\u2028x\u2029", "\r\n", "a\r\nb",
      "Save {count} files to %1$s?", "Hello, %s! You have %d new messages.", "{{user}} liked <b>{{post}}</b>",
      "<a href=\"https://example.com/?q=1&x=2\">Click here</a> &amp; &lt;more&gt;",
      "<p class='x'>Ein <i>kleiner</i> Hund.</p>", "${name} ${ price } $$ {0,number,#.##}",
      "\U0001F600\U0001F44D\U0001F3FD \U0001F468\u200D\U0001F469\u200D\U0001F467 \U0001F1E9\U0001F1EA flags",
      "\uff21\uff22\uff23\uff11\uff12\uff13\uff01\uff1f", "\ufb01nance \ufb02ow \u2163 \u2460\u2461 \u00bd \u2122 \u00b2",
      "e\u0301 e\u0300\u0302 \u00e9 A\u030a \u212b", "\u1100\u1161\u11a8 \ud55c\uad6d\uc5b4", "\u65e5\u672c\u8a9e\u306e\u6587\u7ae0\u3002",
      "\u0627\u0644\u0639\u0631\u0628\u064a\u0629 \u05e2\u05d1\u05e8\u05d9\u05ea", "\u0939\u093f\u0928\u094d\u0926\u0940",
      "\x01\x02\x1f\x7f\xc2\x80\xc2\x9f control", "\ue000\uf8ff private \U000F0000", "\U0010FFFF \U000E0001",
      std::string(200, '{'), std::string(100, ' ') + "x" + std::string(100, ' '), "{{{{ }}}} {a} {{b}}",
      "\u2581 already \u2581\u2581 escaped", "C++ & C# (v2.0) -- [x] 3.14% 1,000,000 e-mail@x.de",
      "ÄÖÜäöüß ÀÉÎÕÛ çñ ŁŚŻ ř č ě", std::string(50, 'a'), "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa{{{{{{{{{{{bbbb",
  };
}

// Random Unicode: characters from the ranges above and from anywhere, whitespace of every kind, in runs.
std::vector<std::string> RandomTexts(size_t n, uint32_t seed) {
  static const std::pair<uint32_t, uint32_t> kRanges[] = {
      {0x20, 0x7e},       {0x20, 0x7e},       {0x20, 0x7e},     {0xa0, 0x24f},    {0x300, 0x36f},   {0x370, 0x52f},
      {0x590, 0x6ff},     {0x900, 0x97f},     {0xe00, 0xe7f},   {0x1100, 0x11ff}, {0x2000, 0x206f}, {0x2100, 0x24ff},
      {0x3000, 0x30ff},   {0x4e00, 0x4eff},   {0xac00, 0xacff}, {0xfb00, 0xfb4f}, {0xfe00, 0xfe6f}, {0xff00, 0xffef},
      {0x1f300, 0x1faff}, {0x1, 0x1f},        {0x80, 0x9f},     {0x1, 0x10ffff},
  };
  static const uint32_t kSpaces[] = {' ', ' ', ' ', '\t', '\n', '\r', 0xa0, 0x1680, 0x2000, 0x2002, 0x2009, 0x200a,
                                     0x200b, 0x202f, 0x205f, 0x3000, 0xfeff, 0x2028, 0x85};
  std::mt19937 rng(seed);
  std::vector<std::string> out;
  for (size_t i = 0; i < n; ++i) {
    std::string s;
    const size_t chars = rng() % 60;
    const auto& range = kRanges[rng() % std::size(kRanges)];  // most of a text from one script
    for (size_t k = 0; k < chars; ++k) {
      uint32_t cp;
      const uint32_t pick = rng() % 10;
      if (pick < 2) {
        cp = kSpaces[rng() % std::size(kSpaces)];
      } else {
        const auto& r = pick < 8 ? range : kRanges[rng() % std::size(kRanges)];
        cp = r.first + rng() % (r.second - r.first + 1);
      }
      if (cp >= 0xd800 && cp <= 0xdfff) cp = 0xfffd;  // no surrogates in UTF-8
      if (cp == 0) cp = 1;                            // the tokenizer refuses NUL before the encoder
      AppendUtf8(cp, &s);
    }
    out.push_back(std::move(s));
  }
  return out;
}

// ---- ModelProto written by hand (sentencepiece_model.proto's field numbers) ----
void Varint(std::string* s, uint64_t v) {
  while (v >= 0x80) s->push_back(static_cast<char>((v & 0x7f) | 0x80)), v >>= 7;
  s->push_back(static_cast<char>(v));
}
void Field(std::string* s, uint32_t number, std::string_view bytes) {
  Varint(s, uint64_t{number} << 3 | 2), Varint(s, bytes.size()), s->append(bytes);
}
void FieldVarint(std::string* s, uint32_t number, uint64_t v) { Varint(s, uint64_t{number} << 3), Varint(s, v); }

enum PieceType { kNormal = 1, kUnknown = 2, kControl = 3, kUserDefined = 4, kUnused = 5, kByte = 6 };
struct SyntheticModel {
  std::vector<std::tuple<std::string, float, PieceType>> pieces;
  bool byte_fallback = false;
  std::string charsmap;  // a precompiled charsmap, or none
  bool add_dummy_prefix = true, remove_extra_whitespaces = true, escape_whitespaces = true;
  int model_type = 1;  // UNIGRAM; 2: BPE

  std::string Proto() const {
    std::string p;
    for (const auto& [text, score, type] : pieces) {
      std::string sp;
      Field(&sp, 1, text);
      uint32_t bits;
      std::memcpy(&bits, &score, 4);
      Varint(&sp, 2 << 3 | 5);
      for (int k = 0; k < 4; ++k) sp.push_back(static_cast<char>(bits >> (8 * k)));
      FieldVarint(&sp, 3, type);
      Field(&p, 1, sp);
    }
    std::string trainer;
    FieldVarint(&trainer, 3, model_type);
    if (byte_fallback) FieldVarint(&trainer, 35, 1);
    Field(&p, 2, trainer);
    std::string normalizer;
    Field(&normalizer, 1, charsmap.empty() ? "identity" : "nmt_nfkc");
    if (!charsmap.empty()) Field(&normalizer, 2, charsmap);
    FieldVarint(&normalizer, 3, add_dummy_prefix), FieldVarint(&normalizer, 4, remove_extra_whitespaces);
    FieldVarint(&normalizer, 5, escape_whitespaces);
    Field(&p, 3, normalizer);
    return p;
  }
};

// The precompiled charsmap of a real model (NormalizerSpec field 2 of ModelProto field 3).
std::string CharsMapOf(const std::string& proto) {
  std::string out;
  const char* p = proto.data();
  const char* end = p + proto.size();
  while (p < end) {
    uint64_t key = 0, len = 0;
    REQUIRE(piece_text::Varint(p, end, &key));
    if ((key & 7) != 2) {
      REQUIRE(piece_text::Skip(p, end, static_cast<uint32_t>(key & 7)));
      continue;
    }
    REQUIRE(piece_text::Varint(p, end, &len));
    const std::string_view body(p, len);
    p += len;
    if ((key >> 3) != 3) continue;
    const char* q = body.data();
    const char* qend = q + body.size();
    while (q < qend) {
      uint64_t k2 = 0, l2 = 0;
      REQUIRE(piece_text::Varint(q, qend, &k2));
      if ((k2 & 7) != 2) {
        REQUIRE(piece_text::Skip(q, qend, static_cast<uint32_t>(k2 & 7)));
        continue;
      }
      REQUIRE(piece_text::Varint(q, qend, &l2));
      if ((k2 >> 3) == 2) out.assign(q, l2);
      q += l2;
    }
  }
  return out;
}

SyntheticModel BaseModel() {
  SyntheticModel m;
  m.pieces = {{"<unk>", 0.f, kUnknown}, {"<s>", 0.f, kControl}, {"</s>", 0.f, kControl}};
  const char* words[] = {"\u2581", "\u2581a", "a", "b", "ab", "\u2581ab", "abc", "c", "\u2581the", "the", "t", "h", "e",
                         "\u2581d", "og", "\u2581dog", "d", "o", "g", "\u00e9", "\u2581\u00e9t\u00e9", "\u2581{", "x", "y"};
  float score = -1.f;
  for (const char* w : words) m.pieces.emplace_back(w, score, kNormal), score -= 0.75f;
  for (const char* w : {"\u2581t", "th", "\u2581th", "he", "do", "\u2581do", "xy", "xyx", "\u2581x", "\u2581xy"})
    m.pieces.emplace_back(w, -2.f, kNormal);  // BPE: merges of equal score, the leftmost first
  m.pieces.emplace_back("\u2581tie1", -3.f, kNormal);  // ties: the first candidate found is kept
  m.pieces.emplace_back("\u2581ti", -1.5f, kNormal);
  m.pieces.emplace_back("e1", -1.5f, kNormal);
  return m;
}

}  // namespace

TEST_CASE("spm encoder: SentencePiece's pieces and spans for the bundled model's tokenizers and the test models' BPE ones") {
  const auto [source, target] = BundledProtos();
  const auto [bpe_source, bpe_target] = TestModelProtos();
  for (const auto& [proto, name] : {std::pair{source, "en-de source.spm"}, std::pair{target, "en-de target.spm"},
                                    std::pair{bpe_source, "test model source.spm (BPE)"},
                                    std::pair{bpe_target, "test model target.spm (BPE)"}}) {
    Comparer c(proto, name);
    const auto hard = HardTexts();
    CHECK(c.All(hard) == hard.size());
    const auto random = RandomTexts(20000, 1234);
    CHECK(c.All(random) == random.size());
  }
}

TEST_CASE("spm encoder: every Multi30k split, through every real OPUS-MT tokenizer at hand") {
  const std::string data = SharedDir() + "/data/multi30k";
  if (!fs::exists(data + "/train.en")) {
    MESSAGE("skipped: no Multi30k at " << data << " (TERN_SHARED_DIR)");
    return;
  }
  std::vector<std::pair<std::string, std::string>> models;  // proto, name
  const auto [source, target] = BundledProtos();
  models.emplace_back(source, "en-de source.spm"), models.emplace_back(target, "en-de target.spm");
  models.emplace_back(TestModelProtos().first, "test model source.spm (BPE)");
  const std::string assets = OpusAssetsDir();
  for (const char* m : {"en-mg", "tc-big-en-pt"})
    for (const char* side : {"source.spm", "target.spm"}) {
      const std::string path = assets + "/" + m + "/" + side;
      if (fs::exists(path)) models.emplace_back(ReadFile(path), std::string(m) + " " + side);
      else MESSAGE("no " << path << " (TERN_OPUS_ASSETS): that tokenizer is not compared");
    }
  const size_t limit = LineLimit();
  size_t total = 0;
  for (const char* split : {"train", "val", "test_2016_flickr"})
    for (const char* lang : {"en", "de", "fr", "cs"}) {
      const auto lines = Lines(data + "/" + split + "." + lang, limit);
      // The bundled source model reads every split; the others every split but train (their time, 4x).
      for (auto& [proto, name] : models) {
        if (std::string(split) == "train" && name != "en-de source.spm" && limit == SIZE_MAX) continue;
        Comparer c(proto, name + " on " + split + "." + lang);
        const size_t same = c.All(lines);
        CHECK(same == lines.size());
        total += same;
      }
    }
  MESSAGE(total << " Multi30k lines: the same pieces and spans");
  CHECK(total > 0);
}

TEST_CASE("spm encoder: byte_fallback, user-defined symbols, unused pieces, the whitespace options, ties, unigram and BPE") {
  const std::string charsmap = CharsMapOf(BundledProtos().first);
  REQUIRE_FALSE(charsmap.empty());
  std::vector<std::string> texts = HardTexts();
  for (const char* t : {"the dog", "a ab abc", " tie1 tie1", "xyxy<sep>yx", "qqq xqqy the qq", "<sep><sep>[MASK]ab", "a[MASK]b", "\u00e9t\u00e9 {",
                        "ab  \t ab", "<se", "[MAS", "ab<sep", "\U0001F600ab\u4e2d\u6587x"})
    texts.push_back(t);
  const auto random = RandomTexts(3000, 99);
  texts.insert(texts.end(), random.begin(), random.end());
  for (int variant = 0; variant < 32; ++variant) {
    SyntheticModel m = BaseModel();
    m.model_type = variant & 16 ? 2 : 1;
    const bool bytes = variant & 1, user = variant & 2, spaces_off = variant & 4, with_charsmap = variant & 8;
    if (bytes) {
      m.byte_fallback = true;
      for (int b = 0; b < 256; ++b) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "<0x%02X>", b);
        m.pieces.emplace_back(buf, 0.f, kByte);
      }
    }
    if (user) {
      m.pieces.emplace_back("<sep>", 0.f, kUserDefined);
      m.pieces.emplace_back("[MASK]", 0.f, kUserDefined);
      m.pieces.emplace_back("qq", 0.f, kUserDefined);
    }
    m.pieces.emplace_back("\u2581dogs", -0.1f, kUnused);  // never chosen
    m.pieces.emplace_back("yx", -0.1f, kUnused);
    m.pieces.emplace_back("\u2581xyx", -0.5f, kUnused);
    if (spaces_off) m.add_dummy_prefix = false, m.remove_extra_whitespaces = false, m.escape_whitespaces = false;
    if (with_charsmap) m.charsmap = charsmap;
    Comparer c(m.Proto(), "variant " + std::to_string(variant));
    CHECK(c.All(texts) == texts.size());
  }
  // The other mixes of the three whitespace options.
  for (int bits = 0; bits < 16; ++bits) {
    SyntheticModel m = BaseModel();
    m.model_type = bits & 8 ? 2 : 1;
    m.add_dummy_prefix = bits & 1, m.remove_extra_whitespaces = bits & 2, m.escape_whitespaces = bits & 4;
    Comparer c(m.Proto(), "whitespace options " + std::to_string(bits));
    CHECK(c.All(texts) == texts.size());
  }
}

TEST_CASE("spm encoder: models it does not follow go to SentencePiece, and what SentencePiece refuses is refused") {
  SyntheticModel m = BaseModel();
  std::string word = m.Proto();
  {
    std::string trainer;
    FieldVarint(&trainer, 3, 3);  // WORD: a later TrainerSpec field replaces the model type (proto merge rules)
    Field(&word, 2, trainer);
  }
  auto u = SpmEncoder::Create(word, "word: ");
  REQUIRE_FALSE(u.ok());
  CHECK(u.status().code() == StatusCode::kUnsupported);
  auto e = PieceEncoder::Load(word, "word: ");
  REQUIRE_MESSAGE(e.ok(), e.status().message());
  CHECK(std::string(e.value()->kind()) == "sentencepiece");
  auto uni = PieceEncoder::Load(m.Proto(), "u: ");
  REQUIRE(uni.ok());
  CHECK(std::string(uni.value()->kind()) == "unigram");
  m.model_type = 2;
  auto bpe = PieceEncoder::Load(m.Proto(), "b: ");
  REQUIRE(bpe.ok());
  CHECK(std::string(bpe.value()->kind()) == "bpe");

  // No <unk>; <unk> twice; a piece twice; byte pieces without byte_fallback: both refuse, with
  // SentencePiece's message as the model's error.
  SyntheticModel no_unk = m, two_unk = m, twice = m, stray_byte = m;
  no_unk.pieces.erase(no_unk.pieces.begin());
  two_unk.pieces.emplace_back("<unk2>", 0.f, kUnknown);
  twice.pieces.emplace_back("ab", -9.f, kNormal);
  stray_byte.pieces.emplace_back("<0x41>", 0.f, kByte);
  for (const auto* bad : {&no_unk, &two_unk, &twice, &stray_byte}) {
    const std::string proto = bad->Proto();
    CHECK_FALSE(SpmEncoder::Create(proto, "m: ").ok());
    auto loaded = PieceEncoder::Load(proto, "m.tern: tokenizer.source_spm: ");
    REQUIRE_FALSE(loaded.ok());
    CHECK(loaded.status().code() == StatusCode::kInvalidModel);
    CHECK_MESSAGE(loaded.status().message().rfind("m.tern: tokenizer.source_spm: ", 0) == 0, loaded.status().message());
  }
  // A charsmap whose size word points past its end.
  SyntheticModel broken = m;
  broken.charsmap = std::string("\xff\xff\x00\x00", 4) + "abcd";
  CHECK_FALSE(SpmEncoder::Create(broken.Proto(), "m: ").ok());
}

TEST_CASE("spm encoder: the tokenizers use it, and give the library's ids and spans") {
 for (const std::string& path : {BundledModel(), ModelPath("post-swish", "int8")}) {
  CAPTURE(path);
  auto m = LoadOrFail(path);
  auto ours = Tokenizer::Create(*m);
  REQUIRE(ours.ok());
  CHECK(std::string(ours.value()->encoder_kind()) == (path == BundledModel() ? "unigram" : "bpe"));
  setenv("TERN_SENTENCEPIECE", "library", 1);
  auto lib = Tokenizer::Create(*m);
  unsetenv("TERN_SENTENCEPIECE");
  REQUIRE(lib.ok());
  CHECK(std::string(lib.value()->encoder_kind()) == "sentencepiece");
  std::vector<uint32_t> a(512), b(512);
  std::vector<TextSpan> sa(512), sb(512);
  auto texts = HardTexts();
  for (const char* t : {">>deu<< A dog.", ">>x<<", "  >>deu<< leading space", "A man in an orange hat starring at something."})
    texts.push_back(t);
  for (const auto& t : texts) {
    size_t na = 0, nb = 0;
    const Status x = ours.value()->Encode(t, "", a.data(), a.size(), &na, sa.data());
    const Status y = lib.value()->Encode(t, "", b.data(), b.size(), &nb, sb.data());
    CHECK_MESSAGE(x.code() == y.code(), t);
    if (!x.ok()) continue;
    CHECK_MESSAGE(std::vector<uint32_t>(a.begin(), a.begin() + na) == std::vector<uint32_t>(b.begin(), b.begin() + nb), t);
    for (size_t i = 0; i < na && i < nb; ++i) CHECK_MESSAGE((sa[i].begin == sb[i].begin && sa[i].end == sb[i].end), t);
  }
 }
}

TEST_CASE("spm encoder: linear in a run of characters the model lacks (1 MB of '{' against 1 MB of 'a'), unigram and BPE") {
  // Issue 57 item 4: SentencePiece took ~24 s for 1 MB of '{' against 0.5 s for 'a' (it merges the unknown run
  // piece by piece). Measured here on the same thread, in the same run: the ratio, not a time.
 for (const std::string& path : {BundledModel(), ModelPath("post-swish", "int8")}) {
  CAPTURE(path);
  auto m = LoadOrFail(path);
  auto tok = Tokenizer::Create(*m);
  REQUIRE(tok.ok());
  const size_t bytes = 1000000;
  std::vector<uint32_t> ids(bytes + 2);
  auto seconds = [&](const std::string& text, size_t* n) {
    const auto t0 = std::chrono::steady_clock::now();
    const Status st = tok.value()->Encode(text, "", ids.data(), ids.size(), n);
    REQUIRE_MESSAGE(st.ok(), st.message());
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  size_t n_plain = 0, n_unknown = 0, n_cjk = 0;
  double plain = 1e9, unknown = 1e9, cjk = 1e9;
  std::string cjk_text;
  while (cjk_text.size() < bytes) AppendUtf8(0x4e00 + static_cast<uint32_t>(cjk_text.size() % 2000), &cjk_text);
  for (int rep = 0; rep < 3; ++rep) {  // interleaved, the best of three each
    plain = std::min(plain, seconds(std::string(bytes, 'a'), &n_plain));
    unknown = std::min(unknown, seconds(std::string(bytes, '{'), &n_unknown));
    cjk = std::min(cjk, seconds(cjk_text, &n_cjk));
  }
  MESSAGE(path << ", " << std::string(tok.value()->encoder_kind()) << ", 1 MB: 'a' " << plain * 1e3 << " ms (" << n_plain
               << " ids), '{' " << unknown * 1e3 << " ms (" << n_unknown << " ids), CJK " << cjk * 1e3 << " ms ("
               << n_cjk << " ids)");
  CHECK(n_unknown <= 3);  // the run is one unknown piece (after "▁" when the model has it), then </s>
  CHECK(unknown < 20 * std::max(plain, 1e-3));
  CHECK(cjk < 20 * std::max(plain, 1e-3));
 }
}

TEST_CASE("spm encoder: a piece trie from the file that fails its check is refused, whatever the fault") {
  // The trie tern-convert writes (format/piece_trie.h), copied and broken one way at a time, as a hostile
  // file could hold it: every fault is kInvalidModel naming tokenizer.source_piece_trie, before any walk.
  const std::string proto = BaseModel().Proto();
  auto built = format::BuildPieceTrie(proto, "m");
  REQUIRE(built.ok());
  const format::ByteTrieArrays& a = built.value().arrays();
  REQUIRE(a.nodes > 8);
  struct Copy {
    std::vector<uint32_t> first;
    std::vector<uint16_t> count;
    std::vector<uint8_t> label;
    std::vector<int32_t> value;
    format::ByteTrieArrays arrays() const { return {first.data(), count.data(), label.data(), value.data(), value.size()}; }
  };
  const Copy good{{a.first, a.first + a.nodes}, {a.count, a.count + a.nodes}, {a.label, a.label + a.nodes}, {a.value, a.value + a.nodes}};
  {
    const format::ByteTrieArrays g = good.arrays();
    auto e = SpmEncoder::Create(proto, "m.tern: ", &g);
    REQUIRE_MESSAGE(e.ok(), e.status().message());
    CHECK(e.value()->piece_trie_from_file());
  }
  auto refused = [&](const Copy& c, const std::string& phrase) {
    const format::ByteTrieArrays arrays = c.arrays();
    auto e = SpmEncoder::Create(proto, "m.tern: ", &arrays);
    REQUIRE_FALSE(e.ok());
    CHECK(e.status().code() == StatusCode::kInvalidModel);
    CHECK_MESSAGE(e.status().message().rfind("m.tern: tokenizer.source_piece_trie", 0) == 0, e.status().message());
    CHECK_MESSAGE(e.status().message().find(phrase) != std::string::npos, e.status().message());
    auto p = PieceEncoder::Load(proto, "m.tern: ", &arrays);  // not handed to SentencePiece instead
    REQUIRE_FALSE(p.ok());
    CHECK(p.status().message() == e.status().message());
  };
  size_t inner = 0, keyed = 0, unkeyed_inner = 0;  // nodes with children; with a value; with children, no value
  for (size_t i = 1; i < good.value.size(); ++i) {
    if (!inner && good.count[i] > 1) inner = i;
    if (!keyed && good.value[i] >= 0) keyed = i;
    if (!unkeyed_inner && good.count[i] > 0 && good.value[i] < 0) unkeyed_inner = i;
  }
  REQUIRE(inner);
  REQUIRE(keyed);
  Copy c = good;
  c.first[inner] = static_cast<uint32_t>(inner);  // its own child: a cycle
  refused(c, "its children begin at node");
  c = good;
  std::swap(c.label[good.first[0]], c.label[good.first[0] + 1]);  // the root's children out of order
  refused(c, "not strictly increasing");
  c = good;
  c.count[inner] = 300;  // past the arrays
  refused(c, "children end past");
  c = good;
  c.value[0] = 0;  // an empty key
  refused(c, "the root holds a key");
  c = good;
  c.first.push_back(0), c.count.push_back(0), c.label.push_back(0), c.value.push_back(-1);  // a node nobody has as a child
  refused(c, "is no earlier node's child");
  c = good;
  c.value[keyed] = 1 << 20;  // an id past the pieces
  refused(c, "not the piece its path spells");
  c = good;
  for (size_t i = keyed + 1; i < c.value.size(); ++i)
    if (c.value[i] >= 0) {
      std::swap(c.value[keyed], c.value[i]);  // two pieces' ids exchanged
      break;
    }
  refused(c, "not the piece its path spells");
  c = good;
  c.value[keyed] = -1;  // a piece missing
  refused(c, "keys, the model has");
  if (unkeyed_inner) {
    c = good;
    c.value[unkeyed_inner] = good.value[keyed];  // a key where no piece ends
    refused(c, "not the piece its path spells");
  }
  // Four arrays of different lengths never reach the encoder: the format's check refuses the file.
  CHECK(format::PieceTrieArrays(nullptr, nullptr, nullptr, nullptr).nodes == 0);
}

TEST_CASE("spm encoder: a converted model maps its piece trie, and a file whose trie is broken fails with its name") {
  // The test models are converted by this tern-convert (the trie is in them); the bundled model was converted
  // before the trie existed: its encoder builds one, and tokenizes the same.
  auto converted = LoadOrFail(ModelPath("post-swish", "int8"));
  auto tok = Tokenizer::Create(*converted);
  REQUIRE(tok.ok());
  CHECK(tok.value()->piece_trie_from_file());
  CHECK(converted->impl().c.source_piece_trie.nodes > 1);
  auto bundled = LoadOrFail(BundledModel());
  auto old = Tokenizer::Create(*bundled);
  REQUIRE(old.ok());
  CHECK_FALSE(old.value()->piece_trie_from_file());
  CHECK(bundled->impl().c.source_piece_trie.nodes == 0);
  // Through Model::Load with a packed-weights cache (the trie goes to the encoder begun during the load).
  const fs::path cache = fs::temp_directory_path() / ("tern-spm-trie-" + std::to_string(getpid()));
  fs::create_directories(cache);
  LoadOptions lo;
  lo.packed_cache_dir = cache.string();
  auto loaded = Model::Load(ModelPath("post-swish", "int8"), lo);
  REQUIRE(loaded.ok());
  TranslatorConfig cfg;
  cfg.threads = 1;
  auto tr = Translator::Create(loaded.value(), cfg);
  REQUIRE_MESSAGE(tr.ok(), tr.status().message());
  auto shared = Tokenizer::Shared(*loaded.value(), Tokenizer::Side::kSource);
  REQUIRE(shared.ok());
  CHECK(shared.value()->piece_trie_from_file());
  // One label changed in the file: the load passes the format's checks, the tokenizer refuses the trie.
  std::vector<uint8_t> bytes = ReadBytes(ModelPath("post-swish", "int8"));
  auto* trie = fb::GetMutableModel(bytes.data())->mutable_tokenizer()->mutable_source_piece_trie();
  REQUIRE(trie);
  const auto* first = trie->first();
  const auto* count = trie->count();
  uint32_t parent = 1;
  while (parent < count->size() && count->Get(parent) < 2) ++parent;
  REQUIRE(parent < count->size());
  const uint32_t child = first->Get(parent);
  trie->mutable_label()->Mutate(child, trie->label()->Get(child + 1));  // two siblings with one label
  auto broken = Model::FromBytes(bytes.data(), bytes.size(), "broken.tern");
  REQUIRE_MESSAGE(broken.ok(), broken.status().message());
  auto bad = Tokenizer::Create(*broken.value());
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status().code() == StatusCode::kInvalidModel);
  CHECK_MESSAGE(bad.status().message().find("broken.tern: tokenizer.source_spm: tokenizer.source_piece_trie: node " +
                                            std::to_string(parent)) == 0,
                bad.status().message());
  // Arrays of two lengths: the file's semantic check refuses it, saying "semantic check: " once.
  std::vector<uint8_t> uneven = ReadBytes(ModelPath("post-swish", "int8"));
  auto* count_vector = fb::GetMutableModel(uneven.data())->mutable_tokenizer()->mutable_source_piece_trie()->mutable_count();
  uint32_t length;
  std::memcpy(&length, count_vector, 4);  // a FlatBuffers vector starts with its length
  --length;
  std::memcpy(reinterpret_cast<uint8_t*>(count_vector), &length, 4);
  auto refused = Model::FromBytes(uneven.data(), uneven.size(), "uneven.tern");
  REQUIRE_FALSE(refused.ok());
  CHECK_MESSAGE(refused.status().message().rfind("uneven.tern: semantic check: tokenizer.source_piece_trie: its first, count", 0) == 0,
                refused.status().message());
  CHECK(Count(refused.status().message(), "semantic check") == 1);  // was twice
  auto no_translator = Translator::Create(broken.value(), cfg);
  REQUIRE_FALSE(no_translator.ok());
  CHECK_MESSAGE(no_translator.status().message().find("tokenizer.source_piece_trie") != std::string::npos,
                no_translator.status().message());
  std::error_code ec;
  fs::remove_all(cache, ec);
}
