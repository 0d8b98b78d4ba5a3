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
  for (size_t i = 0; i < in.size(); ++i) AssignResult(in[i], &out->sentences[at + i]);
  out->count = at + in.size();
}

void CancelledResults(size_t done, size_t n, tern_results* out) {
  if (done >= n) return;
  if (out->sentences.size() < n) out->sentences.resize(n);
  for (size_t i = done; i < n; ++i) {
    OwnedResult& s = out->sentences[i];
    s.error = StatusCode::kCancelled;
    s.error_message.assign("cancelled by the caller");
    s.hypotheses.clear();
    s.source_ids.clear();
    s.source_spans.clear();
  }
  out->count = n;
}

}  // namespace tern::c_api

namespace {

// Sentence i of the set when it was translated, else nullptr.
const tern::OwnedResult* Sentence(const tern_results* r, size_t i) {
  return r && i < r->count && r->sentences[i].ok() ? &r->sentences[i] : nullptr;
}

const tern::OwnedHypothesis* Hyp(const tern_results* r, size_t i, size_t k) {
  const tern::OwnedResult* s = Sentence(r, i);
  return s && k < s->hypotheses.size() ? &s->hypotheses[k] : nullptr;
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
  if (!r || i >= r->count || r->sentences[i].ok()) return nullptr;
  return r->sentences[i].error_message.c_str();
}

tern_status_code tern_result_code(const tern_results* r, size_t i) {
  if (!r || i >= r->count) return TERN_INVALID_ARGUMENT;
  return static_cast<tern_status_code>(r->sentences[i].error);
}

size_t tern_result_hypotheses(const tern_results* r, size_t i) {
  const tern::OwnedResult* s = Sentence(r, i);
  return s ? s->hypotheses.size() : 0;
}

#include "api/c_result_fields.inc"

int tern_result_confidence(const tern_results* r, size_t i, size_t k, float* mean_logprob, float* min_logprob) {
  const tern::OwnedHypothesis* h = Hyp(r, i, k);
  if (!h) return -1;
  const tern::Confidence c = tern::ConfidenceOf(tern::ViewHypothesis(*h));
  if (mean_logprob) *mean_logprob = c.mean_logprob;
  if (min_logprob) *min_logprob = c.min_logprob;
  tern::ConfidenceThresholds t;
  t.token = TERN_LOW_CONFIDENCE_TOKEN, t.sentence = TERN_LOW_CONFIDENCE_SENTENCE;
  return tern::LowConfidence(c, t) ? 1 : 0;
}

}  // extern "C"
