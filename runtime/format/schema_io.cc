// The schema's header tables <-> the public structs of tern/model.h, driven by the field lists of
// fields.h: one list per table, so reading, writing and describing cannot disagree.
#include "fields.h"
#include "format.h"

namespace tern::format {
namespace {

// Reading one field: scalars as they are, enums range-checked, strings and vectors copied.
template <typename T>
Status Read(T v, const std::string&, const char*, T* out) {
  *out = v;
  return Status::Ok();
}
template <typename Pub, typename FbEnum, typename = std::enable_if_t<std::is_enum_v<FbEnum>>>
Status Read(FbEnum v, const std::string& file, const char* field, Pub* out) {
  return FromFb(v, file, field, out);
}
Status Read(const flatbuffers::String* s, const std::string&, const char*, std::string* out) {
  *out = s ? s->str() : std::string();
  return Status::Ok();
}
Status Read(const flatbuffers::Vector<uint32_t>* v, const std::string&, const char*, std::vector<uint32_t>* out) {
  out->clear();
  if (v) out->assign(v->begin(), v->end());
  return Status::Ok();
}

// Writing one field: offsets of strings and vectors are made before the table is started (FlatBuffers
// requires it), in field order so the same input gives the same bytes.
template <typename T, typename = std::enable_if_t<std::is_arithmetic_v<T>>>
T Prep(flatbuffers::FlatBufferBuilder&, T v) {
  return v;
}
inline fb::Activation Prep(flatbuffers::FlatBufferBuilder&, Activation v) { return ToFb(v); }
inline fb::NormPlacement Prep(flatbuffers::FlatBufferBuilder&, NormPlacement v) { return ToFb(v); }
inline fb::PositionEncoding Prep(flatbuffers::FlatBufferBuilder&, PositionEncoding v) { return ToFb(v); }
inline fb::EarlyStopping Prep(flatbuffers::FlatBufferBuilder&, EarlyStopping v) { return ToFb(v); }
inline flatbuffers::Offset<flatbuffers::String> Prep(flatbuffers::FlatBufferBuilder& fbb, const std::string& s) {
  return fbb.CreateString(s);
}
inline flatbuffers::Offset<flatbuffers::Vector<uint32_t>> Prep(flatbuffers::FlatBufferBuilder& fbb, const std::vector<uint32_t>& v) {
  return fbb.CreateVector(v);
}

#define TERN_READ(f) TERN_RETURN_IF_ERROR(Read(t.f(), file, TERN_TABLE "." #f, &out->f));
#define TERN_PREP(f) const auto f##_value = Prep(fbb, s.f);
#define TERN_ADD(f) b.add_##f(f##_value);

}  // namespace

#define TERN_TABLE "hparams"
Status FromFb(const fb::Hyperparameters& t, const std::string& file, Hyperparameters* out) {
  TERN_HYPERPARAMETER_FIELDS(TERN_READ)
  return Status::Ok();
}
#undef TERN_TABLE
#define TERN_TABLE "generation"
Status FromFb(const fb::GenerationDefaults& t, const std::string& file, GenerationDefaults* out) {
  TERN_GENERATION_FIELDS(TERN_READ)
  return Status::Ok();
}
#undef TERN_TABLE
#define TERN_TABLE "limits"
Status FromFb(const fb::ArenaLimits& t, const std::string& file, ArenaLimits* out) {
  TERN_LIMIT_FIELDS(TERN_READ)
  return Status::Ok();
}
#undef TERN_TABLE
#define TERN_TABLE "provenance"
Status FromFb(const fb::Provenance& t, const std::string& file, Provenance* out) {
  TERN_PROVENANCE_FIELDS(TERN_READ)
  return Status::Ok();
}
#undef TERN_TABLE

flatbuffers::Offset<fb::Hyperparameters> ToFb(flatbuffers::FlatBufferBuilder& fbb, const Hyperparameters& s) {
  TERN_HYPERPARAMETER_FIELDS(TERN_PREP)
  fb::HyperparametersBuilder b(fbb);
  TERN_HYPERPARAMETER_FIELDS(TERN_ADD)
  return b.Finish();
}

flatbuffers::Offset<fb::GenerationDefaults> ToFb(flatbuffers::FlatBufferBuilder& fbb, const GenerationDefaults& s) {
  TERN_GENERATION_FIELDS(TERN_PREP)
  fb::GenerationDefaultsBuilder b(fbb);
  TERN_GENERATION_FIELDS(TERN_ADD)
  return b.Finish();
}

flatbuffers::Offset<fb::ArenaLimits> ToFb(flatbuffers::FlatBufferBuilder& fbb, const ArenaLimits& s) {
  // Every limit is stored even when it equals the schema default, so a writer can adjust them in the
  // finished image (fb::Model::mutable_limits()->mutate_*), as tern-convert's --arena-budget does.
  fbb.ForceDefaults(true);
  TERN_LIMIT_FIELDS(TERN_PREP)
  fb::ArenaLimitsBuilder b(fbb);
  TERN_LIMIT_FIELDS(TERN_ADD)
  const auto out = b.Finish();
  fbb.ForceDefaults(false);
  return out;
}

flatbuffers::Offset<fb::Provenance> ToFb(flatbuffers::FlatBufferBuilder& fbb, const Provenance& s) {
  TERN_PROVENANCE_FIELDS(TERN_PREP)
  fb::ProvenanceBuilder b(fbb);
  TERN_PROVENANCE_FIELDS(TERN_ADD)
  return b.Finish();
}

uint32_t RequiredVersion(const GenerationDefaults& g, bool clean_up_tokenization_spaces, bool uses_int4,
                         bool weights_segment) {
  if (weights_segment) return 5;
  if (g.early_stopping != EarlyStopping::kFalse) return 4;
  if (uses_int4) return 3;
  const GenerationDefaults format1;
  const bool v2 = g.renormalize_logits != format1.renormalize_logits || g.repetition_penalty != format1.repetition_penalty ||
                  g.no_repeat_ngram_size != format1.no_repeat_ngram_size || g.min_length != format1.min_length ||
                  clean_up_tokenization_spaces;
  return v2 ? 2 : 1;
}

}  // namespace tern::format
