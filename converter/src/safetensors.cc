#include "safetensors.h"

#include <cstring>
#include <fstream>
#include <iterator>

#include <nlohmann/json.hpp>

#include "half.h"
#include "json_message.h"
#include "read_file.h"

namespace tern::convert {

uint64_t SafeTensor::numel() const {
  uint64_t n = 1;
  for (uint64_t d : shape) n *= d;
  return n;
}

static size_t ElementSize(const std::string& dtype) {
  if (dtype == "F64" || dtype == "I64" || dtype == "U64") return 8;
  if (dtype == "F32" || dtype == "I32" || dtype == "U32") return 4;
  if (dtype == "F16" || dtype == "BF16" || dtype == "I16" || dtype == "U16") return 2;
  if (dtype == "I8" || dtype == "U8" || dtype == "BOOL") return 1;
  return 0;
}

Status ParseSafeTensors(std::vector<uint8_t> bytes, const std::string& name, SafeTensorsFile* out) {
  auto bad = [&](const std::string& what) { return Status(StatusCode::kInvalidModel, name + ": " + what); };
  if (bytes.size() < 8) return bad("file is " + std::to_string(bytes.size()) + " bytes, shorter than the 8-byte header length");
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | bytes[i];
  if (n > bytes.size() - 8) return bad("header length " + std::to_string(n) + " exceeds the file size " + std::to_string(bytes.size()));
  nlohmann::json header = nlohmann::json::parse(bytes.begin() + 8, bytes.begin() + 8 + static_cast<long>(n), nullptr, false);
  if (header.is_discarded() || !header.is_object()) return bad("header (bytes 8.." + std::to_string(8 + n) + ") is not a JSON object");
  const uint64_t data_begin = 8 + n, data_bytes = bytes.size() - data_begin;
  out->bytes = std::move(bytes);
  out->tensors.clear();
  out->metadata.clear();
  for (auto it = header.begin(); it != header.end(); ++it) {
    const std::string& key = it.key();
    const nlohmann::json& v = it.value();
    if (key == "__metadata__") {
      if (v.is_object())
        for (auto m = v.begin(); m != v.end(); ++m)
          if (m.value().is_string()) out->metadata[m.key()] = m.value().get<std::string>();
      continue;
    }
    if (!v.is_object() || !v.contains("dtype") || !v["dtype"].is_string() || !v.contains("shape") ||
        !v["shape"].is_array() || !v.contains("data_offsets") || !v["data_offsets"].is_array() ||
        v["data_offsets"].size() != 2)
      return bad("tensor '" + key + "': entry needs dtype, shape and data_offsets [begin, end]");
    SafeTensor t;
    t.dtype = v["dtype"].get<std::string>();
    uint64_t numel = 1;
    for (const auto& d : v["shape"]) {
      if (!d.is_number_unsigned()) return bad("tensor '" + key + "': shape entries must be non-negative integers");
      const uint64_t dim = d.get<uint64_t>();
      if (dim != 0 && numel > (uint64_t{1} << 40) / dim) return bad("tensor '" + key + "': shape too large");
      numel *= dim;
      t.shape.push_back(dim);
    }
    const auto& off = v["data_offsets"];
    if (!off[0].is_number_unsigned() || !off[1].is_number_unsigned())
      return bad("tensor '" + key + "': data_offsets must be non-negative integers");
    const uint64_t b = off[0].get<uint64_t>(), e = off[1].get<uint64_t>();
    if (b > e || e > data_bytes)
      return bad("tensor '" + key + "': data_offsets [" + std::to_string(b) + ", " + std::to_string(e) +
                 ") outside the " + std::to_string(data_bytes) + "-byte data section");
    const size_t es = ElementSize(t.dtype);
    if (es == 0)  // checked before anything is sized by the shape
      return bad("tensor '" + key + "': dtype " + QuotedForMessage(t.dtype, 16) +
                 " is not one tern reads (F64, F32, F16, BF16, I64, I32, I16, I8, U64, U32, U16, U8, BOOL)");
    if (e - b != numel * es)
      return bad("tensor '" + key + "': " + std::to_string(e - b) + " bytes, shape and dtype " + t.dtype +
                 " need " + std::to_string(numel * es));
    t.data = out->bytes.data() + data_begin + b;
    t.bytes = e - b;
    out->tensors.emplace(key, std::move(t));
  }
  return Status::Ok();
}

Status ReadSafeTensors(const std::string& path, SafeTensorsFile* out) {
  std::vector<uint8_t> bytes;
  TERN_RETURN_IF_ERROR(ReadWholeFile(path, kMaxWeightsFileBytes, &bytes));
  return ParseSafeTensors(std::move(bytes), path, out);
}

Status ToF32(const SafeTensor& t, const std::string& name, std::vector<float>* out) {
  if (t.dtype != "F32" && t.dtype != "F16" && t.dtype != "BF16")
    return Status(StatusCode::kUnsupported, "tensor '" + name + "': dtype " + t.dtype + " (need F32, F16 or BF16)");
  const uint64_t n = t.numel();
  if (t.bytes != n * (t.dtype == "F32" ? 4 : 2))
    return Status(StatusCode::kInvalidModel, "tensor '" + name + "': " + std::to_string(t.bytes) + " bytes for " +
                                                 std::to_string(n) + " elements");
  out->resize(n);
  if (t.dtype == "F32") {
    std::memcpy(out->data(), t.data, n * 4);
  } else if (t.dtype == "F16") {
    for (uint64_t i = 0; i < n; ++i) {
      uint16_t h;
      std::memcpy(&h, t.data + 2 * i, 2);
      (*out)[i] = format::HalfToFloat(h);
    }
  } else if (t.dtype == "BF16") {
    for (uint64_t i = 0; i < n; ++i) {
      uint16_t h;
      std::memcpy(&h, t.data + 2 * i, 2);
      const uint32_t bits = uint32_t{h} << 16;
      std::memcpy(&(*out)[i], &bits, 4);
    }
  } else {
    return Status(StatusCode::kUnsupported, "tensor '" + name + "': dtype " + t.dtype + " (need F32, F16 or BF16)");
  }
  return Status::Ok();
}

}  // namespace tern::convert
