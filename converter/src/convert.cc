#include "convert.h"

#include <algorithm>
#include <filesystem>

#include "marian_checkpoint.h"
#include "tern/translator.h"
#include "tern_generated.h"

namespace tern::convert {

std::string DirectoryName(const std::string& dir) {
  std::filesystem::path p(dir);
  while (!p.empty() && p.filename().empty()) p = p.parent_path();  // "ckpt/" -> "ckpt"
  const std::string name = p.filename().string();
  return name.empty() || name == "." || name == ".." ? std::filesystem::absolute(p).lexically_normal().filename().string()
                                                     : name;
}

namespace {

// The largest max_batch (at most the image's) whose arena, at the file's other default limits and beam,
// fits `budget` bytes; 1 if none does. Sets it in the image.
Status FitArena(std::vector<uint8_t>* image, const std::string& name, uint64_t budget, ConvertReport* report) {
  TERN_ASSIGN_OR_RETURN(auto m, Model::FromBytes(image->data(), image->size(), name));
  const uint32_t asked = m->limits().max_batch;
  uint32_t batch = asked;
  uint64_t bytes = 0;
  for (; batch >= 1; --batch) {
    TranslatorConfig c;
    c.max_batch = batch;
    TERN_ASSIGN_OR_RETURN(bytes, Translator::RequiredArenaBytes(*m, c));
    if (bytes <= budget || batch == 1) break;
  }
  if (batch != asked && !fb::GetMutableModel(image->data())->mutable_limits()->mutate_max_batch(batch))
    return Status(StatusCode::kInternal, "cannot set limits.max_batch in the image");
  report->max_batch = batch, report->max_batch_asked = asked, report->arena_bytes = bytes;
  return Status::Ok();
}

}  // namespace

Status ConvertCheckpoint(const ConvertOptions& o, ConvertReport* report) {
  *report = ConvertReport{};
  const bool want_corpus = !o.shortlist_corpus.empty(), want_marian = !o.shortlist_marian.empty();
  if (want_corpus && o.shortlist_corpus.size() != 2)
    return Status(StatusCode::kInvalidArgument, "shortlist corpus: two files are needed (source, target), got " +
                                                    std::to_string(o.shortlist_corpus.size()));
  if (want_corpus && want_marian)
    return Status(StatusCode::kInvalidArgument, "a shortlist from a corpus or from Marian's table, not both");
  // Never write over an input, a device or a FIFO: checked before the (long) conversion and again when
  // the file is renamed into place.
  std::vector<std::string> inputs = CheckpointFiles(o.checkpoint_dir);
  inputs.insert(inputs.end(), o.shortlist_corpus.begin(), o.shortlist_corpus.end());
  if (want_marian) inputs.push_back(o.shortlist_marian);
  TERN_RETURN_IF_ERROR(CheckOutputPath(o.output, inputs));
  TERN_ASSIGN_OR_RETURN(const WeightPlan plan, WeightPlan::Named(o.weights, o.int4_block));
  Checkpoint ck;
  TERN_RETURN_IF_ERROR(ReadMarianCheckpoint(o.checkpoint_dir, &ck));
  if (!o.source_lang.empty()) ck.source_lang = o.source_lang;
  WriteOptions opts;
  opts.weights = plan;
  opts.limits = o.limits;
  opts.weights_segment = o.weights_segment;
  opts.limits.max_source_tokens = std::min(opts.limits.max_source_tokens, ck.hp.max_positions);
  opts.limits.max_target_tokens = std::min(opts.limits.max_target_tokens, ck.hp.max_positions - 1);
  opts.source_checkpoint = DirectoryName(o.checkpoint_dir);
  EncodedTensors encoded;
  TERN_RETURN_IF_ERROR(EncodeTensors(ck, opts, &encoded));
  report->tensors = encoded.report;
  std::vector<uint8_t> image;
  TERN_RETURN_IF_ERROR(SerializeTernImage(ck, opts, encoded, &image));
  // A shortlist is made with the image's own tokenizers, then the image is serialized again with it.
  ShortlistTables shortlist;
  if (want_corpus || want_marian) {
    TERN_ASSIGN_OR_RETURN(auto m, Model::FromBytes(image.data(), image.size(), o.output));
    if (want_corpus)
      TERN_RETURN_IF_ERROR(BuildShortlist(m, o.shortlist_corpus[0], o.shortlist_corpus[1], o.shortlist_params, &shortlist));
    else
      TERN_RETURN_IF_ERROR(ReadMarianShortlist(*m, o.shortlist_marian, o.shortlist_params, &shortlist));
    opts.shortlist = &shortlist;
    TERN_RETURN_IF_ERROR(SerializeTernImage(ck, opts, encoded, &image));
    report->shortlist_method = shortlist.method, report->shortlist_warning = shortlist.warning;
    report->shortlist_candidates = shortlist.candidates.size();
  }
  if (o.fit_max_batch) TERN_RETURN_IF_ERROR(FitArena(&image, o.output, o.arena_budget_bytes, report));
  // Never leave a file the runtime would reject: the file as written is loaded and verified before it
  // replaces `output`.
  TERN_RETURN_IF_ERROR(WriteFileAtomically(
      o.output, image,
      [](const std::string& written) {
        auto check = Model::Load(written);
        return check.ok() ? Status::Ok() : check.status();
      },
      o.handle_signals));
  report->file_bytes = image.size();
  return Status::Ok();
}

}  // namespace tern::convert
