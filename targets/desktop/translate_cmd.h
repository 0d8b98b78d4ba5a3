// `tern translate`: streams sentences (one per line) through a Translator.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tern::cli {

struct TranslateArgs {
  std::string model;        // .tern path
  std::string input;        // empty: stdin
  std::string output;       // empty: stdout
  uint32_t beam = 0;        // 0: the file's default
  uint32_t threads = 0;     // 0: cpuinfo's performance cores
  uint32_t batch = 0;       // lines per translate call; 0: the file's default limit
  uint32_t max_length = 0;  // 0: the file's default
  uint32_t n_best = 1;
  std::optional<float> length_penalty;  // empty: the file's default
  std::string early_stopping;     // "": the file's; "false", "true", "never"
  uint32_t hf_rules = 5;          // transformers 5.x's beam search rules, or 4
  bool ids = false;         // space-separated ids in and out
  bool scores = false;      // append "\t<score>"
  bool exact_scores = false;  // --scores with 9 significant digits (identical-output checks across CPUs)
  bool verbose = false;     // CPU, model, arena, sentences/s, tokens/s on stderr
  bool profile = false;     // per-token time split on stderr
  std::string target_lang;  // multilingual models: ">>lang<<" first in every source
  bool no_split = false;    // translate each line as one sentence
  bool no_shortlist = false;  // ignore the model's shortlist
  bool no_mmap = false;     // read the model into memory instead of mapping it
  std::string packed_cache;  // LoadOptions::packed_cache_dir
  bool stream = false;      // print each line's words as they are generated (one line per call)
  bool json = false;        // --format json: one JSON object per line (result_writer.h)
  std::string html;         // --html: "strict", "lenient" or "xml"; empty: plain text
  std::string glossary;     // --glossary: TSV of source term, target term
  bool glossary_ignore_case = false;
  bool keep_placeholders = false;  // --keep-placeholders
  bool no_auto_protect = false;    // --no-auto-protect (TranslateOptions::auto_protect off)
  std::string placeholder_syntaxes = "default";
  bool icu_messages = false;  // --icu-messages: each line one ICU MessageFormat message (tern/icu_message.h)  // --placeholder-syntaxes (checked by the parser)
  bool translate_code = false;     // --translate-code
  std::optional<uint32_t> alignment_layer;  // the decoder layer whose cross-attention aligns (default: the model's)
  std::optional<float> low_token, low_sentence;  // low-confidence thresholds (tern/confidence.h defaults)
  std::optional<std::string> target_prefix;  // every line's translation starts with it (--ids: target ids)
  bool sample = false;                       // --sample, or any --sample-* option: sampling instead of argmax
  std::optional<float> sample_temperature, sample_topp;
  std::optional<uint32_t> sample_topk;
  uint64_t seed = 0;
  std::optional<float> repetition_penalty;       // the call's own logits rules (empty: the file's)
  std::optional<uint32_t> no_repeat_ngram_size, min_length;
  std::optional<bool> forced_eos;  // --forced-eos (empty: the file's)
  uint32_t max_input_length = 0;  // > 0: longer sources are cut to it
  uint32_t alternatives = 0;      // > 0: that many continuations of the prefix per line (TranslateOptions::alternatives)
  float min_alternative_expansion_prob = 0.f;
  std::vector<std::string> suppress;  // --suppress: target texts (--ids: target ids) never generated
  bool disable_unk = false;           // --disable-unk
};

/// Runs the command. Returns the process exit code: 0 all lines translated, 1 if any line failed (each
/// failure printed as "tern: line N: message" on stderr, an empty line written in its place), 2 if the
/// model or a file could not be opened, 130 if Ctrl-C (SIGINT) stopped a --stream run.
int RunTranslate(const TranslateArgs& args);

}  // namespace tern::cli
