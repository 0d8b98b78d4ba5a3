// int4-kernels: tern's own 4-bit GEMM (kernels/int4_gemm.h) at every ISA level this CPU runs, qc4w and qb4w
// (32-column blocks), over the rows a decoder step computes (M = batch x beam) and the OPUS-MT base shape's
// two inner dimensions (d_model 512 with 2,048 outputs, ffn_dim 2,048 with 512). The kernel picks its panel
// or row form by the rows (kernels/int4_panel.h). Prints the CPU and, per (ISA, format, M, K), the best of
// --trials timings: ms per call and G multiply-accumulates per second, and for the 4-bit formats their speed
// as a share of tern's own int8 GEMM (kernels/int8_gemm.h: Int8GemmFor the same level) on the same shape,
// timed just before them. The calls rotate over --copies copies of the weights, so that each streams its
// weights from memory as a decoder's layers do (1: they stay cached).
//   int4-kernels [--rows 1,4,16,64] [--trials 7] [--copies 16] [--portable]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "kernels/int4_gemm.h"
#include "kernels/int8_gemm.h"
#include "kernels/isa.h"
#include "tern/cpu.h"

namespace {

struct Case {
  size_t rows, K, N, block;
  std::vector<int8_t> q;
  std::vector<xnn_quantization_params> qp;
  std::vector<int32_t> chunk_sums;
  std::vector<std::vector<uint8_t>> w;  // copies
  std::vector<std::vector<int8_t>> w8;  // int8 copies of the same shape (block 0 only)
  std::vector<int32_t> row_sums;        // of w8 (the same in every copy)
  std::vector<float> scales, bias, out;
  std::vector<uint16_t> block_scales;
};

Case Make(size_t rows, size_t K, size_t N, size_t block, size_t copies) {
  std::mt19937 rng(1);
  Case c{rows, K, N, block, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}};
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
  if (block == 0) {
    std::uniform_int_distribution<int> w8(-127, 127);
    c.w8.resize(copies);
    for (auto& copy : c.w8) {
      copy.resize(N * K);
      for (auto& v : copy) v = static_cast<int8_t>(w8(rng));
    }
    c.row_sums.resize(N);
    tern::Int8RowSums(c.w8[0].data(), N, K, K, c.row_sums.data());
  }
  c.scales.assign(N, 0.01f), c.bias.assign(N, 0.1f), c.out.resize(rows * N);
  c.block_scales.assign(N * (K / 32), 0x3c00);  // bfloat16 0.0078125
  return c;
}

// The best of `trials` timings of call(copy) over the rotation, in seconds per call.
template <typename Call>
double Time(const Case& c, int trials, Call call) {
  const int reps = static_cast<int>(std::max<size_t>(64 / c.rows + 2, c.w.size()));
  double best = 1e30;
  for (int t = 0; t < trials; ++t) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < reps; ++i) call(static_cast<size_t>(i) % c.w.size());
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
    const tern::Int8GemmKernel k8 = tern::Int8GemmFor(isas[i]);
    for (size_t m : rows)
      for (size_t K : {size_t{512}, size_t{2048}}) {
        const size_t N = K == 512 ? 2048 : 512;
        const double macs = static_cast<double>(m * N * K);
        double s8 = 0;
        for (size_t block : {size_t{0}, size_t{32}}) {  // qc4w (after int8 on the same case), then qb4w
          Case c = Make(m, K, N, block, copies);
          if (block == 0) {
            s8 = Time(c, trials, [&](size_t j) {
              k8.fn(c.q.data(), c.qp.data(), m, K, c.w8[j].data(), K, c.scales.data(), c.row_sums.data(), c.bias.data(), N,
                    c.out.data(), N);
            });
            std::printf("%-10s int8 M %3zu K %4zu N %4zu: %8.3f ms %7.1f GMAC/s  (tern's int8 GEMM: %s)\n", k.isa, m, K, N,
                        s8 * 1e3, macs / s8 / 1e9, k8.isa);
          }
          const double s = Time(c, trials, [&](size_t j) {
            k.fn(c.q.data(), c.qp.data(), c.chunk_sums.data(), m, K, c.w[j].data(), K / 2, block, c.scales.data(),
                 block ? c.block_scales.data() : nullptr, c.bias.data(), N, c.out.data(), N);
          });
          std::printf("%-10s %-4s M %3zu K %4zu N %4zu: %8.3f ms %7.1f GMAC/s  %.2fx int8\n", k.isa, block ? "qb4w" : "qc4w",
                      m, K, N, s * 1e3, macs / s / 1e9, s8 / s);
        }
      }
  }
  return 0;
}
