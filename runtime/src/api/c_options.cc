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

#include "api/c_options_fields.inc"

CallOptions::CallOptions(const tern_translate_params* params, size_t n_inputs) {
  tern_translate_params p = tern_translate_default_params();
  if (params && !ReadParams(params, kFirstReleaseParamsBytes, &p)) {
    status_ = Status(StatusCode::kInvalidArgument, StructSizeError("tern_translate", params->struct_size, "tern_translate_default_params"));
    return;
  }
  ReadPlain(p);
  // Every pointer/count pair first, before anything is sized by a count: an array that is NULL while its
  // count or a length says it holds something is refused at once, named.
  if (status_.ok()) status_ = CheckArrays(p, n_inputs);
  if (!status_.ok()) return;
  // The special fields (the table's "special" rows): callbacks, the glossary, per-input and id data.
  TranslateOptions& o = options_;
  token_ = p.token_callback, token_data_ = p.token_user_data;
  abort_ = p.abort_callback, abort_data_ = p.abort_user_data;
  if (token_) o.on_token = &CallOptions::Token, o.on_token_user_data = this;
  if (abort_) o.abort = &CallOptions::Abort, o.abort_user_data = this;
  if (p.logits_callback) {
    logits_.fn = p.logits_callback, logits_.user_data = p.logits_user_data;
    o.logits_processors = Span<LogitsProcessor* const>(logits_list_, 1);
  }
  o.glossary = p.glossary ? p.glossary->glossary.get() : nullptr;
  if (p.target_prefix) {  // one per input (NULL: none)
    prefix_texts_.resize(n_inputs);
    for (size_t i = 0; i < n_inputs; ++i) prefix_texts_[i] = p.target_prefix[i] ? std::string_view(p.target_prefix[i]) : std::string_view();
    o.target_prefix = Span<const std::string_view>(prefix_texts_.data(), n_inputs);
  }
  if (p.target_prefix_ids) {
    prefix_ids_.resize(n_inputs);
    for (size_t i = 0; i < n_inputs; ++i)
      prefix_ids_[i] = Span<const uint32_t>(p.target_prefix_ids[i], p.target_prefix_ids[i] ? p.target_prefix_lengths[i] : 0);
    o.target_prefix_ids = Span<const Span<const uint32_t>>(prefix_ids_.data(), n_inputs);
  }
  // (A sequence of length 0 stays: the session refuses it, naming it.)
  for (size_t i = 0; i < p.suppress_sequence_count; ++i)
    suppress_.emplace_back(p.suppress_sequences[i], p.suppress_sequences[i] ? p.suppress_sequence_lengths[i] : 0);
  o.suppress_sequences = Span<const Span<const uint32_t>>(suppress_.data(), suppress_.size());
  if (p.end_token_count) o.end_tokens = Span<const uint32_t>(p.end_tokens, p.end_token_count);
  for (size_t i = 0; i < p.keep_span_count; ++i)
    keep_.push_back(KeepSpan{p.keep_spans[i].text, TextSpan{p.keep_spans[i].begin, p.keep_spans[i].end}});
  o.keep_spans = Span<const KeepSpan>(keep_.data(), keep_.size());
  if (p.sampling_key_count) o.sampling_keys = Span<const uint64_t>(p.sampling_keys, p.sampling_key_count);
}

Status CallOptions::CheckArrays(const tern_translate_params& p, size_t n_inputs) {
  auto bad = [](const std::string& what) { return Status(StatusCode::kInvalidArgument, "tern_translate_params." + what); };
  if (p.target_prefix_ids) {
    if (!p.target_prefix_lengths) return bad("target_prefix_lengths is NULL with target_prefix_ids set (one length per input)");
    for (size_t i = 0; i < n_inputs; ++i)
      if (!p.target_prefix_ids[i] && p.target_prefix_lengths[i])
        return bad("target_prefix_ids[" + std::to_string(i) + "] is NULL with length " + std::to_string(p.target_prefix_lengths[i]));
  }
  if (p.suppress_sequence_count) {
    if (!p.suppress_sequences || !p.suppress_sequence_lengths)
      return bad(std::string(p.suppress_sequences ? "suppress_sequence_lengths" : "suppress_sequences") + " is NULL with suppress_sequence_count " +
                 std::to_string(p.suppress_sequence_count));
    for (size_t i = 0; i < p.suppress_sequence_count; ++i)
      if (!p.suppress_sequences[i] && p.suppress_sequence_lengths[i])
        return bad("suppress_sequences[" + std::to_string(i) + "] is NULL with length " + std::to_string(p.suppress_sequence_lengths[i]));
  }
  if (p.end_token_count && !p.end_tokens) return bad("end_tokens is NULL with end_token_count " + std::to_string(p.end_token_count));
  if (p.keep_span_count && !p.keep_spans) return bad("keep_spans is NULL with keep_span_count " + std::to_string(p.keep_span_count));
  if (p.sampling_key_count && (!p.sampling_keys || p.sampling_key_count != n_inputs))
    return bad("sampling_key_count " + std::to_string(p.sampling_key_count) + (p.sampling_keys ? "" : " with sampling_keys NULL") + " for " +
               std::to_string(n_inputs) + " inputs (one per input, or 0)");
  return Status::Ok();
}

void CallOptions::Refuse(const char* field, int value, const char* allowed) {
  if (status_.ok())
    status_ = Status(StatusCode::kInvalidArgument, std::string("tern_translate_params.") + field + " " + std::to_string(value) +
                                                       " (" + allowed + ")");
}

bool CallOptions::Token(const TokenEvent& e, void* self) {
  const auto* c = static_cast<const CallOptions*>(self);
  tern_token_event ce;
  ce.index = e.index + c->offset_;
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
  r.input = row.input + offset;
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
  tern::c_api::DefaultPlainParams(&p);  // the table's defaults; the special fields are NULL / 0
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
