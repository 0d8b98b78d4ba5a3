// tern: the desktop command line.
//   tern translate [-m MODEL] [--input F] [--output F] [--beam N] [--threads N] [--batch N] [--max-length N]
//                  [--n-best K] [--ids] [--scores] [--verbose] [--profile] [--stream] [--mmap] [--packed-cache DIR]
//                  [--no-split] [--no-shortlist] [--target-lang LANG] [--format text|json] [--html[=lenient]]
//                  [--target-prefix TEXT] [--sample] [--sample-topk K] [--sample-topp P] [--sample-temperature T] [--seed S]
//   tern score [-m MODEL] [--input F] [--output F] [--ids] [--format text|json]   (lines: source<TAB>target)
//   tern tokenize [-m MODEL] [--input F] [--target] [--target-lang LANG]
//   tern inspect MODEL [--json]
// Errors are one line on stderr and a non-zero exit.
#include <cmath>
#include <cstdlib>
#include <iostream>

#include <CLI/CLI.hpp>

#include "cli_io.h"
#include "inspect.h"
#include "score_cmd.h"
#include "tern/model.h"
#include "tern/options.h"
#include "tern/version.h"
#include "tokenize_cmd.h"
#include "translate_cmd.h"

#ifndef TERN_DEFAULT_MODEL
#define TERN_DEFAULT_MODEL "models/en-de/en-de.int8.tern"
#endif

// CLI11's Range lets NaN through (every comparison with it is false): a float option must be a finite number.
static const CLI::Validator kFinite(
    [](std::string& value) -> std::string {
      char* end = nullptr;
      const double v = std::strtod(value.c_str(), &end);
      if (end == value.c_str() || *end != 0 || !std::isfinite(v)) return "'" + value + "' is not a finite number";
      return {};
    },
    "FINITE");

#include "option_flags_cli.inc"

static int Run(int argc, char** argv) {
  CLI::App app{"tern: int8 Transformer translation on small devices"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("tern ") + tern::Version());

  tern::cli::TranslateArgs ta;
  const char* env_model = std::getenv("TERN_MODEL");
  ta.model = env_model ? env_model : TERN_DEFAULT_MODEL;
  CLI::App* tr = app.add_subcommand("translate", "translate lines from stdin or --input");
  tr->add_option("-m,--model", ta.model, "the .tern model (default: $TERN_MODEL or the bundled en-de model)");
  tr->add_option("-i,--input", ta.input, "input file, one sentence per line (default: stdin)");
  tr->add_option("-o,--output", ta.output, "output file (default: stdout)");
  // Every plain option of the field table (runtime/fields/fields.py): --beam, --max-length, --sample-*, ...
  // Their ranges are the library's (Translator::CheckOptions before anything is written: exit 2).
  AddOptionFlags(tr, &ta.options);
  tr->add_option("--threads", ta.threads, "threads (default: the performance cores)")->check(CLI::Range(1u, 1024u));
  tr->add_option("--batch", ta.batch, "lines per batch (default: the model's max_batch)")->check(CLI::Range(1u, 4096u));
  tr->add_flag("--ids", ta.ids, "space-separated token ids in and out (source ids taken as given: include </s>)");
  tr->add_flag("--scores", ta.scores, "append a tab and the score to each line");
  tr->add_flag("--exact-scores", ta.exact_scores,
               "--scores with 9 significant digits, so two different floats never print alike (checks that two CPUs give "
               "the same output: docs/design.md)");
  tr->add_flag("-v,--verbose", ta.verbose, "print CPU, model, arena and throughput to stderr");
  tr->add_flag("--profile", ta.profile, "print the time per token split by component to stderr");
  tr->add_flag("--mmap", ta.mmap,
               "map the model instead of reading it into memory (the default, at memory speed): a little faster to "
               "load and shared between processes, but a model file truncated or rewritten in place while it runs "
               "can stop it (SIGBUS)");
  bool no_mmap = false;
  tr->add_flag("--no-mmap", no_mmap, "read the model into memory: the default (kept for older scripts)");
  tr->add_option("--packed-cache", ta.packed_cache,
                 "directory of the packed-weights cache: the first run writes this CPU's packed weights there, later "
                 "runs map them instead of packing (default: $TERN_PACKED_CACHE_DIR, else $XDG_CACHE_HOME/tern/packed "
                 "or ~/.cache/tern/packed, at most 2 GiB, least recently used entries removed first)");
  tr->add_flag("--no-packed-cache", ta.no_packed_cache,
               "no packed-weights cache: pack at load, write nothing (also TERN_PACKED_CACHE=off)");
  std::string format = "text";
  tr->add_option("--format", format,
                 "text (default): one line per translation; json: one JSON object per line with every token's text, "
                 "bytes, log-probability, confidence flag and source alignment")
      ->check(CLI::IsMember({"text", "json"}));
  tr->add_option("--low-token", ta.low_token, "--format json: a token whose log-probability is below this is low confidence")
      ->check(kFinite & CLI::Range(-1e6f, 0.f));
  tr->add_option("--low-sentence", ta.low_sentence,
                 "--format json: a translation whose mean token log-probability is below this is low confidence")
      ->check(kFinite & CLI::Range(-1e6f, 0.f));
  tr->add_option("--glossary", ta.glossary,
                 "TSV file, one 'source term<TAB>target term' per line: each occurrence of a source term comes out as "
                 "its target term");
  tr->add_flag("--glossary-ignore-case", ta.glossary_ignore_case,
               "--glossary: source terms also match in lower case, capitalized and in capitals");
  tr->add_flag("--icu-messages", ta.icu_messages,
               "each line is an ICU MessageFormat message: the text of the message and of every plural / select "
               "case (and Fluent select expression variant) is translated, arguments and '#' kept, the syntax "
               "rebuilt (a malformed line fails alone)");
  tr->add_option("--target-prefix,--prefix", ta.target_prefix,
                 "every line's translation starts with this text (target ids with --ids) and goes on from its end "
                 "(interactive translation: transformers' decoder_input_ids); not with --html or --keep-placeholders");
  tr->add_option("--suppress", ta.suppress,
                 "never generate this target text (its pieces in a row; target ids with --ids); may be repeated "
                 "(CTranslate2's suppress_sequences)");
  tr->add_option("--end-token", ta.end_tokens,
                 "a target id that ends a hypothesis as </s> does (CTranslate2's end_token); may be repeated (at most 8)");
  tr->add_flag("--stream", ta.stream,
               "print words as they are generated, one line at a time (Ctrl-C stops the line being translated)");

  tern::cli::ScoreArgs sa;
  sa.model = ta.model;
  std::string score_format = "text";
  CLI::App* sc = app.add_subcommand("score", "score given translations: lines 'source<TAB>target', the target's log-probability");
  sc->add_option("-m,--model", sa.model, "the .tern model");
  sc->add_option("-i,--input", sa.input, "input file, one 'source<TAB>target' per line (default: stdin)");
  sc->add_option("-o,--output", sa.output, "output file (default: stdout)");
  sc->add_option("--threads", sa.threads, "threads (default: the performance cores)")->check(CLI::Range(1u, 1024u));
  sc->add_flag("--ids", sa.ids, "space-separated token ids: source ids with </s>, target ids without it");
  sc->add_option("--packed-cache", sa.packed_cache, "directory of the packed-weights cache (as translate's)");
  sc->add_flag("--no-packed-cache", sa.no_packed_cache, "no packed-weights cache (as translate's)");
  sc->add_option("--format", score_format,
                 "text (default): the score (sum of the token log-probabilities) per line; json: also each token's")
      ->check(CLI::IsMember({"text", "json"}));

  tern::cli::TokenizeArgs tk;
  tk.model = ta.model;
  CLI::App* tok = app.add_subcommand("tokenize", "print the token ids of each line (what the model sees)");
  tok->add_option("-m,--model", tk.model, "the .tern model");
  tok->add_option("-i,--input", tk.input, "input file (default: stdin)");
  tok->add_flag("--target", tk.target, "use the target side's SentencePiece model and vocabulary");
  tok->add_option("--target-lang", tk.target_lang, "put >>lang<< first, as translate --target-lang does");

  std::string inspect_model;
  bool json = false;
  CLI::App* in = app.add_subcommand("inspect", "describe a .tern file");
  in->add_option("MODEL", inspect_model, "the .tern file")->required();
  in->add_flag("--json", json, "print JSON");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // CLI11 prints the message (or --help) and gives each kind of parse error its own code; tern's
    // contract is 0 for --help and 2 for any bad argument, as for a model that cannot be opened.
    return app.exit(e) == 0 ? 0 : 2;
  }
  if (sc->parsed()) {
    sa.json = score_format == "json";
    return tern::cli::RunScore(sa);
  }
  if (tr->parsed()) {
    ta.json = format == "json";
    if (!ta.options.markup.empty() && ta.stream) {
      std::cerr << "tern: --html puts the tags in once a line is complete; it cannot be combined with --stream\n";
      return 2;
    }
    if (ta.icu_messages && (ta.stream || ta.json || ta.ids || ta.target_prefix || ta.alternatives() > 0)) {
      std::cerr << "tern: --icu-messages translates each line as one ICU message; it cannot be combined "
                   "with --stream, --format json, --ids, --target-prefix or --alternatives\n";
      return 2;
    }
    if (ta.options.keep_placeholders && ta.stream) {
      std::cerr << "tern: --keep-placeholders puts the spans back once a line is complete; it cannot be combined with "
                   "--stream\n";
      return 2;
    }
    if (ta.json && ta.stream) {
      std::cerr << "tern: --stream prints text as it is generated; it cannot be combined with --format json\n";
      return 2;
    }
    return tern::cli::RunTranslate(ta);
  }
  if (tok->parsed()) return tern::cli::RunTokenize(tk);
  auto model = tern::Model::Load(inspect_model);
  if (!model.ok()) {
    std::cerr << "tern: " << model.status().message() << "\n";
    return 2;
  }
  const nlohmann::json d = tern::cli::Describe(*model.value());
  tern::cli::OutputFile out;  // standard output, every write checked (a full disk is exit 2, not a lost output)
  if (tern::Status st = out.Open("", inspect_model); !st.ok()) return std::cerr << "tern: " << st.message() << "\n", 2;
  out.stream() << (json ? d.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n" : tern::cli::DescribeText(d));
  if (tern::Status st = out.Commit(); !st.ok()) return std::cerr << "tern: " << st.message() << "\n", 2;
  return 0;
}

// The last line of defence, as tern-convert's: every input error is a Status with its own message; an
// exception that still escapes (a bug, or memory exhausted) ends the run with one line and exit 3, never
// an abort; output files are written to a temporary and renamed only on success.
int main(int argc, char** argv) {
  try {
    return Run(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "tern: internal error: " << e.what() << "\n";
  } catch (...) {
    std::cerr << "tern: internal error\n";
  }
  return 3;
}
