// Loading and verifying a .tern file. Order of checks (each failure names the check):
//   1. size: at least kMinFileBytes and below FlatBuffers' 2 GiB limit;
//   2. identifier "TERN" at bytes 4..7;
//   3. the FlatBuffers verifier (every offset, vector and string inside the buffer);
//   4. format_version: known to this build;
//   5. semantics: hyperparameters consistent, every tensor of ExpectedTensors() present with its shape,
//      dtype allowed, offsets 64-byte aligned and inside the weight segment, lengths exact, int8 scales
//      finite and positive, vocabularies matching the embeddings, special ids and limits in range.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <set>
#include <sstream>

#include "positions.h"
#include "tern/model.h"
#include "tern_generated.h"

namespace tern {
namespace {

constexpr size_t kMinFileBytes = 16;                    // root offset + identifier + a minimal table
constexpr size_t kMaxFileBytes = (size_t{1} << 31) - 1; // FlatBuffers' 32-bit offsets
constexpr size_t kAlign = 64;

Status Invalid(const std::string& file, const std::string& what) {
  return Status(StatusCode::kInvalidModel, file + ": " + what);
}

std::string ShapeString(const uint32_t* s, size_t n) {
  std::ostringstream o;
  o << '[';
  for (size_t i = 0; i < n; ++i) o << (i ? ", " : "") << s[i];
  o << ']';
  return o.str();
}

std::string_view View(const flatbuffers::String* s) {
  return s ? std::string_view(s->c_str(), s->size()) : std::string_view();
}

std::string Str(const flatbuffers::String* s) { return s ? s->str() : std::string(); }

}  // namespace

const char* DTypeName(DType t) {
  switch (t) {
    case DType::kF32: return "f32";
    case DType::kF16: return "f16";
    case DType::kInt8: return "int8";
  }
  return "?";
}

size_t DTypeSize(DType t) { return t == DType::kF32 ? 4 : t == DType::kF16 ? 2 : 1; }

const char* ActivationName(Activation a) {
  switch (a) {
    case Activation::kRelu: return "relu";
    case Activation::kSwish: return "swish";
    case Activation::kGelu: return "gelu";
  }
  return "?";
}

const char* NormPlacementName(NormPlacement n) {
  return n == NormPlacement::kPreNorm ? "pre-norm" : "post-norm";
}

const char* PositionEncodingName(PositionEncoding p) {
  switch (p) {
    case PositionEncoding::kSinusoidalHalves: return "sinusoidal (sin|cos halves)";
    case PositionEncoding::kSinusoidalInterleaved: return "sinusoidal (interleaved)";
    case PositionEncoding::kLearned: return "learned";
  }
  return "?";
}

Model::~Model() {
  if (mapping_) munmap(mapping_, size_);
}

void Model::ReleasePages(const void* data, size_t bytes) const {
#if defined(MADV_DONTNEED)
  if (!mapping_ || bytes == 0) return;
  const auto begin = reinterpret_cast<uintptr_t>(data), end = begin + bytes;
  const auto map_begin = reinterpret_cast<uintptr_t>(mapping_), map_end = map_begin + size_;
  if (begin < map_begin || end > map_end) return;
  static const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  const uintptr_t first = (begin + page - 1) & ~(page - 1), last = end & ~(page - 1);  // whole pages only
  if (first < last) madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);
#else
  (void)data;
  (void)bytes;
#endif
}

Result<std::shared_ptr<const Model>> Model::Load(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Status(StatusCode::kIoError, path + ": cannot open: " + std::strerror(errno));
  struct stat st;
  if (fstat(fd, &st) != 0) {
    const int e = errno;
    close(fd);
    return Status(StatusCode::kIoError, path + ": cannot stat: " + std::strerror(e));
  }
  if (!S_ISREG(st.st_mode)) {
    close(fd);
    return Status(StatusCode::kIoError, path + ": not a regular file");
  }
  const size_t size = static_cast<size_t>(st.st_size);
  if (size < kMinFileBytes) {
    close(fd);
    return Invalid(path, "size check: file is " + std::to_string(size) + " bytes, smaller than the " +
                             std::to_string(kMinFileBytes) + "-byte minimum (truncated?)");
  }
  if (size > kMaxFileBytes) {
    close(fd);
    return Invalid(path, "size check: file is " + std::to_string(size) + " bytes, above the 2 GiB limit");
  }
  void* p = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  const int e = errno;
  close(fd);
  if (p == MAP_FAILED) return Status(StatusCode::kIoError, path + ": mmap failed: " + std::strerror(e));
  std::shared_ptr<Model> m(new Model());
  m->name_ = path;
  m->mapping_ = p;
  m->base_ = static_cast<const uint8_t*>(p);
  m->size_ = size;
  return Verify(std::move(m));
}

Result<std::shared_ptr<const Model>> Model::FromBytes(const void* data, size_t size, const std::string& name) {
  if (size < kMinFileBytes)
    return Invalid(name, "size check: " + std::to_string(size) + " bytes, smaller than the " +
                             std::to_string(kMinFileBytes) + "-byte minimum (truncated?)");
  if (size > kMaxFileBytes) return Invalid(name, "size check: above the 2 GiB limit");
  std::shared_ptr<Model> m(new Model());
  m->name_ = name;
  m->owned_.reset(new (std::nothrow) uint8_t[size + kAlign]);
  if (!m->owned_) return Status(StatusCode::kResourceExhausted, name + ": cannot allocate a copy");
  uint8_t* aligned = reinterpret_cast<uint8_t*>(
      (reinterpret_cast<uintptr_t>(m->owned_.get()) + kAlign - 1) & ~uintptr_t{kAlign - 1});
  std::memcpy(aligned, data, size);
  m->base_ = aligned;
  m->size_ = size;
  return Verify(std::move(m));
}

Result<std::shared_ptr<const Model>> Model::Verify(std::shared_ptr<Model> m) {
  const std::string& file = m->name_;
  if (!flatbuffers::BufferHasIdentifier(m->base_, fb::ModelIdentifier())) {
    return Invalid(file, "identifier check: bytes 4..7 are not \"TERN\" (not a .tern file)");
  }
  flatbuffers::Verifier::Options opts;
  opts.max_size = kMaxFileBytes;
  opts.max_tables = 10'000'000;
  flatbuffers::Verifier verifier(m->base_, m->size_, opts);
  if (!fb::VerifyModelBuffer(verifier)) {
    return Invalid(file, "FlatBuffers verifier rejected the file (corrupted or truncated; verifier stopped near byte " +
                             std::to_string(verifier.GetComputedSize()) + " of " + std::to_string(m->size_) + ")");
  }
  m->fb_ = fb::GetModel(m->base_);
  m->format_version_ = m->fb_->format_version();
  if (m->format_version_ == 0) return Invalid(file, "version check: format_version is 0 (missing)");
  if (m->format_version_ > kFormatVersion) {
    return Status(StatusCode::kUnsupported,
                  file + ": version check: format_version " + std::to_string(m->format_version_) +
                      " is newer than this runtime reads (" + std::to_string(kFormatVersion) +
                      "); upgrade tern or re-convert the model");
  }
  TERN_RETURN_IF_ERROR(m->CheckSemantics());
  return std::shared_ptr<const Model>(std::move(m));
}

Status Model::CheckSemantics() {
  const std::string& file = name_;
  const fb::Model* f = fb_;
  const fb::Hyperparameters* h = f->hparams();
  if (!h) return Invalid(file, "semantic check: hparams missing");
  hp_.d_model = h->d_model();
  hp_.n_heads = h->n_heads();
  hp_.head_dim = h->head_dim();
  hp_.ffn_dim = h->ffn_dim();
  hp_.encoder_layers = h->encoder_layers();
  hp_.decoder_layers = h->decoder_layers();
  hp_.source_vocab_size = h->source_vocab_size();
  hp_.target_vocab_size = h->target_vocab_size();
  hp_.layer_norm_epsilon = h->layer_norm_epsilon();
  hp_.max_positions = h->max_positions();
  hp_.embedding_scale = h->embedding_scale();
  hp_.shared_embeddings = h->shared_embeddings();
  hp_.tied_output_projection = h->tied_output_projection();
  hp_.final_logits_bias = h->final_logits_bias();
  hp_.pad_id = h->pad_id();
  hp_.eos_id = h->eos_id();
  hp_.unk_id = h->unk_id();
  hp_.decoder_start_id = h->decoder_start_id();
  const auto act = static_cast<uint8_t>(h->activation());
  if (act > static_cast<uint8_t>(Activation::kGelu))
    return Invalid(file, "semantic check: hparams.activation " + std::to_string(act) + " unknown");
  hp_.activation = static_cast<Activation>(act);
  const auto norm = static_cast<uint8_t>(h->norm_placement());
  if (norm > 1) return Invalid(file, "semantic check: hparams.norm_placement " + std::to_string(norm) + " unknown");
  hp_.norm_placement = static_cast<NormPlacement>(norm);
  const auto pos = static_cast<uint8_t>(h->position_encoding());
  if (pos > 2) return Invalid(file, "semantic check: hparams.position_encoding " + std::to_string(pos) + " unknown");
  hp_.position_encoding = static_cast<PositionEncoding>(pos);

  // Hyperparameters consistent with each other.
  if (hp_.d_model == 0 || hp_.n_heads == 0 || hp_.ffn_dim == 0 || hp_.encoder_layers == 0 ||
      hp_.decoder_layers == 0 || hp_.max_positions == 0)
    return Invalid(file, "semantic check: hparams d_model, n_heads, ffn_dim, layer counts and max_positions must be > 0");
  if (hp_.head_dim * hp_.n_heads != hp_.d_model)
    return Invalid(file, "semantic check: hparams n_heads " + std::to_string(hp_.n_heads) + " x head_dim " +
                             std::to_string(hp_.head_dim) + " != d_model " + std::to_string(hp_.d_model));
  if (hp_.d_model > 65536 || hp_.ffn_dim > 1u << 20 || hp_.encoder_layers > 256 || hp_.decoder_layers > 256 ||
      hp_.max_positions > 1u << 20 || hp_.source_vocab_size > 1u << 24 || hp_.target_vocab_size > 1u << 24)
    return Invalid(file, "semantic check: hparams out of range (d_model <= 65536, layers <= 256, vocab <= 2^24)");
  if (hp_.source_vocab_size == 0 || hp_.target_vocab_size == 0)
    return Invalid(file, "semantic check: vocabulary sizes must be > 0");
  if (hp_.shared_embeddings && hp_.source_vocab_size != hp_.target_vocab_size)
    return Invalid(file, "semantic check: shared_embeddings with source_vocab_size " +
                             std::to_string(hp_.source_vocab_size) + " != target_vocab_size " +
                             std::to_string(hp_.target_vocab_size));
  if (!(std::isfinite(hp_.layer_norm_epsilon) && hp_.layer_norm_epsilon > 0.f && hp_.layer_norm_epsilon < 1.f))
    return Invalid(file, "semantic check: layer_norm_epsilon must be in (0, 1)");
  if (!(std::isfinite(hp_.embedding_scale) && hp_.embedding_scale > 0.f))
    return Invalid(file, "semantic check: embedding_scale must be finite and > 0");
  for (auto [id, what] : {std::pair{hp_.pad_id, "pad_id"}, {hp_.eos_id, "eos_id"}, {hp_.decoder_start_id, "decoder_start_id"},
                          {hp_.unk_id, "unk_id"}}) {
    if (id >= hp_.target_vocab_size || id >= hp_.source_vocab_size)
      return Invalid(file, std::string("semantic check: ") + what + " " + std::to_string(id) + " outside the vocabulary");
  }

  // Generation defaults and limits.
  if (const fb::GenerationDefaults* g = f->generation()) {
    gen_.beam_size = g->beam_size();
    gen_.length_penalty = g->length_penalty();
    gen_.max_length = g->max_length();
    gen_.max_length_ratio = g->max_length_ratio();
    gen_.forced_eos = g->forced_eos();
    if (g->bad_word_ids())
      for (uint32_t id : *g->bad_word_ids()) {
        if (id >= hp_.target_vocab_size)
          return Invalid(file, "semantic check: generation.bad_word_ids holds " + std::to_string(id) +
                                   ", outside the target vocabulary");
        gen_.bad_word_ids.push_back(id);
      }
    if (gen_.beam_size == 0 || gen_.max_length == 0 || !std::isfinite(gen_.length_penalty) ||
        !std::isfinite(gen_.max_length_ratio) || gen_.max_length_ratio < 0.f)
      return Invalid(file, "semantic check: generation defaults out of range (beam_size, max_length > 0)");
  }
  if (const fb::ArenaLimits* l = f->limits()) {
    limits_.max_source_tokens = l->max_source_tokens();
    limits_.max_target_tokens = l->max_target_tokens();
    limits_.max_batch = l->max_batch();
    limits_.max_rows = l->max_rows();
  }
  if (limits_.max_source_tokens == 0 || limits_.max_target_tokens == 0 || limits_.max_batch == 0 ||
      limits_.max_rows == 0)
    return Invalid(file, "semantic check: limits must all be > 0");
  if (limits_.max_source_tokens > hp_.max_positions || limits_.max_target_tokens + 1 > hp_.max_positions)
    return Invalid(file, "semantic check: limits.max_source_tokens " + std::to_string(limits_.max_source_tokens) +
                             " / max_target_tokens " + std::to_string(limits_.max_target_tokens) +
                             " exceed max_positions " + std::to_string(hp_.max_positions));

  if (const fb::Provenance* p = f->provenance()) {
    prov_.source_checkpoint = Str(p->source_checkpoint());
    prov_.converter_version = Str(p->converter_version());
    prov_.weights = Str(p->weights());
    prov_.quantization = Str(p->quantization());
    prov_.date = Str(p->date());
    prov_.notes = Str(p->notes());
    prov_.max_abs_error = p->max_abs_error();
  }

  // Tensors.
  const auto* weights = f->weights();
  if (!weights) return Invalid(file, "semantic check: weight segment missing");
  const uint8_t* seg = weights->data();
  const size_t seg_bytes = weights->size();
  if (reinterpret_cast<uintptr_t>(seg) % kAlign != 0)
    return Invalid(file, "semantic check: weight segment at byte " + std::to_string(seg - base_) +
                             " is not 64-byte aligned");
  if (!f->tensors()) return Invalid(file, "semantic check: tensor table missing");
  std::set<std::string_view> names;
  tensors_.reserve(f->tensors()->size());
  for (const fb::Tensor* t : *f->tensors()) {
    TensorView v;
    v.name = View(t->name());
    const std::string tn = "tensor '" + std::string(v.name) + "'";
    if (!names.insert(v.name).second) return Invalid(file, "semantic check: " + tn + " appears twice");
    const auto dt = static_cast<uint8_t>(t->dtype());
    if (dt > 2) return Invalid(file, "semantic check: " + tn + ": dtype " + std::to_string(dt) + " unknown");
    v.dtype = static_cast<DType>(dt);
    if (!t->shape() || t->shape()->size() == 0 || t->shape()->size() > 2)
      return Invalid(file, "semantic check: " + tn + ": rank must be 1 or 2");
    v.rank = t->shape()->size();
    v.shape[0] = t->shape()->Get(0);
    v.shape[1] = v.rank == 2 ? t->shape()->Get(1) : 1;
    const uint64_t numel = uint64_t{v.shape[0]} * v.shape[1];
    const uint64_t off = t->offset(), len = t->length();
    if (off % kAlign != 0)
      return Invalid(file, "semantic check: " + tn + ": offset " + std::to_string(off) + " is not 64-byte aligned");
    if (len != numel * DTypeSize(v.dtype))
      return Invalid(file, "semantic check: " + tn + ": length " + std::to_string(len) + " bytes, expected " +
                               std::to_string(numel * DTypeSize(v.dtype)) + " for shape " +
                               ShapeString(v.shape, v.rank) + " " + DTypeName(v.dtype));
    if (off > seg_bytes || len > seg_bytes - off)
      return Invalid(file, "semantic check: " + tn + ": bytes [" + std::to_string(off) + ", " +
                               std::to_string(off + len) + ") outside the " + std::to_string(seg_bytes) +
                               "-byte weight segment");
    v.data = seg + off;
    v.bytes = len;
    if (v.dtype == DType::kInt8) {
      const uint64_t so = t->scales_offset(), sl = t->scales_length();
      if (v.rank != 2) return Invalid(file, "semantic check: " + tn + ": int8 tensors must be 2-D");
      if (sl != uint64_t{v.shape[0]} * 4 || so % 4 != 0 || so > seg_bytes || sl > seg_bytes - so)
        return Invalid(file, "semantic check: " + tn + ": scales [" + std::to_string(so) + ", +" +
                                 std::to_string(sl) + ") misaligned, mis-sized or outside the weight segment");
      v.scales = reinterpret_cast<const float*>(seg + so);
      for (uint32_t r = 0; r < v.shape[0]; ++r) {
        if (!(std::isfinite(v.scales[r]) && v.scales[r] > 0.f))
          return Invalid(file, "semantic check: " + tn + ": scale of row " + std::to_string(r) +
                                   " is not finite and positive (" + std::to_string(v.scales[r]) + ")");
      }
      v.max_abs_error = t->max_abs_error();
    }
    tensors_.push_back(v);
  }
  std::sort(tensors_.begin(), tensors_.end(), [](const TensorView& a, const TensorView& b) { return a.name < b.name; });

  // Exactly the expected tensors, with their shapes; vectors in f32.
  const std::vector<TensorSpec> expected = ExpectedTensors(hp_);
  std::set<std::string_view> expected_names;
  bool first_matrix = true;
  for (const TensorSpec& s : expected) {
    expected_names.insert(s.name);
    const TensorView* v = tensor(s.name);
    if (!v) return Invalid(file, "semantic check: tensor '" + s.name + "' missing");
    const uint32_t want[2] = {s.shape[0], s.shape.size() == 2 ? s.shape[1] : 1};
    if (v->rank != s.shape.size() || v->shape[0] != want[0] || v->shape[1] != want[1])
      return Invalid(file, "semantic check: tensor '" + s.name + "': shape " + ShapeString(v->shape, v->rank) +
                               " disagrees with the hyperparameters, which imply " +
                               ShapeString(s.shape.data(), s.shape.size()));
    if (!s.quantizable && v->dtype != DType::kF32)
      return Invalid(file, "semantic check: tensor '" + s.name + "': must be f32, is " + DTypeName(v->dtype));
    if (s.quantizable && s.name.find(".layers.") != std::string::npos) {
      if (first_matrix) weight_dtype_ = v->dtype, first_matrix = false;
      else if (v->dtype != weight_dtype_)
        return Invalid(file, "semantic check: tensor '" + s.name + "': dtype " + DTypeName(v->dtype) +
                                 " differs from the other linear weights (" + DTypeName(weight_dtype_) + ")");
    }
  }
  for (const TensorView& v : tensors_) {
    if (!expected_names.count(v.name))
      return Invalid(file, "semantic check: unexpected tensor '" + std::string(v.name) + "'");
  }

  // Tokenizer: vocabularies agree with the embeddings.
  const fb::Tokenizer* tok = f->tokenizer();
  if (!tok || !tok->source_spm() || !tok->target_spm() || !tok->source_vocab() || !tok->target_vocab())
    return Invalid(file, "semantic check: tokenizer (source/target SentencePiece models and vocabularies) missing");
  source_spm_ = std::string_view(reinterpret_cast<const char*>(tok->source_spm()->data()), tok->source_spm()->size());
  target_spm_ = std::string_view(reinterpret_cast<const char*>(tok->target_spm()->data()), tok->target_spm()->size());
  if (tok->source_vocab()->size() != hp_.source_vocab_size)
    return Invalid(file, "semantic check: tokenizer.source_vocab has " + std::to_string(tok->source_vocab()->size()) +
                             " pieces, encoder.embed_tokens.weight has " + std::to_string(hp_.source_vocab_size) + " rows");
  if (tok->target_vocab()->size() != hp_.target_vocab_size)
    return Invalid(file, "semantic check: tokenizer.target_vocab has " + std::to_string(tok->target_vocab()->size()) +
                             " pieces, the target embedding has " + std::to_string(hp_.target_vocab_size) + " rows");
  for (const auto* s : *tok->source_vocab()) source_vocab_.push_back(View(s));
  for (const auto* s : *tok->target_vocab()) target_vocab_.push_back(View(s));

  if (hp_.position_encoding != PositionEncoding::kLearned) {
    sinusoid_.resize(size_t{hp_.max_positions} * hp_.d_model);
    FillSinusoid(hp_.position_encoding, hp_.max_positions, hp_.d_model, sinusoid_.data());
  }
  return Status::Ok();
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
