#include "stream_printer.h"

#include <cstring>

namespace tern::cli {

bool StreamPrinter::OnToken(const TokenEvent& e, void* self) {
  auto& p = *static_cast<StreamPrinter*>(self);
  if (p.ids) {  // --ids: one input per line, never split
    if (e.token != p.eos || !e.last) *p.out << (p.printed_ids++ ? " " : "") << e.token << std::flush;
    return true;
  }
  if (p.pending.size() < e.parts) p.pending.resize(e.parts), p.complete.resize(e.parts, false);
  if (e.part == p.current) {
    *p.out << e.text << std::flush;
  } else {
    p.pending[e.part].append(e.text);
  }
  if (e.last) p.complete[e.part] = true;
  while (p.current < p.complete.size() && p.complete[p.current]) {  // the next sentence's turn
    if (++p.current < p.pending.size()) *p.out << " " << p.pending[p.current] << std::flush, p.pending[p.current].clear();
  }
  return true;
}

volatile std::sig_atomic_t g_interrupted = 0;

namespace {
extern "C" void OnInterrupt(int) { g_interrupted = 1; }
}  // namespace

bool Interrupted(void*) { return g_interrupted != 0; }

void CatchInterrupt() {
  struct sigaction sa;
  std::memset(&sa, 0, sizeof sa);
  sa.sa_handler = OnInterrupt;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;  // no SA_RESTART
  sigaction(SIGINT, &sa, nullptr);
}

}  // namespace tern::cli
