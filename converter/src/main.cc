// tern-convert CHECKPOINT_DIR OUTPUT.tern [--weights int8|f16|f32]: converts a Hugging Face MarianMT
// (OPUS-MT layout) checkpoint directory into a .tern file. Prints a one-line error and exits 1 on
// failure, leaving no partial output.
#include <algorithm>
#include <cstdio>
#include <map>

#include <CLI/CLI.hpp>
#include <filesystem>

#include "marian_checkpoint.h"
#include "tern/model.h"
#include "tern/translator.h"
#include "tern_generated.h"
#include "tern_writer.h"
#include "weight_formats.h"

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

int main(int argc, char** argv) {
  CLI::App app{"tern-convert: Marian-layout checkpoint directory -> .tern"};
  std::string ckpt, output, weights = "int8", source_lang;
  tern::ArenaLimits limits;
  double budget_mib = 256;
  bool quiet = false;
  app.add_option("CHECKPOINT_DIR", ckpt, "config.json, model.safetensors, source.spm, target.spm, vocab.json")->required();
  app.add_option("OUTPUT", output, "the .tern file to write")->required();
  app.add_option("--weights", weights, "format of the weight matrices")->check([](const std::string& w) {
    return tern::format::FormatNamed(w.c_str()) ? std::string() : "unknown weight format '" + w + "' (f32, f16, int8)";
  });
  app.add_option("--max-source-tokens", limits.max_source_tokens, "default Translator limit (tokens incl. </s>)");
  app.add_option("--max-target-tokens", limits.max_target_tokens, "default Translator limit (generated tokens)");
  auto* batch_opt = app.add_option("--max-batch", limits.max_batch, "default Translator limit (sentences per call)");
  app.add_option("--max-rows", limits.max_rows, "default Translator limit (batch x beam rows)");
  app.add_option("--arena-budget", budget_mib,
                 "MiB the arena may need at the default limits: max_batch is lowered until it fits (default 256, "
                 "for a 4 GB device); ignored with --max-batch")
      ->check(CLI::Range(1.0, 1048576.0));
  app.add_option("--source-lang", source_lang, "source language for sentence splitting (default: tokenizer_config.json)");
  app.add_flag("-q,--quiet", quiet, "print nothing on success");
  CLI11_PARSE(app, argc, argv);

  tern::convert::Checkpoint ck;
  tern::Status s = tern::convert::ReadMarianCheckpoint(ckpt, &ck);
  if (!s.ok()) {
    std::fprintf(stderr, "tern-convert: %s\n", s.message().c_str());
    return 1;
  }
  if (!source_lang.empty()) ck.source_lang = source_lang;
  limits.max_source_tokens = std::min(limits.max_source_tokens, ck.hp.max_positions);
  limits.max_target_tokens = std::min(limits.max_target_tokens, ck.hp.max_positions - 1);
  tern::convert::WriteOptions opts;
  opts.weights = tern::format::FormatNamed(weights.c_str())->dtype;
  opts.limits = limits;
  opts.source_checkpoint = DirectoryName(ckpt);
  std::vector<uint8_t> image;
  std::vector<tern::convert::TensorReport> report;
  s = tern::convert::BuildTernImage(ck, opts, &image, &report);
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
