#include "session/markup_call.h"

#include <algorithm>

#include "markup/protect.h"
#include "markup/transfer.h"

namespace tern {

void MarkupCall::Prepare(Span<const std::string_view> texts, const TranslateOptions& options) {
  const size_t n = texts.size();
  parsed_.resize(n);
  errors_.assign(n, {});
  plain_.assign(n, {});
  const markup::Mode m = options.markup == Markup::kHtmlLenient ? markup::Mode::kLenient
                         : options.markup == Markup::kXml      ? markup::Mode::kXml
                                                               : markup::Mode::kStrict;
  for (size_t i = 0; i < n; ++i) {
    Status s;
    keep_.clear();
    if (options.keep_placeholders)  // the caller says the text holds placeholders: "%shint:" is one
      markup::FindPlaceholders(texts[i], &keep_, options.placeholder_syntaxes | markup::kPrintfBeforeWords);
    if (options.markup != Markup::kNone) {  // placeholders in the markup's text (those inside tags are passed over)
      for (const KeepSpan& k : options.keep_spans) {
        if (k.text != i) continue;
        const std::string_view t = texts[i];
        const bool cuts = (k.span.begin < t.size() && (static_cast<unsigned char>(t[k.span.begin]) & 0xc0) == 0x80) ||
                          (k.span.end < t.size() && (static_cast<unsigned char>(t[k.span.end]) & 0xc0) == 0x80);
        if (k.span.end <= k.span.begin || k.span.end > t.size() || cuts)
          s = Status(StatusCode::kInvalidArgument, "do-not-translate span [" + std::to_string(k.span.begin) + ", " +
                                                       std::to_string(k.span.end) + ") leaves the text or cuts a UTF-8 character");
        keep_.push_back(k.span);
      }
      std::sort(keep_.begin(), keep_.end(), [](const TextSpan& a, const TextSpan& b) { return a.begin < b.begin; });
      size_t w = 0;  // overlaps join
      for (size_t r = 0; r < keep_.size(); ++r) {
        if (w > 0 && keep_[r].begin < keep_[w - 1].end) keep_[w - 1].end = std::max(keep_[w - 1].end, keep_[r].end);
        else keep_[w++] = keep_[r];
      }
      keep_.resize(w);
      if (s.ok()) s = markup::Parse(texts[i], m, &parsed_[i], options.translate_code, Span<const TextSpan>(keep_.data(), keep_.size()));
    } else {
      for (const KeepSpan& k : options.keep_spans)
        if (k.text == i) keep_.push_back(k.span);
      if (!options.keep_spans.empty()) {  // the caller's and the found ones together, in order; overlaps join
        std::sort(keep_.begin(), keep_.end(), [](const TextSpan& a, const TextSpan& b) { return a.begin < b.begin; });
        size_t w = 0;
        for (size_t r = 0; r < keep_.size(); ++r) {
          if (w > 0 && keep_[r].begin < keep_[w - 1].end && keep_[r].end <= texts[i].size() && keep_[r].end > keep_[r].begin)
            keep_[w - 1].end = std::max(keep_[w - 1].end, keep_[r].end);
          else keep_[w++] = keep_[r];
        }
        keep_.resize(w);
      }
      s = markup::Protect(texts[i], keep_, &parsed_[i]);
    }
    if (!s.ok()) {
      errors_[i] = s.message();
      parsed_[i] = markup::Parsed();
    }
    plain_[i] = parsed_[i].text;
  }
}

Span<const TranslationResult> MarkupCall::Finish(Span<const TranslationResult> plain) {
  const size_t n = plain.size();
  hyps_.assign(n, {});
  views_.assign(n, {});
  source_spans_.assign(n, {});
  results_.assign(n, TranslationResult());
  for (size_t i = 0; i < n; ++i) {
    TranslationResult& r = results_[i];
    if (!errors_[i].empty()) {
      r.error = StatusCode::kInvalidArgument;
      r.error_message = errors_[i];
      continue;
    }
    const TranslationResult& in = plain[i];
    r = in;  // errors, source ids; hypotheses and spans are rewritten below
    if (!in.ok()) continue;
    const markup::Parsed& p = parsed_[i];
    for (const TextSpan& s : in.source_spans) {
      const auto [b, e] = markup::LineSpan(p, s.begin, s.end);
      source_spans_[i].push_back(TextSpan{b, e});
    }
    r.source_spans = Span<const TextSpan>(source_spans_[i].data(), source_spans_[i].size());
    hyps_[i].resize(in.hypotheses.size());
    views_[i].assign(in.hypotheses.begin(), in.hypotheses.end());
    for (size_t k = 0; k < in.hypotheses.size(); ++k) {
      const Hypothesis& h = in.hypotheses[k];
      Hyp& out = hyps_[i][k];
      markup::AlignedTranslation t{h.text, h.token_spans, h.token_sources, in.source_spans};
      out.text = markup::Transfer(p, t, &out_begin_, &out_end_);
      for (const TextSpan& s : h.token_spans) {
        const size_t b = std::min(s.begin, h.text.size()), e = std::min(std::max(s.end, b), h.text.size());
        out.token_spans.push_back(e > b ? TextSpan{out_begin_[b], out_end_[e - 1]} : TextSpan{out_begin_[b], out_begin_[b]});
      }
      Hypothesis& v = views_[i][k];
      v.text = out.text;
      v.token_spans = Span<const TextSpan>(out.token_spans.data(), out.token_spans.size());
    }
    r.hypotheses = Span<const Hypothesis>(views_[i].data(), views_[i].size());
  }
  return Span<const TranslationResult>(results_.data(), n);
}

}  // namespace tern
