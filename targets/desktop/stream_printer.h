// `tern translate --stream`: the token callback that prints text (or ids) as it is generated, and Ctrl-C
// handling (the abort callback and the flag the input loop checks while it waits).
#pragma once

#include <csignal>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "tern/translator.h"

namespace tern::cli {

/// Prints streamed text as it comes. The sentences of one line (when it is split) are printed in order: a
/// later sentence's text waits until the earlier ones are complete, and they are joined by one space (the
/// final result joins them with the whitespace between them in the input). With `ids`, the generated ids
/// instead, space-separated (</s> is not printed, as without --stream).
struct StreamPrinter {
  std::ostream* out = nullptr;
  bool ids = false;
  uint32_t eos = 0;
  std::vector<std::string> pending;
  std::vector<bool> complete;
  size_t current = 0, printed_ids = 0;

  /// Before each translate call.
  void Reset() { pending.clear(), complete.clear(), current = 0, printed_ids = 0; }
  /// TranslateOptions::on_token with `self` the printer; always goes on.
  static bool OnToken(const TokenEvent& e, void* self);
};

/// Set by SIGINT once CatchInterrupt ran: Ctrl-C stops the line being translated and ends the run (exit
/// 130), also while tern waits for input (LineInput checks it while it waits, whichever thread the signal
/// was delivered to: a worker of the thread pool may take it; under qemu-user it often does).
extern volatile std::sig_atomic_t g_interrupted;
/// TranslateOptions::abort: true once Ctrl-C was pressed.
bool Interrupted(void*);
/// Installs the SIGINT handler (no SA_RESTART, so a blocked read returns).
void CatchInterrupt();

}  // namespace tern::cli
