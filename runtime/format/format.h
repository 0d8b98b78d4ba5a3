// The .tern format library: everything both the writer (converter) and the reader (runtime) need to
// agree on, in one place. schema/tern.fbs is the definition; the C++ generated from it by flatc
// (tern_generated.h, namespace tern::fb) is the only code that knows its layout. This header ties the
// public enums of tern/model.h to the schema's (static_asserts below), converts every table between the
// schema and the public structs (ToFb / FromFb, schema_io.cc), and holds the format's constants.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "tern/model.h"
#include "tern/status.h"
#include "tern_generated.h"

namespace tern::format {

/// Alignment in bytes of the weight segment and of every tensor and scale offset inside it (schema Tensor).
constexpr size_t kTensorAlignment = 64;
/// Smallest image that can hold a root offset, the identifier and a table.
constexpr uint64_t kMinImageBytes = 16;
/// FlatBuffers' 32-bit offsets bound the FlatBuffer to 2 GiB - 1: an image of format 1-4, and the part of a
/// format-5 file before its weights segment.
constexpr uint64_t kMaxImageBytes = (uint64_t{1} << 31) - 1;
/// A file with a weights segment (format 5) may be this large (1 TiB): what a 64-bit reader maps.
constexpr uint64_t kMaxFileBytes = uint64_t{1} << 40;
/// Alignment in bytes of a weights segment's offset in the file (a page on every target).
constexpr uint64_t kSegmentAlignment = 4096;

constexpr uint64_t AlignUp(uint64_t n) { return (n + kTensorAlignment - 1) & ~uint64_t{kTensorAlignment - 1}; }

// --- enums: the public values are the schema's --------------------------------------------------------
#define TERN_SAME_ENUM(pub, fbv) static_assert(static_cast<int>(pub) == static_cast<int>(fbv), #pub " != " #fbv)
TERN_SAME_ENUM(DType::kF32, fb::DType::F32);
TERN_SAME_ENUM(DType::kF16, fb::DType::F16);
TERN_SAME_ENUM(DType::kInt8, fb::DType::INT8_QC8W);
TERN_SAME_ENUM(DType::kQc4w, fb::DType::INT4_QC4W);
TERN_SAME_ENUM(DType::kQb4w, fb::DType::INT4_QB4W);
TERN_SAME_ENUM(Activation::kRelu, fb::Activation::Relu);
TERN_SAME_ENUM(Activation::kSwish, fb::Activation::Swish);
TERN_SAME_ENUM(Activation::kGelu, fb::Activation::Gelu);
TERN_SAME_ENUM(NormPlacement::kPostNorm, fb::NormPlacement::PostNorm);
TERN_SAME_ENUM(NormPlacement::kPreNorm, fb::NormPlacement::PreNorm);
TERN_SAME_ENUM(PositionEncoding::kSinusoidalHalves, fb::PositionEncoding::SinusoidalHalves);
TERN_SAME_ENUM(PositionEncoding::kSinusoidalInterleaved, fb::PositionEncoding::SinusoidalInterleaved);
TERN_SAME_ENUM(PositionEncoding::kLearned, fb::PositionEncoding::Learned);
TERN_SAME_ENUM(EarlyStopping::kFalse, fb::EarlyStopping::False);
TERN_SAME_ENUM(EarlyStopping::kTrue, fb::EarlyStopping::True);
TERN_SAME_ENUM(EarlyStopping::kNever, fb::EarlyStopping::Never);
#undef TERN_SAME_ENUM

/// Number of values of each schema enum (the generated MAX + 1): tables indexed by an enum have this size.
template <typename FbEnum>
constexpr size_t EnumCount() {
  return static_cast<size_t>(FbEnum::MAX) + 1;
}
static_assert(EnumCount<fb::DType>() == 5 && EnumCount<fb::Activation>() == 3 && EnumCount<fb::NormPlacement>() == 2 &&
                  EnumCount<fb::PositionEncoding>() == 3 && EnumCount<fb::EarlyStopping>() == 3,
              "a schema enum grew: extend the public enum in tern/model.h and the tables indexed by it");

/// True when table[i].dtype == i for every entry: tables indexed by DType (weight formats, kernels) check
/// themselves with static_assert(IndexedByDType(table)).
template <typename Entry, size_t N>
constexpr bool IndexedByDType(const Entry (&table)[N]) {
  for (size_t i = 0; i < N; ++i)
    if (static_cast<size_t>(table[i].dtype) != i) return false;
  return N == EnumCount<fb::DType>();
}

/// True when `v` is a value the schema defines (a file may hold any byte).
template <typename FbEnum>
constexpr bool InRange(FbEnum v) {
  return static_cast<int>(v) >= static_cast<int>(FbEnum::MIN) && static_cast<int>(v) <= static_cast<int>(FbEnum::MAX);
}

/// Public enum from a schema enum, or kInvalidModel naming `field` for a value this build does not know
/// (schema/README.md rule 4: a reader never guesses).
template <typename Pub, typename FbEnum>
Status FromFb(FbEnum v, const std::string& file, const char* field, Pub* out) {
  if (!InRange(v))
    return Status(StatusCode::kInvalidModel, file + ": semantic check: " + field + " " + std::to_string(static_cast<int>(v)) +
                                                 " is not a value this runtime knows (0.." +
                                                 std::to_string(static_cast<int>(FbEnum::MAX)) + ")");
  *out = static_cast<Pub>(v);
  return Status::Ok();
}
inline fb::DType ToFb(DType v) { return static_cast<fb::DType>(v); }
inline fb::Activation ToFb(Activation v) { return static_cast<fb::Activation>(v); }
inline fb::NormPlacement ToFb(NormPlacement v) { return static_cast<fb::NormPlacement>(v); }
inline fb::PositionEncoding ToFb(PositionEncoding v) { return static_cast<fb::PositionEncoding>(v); }
inline fb::EarlyStopping ToFb(EarlyStopping v) { return static_cast<fb::EarlyStopping>(v); }

/// The lowest format version a file needs (schema/README.md, version history): 4 if early_stopping is not
/// false, 3 if a tensor uses a 4-bit format, 2 if it sets a format-2 field to anything but its default,
/// else 1.
uint32_t RequiredVersion(const GenerationDefaults& g, bool clean_up_tokenization_spaces, bool uses_int4,
                         bool weights_segment = false);

// --- tables (schema_io.cc, driven by the field lists of fields.h) --------------------------------------------------------------------------------
/// Reads the tables into the public structs (every field of fields.h); enum fields are range-checked
/// (kInvalidModel naming the field). Consistency between fields is checked by the semantic checks
/// (model_reader.h), not here.
Status FromFb(const fb::Hyperparameters& t, const std::string& file, Hyperparameters* out);
Status FromFb(const fb::GenerationDefaults& t, const std::string& file, GenerationDefaults* out);
Status FromFb(const fb::ArenaLimits& t, const std::string& file, ArenaLimits* out);
Status FromFb(const fb::Provenance& t, const std::string& file, Provenance* out);

flatbuffers::Offset<fb::Hyperparameters> ToFb(flatbuffers::FlatBufferBuilder& fbb, const Hyperparameters& h);
flatbuffers::Offset<fb::GenerationDefaults> ToFb(flatbuffers::FlatBufferBuilder& fbb, const GenerationDefaults& g);
flatbuffers::Offset<fb::ArenaLimits> ToFb(flatbuffers::FlatBufferBuilder& fbb, const ArenaLimits& l);
flatbuffers::Offset<fb::Provenance> ToFb(flatbuffers::FlatBufferBuilder& fbb, const Provenance& p);

}  // namespace tern::format
