// Reader for the safetensors format (huggingface/safetensors): u64 little-endian header length N, N bytes
// of JSON {name: {"dtype", "shape", "data_offsets": [begin, end]}, "__metadata__": {...}}, then data.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "tern/status.h"

namespace tern::convert {

struct SafeTensor {
  std::string dtype;            // "F32", "F16", "BF16", ...
  std::vector<uint64_t> shape;
  const uint8_t* data = nullptr;  // inside SafeTensorsFile::bytes
  uint64_t bytes = 0;
  uint64_t numel() const;
};

struct SafeTensorsFile {
  std::vector<uint8_t> bytes;                    // whole file
  std::map<std::string, SafeTensor> tensors;
  std::map<std::string, std::string> metadata;   // "__metadata__" (string values only)
};

/// Parses `bytes` (the whole file; `name` for messages). Errors (kInvalidModel): header length beyond
/// the file, header not JSON, an entry without dtype/shape/data_offsets, offsets outside the data or
/// disagreeing with shape x element size. Unknown dtypes are accepted here and rejected by ToF32.
Status ParseSafeTensors(std::vector<uint8_t> bytes, const std::string& name, SafeTensorsFile* out);

/// Reads and parses a file. Adds kIoError for an unreadable file.
Status ReadSafeTensors(const std::string& path, SafeTensorsFile* out);

/// Widens F32, F16 or BF16 data to f32 (`name` for messages). Error: kUnsupported for other dtypes.
Status ToF32(const SafeTensor& t, const std::string& name, std::vector<float>* out);

}  // namespace tern::convert
