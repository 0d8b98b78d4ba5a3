#include "tern/call_chunks.h"

#include <algorithm>
#include <string>

namespace tern {
namespace {

#include "api/chunk_fields.inc"

}  // namespace

Status CallChunks::CheckInputCounts(const TranslateOptions& whole, size_t n) { return CheckCounts(whole, n); }

size_t CallChunks::InputsPerChunk(uint32_t max_batch, uint32_t alternatives) {
  return std::max<size_t>(1, max_batch / std::max<uint32_t>(1, alternatives));
}

CallChunks::CallChunks(const TranslateOptions& whole, size_t n, uint32_t max_batch)
    : whole_(whole), n_(n), per_chunk_(InputsPerChunk(max_batch, whole.alternatives)), chunk_(whole) {
  status_ = CheckCounts(whole, n);
  if (whole.sampling_keys.empty()) {  // each input keyed by its index in the call, whichever chunk it runs in
    keys_.resize(n);
    for (size_t i = 0; i < n; ++i) keys_[i] = i;
  }
}

const TranslateOptions& CallChunks::Options(size_t b, size_t e) {
  e = std::min(e, n_), b = std::min(b, e);
  chunk_ = whole_;
  if (!status_.ok()) return chunk_;  // the counts do not fit: nothing sliced (the caller reports status())
  SliceInputFields(whole_, b, e, &spans_, &chunk_);
  if (whole_.sampling_keys.empty()) chunk_.sampling_keys = Span<const uint64_t>(keys_.data() + b, e - b);
  return chunk_;
}

}  // namespace tern
