// `tern translate --icu-messages`: a batch of lines, each one ICU MessageFormat message
// (tern::TranslateIcuMessages), written one output line per input line.
#pragma once

#include <cstddef>
#include <ostream>
#include <string_view>
#include <vector>

#include "input_line.h"
#include "tern/translator.h"

namespace tern::cli {

/// Translates the lines without a parse error (`texts`: their texts, in order) and writes a line per input
/// line to `out`: the translated message, or an empty line for a failed one, whose error goes to stderr as
/// "tern: line N: ..." (a whole-call error fails every line). Returns how many lines failed.
size_t TranslateIcuLines(Translator& t, const std::vector<InputLine>& lines, const std::vector<std::string_view>& texts,
                         const TranslateOptions& options, std::ostream& out);

}  // namespace tern::cli
