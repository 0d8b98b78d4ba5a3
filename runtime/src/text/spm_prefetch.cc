#include "text/spm_prefetch.h"

#include <exception>
#include <system_error>

#include <sentencepiece_processor.h>

namespace tern {

Result<std::unique_ptr<sentencepiece::SentencePieceProcessor>> ParseSentencePiece(std::string_view proto,
                                                                                 const std::string& where) {
  auto spm = std::make_unique<sentencepiece::SentencePieceProcessor>();
  sentencepiece::util::Status st;
  // The verifier (format::CheckSentencePieceModel) already refused what is known to make SentencePiece or
  // its darts-clone tries throw; an exception that still comes out of that C++ library is this model's
  // error, never the process's end. {data, size}: SentencePiece 0.1.97 upstream takes its own
  // absl::string_view shim, Debian's std::string_view.
  try {
    st = spm->LoadFromSerializedProto({proto.data(), proto.size()});
  } catch (const std::exception& e) {
    return Status(StatusCode::kInvalidModel, where + "SentencePiece failed to load it: " + e.what());
  }
  if (!st.ok()) return Status(StatusCode::kInvalidModel, where + st.ToString());
  return spm;
}

SpmPrefetch::SpmPrefetch(std::string_view proto, std::string where) : proto_(proto), where_(std::move(where)) {
  try {
    thread_ = std::thread([this] {
      try {  // an exception (no memory) must not end the process from this thread
        result_.emplace(ParseSentencePiece(proto_, where_));
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

std::optional<Result<std::unique_ptr<sentencepiece::SentencePieceProcessor>>> SpmPrefetch::Take() {
  std::lock_guard<std::mutex> lock(mu_);
  if (taken_ || !thread_.joinable()) return std::nullopt;
  taken_ = true;
  thread_.join();
  return std::move(result_);
}

}  // namespace tern
