// The core the suite runs on, and XNNPACK's kernels for it. XNNPACK chooses microkernels per core from
// cpuinfo (e.g. Cortex-A53/A55-tuned GEMMs, dot-product ones on A55/A76): a kernel picked for the wrong core
// shows here as a SIGILL or as wrong numbers. Under qemu the test presets name the core they emulate in
// TERN_EXPECT_CORE, and the first case asserts cpuinfo detected it.
#include <cmath>
#include <cstdlib>
#include <random>
#include <vector>

#include "nn/int4_probe.h"
#include "nn/linear.h"
#include "quantize.h"
#include "tern/cpu.h"
#include "test_util.h"
#include "weight_formats.h"
#include "nn/xnn_ops.h"

using namespace tern;
using namespace tern::test;

TEST_CASE("cpuinfo names the core the suite runs on") {
  const CpuDescription& cpu = DescribeCpu();
  MESSAGE("cpu: " << CpuSummary());
  CHECK(!cpu.core.empty());
  if (const char* want = std::getenv("TERN_EXPECT_CORE")) {
    CHECK_MESSAGE(cpu.core == want, "cpuinfo detected " << cpu.core << ", the run emulates " << want);
  }
}

TEST_CASE("XNNPACK's fully-connected kernels on this core match a float reference") {
  // One layer per weight format: qd8 x qc8w (int8, the format of every default model), f32, and the
  // 4-bit ones; shapes that leave partial tiles in every dimension; 1 to 9 rows (greedy to beam x batch).
  REQUIRE(InitXnnpack().ok());
  const size_t out = 67, in = 224;
  std::mt19937 rng(5);
  std::normal_distribution<float> nd(0.f, 0.5f);
  std::vector<float> w(out * in), bias(out), x(9 * in);
  for (auto& v : w) v = nd(rng);
  for (auto& v : bias) v = nd(rng);
  for (auto& v : x) v = 3.f * nd(rng);
  auto quantizer = RowQuantizer::Create();
  REQUIRE(quantizer.ok());
  for (DType t : {DType::kInt8, DType::kF32, DType::kQc4w, DType::kQb4w}) {
    CAPTURE(std::string(DTypeName(t)));
    const format::WeightFormat& f = format::FormatOf(t);
    const uint32_t block = t == DType::kQb4w ? 32 : 0;
    std::vector<uint8_t> data(f.DataBytes(out, in)), scales(f.ScaleBytes(out, in, block) + 4);
    convert::EncodeWeights(t, w.data(), out, in, block, data.data(), scales.data());
    TensorView wv;
    wv.name = "w";
    wv.dtype = t;
    wv.rank = 2;
    wv.shape[0] = out;
    wv.shape[1] = in;
    wv.data = data.data();
    wv.bytes = data.size();
    if (t == DType::kQb4w) wv.block_scales = reinterpret_cast<const uint16_t*>(scales.data()), wv.block_size = block;
    else if (f.scales != format::ScaleLayout::kNone) wv.scales = reinterpret_cast<const float*>(scales.data());
    TensorView bv;
    bv.name = "b";
    bv.rank = 1;
    bv.shape[0] = out;
    bv.data = bias.data();
    bv.bytes = out * 4;
    const TensorView* wp = &wv;
    const TensorView* bp = &bv;
    auto packed = PackLinear(&wp, &bp, 1, LinearBackends::kBoth);
    REQUIRE_MESSAGE(packed.ok(), packed.status().message());
    auto linear = Linear::Bind(packed.value());
    REQUIRE(linear.ok());
    // The reference: the stored weights dequantized, times the input as the kernel sees it (qd8-dequantized
    // for the quantized formats), in double.
    std::vector<float> wd(out * in), zero(in, 0.f);
    for (size_t r = 0; r < out; ++r) f.dequantize_row(wv, r, 1.f, zero.data(), wd.data() + r * in);
    for (size_t rows : {1u, 2u, 4u, 9u}) {
      CAPTURE(rows);
      std::vector<int8_t> q(QuantInputBytes(rows, in));
      std::vector<xnn_quantization_params> qp(rows + 16);
      std::vector<int32_t> sums(QuantChunkSumsCount(rows, in));
      const QuantScratch scratch{q.data(), qp.data(), sums.data()};
      if (linear.value().quantized()) REQUIRE(quantizer.value().Run(x.data(), rows, in, scratch, nullptr).ok());
      // XNNPACK's kernel for the core, then Run: what translates (tern's own 4-bit GEMM where the int4 probe
      // found XNNPACK's wrong, nn/int4_probe.h). XNNPACK's may be wrong only where the probe says so.
      for (bool xnnpack : {true, false}) {
        CAPTURE(xnnpack);
        std::vector<float> y(rows * out);
        REQUIRE((xnnpack ? linear.value().RunXnnpack(x.data(), scratch, rows, y.data(), nullptr)
                         : linear.value().Run(x.data(), scratch, rows, y.data(), nullptr)).ok());
        float worst = 0.f;
        for (size_t r = 0; r < rows; ++r)
          for (size_t o = 0; o < out; ++o) {
            double want = bias[o];
            for (size_t i = 0; i < in; ++i) {
              const double xi = linear.value().quantized() ? (double(q[r * in + i]) - qp[r].zero_point) * qp[r].scale
                                                           : double(x[r * in + i]);
              want += double(wd[o * in + i]) * xi;
            }
            worst = std::max(worst, static_cast<float>(std::fabs(y[r * out + o] - want) / std::max(1.0, std::fabs(want))));
          }
        if (xnnpack && worst > 1e-4f) {
          MESSAGE("XNNPACK's " << DTypeName(t) << " kernel on this CPU is off by " << worst << " (relative) at " << rows << " rows");
          CHECK(XnnpackInt4Wrong(t));
        } else {
          CHECK(worst <= 1e-4f);
        }
      }
    }
  }
}
