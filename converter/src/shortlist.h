// Lexical shortlists for the converter (the runtime side is runtime/src/search/vocab_map.h): for each
// source token, the target tokens it is likely to produce, plus the target tokens every sentence may need.
//
// Two sources:
//  - BuildShortlist: from a parallel corpus tokenized with the model's own tokenizers (MarianTokenizer's
//    rules, so the statistics are over the ids the model reads and writes). The translation probabilities
//    p(t | s) are IBM Model 1's (Brown et al. 1993, "The Mathematics of Statistical Machine Translation"),
//    estimated by EM from uniform, with a NULL source word, over the co-occurring pairs of each sentence
//    pair; fast_align (whose lexical table Marian's shortlists come from) adds a diagonal prior on top.
//    Candidates of s: the `best` targets by p(t | s) with p >= min_prob. Frequent: the `frequent` most
//    frequent target tokens of the corpus.
//  - ReadMarianShortlist: Marian's text lexical table ("target source probability" per line, pieces as
//    in the vocabularies; e.g. Bergamot's lex.s2t after decompression), with Marian's selection rule:
//    the `best` targets by probability per source piece, and the first `frequent` ids of the target
//    vocabulary (Marian's vocabularies are frequency-ordered).
// Both return the tables the .tern stores (schema table Shortlist); ids are always in range.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tern/model.h"
#include "tern/status.h"

namespace tern::convert {

/// What schema table Shortlist stores, before serialization.
struct ShortlistTables {
  std::vector<uint32_t> frequent;    // target ids, most frequent first
  std::vector<uint32_t> offsets;     // [source_vocab_size + 1]
  std::vector<uint32_t> candidates;  // target ids, best first within each source id
  std::string method;                // provenance of the list, stored in the file
  std::string warning;               // not stored: lines left out while building (empty when none)
};

struct ShortlistParams {
  uint32_t frequent = 100;  // target tokens always scored
  uint32_t best = 25;       // candidates per source token (docs/evaluation.md, "Shortlists")
  float min_prob = 0.001f;  // candidates need p(t | s) >= this
  uint32_t iterations = 5;  // IBM Model 1 EM iterations (BuildShortlist)
  uint64_t max_lines = 10'000'000;  // corpus lines read at most (a bound on memory and time)
  uint32_t max_pair_tokens = 200;   // BuildShortlist: line pairs with more tokens on a side are left out
                                    // (and counted in the warning): Model 1 costs |source| x |target| a pair
};

/// Builds a shortlist for `model` (a verified model: its tokenizers are used) from the parallel text
/// files `source_path` and `target_path` (UTF-8, one sentence per line, same number of lines; regular files
/// of at most kMaxCorpusFileBytes, lines of at most kMaxLineBytes: read_file.h). Line pairs the tokenizer
/// refuses or with more than max_pair_tokens tokens on a side are left out and counted in out->warning.
/// Time and memory grow linearly with the corpus (bench/shortlist_bench). Errors: kIoError (a file cannot
/// be read, is not a regular file or is too large; line counts differ, naming both counts),
/// kInvalidArgument (an over-long line, with its file and line number; an empty corpus; bad params).
Status BuildShortlist(std::shared_ptr<const Model> model, const std::string& source_path, const std::string& target_path,
                      const ShortlistParams& params, ShortlistTables* out);

/// Reads Marian's text lexical shortlist `path` for `model`'s vocabularies. Pieces the vocabularies lack
/// are skipped (counted in `method`). Errors: kIoError, kInvalidArgument (a malformed line: file and line
/// number; no usable line).
Status ReadMarianShortlist(const Model& model, const std::string& path, const ShortlistParams& params, ShortlistTables* out);

}  // namespace tern::convert
