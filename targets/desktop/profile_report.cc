#include "profile_report.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <vector>

#include "tern/cpu.h"

namespace tern::cli {

namespace {

// Main-memory copy bandwidth in bytes/s: best of a few 64 MiB memcpy runs.
double MeasureBandwidth() {
  const size_t n = size_t{64} << 20;
  std::vector<char> a(n, 1), b(n, 2);
  double best = 0;
  for (int i = 0; i < 5; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    std::memcpy(b.data(), a.data(), n);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    best = std::max(best, 2.0 * n / s);  // read + write
    a[i] = b[n - 1 - i];
  }
  return best;
}

}  // namespace

void PrintFloor(const Model& m, const Profile& p, std::ostream& err) {
  if (!p.decoder_steps) return;
  const double bw = MeasureBandwidth();
  const double bytes = static_cast<double>(p.weight_bytes_read) / p.decoder_steps;
  const double step_ms = (p.decoder_linear_ms + p.self_attention_ms + p.cross_attention_ms + p.output_projection_ms) / p.decoder_steps;
  char buf[320];
  std::snprintf(buf, sizeof buf,
                "floor: a decoder step reads %.2f MiB of weights; at the measured %.1f GB/s copy bandwidth that is %.3f ms;"
                " measured %.3f ms per decoder step (%.1fx the floor)\n",
                bytes / 1048576.0, bw / 1e9, 1e3 * bytes / bw, step_ms, step_ms / (1e3 * bytes / bw));
  err << buf;
  if (m.shortlist().present) {
    std::snprintf(buf, sizeof buf, "shortlist: mean shortlist size %.0f of %u target tokens (logits columns per decoder step)\n",
                  static_cast<double>(p.output_columns) / p.decoder_steps, m.hparams().target_vocab_size);
    err << buf;
  }
  const uint64_t cache = DescribeCpu().last_level_cache_bytes;
  if (cache >= bytes) {
    std::snprintf(buf, sizeof buf,
                  "floor: these weights fit in the %.1f MiB last-level cache, so a step can beat the DRAM floor; the"
                  " linear-layer kernels, not memory, bound it here\n",
                  cache / 1048576.0);
    err << buf;
  }
}

void PrintProfile(const Profile& p, std::ostream& err) {
  const double total = p.encoder_ms + p.cross_kv_ms + p.decoder_linear_ms + p.self_attention_ms + p.cross_attention_ms +
                       p.output_projection_ms + p.softmax_topk_ms + p.beam_bookkeeping_ms + p.other_ms;
  const double per = p.generated_tokens ? 1.0 / p.generated_tokens : 0.0;
  err << "profile: " << p.generated_tokens << " tokens, " << p.decoder_steps << " decoder steps, " << total << " ms\n";
  auto row = [&](const char* name, double ms) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "  %-22s %9.2f ms  %7.3f ms/token  %5.1f%%\n", name, ms, ms * per, total > 0 ? 100 * ms / total : 0.0);
    err << buf;
  };
  row("encoder", p.encoder_ms);
  row("cross-attention K/V", p.cross_kv_ms);
  row("decoder linear layers", p.decoder_linear_ms);
  row("self-attention", p.self_attention_ms);
  row("cross-attention", p.cross_attention_ms);
  row("output projection", p.output_projection_ms);
  row("softmax/top-k", p.softmax_topk_ms);
  row("beam bookkeeping", p.beam_bookkeeping_ms);
  row("embedding/other", p.other_ms);
}

}  // namespace tern::cli
