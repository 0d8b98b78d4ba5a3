// projection-bench: the output layer (int8 qc8w weights [V, d_model], qd8 input) computed four ways, to
// choose how a shortlist's logits are made (issue 13):
//   xnnpack-full     XNNPACK's fully_connected_nc_qd8_f32_qc8w over every token (weights packed once)
//   xnnpack-compact  the same, then the shortlist's columns kept (the fallback for non-int8 projections)
//   xnnpack-repack   the shortlist's rows copied and packed into a new XNNPACK operator on every call
//                    (what a per-batch shortlist costs with XNNPACK: it needs weights packed ahead)
//   gathered-<isa>   tern's gathered kernel over the shortlist's rows (every ISA this CPU runs)
//   own-gemm-<isa>   tern's int8 GEMM over every row (kernels/int8_gemm.h; CPUs without int8 dot products)
// Shortlists are K tokens drawn at random (ascending), the same for every call, like the steps of one
// batch. The weights are rotated among --copies copies so that each call streams its rows from memory
// unless the shortlist's rows stay cached (as in real decoding, where the other layers' weights stream
// between two steps). Prints the CPU and one line per (method, rows, K): ms per call, weight bytes read per
// call (MiB) and the GB/s that implies.
//   projection-bench [--vocab 54688] [--d-model 512] [--rows 1,4,16] [--k 0,1000,2000,4000] [--copies 4]
//                    [--calls 200] [--threads 1]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "kernels/gathered_kernels.h"
#include "kernels/int8_gemm.h"
#include "nn/gathered_projection.h"
#include "nn/linear.h"
#include "tern/cpu.h"
#include "nn/xnn_ops.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Weights {
  std::vector<int8_t> w;
  std::vector<float> scales;
  tern::TensorView view;
};

Weights MakeWeights(size_t V, size_t d, uint32_t seed) {
  Weights m;
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> q(-127, 127);
  std::uniform_real_distribution<float> s(0.001f, 0.01f);
  m.w.resize(V * d + 64);
  for (auto& v : m.w) v = static_cast<int8_t>(q(rng));
  m.scales.resize(V);
  for (auto& v : m.scales) v = s(rng);
  m.view.name = "output_projection";
  m.view.dtype = tern::DType::kInt8;
  m.view.rank = 2;
  m.view.shape[0] = static_cast<uint32_t>(V);
  m.view.shape[1] = static_cast<uint32_t>(d);
  m.view.data = m.w.data();
  m.view.bytes = V * d;
  m.view.scales = m.scales.data();
  return m;
}

std::vector<size_t> ParseList(const std::string& s) {
  std::vector<size_t> out;
  size_t at = 0;
  while (at <= s.size()) {
    const size_t comma = std::min(s.find(',', at), s.size());
    if (comma > at) out.push_back(std::stoul(s.substr(at, comma - at)));
    at = comma + 1;
  }
  return out;
}

int Fail(const tern::Status& s) {
  std::fprintf(stderr, "projection-bench: %s\n", s.message().c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"projection-bench"};
  size_t V = 54688, d = 512, copies = 4, calls = 200, threads = 1;
  std::string rows_list = "1,4,16", k_list = "0,1000,2000,4000";
  app.add_option("--vocab", V)->check(CLI::Range(size_t{1}, size_t{1} << 20));
  app.add_option("--d-model", d)->check(CLI::Range(size_t{16}, size_t{8192}));
  app.add_option("--rows", rows_list, "input rows per call (batch x beam)");
  app.add_option("--k", k_list, "shortlist sizes (0 = the whole vocabulary)");
  app.add_option("--copies", copies, "weight copies rotated between calls")->check(CLI::Range(size_t{1}, size_t{64}));
  app.add_option("--calls", calls)->check(CLI::Range(size_t{1}, size_t{100000}));
  app.add_option("--threads", threads)->check(CLI::Range(size_t{1}, size_t{256}));
  CLI11_PARSE(app, argc, argv);

  std::printf("cpu: %s\n", tern::CpuSummary().c_str());
  if (auto s = tern::InitXnnpack(); !s.ok()) return Fail(s);
  tern::ThreadPool pool = tern::MakeThreadPool(threads);
  const std::vector<size_t> row_counts = ParseList(rows_list), ks = ParseList(k_list);
  const size_t max_rows = *std::max_element(row_counts.begin(), row_counts.end());

  std::vector<Weights> w;
  std::vector<tern::PackedLinear> packed;
  std::vector<tern::Linear> linears;
  std::vector<tern::GatheredProjection> gathered;
  for (size_t c = 0; c < copies; ++c) {
    w.push_back(MakeWeights(V, d, 1234 + static_cast<uint32_t>(c)));
  }
  for (size_t c = 0; c < copies; ++c) {
    const tern::TensorView* wv = &w[c].view;
    const tern::TensorView* bias = nullptr;
    auto p = tern::PackLinear(&wv, &bias, 1, tern::LinearBackends::kBoth);
    if (!p.ok()) return Fail(p.status());
    packed.push_back(std::move(p.value()));
    auto g = tern::GatheredProjection::Prepare(w[c].view, nullptr);
    if (!g.ok()) return Fail(g.status());
    gathered.push_back(std::move(g.value()));
  }
  for (size_t c = 0; c < copies; ++c) {
    auto l = tern::Linear::Bind(packed[c]);
    if (!l.ok()) return Fail(l.status());
    linears.push_back(std::move(l.value()));
  }
  auto quantizer = tern::RowQuantizer::Create();
  if (!quantizer.ok()) return Fail(quantizer.status());

  std::vector<float> x(max_rows * d), logits(max_rows * V);
  std::mt19937 rng(7);
  std::normal_distribution<float> n01;
  for (auto& v : x) v = n01(rng);
  std::vector<int8_t> qbuf(tern::QuantInputBytes(max_rows, d));
  std::vector<uint8_t> pbuf(tern::QuantParamsCount(max_rows) * sizeof(xnn_quantization_params) + 64);
  tern::QuantScratch q{qbuf.data(), reinterpret_cast<xnn_quantization_params*>(
                                        (reinterpret_cast<uintptr_t>(pbuf.data()) + 63) & ~uintptr_t{63})};

  tern::Isa levels[8];
  tern::GatheredInt8Kernel kernels[8];
  const size_t n_kernels = tern::AvailableIsas(levels, 8);
  for (size_t i = 0; i < n_kernels; ++i) kernels[i] = tern::GatheredInt8For(levels[i]);

  std::printf("%-18s %5s %6s %10s %10s %8s\n", "method", "rows", "K", "ms/call", "MiB/call", "GB/s");
  auto report = [&](const char* method, size_t rows, size_t K, double ms, double bytes) {
    std::printf("%-18s %5zu %6zu %10.4f %10.3f %8.2f\n", method, rows, K, ms, bytes / 1048576.0, bytes / (ms * 1e6));
    std::fflush(stdout);
  };

  for (size_t K0 : ks) {
    const size_t K = K0 == 0 || K0 > V ? V : K0;
    std::vector<uint32_t> tokens(V);
    for (size_t t = 0; t < V; ++t) tokens[t] = static_cast<uint32_t>(t);
    if (K < V) {
      std::shuffle(tokens.begin(), tokens.end(), rng);
      tokens.resize(K);
      std::sort(tokens.begin(), tokens.end());
    }
    for (size_t rows : row_counts) {
      if (auto s = quantizer.value().Run(x.data(), rows, d, q, pool.get()); !s.ok()) return Fail(s);
      // Each method: one warm-up call per copy, then `calls` timed calls rotating through the copies.
      auto time = [&](auto&& call) -> double {
        for (size_t c = 0; c < copies; ++c) call(c);
        const auto t0 = Clock::now();
        for (size_t i = 0; i < calls; ++i) call(i % copies);
        return std::chrono::duration<double, std::milli>(Clock::now() - t0).count() / calls;
      };
      tern::Status err = tern::Status::Ok();
      const double full_bytes = static_cast<double>(V) * (d + 4);
      const double ms_full = time([&](size_t c) {
        auto s = linears[c].RunXnnpack(x.data(), q, rows, logits.data(), pool.get());
        if (!s.ok()) err = s;
      });
      if (!err.ok()) return Fail(err);
      report("xnnpack-full", rows, K, ms_full, full_bytes);
      if (K == V && packed[0].own.available()) {  // tern's own int8 GEMM over every row (nn/own_int8.h)
        const double ms_own = time([&](size_t c) {
          auto s = linears[c].Run(x.data(), q, rows, logits.data(), pool.get());
          if (!s.ok()) err = s;
        });
        report((std::string("own-gemm-") + tern::Int8GemmFor(tern::ActiveIsa()).isa).c_str(), rows, K, ms_own, full_bytes);
      }
      if (K < V) {
        const double ms_compact = time([&](size_t c) {
          auto s = linears[c].RunXnnpack(x.data(), q, rows, logits.data(), pool.get());
          if (!s.ok()) err = s;
          tern::CompactColumns(logits.data(), rows, V, tokens.data(), K);
        });
        if (!err.ok()) return Fail(err);
        report("xnnpack-compact", rows, K, ms_compact, full_bytes);
        // Repacking per call: gather the rows, pack them into a fresh operator, run it.
        std::vector<int8_t> rows_k(K * d + 64);
        std::vector<float> scales_k(K);
        const double ms_repack = time([&](size_t c) {
          for (size_t k = 0; k < K; ++k) {
            std::copy_n(w[c].w.data() + size_t{tokens[k]} * d, d, rows_k.data() + k * d);
            scales_k[k] = w[c].scales[tokens[k]];
          }
          tern::TensorView v = w[c].view;
          v.shape[0] = static_cast<uint32_t>(K);
          v.data = rows_k.data();
          v.bytes = K * d;
          v.scales = scales_k.data();
          const tern::TensorView* wv = &v;
          const tern::TensorView* bias = nullptr;
          auto p = tern::PackLinear(&wv, &bias, 1, tern::LinearBackends::kBoth);
          if (!p.ok()) {
            err = p.status();
            return;
          }
          auto l = tern::Linear::Bind(p.value());
          if (!l.ok()) {
            err = l.status();
            return;
          }
          auto s = l.value().RunXnnpack(x.data(), q, rows, logits.data(), pool.get());
          if (!s.ok()) err = s;
        });
        if (!err.ok()) return Fail(err);
        report("xnnpack-repack", rows, K, ms_repack, static_cast<double>(K) * (d + 4));
      }
      for (size_t i = 0; i < n_kernels; ++i) {
        const double ms = time([&](size_t c) {
          gathered[c].Run(kernels[i], q, rows, tokens.data(), K, logits.data(), pool.get());
        });
        const std::string name = std::string("gathered-") + kernels[i].isa;
        report(name.c_str(), rows, K, ms, static_cast<double>(gathered[0].BytesRead(K)));
      }
    }
  }
  return 0;
}
