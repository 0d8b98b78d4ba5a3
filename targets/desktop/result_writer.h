// How `tern translate` writes each line's outcome: plain text (one line per hypothesis, with --ids the ids,
// with --scores a tab and the score), or --format json (one JSON object per input line: the translation,
// its score and confidence, every token with its bytes in the text, log-probability, low-confidence flag
// and the source token it aligns to, and the source tokens with their bytes in the input).
#pragma once

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>

#include "tern/confidence.h"
#include "tern/model.h"
#include "tern/translator.h"

namespace tern::cli {

struct OutputFormat {
  bool json = false;
  bool ids = false;       // plain: ids instead of text
  bool scores = false;    // plain: "\t<score>" after each hypothesis
  bool exact_scores = false;  // scores with 9 significant digits: every float prints differently
  bool streamed = false;  // plain: the first hypothesis' text was already printed while it was generated
  uint32_t n_best = 1;
  ConfidenceThresholds thresholds;
};

/// Writes line `line` (1-based) whose input was `input`: its result `r`, or (r == nullptr) its `error`.
/// Plain: n_best lines (empty lines for a failed input, so the output stays aligned with the input).
void WriteResult(std::ostream& out, const OutputFormat& f, size_t line, std::string_view input,
                 const TranslationResult* r, const std::string& error);

}  // namespace tern::cli
