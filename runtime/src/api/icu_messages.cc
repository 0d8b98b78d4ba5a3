// TranslateIcuMessages (tern/icu_message.h): parse each message (markup/icu_message.h), translate every
// text with letters through Translator::Translate with its arguments as keep_spans, rebuild the syntax.
#include "tern/call_chunks.h"
#include "tern/icu_message.h"

#include "markup/icu_message.h"

namespace tern {
namespace {

bool Blank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// One text to translate: message m's text t, its spaces at either end kept aside.
struct Piece {
  size_t message = 0, text = 0;
  std::string body, lead, trail;
  std::vector<TextSpan> keep;
};

Piece MakePiece(size_t m, size_t t, std::string text, std::vector<TextSpan> keep) {
  Piece p;
  p.message = m, p.text = t;
  size_t b = 0, e = text.size();
  while (b < e && Blank(text[b])) ++b;
  while (e > b && Blank(text[e - 1])) --e;
  p.lead = text.substr(0, b), p.trail = text.substr(e);
  p.body = text.substr(b, e - b);
  for (const TextSpan& s : keep) p.keep.push_back({s.begin - b, s.end - b});  // arguments never start in a space
  return p;
}

}  // namespace

Status TranslateIcuMessages(Translator& translator, Span<const std::string_view> messages, const TranslateOptions& options,
                            std::vector<IcuTranslation>* out) {
  if (!options.target_prefix.empty() || !options.target_prefix_ids.empty() || options.alternatives ||
      !options.keep_spans.empty() || options.on_token)
    return Status(StatusCode::kInvalidArgument,
                  "TranslateIcuMessages: not with target prefixes, alternatives, keep_spans or on_token");
  out->assign(messages.size(), IcuTranslation());
  std::vector<markup::IcuMessage> parsed(messages.size());
  std::vector<std::vector<std::string>> translations(messages.size());
  std::vector<Piece> pieces;
  for (size_t i = 0; i < messages.size(); ++i) {
    const bool fluent = (options.placeholder_syntaxes & placeholder_syntax::kFluent) != 0;
    const Status st = markup::ParseIcuMessage(messages[i], &parsed[i], fluent);
    if (!st.ok()) {
      (*out)[i].error = st.code(), (*out)[i].error_message = st.message();
      continue;
    }
    translations[i].resize(parsed[i].texts.size());
    for (size_t t = 0; t < parsed[i].texts.size(); ++t) {
      std::string text;
      std::vector<TextSpan> keep;
      if (markup::IcuPiece(messages[i], parsed[i], t, &text, &keep)) pieces.push_back(MakePiece(i, t, std::move(text), std::move(keep)));
      else translations[i][t] = std::move(text);
    }
  }
  // Every piece one input of one call, in the one chunked-call loop (tern/call_chunks.h: each chunk's keep spans
  // renumbered, each piece keyed for sampling by its index in the call).
  std::vector<std::string_view> texts;
  std::vector<KeepSpan> keep;
  for (size_t k = 0; k < pieces.size(); ++k) {
    texts.push_back(pieces[k].body);
    for (const TextSpan& s : pieces[k].keep) keep.push_back({k, s});
  }
  TranslateOptions whole = options;
  whole.keep_spans = Span<const KeepSpan>(keep.data(), keep.size());
  CallChunks chunks(whole, texts.size(), translator.max_batch());
  size_t delivered = 0;
  TERN_RETURN_IF_ERROR(chunks.Run(
      [&](size_t b, size_t e, const TranslateOptions& o, Span<const TranslationResult>* results) {
        return translator.Translate(Span<const std::string_view>(texts.data() + b, e - b), o, results);
      },
      [&](size_t b, Span<const TranslationResult> results) {
        for (size_t j = 0; j < results.size(); ++j) {
          const Piece& p = pieces[b + j];
          const TranslationResult& r = results[j];
          IcuTranslation& m = (*out)[p.message];
          if (!r.ok()) {
            if (m.ok()) m.error = r.error, m.error_message = "text at byte " + std::to_string(parsed[p.message].texts[p.text].span.begin) +
                                                               ": " + std::string(r.error_message);
            continue;
          }
          translations[p.message][p.text] = p.lead + std::string(r.best().text) + p.trail;
        }
      },
      &delivered));
  for (size_t i = 0; i < messages.size(); ++i) {
    IcuTranslation& m = (*out)[i];
    if (!m.ok()) continue;
    const Status st = markup::RebuildIcuMessage(messages[i], parsed[i], translations[i], &m.text);
    if (!st.ok()) m.error = st.code(), m.error_message = st.message();
  }
  return Status::Ok();
}

}  // namespace tern
