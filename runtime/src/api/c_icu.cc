// The C API's ICU MessageFormat call (tern.h tern_translate_icu_messages): tern::TranslateIcuMessages, its
// messages copied into a result set (one hypothesis with the message's text, or the message's error).
#include <string_view>
#include <vector>

#include "api/c_api_internal.h"
#include "tern/icu_message.h"

using tern::c_api::Fail;
using tern::c_api::Guarded;
using tern::c_api::SetError;

extern "C" {

tern_status_code tern_translate_icu_messages(tern_translator* t, const char* const* messages, size_t n,
                                             const tern_translate_params* params, tern_results* results, tern_error* err) {
  bool owner = false;  // this call took the translator (a tern_translator_free from its callbacks is done below)
  const tern_status_code rc = Guarded(err, TERN_INTERNAL, [&]() -> tern_status_code {
    if (results) results->count = 0;
    if (!t || !results || (!messages && n))
      return SetError(err, TERN_INVALID_ARGUMENT, "tern_translate_icu_messages: NULL argument"), TERN_INVALID_ARGUMENT;
    tern::c_api::TranslatorCall call(t);
    owner = call.acquired();
    if (!call.acquired())
      return SetError(err, TERN_BUSY, "tern_translate_icu_messages: the translator is busy with another call"), TERN_BUSY;
    if (params && (params->target_prefix || params->target_prefix_ids))
      return SetError(err, TERN_INVALID_ARGUMENT, "tern_translate_icu_messages: no target prefixes"), TERN_INVALID_ARGUMENT;
    const tern::c_api::CallOptions options(params, n);
    if (!options.status().ok()) return Fail(err, options.status());
    std::vector<std::string_view> views(n);
    for (size_t i = 0; i < n; ++i) views[i] = messages[i] ? std::string_view(messages[i]) : std::string_view();
    std::vector<tern::IcuTranslation> out;
    const tern::Status s = tern::TranslateIcuMessages(*t->translator, tern::Span<const std::string_view>(views.data(), n),
                                                      options.options(), &out);
    if (!s.ok()) return Fail(err, s);
    if (results->sentences.size() < n) results->sentences.resize(n);
    for (size_t i = 0; i < n; ++i) {
      tern::OwnedResult& r = results->sentences[i];
      r.error = out[i].error;
      r.error_message = out[i].ok() ? std::string() : out[i].error_message;
      r.source_ids.clear();
      r.source_spans.clear();
      r.hypotheses.clear();
      if (out[i].ok()) {
        r.hypotheses.resize(1);
        r.hypotheses[0].text = std::move(out[i].text);
      }
    }
    results->count = n;
    return TERN_OK;
  });
  if (t) tern::c_api::FinishCall(t, owner);
  return rc;
}

}  // extern "C"
