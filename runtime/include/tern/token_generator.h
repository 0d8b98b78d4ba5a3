// tern::TokenGenerator: one sentence's generated tokens as an iterator (CTranslate2's
// Translator.generate_tokens), on the streaming path (TranslateOptions::on_token).
//
//   tern::TokenGenerator g(*translator, "A dog runs.", options);
//   tern::TokenGenerator::Step step;
//   while (g.Next(&step)) std::cout << step.text;   // "Ein", " Hund", " läuft." ...
//   // g.status(): how the call ended; destroying g early stops the translation.
//
// The translation runs on a thread of the generator's own and hands each token over in lockstep: the
// search waits until Next() has taken the previous one (nothing is queued, nothing allocated on the
// translating thread). Greedy search yields each token as it is chosen; beam search a sentence's best
// hypothesis when it finishes, token by token. The Translator must not be used by anyone else while the
// generator runs (such a call returns kBusy).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tern/export.h"
#include "tern/status.h"
#include "tern/translator.h"

namespace tern {

/// One sentence's steps as an iterator (see the top of this file). Errors: status().
class TERN_API TokenGenerator {
 public:
  /// One step (tern::TokenEvent of the one sentence).
  struct Step {
    uint32_t token = 0;  ///< the generated id (eos_id with the last step when the sentence ended with `</s>`)
    float logprob = 0;   ///< its log-probability (Hypothesis::token_logprobs)
    std::string text;    ///< the text it adds (may be empty)
    bool last = false;   ///< no more steps
  };
  /// Starts translating `text` (Translator::Translate with split_sentences off) or source `ids` (TranslateIds).
  /// options.on_token and abort must be unset, n_best 1 (else status() is kInvalidArgument and Next false).
  TokenGenerator(Translator& translator, std::string text, const TranslateOptions& options);
  /// The same for source ids (`</s>` included), as TranslateIds takes them.
  TokenGenerator(Translator& translator, std::vector<uint32_t> ids, const TranslateOptions& options);
  /// Stops the translation if it still runs (as an abort callback) and waits for its thread.
  ~TokenGenerator();
  TokenGenerator(const TokenGenerator&) = delete;
  TokenGenerator& operator=(const TokenGenerator&) = delete;

  /// Waits for the next step; false when there is none (the sentence is complete, failed or stopped).
  bool Next(Step* step);
  /// After Next returned false: kOk, the call's error, or the sentence's (e.g. kResourceExhausted).
  Status status() const;

  struct State;  ///< the thread and the handed-over step (api/token_generator.cc)

 private:
  std::unique_ptr<State> s_;
};

}  // namespace tern
