#include "text/tokenizer_loader.h"

#include <exception>
#include <system_error>

#include "model/model_impl.h"

namespace tern {

TokenizerLoader::TokenizerLoader(const Model& model, Tokenizer::Side side, bool parallel) : model_(model), side_(side) {
  if (!parallel) return;
  {
    const Model::Impl& m = model.impl();
    std::lock_guard<std::mutex> lock(m.tokenizers_mu);
    if (m.tokenizers[side == Tokenizer::Side::kSource ? 0 : 1]) return;  // made by an earlier Translator
  }
  try {
    thread_ = std::thread([this] {
      try {  // an exception must not end the process from this thread
        result_.emplace(Tokenizer::Shared(model_, side_));
      } catch (const std::exception& e) {
        result_.emplace(Status(StatusCode::kResourceExhausted, model_.name() + ": tokenizer: " + e.what()));
      }
    });
  } catch (const std::system_error&) {
    // No thread (a process at its thread limit): Get makes the tokenizer on the caller's thread.
  }
}

TokenizerLoader::~TokenizerLoader() {
  if (thread_.joinable()) thread_.join();
}

Result<std::shared_ptr<const Tokenizer>> TokenizerLoader::Get() {
  if (thread_.joinable()) thread_.join();
  if (result_) return std::move(*result_);
  return Tokenizer::Shared(model_, side_);
}

}  // namespace tern
