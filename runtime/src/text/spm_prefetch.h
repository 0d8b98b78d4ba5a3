// SpmPrefetch: the source side's PieceEncoder (text/piece_encoder.h) made on a thread of its own while the
// model loads. Model::Load (api/model_load.cc) starts one as soon as the proto has passed its check
// (format::ReadModel's on_source_spm), when a second processor and a packed-weights cache make a warm load
// short: SentencePiece building its trie was the longest part of one (5-6 of about 14 ms at OPUS-MT's 54,688
// pieces on a Xeon, docs/cold-start.md); tern's own encoder builds its trie in less, and either overlaps
// the rest of the model's checks, the weights' mapping and the network. The first Tokenizer::Create of the
// model's source side takes the result (text/tokenizer.cc).
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

#include "model_reader.h"
#include "tern/status.h"

#include "text/piece_encoder.h"

namespace tern {

class SpmPrefetch {
 public:
  /// Starts PieceEncoder::Load(spm.proto, where, &spm.piece_trie) on a new thread (none when one cannot be
  /// started: Take then returns nothing). What `spm` views must outlive this object (the model's image does).
  SpmPrefetch(const format::SourceSpm& spm, std::string where);
  /// Waits for the thread.
  ~SpmPrefetch();
  SpmPrefetch(const SpmPrefetch&) = delete;
  SpmPrefetch& operator=(const SpmPrefetch&) = delete;

  /// The parse's result, waiting for the thread, to the first caller (thread-safe); nothing to later
  /// callers and when no thread ran (they parse themselves).
  std::optional<Result<std::unique_ptr<PieceEncoder>>> Take();

 private:
  format::SourceSpm spm_;
  std::string where_;
  std::mutex mu_;
  bool taken_ = false;
  std::thread thread_;
  std::optional<Result<std::unique_ptr<PieceEncoder>>> result_;  // written by thread_
};

}  // namespace tern
