// Helpers shared by the doctest files: where the fixture put the tiny models, file I/O, reference JSON.
#pragma once

#include <cstdint>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
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

}  // namespace tern::test
