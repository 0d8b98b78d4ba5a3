// tern-convert CHECKPOINT_DIR OUTPUT.tern [--weights int8|f16|f32|qc4w|qb4w|int4|mixed] [--int4-block N] [--weights-segment]
//              [--shortlist SRC.txt TGT.txt | --shortlist-marian LEX] [--shortlist-frequent K] [--shortlist-best N]
// converts a Hugging Face MarianMT (OPUS-MT layout) checkpoint directory into a .tern file, optionally with
// a lexical shortlist (shortlist.h). Prints a one-line error and exits 1 on failure, leaving no partial
// output.
#include <cstdio>
#include <map>

#include <CLI/CLI.hpp>

#include "convert.h"
#include "tern/model.h"

int Convert(int argc, char** argv) {
  CLI::App app{"tern-convert: Marian-layout checkpoint directory -> .tern"};
  tern::convert::ConvertOptions o;
  std::string& ckpt = o.checkpoint_dir;
  std::string& output = o.output;
  std::string& weights = o.weights;
  tern::ArenaLimits& limits = o.limits;
  double budget_mib = 256;
  bool quiet = false;
  app.add_option("CHECKPOINT_DIR", ckpt, "config.json, model.safetensors, source.spm, target.spm, vocab.json")->required();
  app.add_option("OUTPUT", output, "the .tern file to write")->required();
  uint32_t& int4_block = o.int4_block;
  app.add_option("--weights", weights,
                 "f32, f16, int8; qc4w or qb4w (4-bit linear layers, int8 embeddings); int4 (= qb4w with 32-column "
                 "blocks); mixed (qb4w feed-forward, int8 attention and embeddings)");
  app.add_option("--int4-block", int4_block, "qb4w and mixed: columns per scale (a multiple of 32; int4 uses 32)");
  app.add_option("--max-source-tokens", limits.max_source_tokens, "default Translator limit (tokens incl. </s>)");
  app.add_option("--max-target-tokens", limits.max_target_tokens, "default Translator limit (generated tokens)");
  auto* batch_opt = app.add_option("--max-batch", limits.max_batch, "default Translator limit (sentences per call)");
  app.add_option("--max-rows", limits.max_rows, "default Translator limit (batch x beam rows)");
  app.add_option("--arena-budget", budget_mib,
                 "MiB the arena may need at the default limits: max_batch is lowered until it fits (default 256, "
                 "for a 4 GB device); ignored with --max-batch")
      ->check(CLI::Range(1.0, 1048576.0));
  app.add_option("--source-lang", o.source_lang, "source language for sentence splitting (default: tokenizer_config.json)");
  std::vector<std::string>& shortlist_corpus = o.shortlist_corpus;
  std::string& shortlist_marian = o.shortlist_marian;
  tern::convert::ShortlistParams& sl_params = o.shortlist_params;
  auto* sl_opt = app.add_option("--shortlist", shortlist_corpus,
                                "SRC.txt TGT.txt: build a lexical shortlist from this parallel text (one sentence a line; "
                                "IBM Model 1 over the model's own token ids) and store it in the file")
                     ->expected(2);
  auto* slm_opt = app.add_option("--shortlist-marian", shortlist_marian,
                                 "store Marian's text lexical shortlist FILE ('target source probability' lines)");
  sl_opt->excludes(slm_opt);
  app.add_option("--shortlist-frequent", sl_params.frequent, "shortlist: target tokens always scored")
      ->check(CLI::Range(0u, 1u << 24));
  app.add_option("--shortlist-best", sl_params.best, "shortlist: candidates per source token")->check(CLI::Range(0u, 1u << 24));
  app.add_option("--shortlist-min-prob", sl_params.min_prob, "shortlist: candidates need p(t|s) at least this")
      ->check(CLI::Range(0.0f, 1.0f));
  app.add_option("--shortlist-iterations", sl_params.iterations, "shortlist: IBM Model 1 EM iterations")
      ->check(CLI::Range(1u, 100u));
  app.add_flag("--weights-segment", o.weights_segment,
               "weights in a page-aligned segment after the FlatBuffer (format 5: needs a runtime of this release); "
               "files whose weights pass 2 GiB always get one");
  app.add_flag("-q,--quiet", quiet, "print nothing on success");
  CLI11_PARSE(app, argc, argv);

  if (auto plan = tern::convert::WeightPlan::Named(weights, int4_block); !plan.ok()) {
    std::fprintf(stderr, "tern-convert: %s\n", plan.status().message().c_str());
    return 2;
  }
  o.fit_max_batch = batch_opt->count() == 0;
  o.arena_budget_bytes = static_cast<uint64_t>(budget_mib * 1048576.0);
  o.handle_signals = true;
  tern::convert::ConvertReport rep;
  if (tern::Status s = tern::convert::ConvertCheckpoint(o, &rep); !s.ok()) {
    std::fprintf(stderr, "tern-convert: %s\n", s.message().c_str());
    return 1;
  }
  const auto& report = rep.tensors;
  if (!quiet && !rep.shortlist_method.empty()) {
    std::printf("shortlist: %s; %zu candidates in all\n", rep.shortlist_method.c_str(), rep.shortlist_candidates);
    if (!rep.shortlist_warning.empty()) std::printf("shortlist: warning: %s\n", rep.shortlist_warning.c_str());
  }
  if (!quiet && o.fit_max_batch) {
    const uint64_t budget = o.arena_budget_bytes;
    std::printf("default limits: max_batch %u (of %u asked), arena %.1f MiB for an arena budget of %.0f MiB%s\n",
                rep.max_batch, rep.max_batch_asked, rep.arena_bytes / 1048576.0, budget / 1048576.0,
                rep.arena_bytes > budget ? ": still above it, lower --max-target-tokens" : "");
  }
  if (!quiet) {
    std::map<std::string, std::pair<size_t, size_t>> by_type;
    const tern::convert::TensorReport* worst = nullptr;
    for (const auto& r : report) {
      auto& e = by_type[tern::DTypeName(r.dtype)];
      e.first++, e.second += r.bytes;
      if (!worst || r.max_abs_error > worst->max_abs_error) worst = &r;
    }
    std::printf("wrote %s: %.2f MiB, %zu tensors (", output.c_str(), rep.file_bytes / 1048576.0, report.size());
    bool first = true;
    for (const auto& [t, e] : by_type) std::printf("%s%zu %s, %.2f MiB", first ? "" : "; ", e.first, t.c_str(), e.second / 1048576.0), first = false;
    std::printf(")\n");
    if (worst && worst->max_abs_error > 0)
      std::printf("worst %s rounding error: %.3g in '%s'\n", weights.c_str(), worst->max_abs_error, worst->name.c_str());
  }
  return 0;
}

// The last line of defence: every input error is a Status with its own message; an exception that still
// escapes (a bug, or memory exhausted) ends the run with a message and exit 1, never an abort, and the
// temporary file is removed by WriteFileAtomically's cleanup.
int main(int argc, char** argv) {
  try {
    return Convert(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tern-convert: internal error: %s\n", e.what());
  } catch (...) {
    std::fprintf(stderr, "tern-convert: internal error\n");
  }
  return 1;
}
