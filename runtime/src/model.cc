// tern::Model: the bytes (model_data.h) plus what the format library read from them (model_reader.h).
#include <algorithm>

#include "model_data.h"
#include "model_reader.h"
#include "positions.h"
#include "tern/model.h"

namespace tern {

const char* DTypeName(DType t) {
  switch (t) {
    case DType::kF32: return "f32";
    case DType::kF16: return "f16";
    case DType::kInt8: return "int8";
    case DType::kQc4w: return "qc4w";
    case DType::kQb4w: return "qb4w";
  }
  return "?";
}

const char* ActivationName(Activation a) {
  switch (a) {
    case Activation::kRelu: return "relu";
    case Activation::kSwish: return "swish";
    case Activation::kGelu: return "gelu";
  }
  return "?";
}

const char* NormPlacementName(NormPlacement n) {
  switch (n) {
    case NormPlacement::kPostNorm: return "post-norm";
    case NormPlacement::kPreNorm: return "pre-norm";
  }
  return "?";
}

const char* PositionEncodingName(PositionEncoding p) {
  switch (p) {
    case PositionEncoding::kSinusoidalHalves: return "sinusoidal (sin|cos halves)";
    case PositionEncoding::kSinusoidalInterleaved: return "sinusoidal (interleaved)";
    case PositionEncoding::kLearned: return "learned";
  }
  return "?";
}

const char* EarlyStoppingName(EarlyStopping e) {
  switch (e) {
    case EarlyStopping::kFalse: return "false";
    case EarlyStopping::kTrue: return "true";
    case EarlyStopping::kNever: return "never";
  }
  return "?";
}

Model::Model() = default;
Model::~Model() = default;

size_t Model::file_bytes() const { return data_->size(); }

void Model::ReleasePages(const void* data, size_t bytes) const { data_->ReleasePages(data, bytes); }

Result<std::shared_ptr<const Model>> Model::Load(const std::string& path, const LoadOptions& options) {
  auto data = options.map_file ? internal::ModelData::MapFile(path) : internal::ModelData::ReadFile(path);
  if (!data.ok()) return data.status();
  return Create(std::move(data.value()), path, options);
}

Result<std::shared_ptr<const Model>> Model::FromBytes(const void* data, size_t size, const std::string& name,
                                                      const LoadOptions& options) {
  auto copy = internal::ModelData::CopyOf(data, size, name);
  if (!copy.ok()) return copy.status();
  return Create(std::move(copy.value()), name, options);
}

uint64_t Model::owned_bytes_estimate() const {
  // Packed weights: every matrix but the position tables, at the width its kernel takes (f16 widened to
  // f32), plus per-row bias, scale and sum (16 bytes), and XNNPACK's padding of the output channels (a
  // generous 64 rows per matrix).
  uint64_t packed = 0;
  for (const TensorView& t : tensors_) {
    if (t.rank != 2 || t.name.find("embed_positions") != std::string_view::npos) continue;
    const uint64_t rows = t.rows();
    const uint64_t row_bytes = t.dtype == DType::kF16 ? uint64_t{t.cols()} * 4 : (t.bytes + rows - 1) / rows;
    packed += (rows + 64) * (row_bytes + 16);
  }
  // The per-vocabulary tables a Translator makes (the tokenizer's piece -> id map, about 64 bytes an entry;
  // the token mask, a byte per target token) and the shortlist's row sums (4 bytes per target token).
  const uint64_t vocab_tables = uint64_t{hp_.source_vocab_size} * 64 + hp_.target_vocab_size * uint64_t{1 + 4};
  return format::LoadTableBytes(hp_, tensors_.size()) + packed + vocab_tables;
}

Result<std::shared_ptr<const Model>> Model::Create(std::unique_ptr<internal::ModelData> data, const std::string& name,
                                                   const LoadOptions& options) {
  // Every table the file's header sizes is checked against the budget inside ReadModel, before it exists.
  auto contents = format::ReadModel(data->bytes(), data->size(), name, options.memory_budget_bytes);
  if (!contents.ok()) return contents.status();
  format::ModelContents& c = contents.value();
  std::shared_ptr<Model> m(new Model());
  m->name_ = name;
  m->options_ = options;
  m->data_ = std::move(data);
  m->format_version_ = c.format_version;
  m->hp_ = c.hp;
  m->gen_ = std::move(c.gen);
  m->limits_ = c.limits;
  m->prov_ = std::move(c.provenance);
  m->weight_dtype_ = c.weight_dtype;
  m->tensors_ = std::move(c.tensors);
  m->source_spm_ = c.source_spm;
  m->target_spm_ = c.target_spm;
  m->source_vocab_ = std::move(c.source_vocab);
  m->target_vocab_ = std::move(c.target_vocab);
  m->clean_up_tokenization_spaces_ = c.clean_up_tokenization_spaces;
  m->source_lang_ = c.source_lang;
  m->target_lang_ = c.target_lang;
  m->shortlist_ = c.shortlist;
  for (std::string_view p : m->source_vocab_)
    if (p.size() > 4 && p.compare(0, 2, ">>") == 0 && p.compare(p.size() - 2, 2, "<<") == 0) m->language_tokens_.push_back(p);
  const Hyperparameters& hp = m->hp_;
  if (hp.position_encoding != PositionEncoding::kLearned) {
    m->sinusoid_.resize(size_t{hp.max_positions} * hp.d_model);
    format::FillSinusoid(hp.position_encoding, hp.max_positions, hp.d_model, m->sinusoid_.data());
  }
  return std::shared_ptr<const Model>(std::move(m));
}

const TensorView* Model::tensor(std::string_view name) const {
  auto it = std::lower_bound(tensors_.begin(), tensors_.end(), name,
                             [](const TensorView& t, std::string_view n) { return t.name < n; });
  return it != tensors_.end() && it->name == name ? &*it : nullptr;
}

const float* Model::positions(bool decoder) const {
  if (hp_.position_encoding == PositionEncoding::kLearned)
    return tensor(decoder ? "decoder.embed_positions.weight" : "encoder.embed_positions.weight")->f32();
  return sinusoid_.data();
}

}  // namespace tern
