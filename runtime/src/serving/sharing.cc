#include "serving/sharing.h"

namespace tern::serving {

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
  // Requests with target prefixes or alternatives run alone: a prefix belongs to its input (the engine slices it per chunk).
  t->may_share = !o.on_token && !o.abort && t->keep_spans.empty() && o.target_prefix.empty() &&
                 o.target_prefix_ids.empty() && o.alternatives == 0 && t->inputs() <= max_batch;
}

bool SameCall(const TicketState& a, const TicketState& b) {
  if (!a.may_share || !b.may_share) return false;
  if (a.request.texts.empty() != b.request.texts.empty()) return false;
  const TranslateOptions& x = a.request.options;
  const TranslateOptions& y = b.request.options;
  return x.beam_size == y.beam_size && x.length_penalty == y.length_penalty && x.max_length == y.max_length &&
         x.max_length_ratio == y.max_length_ratio && x.n_best == y.n_best && x.return_scores == y.return_scores &&
         x.return_alignment == y.return_alignment && x.alignment_layer == y.alignment_layer && x.hf_rules == y.hf_rules &&
         x.early_stopping == y.early_stopping && x.target_lang == y.target_lang && x.split_sentences == y.split_sentences &&
         x.markup == y.markup && x.translate_code == y.translate_code && x.glossary == y.glossary && x.keep_placeholders == y.keep_placeholders && x.auto_protect == y.auto_protect &&
         x.placeholder_syntaxes == y.placeholder_syntaxes &&
         x.use_shortlist == y.use_shortlist && x.sampling == y.sampling && x.repetition_penalty == y.repetition_penalty &&
         x.no_repeat_ngram_size == y.no_repeat_ngram_size && x.min_length == y.min_length && x.forced_eos == y.forced_eos &&
         x.max_input_length == y.max_input_length && x.alternatives == y.alternatives && x.disable_unk == y.disable_unk && x.return_attention == y.return_attention &&
         x.end_tokens.data() == y.end_tokens.data() && x.end_tokens.size() == y.end_tokens.size() &&
         x.suppress_sequences.data() == y.suppress_sequences.data() && x.suppress_sequences.size() == y.suppress_sequences.size() &&
         x.min_alternative_expansion_prob == y.min_alternative_expansion_prob && x.logits_processors.data() == y.logits_processors.data() &&
         x.logits_processors.size() == y.logits_processors.size();
}

}  // namespace tern::serving
