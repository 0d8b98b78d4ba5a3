// The C API's per-call options: tern_translate_params to TranslateOptions, and the C callbacks (token,
// abort, logits) behind the C++ ones.
#include <cmath>

#include <cstddef>

#include "api/c_api_internal.h"
#include "tern/logits_processor.h"

namespace tern::c_api {

std::string StructSizeError(const char* fn, size_t size, const char* defaults, const char* field) {
  return std::string(fn) + ": " + field + " " + std::to_string(size) + " (use " + defaults + "())";
}

TranslatorConfig ConfigOf(const tern_translator_params& p) {
  TranslatorConfig c;
  c.max_batch = p.max_batch, c.max_beam = p.max_beam, c.max_n_best = p.max_n_best ? p.max_n_best : 1;
  c.attention = p.attention != 0;
  c.max_source_tokens = p.max_source_tokens, c.max_target_tokens = p.max_target_tokens, c.threads = p.threads;
  return c;
}

CallOptions::CallOptions(const tern_translate_params* params) {
  tern_translate_params p = tern_translate_default_params();
  // The first release with struct_size ended before auto_protect.
  if (params && !ReadParams(params, offsetof(tern_translate_params, auto_protect), &p)) {
    status_ = Status(StatusCode::kInvalidArgument, StructSizeError("tern_translate", params->struct_size, "tern_translate_default_params"));
    return;
  }
  TranslateOptions& o = options_;
  token_ = p.token_callback, token_data_ = p.token_user_data;
  abort_ = p.abort_callback, abort_data_ = p.abort_user_data;
  if (token_) o.on_token = &CallOptions::Token, o.on_token_user_data = this;
  if (abort_) o.abort = &CallOptions::Abort, o.abort_user_data = this;
  if (p.logits_callback) {
    logits_.fn = p.logits_callback, logits_.user_data = p.logits_user_data;
    o.logits_processors = Span<LogitsProcessor* const>(logits_list_, 1);
  }
  if (p.beam_size) o.beam_size = p.beam_size;
  if (!std::isnan(p.length_penalty)) o.length_penalty = p.length_penalty;
  if (p.early_stopping >= 0) o.early_stopping = static_cast<EarlyStopping>(p.early_stopping);
  if (p.hf_rules) o.hf_rules = static_cast<HfRules>(p.hf_rules);
  if (p.max_length) o.max_length = p.max_length;
  if (!std::isnan(p.max_length_ratio)) o.max_length_ratio = p.max_length_ratio;
  o.n_best = p.n_best ? p.n_best : 1;
  o.return_scores = p.return_scores != 0;
  o.return_alignment = p.return_alignment != 0;
  o.target_lang = p.target_lang ? std::string_view(p.target_lang) : std::string_view();
  o.split_sentences = p.split_sentences != 0;
  o.use_shortlist = p.use_shortlist != 0;
  // Out of range: a value the session refuses (kInvalidArgument naming it), never a silent wrap to 0.
  o.markup = p.markup >= 0 && p.markup <= 3 ? static_cast<Markup>(p.markup) : static_cast<Markup>(0xff);
  o.glossary = p.glossary ? p.glossary->glossary.get() : nullptr;
  o.keep_placeholders = p.keep_placeholders != 0;
  o.translate_code = p.translate_code != 0;
  o.sampling.enabled = p.do_sample != 0;
  o.sampling.temperature = p.sampling_temperature;
  o.sampling.top_k = p.sampling_topk;
  o.sampling.top_p = p.sampling_topp;
  o.sampling.seed = p.sampling_seed;
  if (!std::isnan(p.repetition_penalty)) o.repetition_penalty = p.repetition_penalty;
  // Below -1: a value the session refuses, never a silent "the file's".
  if (p.no_repeat_ngram_size >= 0) o.no_repeat_ngram_size = static_cast<uint32_t>(p.no_repeat_ngram_size);
  else if (p.no_repeat_ngram_size < -1) Refuse("no_repeat_ngram_size", p.no_repeat_ngram_size, "0 or more; -1: the file's");
  o.max_input_length = p.max_input_length;
  o.alternatives = p.alternatives;
  o.min_alternative_expansion_prob = p.min_alternative_expansion_prob;
  // A NULL array or length is an empty sequence: the session refuses it, naming it.
  for (size_t i = 0; i < p.suppress_sequence_count; ++i) {
    const uint32_t* ids = p.suppress_sequences ? p.suppress_sequences[i] : nullptr;
    suppress_.emplace_back(ids, ids && p.suppress_sequence_lengths ? p.suppress_sequence_lengths[i] : 0);
  }
  o.suppress_sequences = Span<const Span<const uint32_t>>(suppress_.data(), suppress_.size());
  o.disable_unk = p.disable_unk != 0;
  o.return_attention = p.return_attention != 0;
  // A NULL array with a count: an id the session refuses (never a silent "none").
  static const uint32_t kInvalid[] = {UINT32_MAX};
  if (p.end_token_count) o.end_tokens = p.end_tokens ? Span<const uint32_t>(p.end_tokens, p.end_token_count) : Span<const uint32_t>(kInvalid, 1);
  if (p.min_length >= 0) o.min_length = static_cast<uint32_t>(p.min_length);
  else if (p.min_length < -1) Refuse("min_length", p.min_length, "0 or more; -1: the file's");
  if (p.forced_eos == 0 || p.forced_eos == 1) o.forced_eos = p.forced_eos == 1;
  else if (p.forced_eos != -1) Refuse("forced_eos", p.forced_eos, "0, 1; -1: the file's");
  if (p.alignment_layer >= 0) o.alignment_layer = static_cast<uint32_t>(p.alignment_layer);
  else if (p.alignment_layer != -1) Refuse("alignment_layer", p.alignment_layer, "0 or more; -1: the model's");
  // A NULL array with a count: a span the session refuses (its text index is out of range).
  for (size_t i = 0; i < p.keep_span_count; ++i)
    keep_.push_back(p.keep_spans ? KeepSpan{p.keep_spans[i].text, TextSpan{p.keep_spans[i].begin, p.keep_spans[i].end}}
                                 : KeepSpan{SIZE_MAX, TextSpan{0, 0}});
  o.keep_spans = Span<const KeepSpan>(keep_.data(), keep_.size());
  o.placeholder_syntaxes = p.placeholder_syntaxes;
  o.auto_protect = p.auto_protect != 0;
}

void CallOptions::Refuse(const char* field, int value, const char* allowed) {
  if (status_.ok())
    status_ = Status(StatusCode::kInvalidArgument, std::string("tern_translate_params.") + field + " " + std::to_string(value) +
                                                       " (" + allowed + ")");
}

bool CallOptions::Token(const TokenEvent& e, void* self) {
  const auto* c = static_cast<const CallOptions*>(self);
  tern_token_event ce;
  ce.index = e.index;
  ce.part = e.part;
  ce.parts = e.parts;
  ce.token = e.token;
  ce.text = e.text.empty() ? "" : e.text.data();  // never NULL: C callers may memcpy(dst, text, 0)
  ce.text_len = e.text.size();
  ce.last = e.last ? 1 : 0;
  ce.logprob = e.logprob;
  return c->token_(&ce, c->token_data_) != 0;
}

bool CallOptions::Abort(void* self) {
  const auto* c = static_cast<const CallOptions*>(self);
  return c->abort_(c->abort_data_) != 0;
}

void CallOptions::LogitsAdapter::Process(LogitsRow& row) {
  tern_logits_row r;
  r.input = row.input;
  r.part = row.part;
  r.hypothesis = row.hypothesis;
  r.step = row.step;
  r.prefix = row.prefix.data();
  r.scores = row.scores.data();
  r.n_columns = row.scores.size();
  r.columns = row.columns.empty() ? nullptr : row.columns.data();
  r.internal_ = &row;
  fn(&r, user_data);
}

}  // namespace tern::c_api

static_assert(TERN_PLACEHOLDER_DEFAULT == tern::placeholder_syntax::kDefault && TERN_PLACEHOLDER_SHELL == tern::placeholder_syntax::kShell &&
                  TERN_PLACEHOLDER_NUMBER_UNIT == tern::placeholder_syntax::kNumberUnit,
              "the C API's placeholder bits are tern::placeholder_syntax's");

extern "C" int64_t tern_logits_column(const tern_logits_row* row, uint32_t token) {
  if (!row || !row->internal_) return -1;
  return static_cast<const tern::LogitsRow*>(row->internal_)->Column(token);
}

extern "C" tern_translate_params tern_translate_default_params(void) {
  tern_translate_params p{};
  p.struct_size = sizeof(tern_translate_params);
  p.length_penalty = NAN;
  p.early_stopping = -1;
  p.hf_rules = 5;
  p.max_length_ratio = NAN;
  p.n_best = 1;
  p.return_scores = 1;
  p.target_lang = nullptr;
  p.split_sentences = 1;
  p.use_shortlist = 1;
  p.sampling_temperature = 1.f;
  p.sampling_topk = 50;
  p.sampling_topp = 1.f;
  p.repetition_penalty = NAN;
  p.no_repeat_ngram_size = -1;
  p.min_length = -1;
  p.forced_eos = -1;
  p.alignment_layer = -1;
  p.placeholder_syntaxes = TERN_PLACEHOLDER_DEFAULT;
  p.auto_protect = 1;
  return p;
}

extern "C" tern_status_code tern_placeholder_syntaxes(const char* names, uint32_t* bits, tern_error* err) {
  using namespace tern::c_api;
  return Guarded(err, TERN_INTERNAL, [&]() -> tern_status_code {
    if (!names || !bits) return SetError(err, TERN_INVALID_ARGUMENT, "tern_placeholder_syntaxes: NULL argument"), TERN_INVALID_ARGUMENT;
    const tern::Result<uint32_t> r = tern::PlaceholderSyntaxesFromNames(names);
    if (!r.ok()) return Fail(err, r.status());
    *bits = r.value();
    return TERN_OK;
  });
}
