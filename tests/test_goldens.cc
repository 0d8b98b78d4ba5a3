// tern against transformers itself: the goldens of ../shared/goldens/ (its README says what they hold):
// transformers 5.17.0's MarianMTModel.generate on the bundled checkpoint (f32, batch 1) over the 1,000 lines
// of test_2016_flickr, in six configurations (greedy; beam 4; beam 4 with early_stopping true and "never";
// beam 4 with length_penalty 0.6; beam 5 returning 5 sequences). tern f32 (the same checkpoint converted
// with --weights f32 and the default limits, so max_length 256 of generation_config.json applies) must give
// the same ids for every line and configuration, and beam scores within 1e-4.
//
// TERN_GOLDENS_LINES=N checks the first N lines only (cross builds under qemu and sanitizer builds: see
// tests/CMakeLists.txt); the file missing (no ../shared beside the clone) skips the test with a message.
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "test_util.h"

using namespace tern;
using namespace tern::test;

namespace {

struct GoldenConfig {
  std::string name;
  uint32_t beam = 1, n_best = 1;
  std::optional<EarlyStopping> early;
  float length_penalty = 1.f;
};

// generate() keyword arguments of the goldens' first line -> tern's options.
GoldenConfig ConfigOf(const std::string& name, const nlohmann::json& kw) {
  GoldenConfig c;
  c.name = name;
  c.beam = kw.value("num_beams", 1u);
  c.n_best = kw.value("num_return_sequences", 1u);
  if (kw.contains("early_stopping")) {
    const auto& e = kw["early_stopping"];
    c.early = e.is_boolean() ? (e.get<bool>() ? EarlyStopping::kTrue : EarlyStopping::kFalse) : EarlyStopping::kNever;
  }
  c.length_penalty = kw.value("length_penalty", 1.f);
  return c;
}

// A golden sequence (decoder start first, </s> = eos last, n-best rows padded after </s>) as tern's ids.
std::vector<uint32_t> Generated(const nlohmann::json& row, uint32_t start, uint32_t eos) {
  std::vector<uint32_t> out;
  for (size_t i = 1; i < row.size(); ++i) {
    const uint32_t t = row[i].get<uint32_t>();
    if (t == eos) break;
    out.push_back(t);
  }
  (void)start;
  return out;
}

}  // namespace

TEST_CASE("transformers 5.17 goldens: greedy, beam 4 (three early_stopping values, length penalty 0.6) and 5-best") {
  // The data beside the repository ($TERN_SHARED_DIR, else ../shared): a user's clone has none.
  const char* shared = std::getenv("TERN_SHARED_DIR");
  const std::string path = (shared ? std::string(shared) : std::string(TERN_SOURCE_DIR) + "/../shared") +
                           "/goldens/transformers-5.17.0_en-de_test_2016_flickr.jsonl";
  std::ifstream in(path);
  if (!in) {
    MESSAGE("no goldens at " << path << ": skipped");
    return;
  }
  const char* limit_env = std::getenv("TERN_GOLDENS_LINES");
  const size_t limit = limit_env ? std::strtoul(limit_env, nullptr, 10) : SIZE_MAX;
  std::string line;
  REQUIRE(std::getline(in, line));
  const nlohmann::json head = nlohmann::json::parse(line);
  std::vector<GoldenConfig> configs;
  for (const auto& [name, kw] : head["configs"].items()) configs.push_back(ConfigOf(name, kw));
  REQUIRE(configs.size() == 6);
  std::vector<nlohmann::json> lines;
  while (lines.size() < limit && std::getline(in, line)) lines.push_back(nlohmann::json::parse(line));
  REQUIRE(!lines.empty());

  auto model = LoadOrFail(TERN_BUNDLED_F32);
  const Hyperparameters& hp = model->hparams();
  TranslatorConfig tc;
  tc.max_batch = 16;
  tc.max_beam = 5;
  tc.max_n_best = 5;
  tc.threads = 0;  // cpuinfo's performance cores: the test is the suite's longest
  auto t = Translator::Create(model, tc);
  REQUIRE_MESSAGE(t.ok(), t.status().message());
  std::map<std::string, size_t> identical;
  for (const GoldenConfig& c : configs) {
    CAPTURE(c.name);
    TranslateOptions o;
    o.beam_size = c.beam;
    o.n_best = c.n_best;
    o.early_stopping = c.early;
    o.length_penalty = c.length_penalty;
    size_t same = 0;
    const auto t0 = std::chrono::steady_clock::now();
    for (size_t start = 0; start < lines.size(); start += tc.max_batch) {
      const size_t n = std::min<size_t>(tc.max_batch, lines.size() - start);
      std::vector<std::vector<uint32_t>> srcs(n);
      std::vector<Span<const uint32_t>> spans(n);
      for (size_t i = 0; i < n; ++i) {
        srcs[i] = lines[start + i]["src_ids"].get<std::vector<uint32_t>>();
        spans[i] = Span<const uint32_t>(srcs[i].data(), srcs[i].size());
      }
      Span<const TranslationResult> r;
      REQUIRE(t.value()->TranslateIds(Span<const Span<const uint32_t>>(spans.data(), n), o, &r).ok());
      for (size_t i = 0; i < n; ++i) {
        const nlohmann::json& g = lines[start + i][c.name];
        CAPTURE(lines[start + i]["line"].get<int>());
        REQUIRE(r[i].ok());
        bool ok = r[i].hypotheses.size() == g["ids"].size();
        for (size_t k = 0; ok && k < g["ids"].size(); ++k) {
          ok = ToVector(r[i].hypotheses[k].ids) == Generated(g["ids"][k], hp.decoder_start_id, hp.eos_id);
          if (ok && !g["scores"].is_null())
            ok = std::fabs(r[i].hypotheses[k].score - g["scores"][k].get<float>()) <= 1e-4f;
        }
        if (ok) {
          ++same;
          continue;
        }
        // Report the first hypothesis that differs.
        for (size_t k = 0; k < std::min<size_t>(r[i].hypotheses.size(), g["ids"].size()); ++k) {
          CHECK(ToVector(r[i].hypotheses[k].ids) == Generated(g["ids"][k], hp.decoder_start_id, hp.eos_id));
          if (!g["scores"].is_null()) CHECK(r[i].hypotheses[k].score == doctest::Approx(g["scores"][k].get<float>()).epsilon(1e-4));
        }
        CHECK(r[i].hypotheses.size() == g["ids"].size());
      }
    }
    identical[c.name] = same;
    MESSAGE(c.name << ": " << same << " / " << lines.size() << " identical ("
                   << std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() << " s)");
    CHECK(same == lines.size());
  }
}
