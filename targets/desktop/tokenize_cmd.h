// `tern tokenize`: the token ids the model sees for each input line.
#pragma once

#include <string>

namespace tern::cli {

struct TokenizeArgs {
  std::string model;
  std::string input;        // empty: stdin
  bool target = false;      // the target side's SentencePiece model and vocabulary
  std::string target_lang;
};

/// `tern tokenize`: prints the token ids of each input line (what the model sees: MarianTokenizer's
/// rules, </s> included), space-separated, one line per input line. Returns the process exit code: 0 all lines
/// tokenized, 1 if any line failed (reported as "tern: line N: message", an empty line in its place), 2 if
/// the model or the input could not be opened.
int RunTokenize(const TokenizeArgs& args);

}  // namespace tern::cli
