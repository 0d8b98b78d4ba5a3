// A property of every search (docs/reliability.md, round three): over the tiny models, random glossaries and
// every search configuration, no search returns a hypothesis at -inf or one that breaks a constraint.
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
#include "glossary_util.h"
#include "test_util.h"

using namespace tern;
using namespace tern::test;

namespace {


}  // namespace

namespace {

// Whole-word pieces of a vocabulary ("▁word" with letters after the mark), as words.
std::vector<std::string> Words(const std::vector<std::string_view>& vocab) {
  std::vector<std::string> out;
  for (std::string_view p : vocab) {
    if (p.size() < 4 || p.compare(0, 3, "\xe2\x96\x81") != 0) continue;
    const std::string w(p.substr(3));
    if (std::all_of(w.begin(), w.end(), [](char c) { return std::isalpha(static_cast<unsigned char>(c)); })) out.push_back(w);
  }
  return out;
}

}  // namespace

TEST_CASE("no search returns a hypothesis at -inf or one that breaks a constraint") {
  std::mt19937 rng(35);
  size_t checked = 0, failed_alone = 0;
  for (std::string variant : {"post-swish", "pre-relu", "gelu-learned-separate"}) {
    for (std::string weights : {"int8", "f32"}) {
      CAPTURE(variant);
      CAPTURE(weights);
      auto m = LoadOrFail(ModelPath(variant, weights));
      TranslatorConfig c;
      c.max_beam = 4;
      c.max_n_best = 4;
      c.max_target_tokens = 24;
      auto t = MakeTranslator(m, c);
      const std::vector<std::string> src = Words(m->source_vocab()), tgt = Words(m->target_vocab());
      REQUIRE(src.size() > 4);
      REQUIRE(tgt.size() > 4);
      for (int round = 0; round < 6; ++round) {
        // A glossary of 1-3 entries (targets of 1-3 words), and sentences that hold some of its terms.
        std::string tsv;
        std::vector<std::string> terms;
        const int entries = 1 + static_cast<int>(rng() % 3);
        for (int e = 0; e < entries; ++e) {
          const std::string s = src[rng() % src.size()];
          if (std::find(terms.begin(), terms.end(), s) != terms.end()) continue;
          std::string target;
          for (int w = 0, n = 1 + static_cast<int>(rng() % 3); w < n; ++w) target += (w ? " " : "") + tgt[rng() % tgt.size()];
          terms.push_back(s);
          tsv += s + "\t" + target + "\n";
        }
        auto g = Glossary::Parse(*m, tsv, "g.tsv");
        REQUIRE_MESSAGE(g.ok(), g.status().message());
        std::vector<std::string> texts;
        for (int k = 0; k < 4; ++k) {
          std::string s;
          for (int w = 0, n = 2 + static_cast<int>(rng() % 6); w < n; ++w)
            s += (w ? " " : "") + (rng() % 3 == 0 ? terms[rng() % terms.size()] : src[rng() % src.size()]);
          texts.push_back(s);
        }
        std::vector<std::string_view> views(texts.begin(), texts.end());
        for (uint32_t beam : {1u, 2u, 4u}) {
          for (EarlyStopping es : {EarlyStopping::kFalse, EarlyStopping::kTrue, EarlyStopping::kNever}) {
            for (HfRules hf : {HfRules::kTransformers5, HfRules::kTransformers4}) {
              if (beam == 1 && (es != EarlyStopping::kFalse || hf != HfRules::kTransformers5)) continue;
              TranslateOptions o;
              o.glossary = g.value().get();
              o.beam_size = beam;
              o.n_best = beam;
              o.early_stopping = es;
              o.hf_rules = hf;
              o.max_length = 4 + static_cast<uint32_t>(rng() % 20);
              o.split_sentences = false;
              Span<const TranslationResult> r;
              REQUIRE(t->Translate(Span<const std::string_view>(views.data(), views.size()), o, &r).ok());
              for (size_t i = 0; i < r.size(); ++i) {
                if (!r[i].ok()) {  // only ever: the terms do not fit before the cap
                  CHECK(std::string(r[i].error_message).find("glossary terms need") == 0);
                  ++failed_alone;
                  continue;
                }
                // The target ids each term of the sentence must produce (its matches, by the glossary's own rule).
                for (const Hypothesis& h : r[i].hypotheses) {
                  CAPTURE(texts[i]);
                  CHECK(std::isfinite(h.score));
                  for (float lp : h.token_logprobs) CHECK(std::isfinite(lp));
                  for (const std::string& term : terms) {
                    if ((" " + texts[i] + " ").find(" " + term + " ") == std::string::npos) continue;
                    const std::string target = tsv.substr(tsv.find(term + "\t") + term.size() + 1);
                    std::vector<uint32_t> ids;
                    auto tok = TextTokenizer::Create(m, TextTokenizer::Side::kTarget);
                    REQUIRE(tok.ok());
                    REQUIRE(tok.value()->Encode(target.substr(0, target.find('\n')), "", &ids).ok());
                    ids.pop_back();  // </s>
                    CHECK(Contains(h.ids, ids));
                  }
                  ++checked;
                }
              }
            }
          }
        }
      }
    }
  }
  MESSAGE(checked << " hypotheses checked, " << failed_alone << " sentences failed alone (terms longer than the cap)");
  CHECK(checked > 1000);
}

