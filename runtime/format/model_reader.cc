#include "model_reader.h"

#include <algorithm>

#include "format.h"

namespace tern::format {
namespace {

Status Invalid(const std::string& file, const std::string& what) {
  return Status(StatusCode::kInvalidModel, file + ": " + what);
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
                                const std::function<void(std::string_view)>& on_source_spm) {
  TERN_RETURN_IF_ERROR(CheckImageSize(size, name));
  if (!flatbuffers::BufferHasIdentifier(base, fb::ModelIdentifier()))
    return Invalid(name, "identifier check: bytes 4..7 are not \"TERN\" (not a .tern file)");
  flatbuffers::Verifier::Options opts;
  opts.max_size = kMaxImageBytes;
  opts.max_tables = 10'000'000;
  // The FlatBuffer lies in the first 2 GiB - 1 bytes; a format-5 file's weights segment may follow beyond.
  const size_t fb_size = static_cast<size_t>(std::min<uint64_t>(size, kMaxImageBytes));
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
  TERN_RETURN_IF_ERROR(CheckSemantics(*root, base, size, name, &c, memory_budget, on_source_spm));
  return c;
}

}  // namespace tern::format
