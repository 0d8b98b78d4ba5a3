// Translator::Impl: one translation session. It owns the arena (planned once, bound to SessionBuffers),
// its Network (operators over the Model's shared packed weights, thread pool), the tokenizer, the logits
// processors and the profiler, and acts as the search's StepDecoder.
#pragma once

#include <atomic>
#include <memory>

#include "arena.h"
#include "batch.h"
#include "buffers.h"
#include "network.h"
#include "paragraphs.h"
#include "prepared_model.h"
#include "profiler.h"
#include "search/logits_processors.h"
#include "search/search.h"
#include "search/token_stream.h"
#include "sentence_splitter.h"
#include "thread_policy.h"
#include "tern/translator.h"
#include "tokenizer.h"

namespace tern {

struct Translator::Impl : public StepDecoder {
  std::shared_ptr<const Model> model;
  std::shared_ptr<const PreparedModel> prepared;
  std::unique_ptr<Network> net;
  std::unique_ptr<Tokenizer> tokenizer;
  TranslatorConfig config;
  Dims dims;
  ArenaPlan plan;
  SessionBuffers buf;
  std::unique_ptr<uint8_t[]> owned_arena;
  LogitsProcessors processors;
  Profiler prof;
  ThreadPolicy threads;   // pool or calling thread, step by step (thread_policy.h)
  Paragraphs paragraphs;  // splits texts into sentences (with ICU; without, texts are single sentences)
  std::atomic<bool> busy{false};  // a Translate call is running (translator.cc, BusyGuard)
  TokenStream stream;             // the call's token callback and abort check
  bool streaming = false;         // this call has a token or abort callback
  const TokenStream::Origin* origins = nullptr;  // paragraph calls: text and part of each sentence

  /// The decoder step for the search: logits of `rows` at `pos`.
  Result<float*> Decode(size_t pos, const StepRows& rows, const VocabMap& vocab) override;

  /// Encodes the sentences staged in buf.batch (after PackBatch) and searches them; fills buf.results.
  Status TranslateStaged(size_t n_valid, const ResolvedOptions& o);

  /// Translate() with every text one sentence: tokenize, translate, detokenize into the arena.
  Status TranslateTexts(Span<const std::string_view> texts, const TranslateOptions& options,
                        Span<const TranslationResult>* results);
};

}  // namespace tern
