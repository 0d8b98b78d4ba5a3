// The C API's result sets: a call's results copied out of the Translator's arena, and their accessors.
#include <cstddef>

#include "api/c_api_internal.h"
#include "tern/confidence.h"

static_assert(sizeof(tern_text_span) == sizeof(tern::TextSpan) && offsetof(tern_text_span, end) == offsetof(tern::TextSpan, end),
              "tern_text_span is tern::TextSpan");
static_assert(tern::ConfidenceThresholds{}.token == TERN_LOW_CONFIDENCE_TOKEN &&
                  tern::ConfidenceThresholds{}.sentence == TERN_LOW_CONFIDENCE_SENTENCE,
              "tern.h's thresholds are tern/confidence.h's");

namespace tern::c_api {

void CopyResults(Span<const TranslationResult> in, tern_results* out, size_t at) {
  if (out->sentences.size() < at + in.size()) out->sentences.resize(at + in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    const TranslationResult& r = in[i];
    tern_results::Sentence& s = out->sentences[at + i];
    s.code = static_cast<tern_status_code>(r.error);
    s.error.assign(r.ok() ? std::string_view() : r.error_message);
    s.count = r.ok() ? r.hypotheses.size() : 0;
    s.source_ids.assign(r.source_ids.begin(), r.source_ids.end());
    s.source_spans.assign(r.source_spans.begin(), r.source_spans.end());
    if (s.hypotheses.size() < s.count) s.hypotheses.resize(s.count);
    for (size_t k = 0; k < s.count; ++k) {
      const Hypothesis& h = r.hypotheses[k];
      tern_results::Hypothesis& c = s.hypotheses[k];
      c.text.assign(h.text);
      c.ids.assign(h.ids.begin(), h.ids.end());
      c.score = h.score;
      c.track.Assign(h);
      c.token_spans.assign(h.token_spans.begin(), h.token_spans.end());
      c.attention.assign(h.attention.begin(), h.attention.end());
    }
  }
  out->count = at + in.size();
}

void CancelledResults(size_t done, size_t n, tern_results* out) {
  if (done >= n) return;
  if (out->sentences.size() < n) out->sentences.resize(n);
  for (size_t i = done; i < n; ++i) {
    tern_results::Sentence& s = out->sentences[i];
    s.code = TERN_CANCELLED;
    s.error.assign("cancelled by the caller");
    s.count = 0;
    s.source_ids.clear();
    s.source_spans.clear();
  }
  out->count = n;
}

}  // namespace tern::c_api

namespace {

const tern_results::Hypothesis* Hyp(const tern_results* r, size_t i, size_t k) {
  if (!r || i >= r->count || r->sentences[i].code != TERN_OK || k >= r->sentences[i].count) return nullptr;
  return &r->sentences[i].hypotheses[k];
}

// A hypothesis' array: never NULL when the hypothesis exists (an empty one has a valid pointer).
template <typename T>
const T* Array(const std::vector<T>* v, size_t* count) {
  if (count) *count = v ? v->size() : 0;
  if (!v) return nullptr;
  static const T kNone[1] = {};
  return v->empty() ? kNone : v->data();
}

}  // namespace

extern "C" {

tern_results* tern_results_create(void) { return new (std::nothrow) tern_results; }

void tern_results_free(tern_results* results) { delete results; }

size_t tern_result_count(const tern_results* r) { return r ? r->count : 0; }

const char* tern_result_error(const tern_results* r, size_t i) {
  if (!r || i >= r->count || r->sentences[i].code == TERN_OK) return nullptr;
  return r->sentences[i].error.c_str();
}

tern_status_code tern_result_code(const tern_results* r, size_t i) {
  if (!r || i >= r->count) return TERN_INVALID_ARGUMENT;
  return r->sentences[i].code;
}

size_t tern_result_hypotheses(const tern_results* r, size_t i) {
  return r && i < r->count && r->sentences[i].code == TERN_OK ? r->sentences[i].count : 0;
}

const char* tern_result_text(const tern_results* r, size_t i, size_t k, size_t* length) {
  const tern_results::Hypothesis* h = Hyp(r, i, k);
  if (length) *length = h ? h->text.size() : 0;
  return h ? h->text.c_str() : nullptr;  // an empty translation is "", not the NULL of a failure
}

const uint32_t* tern_result_ids(const tern_results* r, size_t i, size_t k, size_t* count) {
  const tern_results::Hypothesis* h = Hyp(r, i, k);
  return Array(h ? &h->ids : nullptr, count);
}

float tern_result_score(const tern_results* r, size_t i, size_t k) {
  const tern_results::Hypothesis* h = Hyp(r, i, k);
  return h ? h->score : 0.f;
}

const uint32_t* tern_result_tokens(const tern_results* r, size_t i, size_t k, size_t* count) {
  const tern_results::Hypothesis* h = Hyp(r, i, k);
  return Array(h ? &h->track.tokens : nullptr, count);
}

const float* tern_result_token_logprobs(const tern_results* r, size_t i, size_t k, size_t* count) {
  const tern_results::Hypothesis* h = Hyp(r, i, k);
  return Array(h ? &h->track.token_logprobs : nullptr, count);
}

const int32_t* tern_result_token_sources(const tern_results* r, size_t i, size_t k, size_t* count) {
  const tern_results::Hypothesis* h = Hyp(r, i, k);
  return Array(h ? &h->track.token_sources : nullptr, count);
}

const tern_text_span* tern_result_token_spans(const tern_results* r, size_t i, size_t k, size_t* count) {
  const tern_results::Hypothesis* h = Hyp(r, i, k);
  return reinterpret_cast<const tern_text_span*>(Array(h ? &h->token_spans : nullptr, count));
}

const float* tern_result_attention(const tern_results* r, size_t i, size_t k, size_t* rows, size_t* cols) {
  const tern_results::Hypothesis* h = Hyp(r, i, k);
  const bool has = h && !h->attention.empty();
  const size_t n = has ? h->track.tokens.size() : 0;
  if (rows) *rows = n;
  if (cols) *cols = n ? h->attention.size() / n : 0;
  return has ? h->attention.data() : nullptr;
}

const uint32_t* tern_result_source_ids(const tern_results* r, size_t i, size_t* count) {
  const bool ok = r && i < r->count && r->sentences[i].code == TERN_OK;
  return Array(ok ? &r->sentences[i].source_ids : nullptr, count);
}

const tern_text_span* tern_result_source_spans(const tern_results* r, size_t i, size_t* count) {
  const bool ok = r && i < r->count && r->sentences[i].code == TERN_OK;
  return reinterpret_cast<const tern_text_span*>(Array(ok ? &r->sentences[i].source_spans : nullptr, count));
}

int tern_result_confidence(const tern_results* r, size_t i, size_t k, float* mean_logprob, float* min_logprob) {
  const tern_results::Hypothesis* h = Hyp(r, i, k);
  if (!h) return -1;
  tern::Hypothesis view;
  h->track.Bind(&view);
  const tern::Confidence c = tern::ConfidenceOf(view);
  if (mean_logprob) *mean_logprob = c.mean_logprob;
  if (min_logprob) *min_logprob = c.min_logprob;
  tern::ConfidenceThresholds t;
  t.token = TERN_LOW_CONFIDENCE_TOKEN, t.sentence = TERN_LOW_CONFIDENCE_SENTENCE;
  return tern::LowConfidence(c, t) ? 1 : 0;
}

}  // extern "C"
