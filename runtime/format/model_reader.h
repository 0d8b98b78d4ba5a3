// Reading a .tern image: the checks that make a file safe to use, in a fixed order (each failure names
// the check, and the field or tensor):
//   1. size: at least kMinImageBytes and at most kMaxFileBytes (CheckImageSize; Model::Load and
//      Model::FromBytes both call it before touching the bytes); the FlatBuffer is its first
//      kMaxImageBytes at most;
//   2. identifier "TERN" at bytes 4..7;
//   3. the FlatBuffers verifier (every offset, vector and string inside the image);
//   4. format_version: known to this build;
//   5. semantics (semantic_checks.cc): hyperparameters consistent, the tokenizer's SentencePiece models
//      safe to parse (CheckSentencePieceModel; the source one first, which `on_source_spm` then gets),
//      generation defaults and limits in range, exactly the tensors of ExpectedTensors() with their shapes, dtypes known and allowed,
//      the weight segment (the `weights` vector, or format 5's `weights_segment`: a multiple of 4096
//      inside the file), offsets aligned and inside the weight segment, lengths exact, scales finite and positive,
//      vocabularies matching the embeddings, special ids in range.
// The image is only read; every view in ModelContents points into it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "byte_trie.h"
#include "tern/model.h"
#include "views.h"
#include "tern/status.h"
#include "tern_generated.h"

namespace tern::format {

/// What a verified image holds, as views into it.
struct ModelContents {
  uint32_t format_version = 0;
  Hyperparameters hp;
  GenerationDefaults gen;
  ArenaLimits limits;
  Provenance provenance;
  DType weight_dtype = DType::kF32;       // of the first linear layer (encoder layer 0's attention)
  std::vector<TensorView> tensors;        // sorted by name
  std::string_view source_spm, target_spm;
  ByteTrieArrays source_piece_trie;        // Tokenizer.source_piece_trie's arrays (nodes 0: absent); checked by its user
  PieceList source_pieces, target_pieces;  // the vocabularies, read in place
  size_t max_source_piece_bytes = 0, max_target_piece_bytes = 0;  // the longest piece of each vocabulary
  bool clean_up_tokenization_spaces = false;
  std::string_view source_lang, target_lang;
  ShortlistView shortlist;
};

/// The source SentencePiece model as a reader may begin parsing it: its proto (checked by
/// CheckSentencePieceModel) and the file's piece trie (verified in bounds, its four arrays of one length;
/// nodes 0 when the file has none). Views into the image.
struct SourceSpm {
  std::string_view proto;
  ByteTrieArrays piece_trie;
};
using SourceSpmCallback = std::function<void(const SourceSpm&)>;

/// A PieceTrie table's four vectors as ByteTrieArrays: nodes 0 unless all four are present and of one length.
inline ByteTrieArrays PieceTrieArrays(const flatbuffers::Vector<uint32_t>* first, const flatbuffers::Vector<uint16_t>* count,
                                      const flatbuffers::Vector<uint8_t>* label, const flatbuffers::Vector<int32_t>* value) {
  if (!first || !count || !label || !value) return {};
  const size_t n = first->size();
  if (count->size() != n || label->size() != n || value->size() != n) return {};
  return {first->data(), count->data(), label->data(), value->data(), n};
}

/// Bytes of the tables Model::Load makes from a verified file's header fields (the memory rule of
/// tern/model.h, LoadOptions): the sinusoid position table (max_positions x d_model f32, 0 for learned
/// positions), one TensorView per tensor, one piece view per vocabulary entry of each side (what
/// Model::source_vocab() / target_vocab() make on their first call) and the list of language tokens (at
/// most one per source entry). 64-bit arithmetic, checked before any is allocated.
uint64_t LoadTableBytes(const Hyperparameters& hp, uint64_t tensor_count);

/// Check 1 for an image of `size` bytes called `name`. Error: kInvalidModel.
Status CheckImageSize(uint64_t size, const std::string& name);

/// Checks 2-5 on image [base, base + size) (base 64-byte aligned; CheckImageSize already passed). The
/// tables the image makes a reader allocate (LoadTableBytes) must fit `memory_budget` bytes, checked as soon
/// as the hyperparameters are known and before any of them is allocated. Errors: kInvalidModel,
/// kUnsupported (a newer format_version), kResourceExhausted (over the budget). Messages start with `name`.
///
/// `on_source_spm` (optional) is called once, on this thread, with the source SentencePiece model's bytes (the
/// image's) and the file's piece trie as soon as they passed their checks: a reader may start parsing them meanwhile (Model::Load does,
/// runtime/src/text/spm_prefetch.h). Given one, ReadModel verifies the path to those bytes (root, Model,
/// tokenizer, source_spm, source_piece_trie) and checks the proto before check 3 verifies the rest (else, if that path fails,
/// at its place in check 5); a load that fails later still fails with the same error.
Result<ModelContents> ReadModel(const uint8_t* base, size_t size, const std::string& name,
                                uint64_t memory_budget = UINT64_MAX,
                                const SourceSpmCallback& on_source_spm = {});

/// Check 5 alone, on a root table the verifier accepted, of an image of `size` bytes at `base`.
/// `source_spm_checked`: the source SentencePiece bytes CheckSentencePieceModel already passed (not checked
/// again when they are the file's).
Status CheckSemantics(const fb::Model& root, const uint8_t* base, uint64_t size, const std::string& name, ModelContents* out,
                      uint64_t memory_budget = UINT64_MAX,
                      const SourceSpmCallback& on_source_spm = {},
                      std::string_view source_spm_checked = {});

}  // namespace tern::format
