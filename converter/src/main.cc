// tern-convert CHECKPOINT_DIR OUTPUT.tern [--weights int8|f16|f32|qc4w|qb4w|int4|mixed] [--int4-block N]
//              [--shortlist SRC.txt TGT.txt | --shortlist-marian LEX] [--shortlist-frequent K] [--shortlist-best N]
// converts a Hugging Face MarianMT (OPUS-MT layout) checkpoint directory into a .tern file, optionally with
// a lexical shortlist (shortlist.h). Prints a one-line error and exits 1 on failure, leaving no partial
// output.
#include <algorithm>
#include <cstdio>
#include <map>

#include <CLI/CLI.hpp>
#include <filesystem>

#include "marian_checkpoint.h"
#include "shortlist.h"
#include "tern/model.h"
#include "tern/translator.h"
#include "tern_generated.h"
#include "tern_writer.h"

namespace {

// The directory's own name: provenance never records where the user keeps their files.
std::string DirectoryName(const std::string& dir) {
  std::filesystem::path p(dir);
  while (!p.empty() && p.filename().empty()) p = p.parent_path();  // "ckpt/" -> "ckpt"
  const std::string name = p.filename().string();
  return name.empty() || name == "." || name == ".." ? std::filesystem::absolute(p).lexically_normal().filename().string()
                                                     : name;
}

// The largest max_batch (at most the requested one) whose arena, at the file's other default limits and
// beam, fits `budget` bytes; 1 if none does (reported). Sets it in the image.
tern::Status FitArena(std::vector<uint8_t>* image, const std::string& name, uint64_t budget, bool quiet) {
  auto m = tern::Model::FromBytes(image->data(), image->size(), name);
  if (!m.ok()) return m.status();
  const uint32_t asked = m.value()->limits().max_batch;
  uint32_t batch = asked;
  uint64_t bytes = 0;
  for (; batch >= 1; --batch) {
    tern::TranslatorConfig c;
    c.max_batch = batch;
    auto need = tern::Translator::RequiredArenaBytes(*m.value(), c);
    if (!need.ok()) return need.status();
    bytes = need.value();
    if (bytes <= budget || batch == 1) break;
  }
  if (batch != asked) {
    if (!tern::fb::GetMutableModel(image->data())->mutable_limits()->mutate_max_batch(batch))
      return tern::Status(tern::StatusCode::kInternal, "cannot set limits.max_batch in the image");
  }
  if (!quiet) {
    std::printf("default limits: max_batch %u (of %u asked), arena %.1f MiB for an arena budget of %.0f MiB%s\n", batch,
                asked, bytes / 1048576.0, budget / 1048576.0, bytes > budget ? ": still above it, lower --max-target-tokens" : "");
  }
  return tern::Status::Ok();
}

}  // namespace

int Convert(int argc, char** argv) {
  CLI::App app{"tern-convert: Marian-layout checkpoint directory -> .tern"};
  std::string ckpt, output, weights = "int8", source_lang;
  tern::ArenaLimits limits;
  double budget_mib = 256;
  bool quiet = false;
  app.add_option("CHECKPOINT_DIR", ckpt, "config.json, model.safetensors, source.spm, target.spm, vocab.json")->required();
  app.add_option("OUTPUT", output, "the .tern file to write")->required();
  uint32_t int4_block = 64;
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
  app.add_option("--source-lang", source_lang, "source language for sentence splitting (default: tokenizer_config.json)");
  std::vector<std::string> shortlist_corpus;
  std::string shortlist_marian;
  tern::convert::ShortlistParams sl_params;
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
  app.add_flag("-q,--quiet", quiet, "print nothing on success");
  CLI11_PARSE(app, argc, argv);

  // Never write over an input, a device or a FIFO: checked before the (long) conversion and again when
  // the file is renamed into place.
  std::vector<std::string> inputs = tern::convert::CheckpointFiles(ckpt);
  inputs.insert(inputs.end(), shortlist_corpus.begin(), shortlist_corpus.end());
  if (!shortlist_marian.empty()) inputs.push_back(shortlist_marian);
  tern::Status s = tern::convert::CheckOutputPath(output, inputs);
  if (!s.ok()) {
    std::fprintf(stderr, "tern-convert: %s\n", s.message().c_str());
    return 1;
  }
  tern::convert::Checkpoint ck;
  s = tern::convert::ReadMarianCheckpoint(ckpt, &ck);
  if (!s.ok()) {
    std::fprintf(stderr, "tern-convert: %s\n", s.message().c_str());
    return 1;
  }
  if (!source_lang.empty()) ck.source_lang = source_lang;
  limits.max_source_tokens = std::min(limits.max_source_tokens, ck.hp.max_positions);
  limits.max_target_tokens = std::min(limits.max_target_tokens, ck.hp.max_positions - 1);
  tern::convert::WriteOptions opts;
  auto plan = tern::convert::WeightPlan::Named(weights, int4_block);
  if (!plan.ok()) {
    std::fprintf(stderr, "tern-convert: %s\n", plan.status().message().c_str());
    return 2;
  }
  opts.weights = plan.value();
  opts.limits = limits;
  opts.source_checkpoint = DirectoryName(ckpt);
  std::vector<uint8_t> image;
  std::vector<tern::convert::TensorReport> report;
  tern::convert::EncodedTensors encoded;
  s = tern::convert::EncodeTensors(ck, opts, &encoded);
  if (s.ok()) report = encoded.report, s = tern::convert::SerializeTernImage(ck, opts, encoded, &image);
  // A shortlist is made with the image's own tokenizers, then the image is serialized again with it.
  tern::convert::ShortlistTables shortlist;
  if (s.ok() && (sl_opt->count() || slm_opt->count())) {
    auto m = tern::Model::FromBytes(image.data(), image.size(), output);
    if (!m.ok()) s = m.status();
    else if (sl_opt->count())
      s = tern::convert::BuildShortlist(m.value(), shortlist_corpus[0], shortlist_corpus[1], sl_params, &shortlist);
    else
      s = tern::convert::ReadMarianShortlist(*m.value(), shortlist_marian, sl_params, &shortlist);
    if (s.ok()) {
      opts.shortlist = &shortlist;
      s = tern::convert::SerializeTernImage(ck, opts, encoded, &image);
    }
    if (s.ok() && !quiet) {
      std::printf("shortlist: %s; %zu candidates in all\n", shortlist.method.c_str(), shortlist.candidates.size());
      if (!shortlist.warning.empty()) std::printf("shortlist: warning: %s\n", shortlist.warning.c_str());
    }
  }
  if (s.ok() && batch_opt->count() == 0) s = FitArena(&image, output, static_cast<uint64_t>(budget_mib * 1048576.0), quiet);
  // Never leave a file the runtime would reject: the file as written is loaded and verified before it
  // replaces `output`.
  if (s.ok())
    s = tern::convert::WriteFileAtomically(output, image, [](const std::string& written) {
      auto check = tern::Model::Load(written);
      return check.ok() ? tern::Status::Ok() : check.status();
    });
  if (!s.ok()) {
    std::fprintf(stderr, "tern-convert: %s\n", s.message().c_str());
    return 1;
  }
  if (!quiet) {
    std::map<std::string, std::pair<size_t, size_t>> by_type;
    const tern::convert::TensorReport* worst = nullptr;
    for (const auto& r : report) {
      auto& e = by_type[tern::DTypeName(r.dtype)];
      e.first++, e.second += r.bytes;
      if (!worst || r.max_abs_error > worst->max_abs_error) worst = &r;
    }
    std::printf("wrote %s: %.2f MiB, %zu tensors (", output.c_str(), image.size() / 1048576.0, report.size());
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
