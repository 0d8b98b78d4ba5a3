// `tern translate`: streams sentences (one per line) through a Translator.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "option_flags.h"

namespace tern::cli {

struct TranslateArgs {
  std::string model;        // .tern path
  std::string input;        // empty: stdin
  std::string output;       // empty: stdout
  OptionFlags options;      // every plain option of the field table (option_flags.h): --beam, --max-length, ...
  uint32_t threads = 0;     // 0: cpuinfo's performance cores
  uint32_t batch = 0;       // lines per translate call; 0: the file's default limit
  bool ids = false;         // space-separated ids in and out
  bool scores = false;      // append "\t<score>"
  bool exact_scores = false;  // --scores with 9 significant digits (identical-output checks across CPUs)
  bool verbose = false;     // CPU, model, arena, sentences/s, tokens/s on stderr
  bool profile = false;     // per-token time split on stderr
  bool mmap = false;        // --mmap: map the model instead of reading it into memory (LoadOptions::map_file)
  std::string packed_cache;  // LoadOptions::packed_cache_dir ("": DefaultPackedCacheDir())
  bool no_packed_cache = false;  // --no-packed-cache: none at all
  bool stream = false;      // print each line's words as they are generated (one line per call)
  bool json = false;        // --format json: one JSON object per line (result_writer.h)
  std::string glossary;     // --glossary: TSV of source term, target term
  bool glossary_ignore_case = false;
  bool icu_messages = false;  // --icu-messages: each line one ICU MessageFormat message (tern/icu_message.h)
  std::optional<float> low_token, low_sentence;  // low-confidence thresholds (tern/confidence.h defaults)
  std::optional<std::string> target_prefix;  // every line's translation starts with it (--ids: target ids)
  std::vector<std::string> suppress;  // --suppress: target texts (--ids: target ids) never generated
  std::vector<uint32_t> end_tokens;   // --end-token: more target ids that end a hypothesis

  uint32_t beam() const { return options.beam_size.value_or(0); }           // 0: the file's
  uint32_t n_best() const { return options.n_best.value_or(1); }
  uint32_t alternatives() const { return options.alternatives.value_or(0); }
  uint32_t max_length() const { return options.max_length.value_or(0); }    // 0: the file's
  bool split() const { return !options.split_sentences; }                   // --no-split not given
};

/// Runs the command. Returns the process exit code: 0 all lines translated, 1 if any line failed (each
/// failure printed as "tern: line N: message" on stderr, an empty line written in its place), 2 if the
/// model or a file could not be opened, 130 if Ctrl-C (SIGINT) stopped a --stream run.
int RunTranslate(const TranslateArgs& args);

}  // namespace tern::cli
