#include "tern/owned_result.h"

#include "tern/translator.h"

namespace tern {

void CopyResults(Span<const TranslationResult> results, std::vector<OwnedResult>* out) {
  for (const TranslationResult& r : results) {
    OwnedResult c;
    c.error = r.error;
    c.error_message.assign(r.error_message.data(), r.error_message.size());
    c.source_ids.assign(r.source_ids.begin(), r.source_ids.end());
    c.source_spans.assign(r.source_spans.begin(), r.source_spans.end());
    c.hypotheses.reserve(r.hypotheses.size());
    for (const Hypothesis& h : r.hypotheses) {
      OwnedHypothesis o;
      o.text.assign(h.text.data(), h.text.size());
      o.ids.assign(h.ids.begin(), h.ids.end());
      o.tokens.assign(h.tokens.begin(), h.tokens.end());
      o.score = h.score;
      o.token_logprobs.assign(h.token_logprobs.begin(), h.token_logprobs.end());
      o.token_sources.assign(h.token_sources.begin(), h.token_sources.end());
      o.attention.assign(h.attention.begin(), h.attention.end());
      o.token_spans.assign(h.token_spans.begin(), h.token_spans.end());
      c.hypotheses.push_back(std::move(o));
    }
    out->push_back(std::move(c));
  }
}

}  // namespace tern
