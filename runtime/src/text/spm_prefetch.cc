#include "text/spm_prefetch.h"

#include <exception>
#include <new>
#include <system_error>

namespace tern {

SpmPrefetch::SpmPrefetch(const format::SourceSpm& spm, std::string where) : spm_(spm), where_(std::move(where)) {
  try {
    thread_ = std::thread([this] {
      try {  // an exception (no memory) must not end the process from this thread
        result_.emplace(PieceEncoder::Load(spm_.proto, where_, &spm_.piece_trie));
      } catch (const std::exception& e) {
        result_.emplace(Status(StatusCode::kResourceExhausted, where_ + e.what()));
      }
    });
  } catch (const std::system_error&) {
    // No thread (a process at its thread limit): Take returns nothing and the tokenizer parses it itself.
  }
}

SpmPrefetch::~SpmPrefetch() {
  if (thread_.joinable()) thread_.join();
}

std::optional<Result<std::unique_ptr<PieceEncoder>>> SpmPrefetch::Take() {
  std::lock_guard<std::mutex> lock(mu_);
  if (taken_ || !thread_.joinable()) return std::nullopt;
  taken_ = true;
  thread_.join();
  return std::move(result_);
}

}  // namespace tern
