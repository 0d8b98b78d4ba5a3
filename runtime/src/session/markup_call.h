// Translate() with markup (TranslateOptions::markup): each text taken apart (markup/html.h), the plain
// texts translated as usual (split into sentences, with alignment), the elements put back into every
// hypothesis (markup/transfer.h), its token spans moved to the marked-up output and the source spans to the
// marked-up input. A text whose markup fails (strict mode) gets its own error. Results live in this
// object's heap buffers until the next call.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "markup/html.h"
#include "tern/translator.h"

namespace tern {

class MarkupCall {
 public:
  /// Takes `texts` apart (options.markup; or, in plain texts, options.keep_placeholders and keep_spans: the
  /// do-not-translate spans, markup/protect.h); plain() then holds what to translate (a text that failed:
  /// empty).
  void Prepare(Span<const std::string_view> texts, const TranslateOptions& options);
  Span<const std::string_view> plain() const { return Span<const std::string_view>(plain_.data(), plain_.size()); }
  /// The results for the marked-up texts from the plain texts' results.
  Span<const TranslationResult> Finish(Span<const TranslationResult> plain);

 private:
  struct Hyp {
    std::string text;
    std::vector<TextSpan> token_spans;
  };
  std::vector<markup::Parsed> parsed_;
  std::vector<std::string> errors_;  // per text: its markup error, or empty
  std::vector<std::string_view> plain_;
  std::vector<std::vector<Hyp>> hyps_;
  std::vector<std::vector<Hypothesis>> views_;
  std::vector<std::vector<TextSpan>> source_spans_;
  std::vector<TranslationResult> results_;
  std::vector<size_t> out_begin_, out_end_;  // scratch of markup::Transfer
  std::vector<TextSpan> keep_;               // scratch: one text's do-not-translate spans
};

}  // namespace tern
