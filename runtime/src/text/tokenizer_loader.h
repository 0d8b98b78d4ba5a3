// TokenizerLoader: the model's shared tokenizer (Tokenizer::Shared) made on a thread of its own while the
// loading thread does the rest of a Translator's load (packing or mapping the weights, the network).
// SentencePiece parsing its proto is the longest part of a warm load once the weights come from the packed
// cache (5-6.5 ms at the OPUS-MT base shape's 54,688 pieces, docs/cold-start.md). Where Model::Load began
// that parse on a thread of its own (text/spm_prefetch.h), the Translator starts no thread here: its loading
// thread builds the piece index at the end and takes the parse (a third thread on two processors waited
// for one). The threads read disjoint, immutable parts of the model, and each result is built behind its
// own mutex in Model::Impl.
#pragma once

#include <memory>
#include <optional>
#include <thread>

#include "tern/model.h"
#include "tern/status.h"
#include "text/tokenizer.h"

namespace tern {

class TokenizerLoader {
 public:
  /// Starts making `model`'s tokenizer of `side` on a new thread when `parallel` (the caller's choice: one
  /// processor gains nothing from it), unless the model already has it or a thread cannot be started; Get
  /// then makes it on the calling thread. `model` must outlive this object.
  TokenizerLoader(const Model& model, Tokenizer::Side side, bool parallel);
  /// Waits for the thread (an early return of the caller never leaves it running).
  ~TokenizerLoader();
  TokenizerLoader(const TokenizerLoader&) = delete;
  TokenizerLoader& operator=(const TokenizerLoader&) = delete;

  /// The tokenizer, or Tokenizer::Shared's error (kInvalidModel naming the proto; kResourceExhausted).
  /// Waits for the thread first. Call once.
  Result<std::shared_ptr<const Tokenizer>> Get();

 private:
  const Model& model_;
  Tokenizer::Side side_;
  std::thread thread_;
  std::optional<Result<std::shared_ptr<const Tokenizer>>> result_;  // written by thread_ only
};

}  // namespace tern
