// Helpers shared by the doctest files: where the fixture put the tiny models, file I/O, reference JSON.
#pragma once

#include <cstdint>
#include <cstring>
#include <fstream>
#include <random>
#include <functional>
#include <filesystem>
#include <iterator>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "tern/model.h"
#include "tern/translator.h"

namespace tern::test {

/// Directory written by scripts/make-test-models.sh (CTest fixture "test_models").
inline std::string ModelsDir() {
  const char* env = std::getenv("TERN_TEST_MODELS");
  return env ? env : TERN_TEST_MODELS_DIR;
}

/// The tiny model variants the fixture builds (post/pre-norm; relu, swish, gelu; all position layouts).
inline const std::vector<std::string>& Variants() {
  static const std::vector<std::string> v = {"post-swish", "pre-relu", "gelu-learned-separate", "pre-interleaved-legacy",
                                             "post-rules"};
  return v;
}

#ifdef TERN_SOURCE_DIR
/// The bundled OPUS-MT en-de model, int8 (models/en-de): real translations.
/// Occurrences of `word` in `text` (not overlapping).
inline size_t Count(std::string_view text, std::string_view word) {
  size_t n = 0;
  for (size_t at = text.find(word); at != std::string_view::npos; at = text.find(word, at + word.size())) ++n;
  return n;
}

inline std::string BundledModel() { return std::string(TERN_SOURCE_DIR) + "/models/en-de/en-de.int8.tern"; }
#endif

inline std::string ModelPath(const std::string& variant, const std::string& weights) {
  return ModelsDir() + "/" + variant + "." + weights + ".tern";
}

inline std::vector<uint8_t> ReadBytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  REQUIRE_MESSAGE(f.good(), "cannot open " << path);
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

inline nlohmann::json ReadJson(const std::string& path) {
  std::ifstream f(path);
  REQUIRE_MESSAGE(f.good(), "cannot open " << path);
  return nlohmann::json::parse(f);
}

inline std::shared_ptr<const Model> LoadOrFail(const std::string& path) {
  auto m = Model::Load(path);
  REQUIRE_MESSAGE(m.ok(), m.status().message());
  return m.value();
}

inline std::unique_ptr<Translator> MakeTranslator(std::shared_ptr<const Model> m, TranslatorConfig c = {}) {
  if (!c.threads) c.threads = 1;
  auto t = Translator::Create(std::move(m), c);
  REQUIRE_MESSAGE(t.ok(), t.status().message());
  return std::move(t.value());
}

inline std::vector<uint32_t> Ids(const nlohmann::json& j) { return j.get<std::vector<uint32_t>>(); }


inline std::vector<uint32_t> ToVector(Span<const uint32_t> s) { return std::vector<uint32_t>(s.begin(), s.end()); }

/// Every hypothesis' ids and score of a call, in order: what "bit for bit" compares between two ways of
/// loading or storing the same model.
struct HypothesisOutputs {
  std::vector<std::vector<uint32_t>> ids;
  std::vector<float> scores;
  bool operator==(const HypothesisOutputs& o) const { return ids == o.ids && scores == o.scores; }
};

/// Translates `texts` on a new Translator of `m` with beam 2 x 2-best, max_length 12 (every text must succeed).
inline HypothesisOutputs TranslateTwoBest(std::shared_ptr<const Model> m, const std::vector<std::string_view>& texts) {
  TranslatorConfig c;
  c.max_beam = 2, c.max_n_best = 2;
  auto t = MakeTranslator(std::move(m), c);
  TranslateOptions o;
  o.beam_size = 2, o.n_best = 2, o.max_length = 12;
  Span<const TranslationResult> rs;
  REQUIRE(t->Translate(Span<const std::string_view>(texts.data(), texts.size()), o, &rs).ok());
  HypothesisOutputs out;
  for (const TranslationResult& r : rs) {
    REQUIRE_MESSAGE(r.ok(), r.error_message);
    for (const Hypothesis& h : r.hypotheses) out.ids.push_back(ToVector(h.ids)), out.scores.push_back(h.score);
  }
  return out;
}

/// Views of id lists as a call takes them (`out` holds the views).
inline Span<const Span<const uint32_t>> Spans(const std::vector<std::vector<uint32_t>>& v, std::vector<Span<const uint32_t>>* out) {
  out->clear();
  for (const auto& x : v) out->emplace_back(x.data(), x.size());
  return Span<const Span<const uint32_t>>(out->data(), out->size());
}


/// The payload range [offset, offset + size) of the `nth` length-delimited field number `want` in the
/// protobuf message proto[begin, end), found by walking the wire format; {0, 0} when there is none.
inline std::pair<size_t, size_t> FindProtoField(const std::string& proto, size_t begin, size_t end, uint64_t want,
                                                size_t nth = 0) {
  auto varint = [&](size_t& p, uint64_t& v) {
    v = 0;
    for (int shift = 0; p < proto.size() && shift < 64; shift += 7) {
      const uint8_t b = static_cast<uint8_t>(proto[p++]);
      v |= uint64_t{b & 0x7fu} << shift;
      if (!(b & 0x80)) return true;
    }
    return false;
  };
  size_t p = begin;
  while (p < end) {
    uint64_t key, v;
    if (!varint(p, key)) break;
    switch (key & 7) {
      case 0: varint(p, v); break;
      case 1: p += 8; break;
      case 5: p += 4; break;
      case 2:
        varint(p, v);
        if ((key >> 3) == want && nth-- == 0) return {p, static_cast<size_t>(v)};
        p += v;
        break;
      default: return {0, 0};
    }
  }
  return {0, 0};
}

/// The byte range of the normalizer's precompiled_charsmap inside a serialized SentencePiece ModelProto
/// (field 3, then its field 2); size 0 when there is none. For tests that damage it.
inline std::pair<size_t, size_t> FindPrecompiledCharsMap(const std::string& proto) {
  const auto spec = FindProtoField(proto, 0, proto.size(), 3);
  if (spec.second == 0) return {0, 0};
  return FindProtoField(proto, spec.first, spec.first + spec.second, 2);
}

/// The byte range of the text of piece `index` (ModelProto field 1, then its field 1).
inline std::pair<size_t, size_t> FindPieceText(const std::string& proto, size_t index) {
  const auto piece = FindProtoField(proto, 0, proto.size(), 1, index);
  if (piece.second == 0) return {0, 0};
  return FindProtoField(proto, piece.first, piece.first + piece.second, 1);
}

/// `proto` with every unit of its charsmap trie set to 0xffffffff (SentencePiece follows the root's
/// offset out of the blob: a crash without tern's check).
inline std::string BreakCharsMap(std::string proto) {
  const auto [at, size] = FindPrecompiledCharsMap(proto);
  REQUIRE(size > 4);
  uint32_t trie = 0;
  std::memcpy(&trie, proto.data() + at, 4);
  REQUIRE(trie + 4 <= size);
  std::memset(&proto[at + 4], 0xff, trie);
  return proto;
}

// A copy of a tiny checkpoint directory that a test may damage.
struct CheckpointCopy {
  std::filesystem::path dir;
  explicit CheckpointCopy(const std::string& variant) {
    dir = std::filesystem::temp_directory_path() / ("tern-ckpt-" + variant + "-" + std::to_string(std::random_device{}()));
    std::filesystem::create_directories(dir);
    for (const auto& e : std::filesystem::directory_iterator(ModelsDir() + "/" + variant)) std::filesystem::copy_file(e.path(), dir / e.path().filename());
  }
  ~CheckpointCopy() { std::filesystem::remove_all(dir); }
  std::string path(const char* f) const { return (dir / f).string(); }
  void Write(const char* f, const std::string& text) const {
    std::ofstream(path(f), std::ios::binary) << text;
  }
  std::string Read(const char* f) const {
    auto b = ReadBytes(path(f));
    return std::string(b.begin(), b.end());
  }
  // Rewrites model.safetensors with the header edited by `edit` (data section unchanged).
  void EditSafetensorsHeader(const std::function<void(nlohmann::json&)>& edit) const {
    auto bytes = ReadBytes(path("model.safetensors"));
    uint64_t n = 0;
    for (int i = 7; i >= 0; --i) n = (n << 8) | bytes[i];
    nlohmann::json h = nlohmann::json::parse(bytes.begin() + 8, bytes.begin() + 8 + n);
    edit(h);
    std::string hs = h.dump();
    hs.append((8 - hs.size() % 8) % 8, ' ');
    std::string out(8, '\0');
    for (int i = 0; i < 8; ++i) out[i] = static_cast<char>((hs.size() >> (8 * i)) & 0xff);
    out += hs;
    out.append(bytes.begin() + 8 + n, bytes.end());
    Write("model.safetensors", out);
  }
};

}  // namespace tern::test
