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

void ViewResults(const std::vector<OwnedResult>& results, std::vector<Hypothesis>* hypotheses,
                 std::vector<TranslationResult>* views) {
  size_t total = 0;
  for (const OwnedResult& r : results) total += r.hypotheses.size();
  hypotheses->clear();
  hypotheses->reserve(total);  // no reallocation below: the views' spans point into it
  views->assign(results.size(), TranslationResult{});
  for (size_t i = 0; i < results.size(); ++i) {
    const OwnedResult& o = results[i];
    TranslationResult& v = (*views)[i];
    const size_t first = hypotheses->size();
    for (const OwnedHypothesis& h : o.hypotheses) {
      Hypothesis x;
      x.text = h.text, x.score = h.score;
      x.ids = {h.ids.data(), h.ids.size()}, x.tokens = {h.tokens.data(), h.tokens.size()};
      x.token_logprobs = {h.token_logprobs.data(), h.token_logprobs.size()};
      x.token_sources = {h.token_sources.data(), h.token_sources.size()};
      x.token_spans = {h.token_spans.data(), h.token_spans.size()};
      x.attention = {h.attention.data(), h.attention.size()};
      hypotheses->push_back(x);
    }
    v.error = o.error, v.error_message = o.error_message;
    v.hypotheses = {hypotheses->data() + first, o.hypotheses.size()};
    v.source_ids = {o.source_ids.data(), o.source_ids.size()};
    v.source_spans = {o.source_spans.data(), o.source_spans.size()};
  }
}

}  // namespace tern
