// Format 5: the weights in a segment after the FlatBuffer (schema DataSegment), addressed in 64 bits. A file
// converted with the segment translates bit for bit as the same checkpoint converted inline; a segment
// outside the file, unaligned or in an older format version is refused naming it; a file over 2 GiB (made
// sparse here: the segment moved past 2.5 GiB) loads and translates on 64-bit targets and is refused with
// a clear message on 32-bit ones.
#define _FILE_OFFSET_BITS 64  // ftruncate / pwrite past 2 GiB on 32-bit targets too (before any header)
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "convert.h"
#include "format.h"
#include "model/model_impl.h"
#include "tern/tern.h"
#include "tern_generated.h"
#include "test_util.h"

using namespace tern;
using namespace tern::test;
namespace fs = std::filesystem;

namespace {

const std::vector<std::string_view> kTexts = {"A man in a blue shirt is standing on a ladder.", "A girl."};

using Out = HypothesisOutputs;

Out Translate(const std::shared_ptr<const Model>& m) { return TranslateTwoBest(m, kTexts); }

fs::path Convert(const std::string& weights, bool segment, const std::string& tag) {
  const fs::path out = fs::temp_directory_path() / ("tern-segment-" + std::to_string(getpid()) + "-" + tag + ".tern");
  fs::remove(out);
  convert::ConvertOptions o;
  o.checkpoint_dir = ModelsDir() + "/post-swish";
  o.output = out.string();
  o.weights = weights;
  o.weights_segment = segment;
  convert::ConvertReport rep;
  const Status s = convert::ConvertCheckpoint(o, &rep);
  REQUIRE_MESSAGE(s.ok(), s.message());
  return out;
}

std::shared_ptr<const Model> FromImage(const std::vector<uint8_t>& b, Status* error = nullptr) {
  auto m = Model::FromBytes(b.data(), b.size(), "image");
  if (error) *error = m.ok() ? Status::Ok() : m.status();
  return m.ok() ? m.value() : nullptr;
}

}  // namespace

TEST_CASE("weights segment: a format-5 file translates bit for bit as the inline file") {
  for (const std::string weights : {"f32", "int8", "int4"}) {
    CAPTURE(weights);
    const fs::path inline_file = Convert(weights, false, "inline-" + weights);
    const fs::path segment_file = Convert(weights, true, "segment-" + weights);
    auto a = LoadOrFail(inline_file.string());
    auto b = LoadOrFail(segment_file.string());
    CHECK(a->format_version() <= 4);
    CHECK(b->format_version() == 5);
    const std::vector<uint8_t> bytes = ReadBytes(segment_file.string());
    const fb::DataSegment* ds = fb::GetModel(bytes.data())->weights_segment();
    REQUIRE(ds != nullptr);
    CHECK(ds->offset() % 4096 == 0);
    CHECK(ds->offset() + ds->size() == bytes.size());
    CHECK(fb::GetModel(bytes.data())->weights() == nullptr);
    CHECK(Translate(a) == Translate(b));
    fs::remove(inline_file);
    fs::remove(segment_file);
  }
}

// The kernel maps a file's page cache in folios of up to 2 MiB: a scale next to its matrix made every load
// (which checks each scale) fault in most of the file, although the packed-weights cache held the weights.
TEST_CASE("weights layout: what a load reads comes before every quantized matrix") {
  for (const std::string weights : {"int8", "qc4w", "int4"}) {
    for (const bool segment : {false, true}) {
      CAPTURE(weights);
      CAPTURE(segment);
      const fs::path file = Convert(weights, segment, "layout-" + weights);
      auto m = LoadOrFail(file.string());
      uintptr_t small_end = 0, quantized_begin = UINTPTR_MAX;
      size_t quantized = 0;
      for (const TensorView& t : m->impl().tensors()) {
        const auto at = [](const void* p) { return reinterpret_cast<uintptr_t>(p); };
        if (t.dtype == DType::kF32) {
          small_end = std::max(small_end, at(t.data) + t.bytes);
          continue;
        }
        ++quantized;
        quantized_begin = std::min(quantized_begin, at(t.data));
        if (t.scales) small_end = std::max(small_end, at(t.scales + t.rows()));
        if (t.block_scales) small_end = std::max(small_end, at(t.block_scales + t.rows() * (t.cols() / t.block_size)));
      }
      CHECK(quantized > 0);
      CHECK(small_end <= quantized_begin);
      fs::remove(file);
    }
  }
}

TEST_CASE("weights segment: a segment outside the file, unaligned or in an older format is refused") {
  const fs::path file = Convert("int8", true, "hostile");
  const std::vector<uint8_t> good = ReadBytes(file.string());
  fs::remove(file);
  REQUIRE(FromImage(good) != nullptr);
  const uint64_t off = fb::GetModel(good.data())->weights_segment()->offset();
  struct Case {
    const char* name;
    std::function<void(fb::Model*)> edit;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"unaligned", [&](fb::Model* m) { m->mutable_weights_segment()->mutate_offset(off + 64); },
       "weights_segment [" + std::to_string(off + 64) + ", +"},
      {"past the end", [&](fb::Model* m) { m->mutable_weights_segment()->mutate_offset(off + 4096); }, "is not a multiple of 4096 inside the file"},
      {"too long", [&](fb::Model* m) { m->mutable_weights_segment()->mutate_size(good.size()); }, "inside the file's " + std::to_string(good.size()) + " bytes"},
      {"at byte 0", [&](fb::Model* m) { m->mutable_weights_segment()->mutate_offset(0); }, "weights_segment [0, +"},
      {"format 4", [&](fb::Model* m) { m->mutate_format_version(4); }, "weights_segment in a format-4 file"},
      {"a tensor past the segment", [&](fb::Model* m) {
         const_cast<fb::Tensor*>(m->tensors()->Get(0))->mutate_offset(m->weights_segment()->size());
       }, "-byte weight segment"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    std::vector<uint8_t> bad = good;
    c.edit(fb::GetMutableModel(bad.data()));
    Status s;
    CHECK(FromImage(bad, &s) == nullptr);
    CHECK(s.code() == StatusCode::kInvalidModel);
    CHECK_MESSAGE(s.message().find(c.message) != std::string::npos, s.message());
  }
}

TEST_CASE("weights segment: a file over 2 GiB loads and translates where the address space allows") {
  const fs::path small = Convert("int8", true, "small");
  std::vector<uint8_t> bytes = ReadBytes(small.string());
  fs::remove(small);
  const Out reference = Translate(FromImage(bytes));
  fb::Model* m = fb::GetMutableModel(bytes.data());
  const uint64_t off = m->weights_segment()->offset(), n = m->weights_segment()->size();
  const uint64_t far = (uint64_t{5} << 29);  // 2.5 GiB, a multiple of 4096
  REQUIRE(m->mutable_weights_segment()->mutate_offset(far));
  const fs::path big = fs::temp_directory_path() / ("tern-segment-" + std::to_string(getpid()) + "-big.tern");
  {
    const int fd = open(big.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    REQUIRE(fd >= 0);
    bool ok = pwrite(fd, bytes.data(), off, 0) == static_cast<ssize_t>(off);  // the FlatBuffer
    ok = ok && ftruncate(fd, static_cast<off_t>(far)) == 0;                   // a hole to 2.5 GiB
    ok = ok && pwrite(fd, bytes.data() + off, n, static_cast<off_t>(far)) == static_cast<ssize_t>(n);
    close(fd);
    REQUIRE(ok);
  }
  CHECK(fs::file_size(big) == far + n);
  auto loaded = Model::Load(big.string());
  if (sizeof(void*) >= 8) {
    REQUIRE_MESSAGE(loaded.ok(), loaded.status().message());
    CHECK(loaded.value()->format_version() == 5);
    CHECK(Translate(loaded.value()) == reference);
  } else {
    REQUIRE(!loaded.ok());
    CHECK(loaded.status().code() == StatusCode::kResourceExhausted);
    CHECK_MESSAGE(loaded.status().message().find("larger than a 32-bit process can map") != std::string::npos,
                  loaded.status().message());
  }
  fs::remove(big);
}
