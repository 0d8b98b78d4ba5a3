#include "serving/sharing.h"

namespace tern::serving {
namespace {
#include "serving/sharing_fields.inc"
}  // namespace

void OwnOptionViews(TicketState* t, size_t max_batch) {
  TranslateOptions& o = t->request.options;
  t->target_lang.assign(o.target_lang.data(), o.target_lang.size());
  o.target_lang = t->target_lang;
  t->keep_spans.assign(o.keep_spans.begin(), o.keep_spans.end());
  o.keep_spans = Span<const KeepSpan>(t->keep_spans.data(), t->keep_spans.size());
  for (std::string_view p : o.target_prefix) t->prefix_texts.emplace_back(p);
  for (const std::string& p : t->prefix_texts) t->prefix_text_views.emplace_back(p);
  o.target_prefix = Span<const std::string_view>(t->prefix_text_views.data(), t->prefix_text_views.size());
  for (const Span<const uint32_t>& p : o.target_prefix_ids) t->prefix_ids.emplace_back(p.begin(), p.end());
  for (const auto& p : t->prefix_ids) t->prefix_id_views.emplace_back(p.data(), p.size());
  o.target_prefix_ids = Span<const Span<const uint32_t>>(t->prefix_id_views.data(), t->prefix_id_views.size());
  // Sampling keys: the caller's, or each input's index in this request (whatever call it shares).
  t->sampling_keys.resize(t->inputs());
  for (size_t k = 0; k < t->sampling_keys.size(); ++k) t->sampling_keys[k] = o.sampling_keys.empty() ? k : o.sampling_keys[k];
  o.sampling_keys = Span<const uint64_t>(t->sampling_keys.data(), t->sampling_keys.size());
  // A request whose options the table marks "alone" (callbacks, keep spans, target prefixes, alternatives) runs
  // alone, and so does one larger than a call.
  t->may_share = !RunsAlone(o) && t->keep_spans.empty() && t->inputs() <= max_batch;
}

bool SameCall(const TicketState& a, const TicketState& b) {
  if (!a.may_share || !b.may_share) return false;
  if (a.request.texts.empty() != b.request.texts.empty()) return false;
  return SameOptions(a.request.options, b.request.options);  // the field table's sharing rule (sharing_fields.inc)
}

}  // namespace tern::serving
