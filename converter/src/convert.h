// The whole conversion, checkpoint directory -> .tern file, as one call: what tern-convert runs and what
// the Python package's tern.convert calls (targets/python). Reads the checkpoint (marian_checkpoint.h),
// encodes its tensors in the chosen weight formats (tern_writer.h), optionally adds a lexical shortlist
// (shortlist.h), fits the default max_batch to an arena budget, then writes the file atomically and loads
// it back before it replaces `output` (never a partial or unloadable file, never an input overwritten).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "shortlist.h"
#include "tern/model.h"
#include "tern/status.h"
#include "tern_writer.h"

namespace tern::convert {

struct ConvertOptions {
  std::string checkpoint_dir;   // config.json, model.safetensors, source.spm, target.spm, vocab.json
  std::string output;           // the .tern file to write (a regular file or a new path)
  std::string weights = "int8"; // WeightPlan::Named: f32, f16, int8, qc4w, qb4w, int4, mixed
  uint32_t int4_block = 64;     // qb4w and mixed: columns per scale (a multiple of 32)
  ArenaLimits limits;           // the file's default Translator limits (token limits cut to max_positions)
  bool fit_max_batch = true;    // lower limits.max_batch until the arena fits arena_budget_bytes
  uint64_t arena_budget_bytes = uint64_t{256} << 20;  // 256 MiB: for a 4 GB device
  std::string source_lang;      // overrides tokenizer_config.json's (sentence splitting); empty: keep
  bool weights_segment = false; // WriteOptions::weights_segment (format 5)
  /// A shortlist from a parallel text (two paths: source, target) or from Marian's lexical table; at most one.
  std::vector<std::string> shortlist_corpus;
  std::string shortlist_marian;
  ShortlistParams shortlist_params;
  /// false: leave the process's signal handlers alone while writing (a library call in someone else's
  /// process); tern-convert sets true (Ctrl-C removes the temporary file).
  bool handle_signals = false;
};

/// What a successful conversion wrote (tern-convert prints it).
struct ConvertReport {
  uint64_t file_bytes = 0;
  std::vector<TensorReport> tensors;  // per tensor: name, format, bytes, max |error| vs the checkpoint
  uint32_t max_batch = 0, max_batch_asked = 0;  // the file's default max_batch after fitting, and before
  uint64_t arena_bytes = 0;                     // the arena at the file's default limits
  std::string shortlist_method, shortlist_warning;
  size_t shortlist_candidates = 0;
};

/// Converts. Errors: kInvalidArgument (output is an input, a device, a FIFO or a directory; a bad weights
/// name or block size; both shortlist sources; a shortlist_corpus that is not two paths), every error of
/// ReadMarianCheckpoint, EncodeTensors, BuildShortlist / ReadMarianShortlist and WriteFileAtomically
/// (messages name the file, tensor and line), and the loader's errors on the written file.
Status ConvertCheckpoint(const ConvertOptions& options, ConvertReport* report);

/// The directory's own name (provenance never records where the user keeps their files).
std::string DirectoryName(const std::string& dir);

}  // namespace tern::convert
