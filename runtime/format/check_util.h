// Helpers shared by the semantic checks (semantic_checks.cc, tensor_read.cc): error text, shapes, strings.
#pragma once

#include <sstream>
#include <string>
#include <string_view>

#include "format.h"
#include "views.h"

namespace tern::format {

inline Status Invalid(const std::string& file, const std::string& what) {
  return Status(StatusCode::kInvalidModel, file + ": semantic check: " + what);
}

inline std::string ShapeString(const uint32_t* s, size_t n) {
  std::ostringstream o;
  o << '[';
  for (size_t i = 0; i < n; ++i) o << (i ? ", " : "") << s[i];
  o << ']';
  return o.str();
}

inline std::string_view View(const flatbuffers::String* s) {
  return s ? std::string_view(s->c_str(), s->size()) : std::string_view();
}

/// One tensor table entry -> a view into the weight segment [seg, seg + seg_bytes): dtype, rank, alignment,
/// length and bounds (64-bit), block size and scales checked. Error: kInvalidModel naming the tensor.
Status ReadTensor(const fb::Tensor& t, const uint8_t* seg, uint64_t seg_bytes, const std::string& file, TensorView* out);

}  // namespace tern::format
