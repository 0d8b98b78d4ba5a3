#include "tern/owned_result.h"

#include "tern/translator.h"

namespace tern {
namespace {

// How each type of the result table's fields is copied into an OwnedHypothesis and viewed back.
template <typename T>
void Own(std::vector<T>& dst, Span<const T> src) {
  dst.assign(src.begin(), src.end());
}
inline void Own(std::string& dst, std::string_view src) { dst.assign(src.data(), src.size()); }
inline void Own(float& dst, float src) { dst = src; }
template <typename T>
Span<const T> View(const std::vector<T>& v) {
  return Span<const T>(v.data(), v.size());
}
inline std::string_view View(const std::string& s) { return s; }
inline float View(float v) { return v; }

}  // namespace

void AssignResult(const TranslationResult& r, OwnedResult* out) {
  out->error = r.error;
  out->error_message.assign(r.error_message.data(), r.error_message.size());
#define TERN_OWN(member) Own(out->member, r.member);
  TERN_RESULT_FIELDS(TERN_OWN)
#undef TERN_OWN
  out->hypotheses.resize(r.hypotheses.size());
  for (size_t k = 0; k < r.hypotheses.size(); ++k) {
    const Hypothesis& h = r.hypotheses[k];
    OwnedHypothesis& o = out->hypotheses[k];
#define TERN_OWN(member) Own(o.member, h.member);
    TERN_HYPOTHESIS_FIELDS(TERN_OWN)
#undef TERN_OWN
  }
}

Hypothesis ViewHypothesis(const OwnedHypothesis& h) {
  Hypothesis x;
#define TERN_VIEW(member) x.member = View(h.member);
  TERN_HYPOTHESIS_FIELDS(TERN_VIEW)
#undef TERN_VIEW
  return x;
}

void CopyResults(Span<const TranslationResult> results, std::vector<OwnedResult>* out) {
  for (const TranslationResult& r : results) {
    out->emplace_back();
    AssignResult(r, &out->back());
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
    for (const OwnedHypothesis& h : o.hypotheses) hypotheses->push_back(ViewHypothesis(h));
    v.error = o.error, v.error_message = o.error_message;
    v.hypotheses = {hypotheses->data() + first, o.hypotheses.size()};
#define TERN_VIEW(member) v.member = View(o.member);
    TERN_RESULT_FIELDS(TERN_VIEW)
#undef TERN_VIEW
  }
}

}  // namespace tern
