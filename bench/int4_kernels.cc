// int4-kernels: tern's own 4-bit GEMM (kernels/int4_gemm.h) at every ISA level this CPU runs, qc4w and qb4w
// (32-column blocks), over the rows a decoder step computes (M = batch x beam) and the OPUS-MT base shape's
// two inner dimensions (d_model 512 with 2,048 outputs, ffn_dim 2,048 with 512). The kernel picks its panel
// or row form by the rows (kernels/int4_panel.h). Prints the CPU and, per (ISA, format, M, K), the best of
// --trials timings: ms per call and G multiply-accumulates per second. The calls rotate over --copies copies
// of the weights, so that each streams its weights from memory as a decoder's layers do (1: they stay cached).
//   int4-kernels [--rows 1,4,16,64] [--trials 7] [--copies 16] [--portable]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "kernels/int4_gemm.h"
#include "kernels/isa.h"
#include "tern/cpu.h"

namespace {

struct Case {
  size_t rows, K, N, block;
  std::vector<int8_t> q;
  std::vector<xnn_quantization_params> qp;
  std::vector<int32_t> chunk_sums;
  std::vector<std::vector<uint8_t>> w;  // copies
  std::vector<float> scales, bias, out;
  std::vector<uint16_t> block_scales;
};

Case Make(size_t rows, size_t K, size_t N, size_t block, size_t copies) {
  std::mt19937 rng(1);
  Case c{rows, K, N, block, {}, {}, {}, {}, {}, {}, {}, {}};
  c.q.resize(rows * K);
  for (auto& v : c.q) v = static_cast<int8_t>(rng());
  c.qp.resize(rows);
  for (auto& p : c.qp) p = {static_cast<int32_t>(rng() % 64) - 32, 0.01f};
  c.chunk_sums.resize(rows * K / 32);
  tern::Int4ChunkSums(c.q.data(), rows, K, c.chunk_sums.data());
  c.w.resize(copies);
  for (auto& copy : c.w) {
    copy.resize(N * K / 2);
    for (auto& v : copy) v = static_cast<uint8_t>(rng());
  }
  c.scales.assign(N, 0.01f), c.bias.assign(N, 0.1f), c.out.resize(rows * N);
  c.block_scales.assign(N * (K / 32), 0x3c00);  // bfloat16 0.0078125
  return c;
}

double Time(const tern::Int4GemmKernel& k, Case& c, int trials) {
  const int reps = static_cast<int>(std::max<size_t>(64 / c.rows + 2, c.w.size()));
  double best = 1e30;
  for (int t = 0; t < trials; ++t) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < reps; ++i)
      k.fn(c.q.data(), c.qp.data(), c.chunk_sums.data(), c.rows, c.K, c.w[i % c.w.size()].data(), c.K / 2, c.block, c.scales.data(),
           c.block ? c.block_scales.data() : nullptr, c.bias.data(), c.N, c.out.data(), c.N);
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / reps);
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"tern's 4-bit GEMM over rows, formats and ISA levels"};
  std::vector<size_t> rows{1, 4, 16, 64};
  int trials = 7;
  bool portable = false;
  size_t copies = 16;
  app.add_option("--rows", rows, "input rows per call")->delimiter(',');
  app.add_option("--trials", trials, "timings per case (the best is printed)")->check(CLI::Range(1, 1000));
  app.add_option("--copies", copies, "copies of the weights the calls rotate over")->check(CLI::Range(1, 1024));
  app.add_flag("--portable", portable, "time the portable kernel too (slow: the reference)");
  CLI11_PARSE(app, argc, argv);
  std::printf("cpu: %s\n", tern::CpuSummary().c_str());
  tern::Isa isas[8];
  const size_t n = tern::AvailableIsas(isas, 8);
  for (size_t i = 0; i < n; ++i) {
    if (isas[i] == tern::Isa::kPortable && !portable) continue;
    const tern::Int4GemmKernel k = tern::Int4GemmFor(isas[i]);
    for (size_t block : {size_t{0}, size_t{32}})
      for (size_t m : rows)
        for (size_t K : {size_t{512}, size_t{2048}}) {
          Case c = Make(m, K, K == 512 ? 2048 : 512, block, copies);
          const double s = Time(k, c, trials);
          std::printf("%-10s %-4s M %3zu K %4zu N %4zu: %8.3f ms %7.1f GMAC/s\n", k.isa, block ? "qb4w" : "qc4w", m, K,
                      c.N, s * 1e3, static_cast<double>(m * c.N * K) / s / 1e9);
        }
  }
  return 0;
}
