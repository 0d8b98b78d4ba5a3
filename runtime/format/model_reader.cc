#include "model_reader.h"

#include <algorithm>

#include "format.h"
#include "sentencepiece_check.h"

namespace tern::format {
namespace {

Status Invalid(const std::string& file, const std::string& what) {
  return Status(StatusCode::kInvalidModel, file + ": " + what);
}

// tokenizer.source_spm (and source_piece_trie, when the file has one) verified on its own path as the full
// verifier checks them (the root offset, the Model table's start and its tokenizer field, the Tokenizer
// table's start, its source_spm vector, the PieceTrie table and its four vectors), or an empty proto when any
// of that fails (the full verifier then says what). The encoder can then begin on the source model while
// the verifier checks the rest: at OPUS-MT's size mostly the vocabularies' 109,376 strings.
SourceSpm SourceSpmAhead(const uint8_t* base, size_t fb_size, const flatbuffers::Verifier::Options& opts) {
  if (fb_size < 2 * sizeof(flatbuffers::uoffset_t)) return {};  // FLATBUFFERS_MIN_BUFFER_SIZE names unqualified types
  flatbuffers::Verifier v(base, fb_size, opts);
  const size_t root = v.VerifyOffset<flatbuffers::uoffset_t>(0);
  if (root == 0) return {};
  // The generated tables inherit flatbuffers::Table privately; its public checks are the generated Verify's.
  const auto* model = reinterpret_cast<const flatbuffers::Table*>(base + root);
  if (!model->VerifyTableStart(v) || !model->VerifyOffset(v, fb::Model::VT_TOKENIZER)) return {};
  const auto* tok = model->GetPointer<const flatbuffers::Table*>(fb::Model::VT_TOKENIZER);
  if (!tok || !tok->VerifyTableStart(v) || !tok->VerifyOffset(v, fb::Tokenizer::VT_SOURCE_SPM) ||
      !tok->VerifyOffset(v, fb::Tokenizer::VT_SOURCE_PIECE_TRIE))
    return {};
  const auto* spm = tok->GetPointer<const flatbuffers::Vector<uint8_t>*>(fb::Tokenizer::VT_SOURCE_SPM);
  if (!spm || !v.VerifyVector(spm)) return {};
  SourceSpm s;
  s.proto = std::string_view(reinterpret_cast<const char*>(spm->data()), spm->size());
  const auto* trie = tok->GetPointer<const flatbuffers::Table*>(fb::Tokenizer::VT_SOURCE_PIECE_TRIE);
  if (!trie) return s;
  if (!trie->VerifyTableStart(v)) return {};
  using fb::PieceTrie;
  for (auto field : {PieceTrie::VT_FIRST, PieceTrie::VT_COUNT, PieceTrie::VT_LABEL, PieceTrie::VT_VALUE})
    if (!trie->VerifyOffset(v, field)) return {};
  const auto* first = trie->GetPointer<const flatbuffers::Vector<uint32_t>*>(PieceTrie::VT_FIRST);
  const auto* count = trie->GetPointer<const flatbuffers::Vector<uint16_t>*>(PieceTrie::VT_COUNT);
  const auto* label = trie->GetPointer<const flatbuffers::Vector<uint8_t>*>(PieceTrie::VT_LABEL);
  const auto* value = trie->GetPointer<const flatbuffers::Vector<int32_t>*>(PieceTrie::VT_VALUE);
  if ((first && !v.VerifyVector(first)) || (count && !v.VerifyVector(count)) || (label && !v.VerifyVector(label)) ||
      (value && !v.VerifyVector(value)))
    return {};
  s.piece_trie = PieceTrieArrays(first, count, label, value);
  return s;
}

}  // namespace

Status CheckImageSize(uint64_t size, const std::string& name) {
  if (size < kMinImageBytes)
    return Invalid(name, "size check: " + std::to_string(size) + " bytes, smaller than the " +
                             std::to_string(kMinImageBytes) + "-byte minimum (truncated?)");
  if (size > kMaxFileBytes)
    return Invalid(name, "size check: " + std::to_string(size) + " bytes, above the 1 TiB limit of the format");
  return Status::Ok();
}

uint64_t LoadTableBytes(const Hyperparameters& hp, uint64_t tensor_count) {
  const uint64_t positions =
      hp.position_encoding == PositionEncoding::kLearned ? 0 : uint64_t{hp.max_positions} * hp.d_model * sizeof(float);
  const uint64_t views = tensor_count * sizeof(TensorView);
  const uint64_t pieces = (uint64_t{hp.source_vocab_size} * 2 + hp.target_vocab_size) * sizeof(std::string_view);
  return positions + views + pieces;
}

Result<ModelContents> ReadModel(const uint8_t* base, size_t size, const std::string& name, uint64_t memory_budget,
                                const SourceSpmCallback& on_source_spm) {
  TERN_RETURN_IF_ERROR(CheckImageSize(size, name));
  if (!flatbuffers::BufferHasIdentifier(base, fb::ModelIdentifier()))
    return Invalid(name, "identifier check: bytes 4..7 are not \"TERN\" (not a .tern file)");
  flatbuffers::Verifier::Options opts;
  opts.max_size = kMaxImageBytes;
  opts.max_tables = 10'000'000;
  // The FlatBuffer lies in the first 2 GiB - 1 bytes; a format-5 file's weights segment may follow beyond.
  const size_t fb_size = static_cast<size_t>(std::min<uint64_t>(size, kMaxImageBytes));
  // With a reader waiting for it, the source SentencePiece model first (its path verified, its proto
  // checked): parsing it is the longest part of a warm load.
  std::string_view source_spm_checked;
  SourceSpmCallback later = on_source_spm;
  if (on_source_spm) {
    const SourceSpm spm = SourceSpmAhead(base, fb_size, opts);
    if (!spm.proto.empty() && CheckSentencePieceModel(spm.proto, name + ": semantic check: tokenizer.source_spm").ok()) {
      on_source_spm(spm);
      source_spm_checked = spm.proto;
      later = nullptr;
    }
  }
  flatbuffers::Verifier verifier(base, fb_size, opts);
  if (!fb::VerifyModelBuffer(verifier))
    return Invalid(name, "FlatBuffers verifier rejected the file (corrupted or truncated; verifier stopped near byte " +
                             std::to_string(verifier.GetComputedSize()) + " of " + std::to_string(size) + ")");
  const fb::Model* root = fb::GetModel(base);
  ModelContents c;
  c.format_version = root->format_version();
  if (c.format_version == 0) return Invalid(name, "version check: format_version is 0 (missing)");
  if (c.format_version > kFormatVersion)
    return Status(StatusCode::kUnsupported, name + ": version check: format_version " + std::to_string(c.format_version) +
                                                " is newer than this runtime reads (" + std::to_string(kFormatVersion) +
                                                "); upgrade tern or re-convert the model");
  TERN_RETURN_IF_ERROR(CheckSemantics(*root, base, size, name, &c, memory_budget, later, source_spm_checked));
  return c;
}

}  // namespace tern::format

namespace tern {

std::string_view PieceList::operator[](size_t id) const {
  const flatbuffers::String* s =
      static_cast<const flatbuffers::Vector<flatbuffers::Offset<flatbuffers::String>>*>(strings_)->Get(static_cast<flatbuffers::uoffset_t>(id));
  return std::string_view(s->c_str(), s->size());
}

}  // namespace tern
