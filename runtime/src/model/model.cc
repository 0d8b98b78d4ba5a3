// tern::Model: the bytes (model_data.h) plus what the format library read from them (model_reader.h).
#include <algorithm>
#include <new>

#include "model/model_impl.h"
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

Model::Model(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Model::~Model() = default;

const std::string& Model::name() const { return impl_->name; }
size_t Model::file_bytes() const { return impl_->data->size(); }
uint32_t Model::format_version() const { return impl_->c.format_version; }
const Hyperparameters& Model::hparams() const { return impl_->c.hp; }
const GenerationDefaults& Model::generation() const { return impl_->c.gen; }
const ArenaLimits& Model::limits() const { return impl_->c.limits; }
const Provenance& Model::provenance() const { return impl_->c.provenance; }
DType Model::weight_dtype() const { return impl_->c.weight_dtype; }
namespace {
const std::vector<std::string_view>& VocabViews(const Model::Impl& m, int side) {
  std::call_once(m.vocab_once[side], [&] {
    const PieceList& pieces = side == 0 ? m.c.source_pieces : m.c.target_pieces;
    m.vocab_views[side].reserve(pieces.size());
    for (size_t id = 0; id < pieces.size(); ++id) m.vocab_views[side].push_back(pieces[id]);
  });
  return m.vocab_views[side];
}
}  // namespace

const std::vector<std::string_view>& Model::source_vocab() const { return VocabViews(*impl_, 0); }
const std::vector<std::string_view>& Model::target_vocab() const { return VocabViews(*impl_, 1); }
bool Model::clean_up_tokenization_spaces() const { return impl_->c.clean_up_tokenization_spaces; }
const std::vector<std::string_view>& Model::language_tokens() const { return impl_->language_tokens; }
std::string_view Model::source_lang() const { return impl_->c.source_lang; }
std::string_view Model::target_lang() const { return impl_->c.target_lang; }
uint64_t Model::memory_budget_bytes() const { return impl_->options.memory_budget_bytes; }

std::string Model::packed_weights_note() const {
  std::lock_guard<std::mutex> lock(impl_->prepared_mu);
  return impl_->packed_note;
}

ShortlistInfo Model::shortlist() const {
  const ShortlistView& v = impl_->c.shortlist;
  ShortlistInfo i;
  i.present = v.present();
  i.frequent = v.frequent_count;
  i.candidates = v.candidate_count;
  i.method = v.method;
  return i;
}

// The one place a Model is constructed (its constructor is private).
struct ModelFactory {
  static std::shared_ptr<const Model> Make(std::unique_ptr<Model::Impl> impl) {
    return std::shared_ptr<const Model>(new Model(std::move(impl)));
  }
};

namespace internal {

Result<std::shared_ptr<const Model>> CreateModel(std::unique_ptr<ModelData> data, const std::string& name,
                                                 const LoadOptions& options, const SourceSpmHook& hook) {
  auto m = std::make_unique<Model::Impl>();
  m->name = name;
  m->options = options;
  m->data = std::move(data);  // before ReadModel: a prefetch begun inside it is destroyed before these bytes
  format::SourceSpmCallback on_source_spm;
  if (hook) on_source_spm = [&](const format::SourceSpm& spm) { m->source_spm_prefetch = hook(spm); };
  TERN_ASSIGN_OR_RETURN(m->c, format::ReadModel(m->data->bytes(), m->data->size(), name, options.memory_budget_bytes,
                                                on_source_spm));
  for (size_t id = 0; id < m->c.source_pieces.size(); ++id) {
    const std::string_view p = m->c.source_pieces[id];
    if (p.size() > 4 && p.compare(0, 2, ">>") == 0 && p.compare(p.size() - 2, 2, "<<") == 0) m->language_tokens.push_back(p);
  }
  const Hyperparameters& hp = m->c.hp;
  if (hp.position_encoding != PositionEncoding::kLearned) {
    m->sinusoid.reset(new (std::nothrow) float[size_t{hp.max_positions} * hp.d_model]);
    if (!m->sinusoid)
      return Status(StatusCode::kResourceExhausted, name + ": no memory for the " + std::to_string(hp.max_positions) +
                                                        "-position sinusoid");
    m->sinusoid_denom.resize(hp.d_model / 2);
    format::SinusoidDenominators(hp.d_model, m->sinusoid_denom.data());
    m->positions(false, Model::Impl::kSinusoidRowsAtLoad);
  }
  return ModelFactory::Make(std::move(m));
}

}  // namespace internal

const TensorView* Model::Impl::tensor(std::string_view name) const {
  auto it = std::lower_bound(c.tensors.begin(), c.tensors.end(), name,
                             [](const TensorView& t, std::string_view n) { return t.name < n; });
  return it != c.tensors.end() && it->name == name ? &*it : nullptr;
}

const float* Model::Impl::positions(bool decoder, size_t rows) const {
  if (c.hp.position_encoding == PositionEncoding::kLearned)
    return tensor(decoder ? "decoder.embed_positions.weight" : "encoder.embed_positions.weight")->f32();
  if (rows > sinusoid_rows.load(std::memory_order_acquire)) {
    std::lock_guard<std::mutex> lock(sinusoid_mu);
    const size_t filled = sinusoid_rows.load(std::memory_order_relaxed);
    const size_t want = std::min<size_t>(c.hp.max_positions, (rows + kSinusoidRowsAtLoad - 1) / kSinusoidRowsAtLoad * kSinusoidRowsAtLoad);
    if (want > filled) {
      format::FillSinusoidRows(c.hp.position_encoding, c.hp.d_model, sinusoid_denom.data(), filled, want, sinusoid.get());
      sinusoid_rows.store(want, std::memory_order_release);
    }
  }
  return sinusoid.get();
}

uint64_t Model::Impl::owned_bytes_estimate() const {
  // Packed weights: every matrix but the position tables, at the width its kernel takes (f16 widened to
  // f32), plus per-row bias, scale and sum (16 bytes), and XNNPACK's padding of the output channels (a
  // generous 64 rows per matrix).
  uint64_t packed = 0;
  for (const TensorView& t : c.tensors) {
    if (t.rank != 2 || t.name.find("embed_positions") != std::string_view::npos) continue;
    const uint64_t rows = t.rows();
    const uint64_t row_bytes = t.dtype == DType::kF16 ? uint64_t{t.cols()} * 4 : (t.bytes + rows - 1) / rows;
    packed += (rows + 64) * (row_bytes + 16);
  }
  // The per-vocabulary tables a Translator makes (the tokenizer's piece -> id map, about 64 bytes an entry;
  // the token mask, a byte per target token) and the shortlist's row sums (4 bytes per target token).
  const Hyperparameters& hp = c.hp;
  const uint64_t vocab_tables = uint64_t{hp.source_vocab_size} * 64 + hp.target_vocab_size * uint64_t{1 + 4};
  return format::LoadTableBytes(hp, c.tensors.size()) + packed + vocab_tables;
}

}  // namespace tern
