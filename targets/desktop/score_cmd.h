// `tern score`: scores given translations, one "source<TAB>target" pair per line (Translator::Score).
#pragma once

#include <cstdint>
#include <string>

namespace tern::cli {

struct ScoreArgs {
  std::string model;     // .tern path
  std::string input;     // empty: stdin
  std::string output;    // empty: stdout
  uint32_t threads = 0;  // 0: cpuinfo's performance cores
  bool ids = false;      // space-separated ids: source ids with </s>, target ids without
  bool json = false;     // one JSON object per line with every token's log-probability
  std::string packed_cache;      // as TranslateArgs
  bool no_packed_cache = false;
};

/// Runs the command: per line the target's score (the sum of its tokens' log-probabilities, </s> included,
/// after the model's logits rules: what greedy search gives the same tokens) on stdout, or with json
/// {"line", "score", "tokens": [{"id", "logprob"}], "text"}. Returns 0 when every line was scored, 1 if any
/// failed (no tab, a bad id, a target too long: "tern: line N: ..." on stderr and an empty line in its
/// place), 2 if the model or a file could not be opened.
int RunScore(const ScoreArgs& args);

}  // namespace tern::cli
