// TranslateOptions::return_attention (session/attention_pass.h): per token, the alignment layer's
// cross-attention averaged over heads. Each row is a distribution over the source; its argmax (the source's
// </s> left out) is the alignment the search computed while choosing the token (token_sources), which
// shows the pass sees what the search saw; greedy and beam, f32 and int8; errors.
#include <cmath>

#include "test_util.h"

using namespace tern;
using namespace tern::test;

TEST_CASE("return_attention: rows sum to 1 and their argmax is the search's alignment, greedy and beam") {
  size_t rows_checked = 0;
  for (const char* w : {"f32", "int8"}) {
    for (const std::string& v : Variants()) {
      CAPTURE(v);
      CAPTURE(w);
      const auto ref = ReadJson(ModelsDir() + "/" + v + ".ref.json");
      TranslatorConfig cfg;
      cfg.max_beam = 4;
      cfg.max_n_best = 2;
      cfg.attention = true;
      auto t = MakeTranslator(LoadOrFail(ModelPath(v, w)), cfg);
      std::vector<std::vector<uint32_t>> srcs;
      std::vector<Span<const uint32_t>> views;
      for (const auto& c : ref["cases"]) srcs.push_back(Ids(c["src"]));
      for (const auto& s : srcs) views.emplace_back(s.data(), s.size());
      for (uint32_t beam : {1u, 4u}) {
        TranslateOptions o;
        o.beam_size = beam;
        o.n_best = beam == 4 ? 2 : 1;
        o.max_length = ref["max_length"].get<uint32_t>();
        o.return_alignment = true;
        o.return_attention = true;
        Span<const TranslationResult> r;
        REQUIRE(t->TranslateIds(Span<const Span<const uint32_t>>(views.data(), views.size()), o, &r).ok());
        for (const TranslationResult& res : r) {
          REQUIRE(res.ok());
          const size_t src_len = res.source_ids.size();
          for (const Hypothesis& h : res.hypotheses) {
            REQUIRE(h.attention.size() == h.tokens.size() * src_len);
            for (size_t p = 0; p < h.tokens.size(); ++p) {
              const float* row = h.attention.data() + p * src_len;
              float sum = 0.f;
              size_t best = 0;
              for (size_t k = 0; k < src_len; ++k) {
                sum += row[k];
                if (k + 1 < src_len || src_len == 1) best = row[k] > row[best] ? k : best;
              }
              CHECK(sum == doctest::Approx(1.f).epsilon(1e-4));
              const bool final_eos = p + 1 == h.tokens.size() && h.tokens.size() > h.ids.size();
              if (!final_eos) CHECK(static_cast<int32_t>(best) == h.token_sources[p]);  // a generated </s> aligns to the source's
              ++rows_checked;
            }
          }
        }
      }
    }
  }
  MESSAGE(rows_checked << " attention rows checked");
  CHECK(rows_checked > 500);
}

TEST_CASE("return_attention: off by default, refused without TranslatorConfig::attention") {
  const std::vector<uint32_t> src = {5, 6, 7, 0};
  const Span<const uint32_t> one(src.data(), src.size());
  auto plain = MakeTranslator(LoadOrFail(ModelPath("post-swish", "f32")));
  TranslateOptions o;
  Span<const TranslationResult> r;
  REQUIRE(plain->TranslateIds(Span<const Span<const uint32_t>>(&one, 1), o, &r).ok());
  CHECK(r[0].best().attention.empty());
  o.return_attention = true;
  CHECK(plain->CheckOptions(o).message() == "return_attention: the Translator was created without TranslatorConfig::attention");
  TranslatorConfig cfg;
  cfg.attention = true;
  auto with = MakeTranslator(LoadOrFail(ModelPath("post-swish", "f32")), cfg);
  CHECK(with->arena_bytes() > plain->arena_bytes());
  o.return_attention = false;
  REQUIRE(with->TranslateIds(Span<const Span<const uint32_t>>(&one, 1), o, &r).ok());
  CHECK(r[0].best().attention.empty());
}
