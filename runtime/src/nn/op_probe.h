// Per-op dumps for finding where two CPUs' values part (docs/design.md "Identical int8 output on every CPU"). With
// TERN_DUMP_OPS=FILE in the environment when a Translator is created, every op of the network appends its
// output to FILE, in execution order: each linear layer's row-quantized input (qd8 values and the per-row
// zero point and scale) and its f32 output, each LayerNorm, activation, residual sum, and the logits.
// scripts/op_diff.py compares two dumps (say x86-64 and qemu as Cortex-A76) and names the first op and
// element that differ, by how much. A debugging aid: off (one null test per op) unless the variable is set;
// writing allocates (stdio), so a dumping Translator is not heap-free.
//
// Record format: a text line "<op> <name> <type> <count>\n" (type f32 or i8; op names below), then count
// elements little-endian; a qd8 record is followed by a "<op>.params <name> i32f32 <rows>" record of
// (zero point, scale) pairs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

#include <xnnpack.h>

namespace tern {

class OpProbe {
 public:
  /// A probe writing to $TERN_DUMP_OPS (appending), or nullptr when the variable is unset, the file cannot
  /// be opened, is the model (`model_path`), or holds anything but an op dump (a message on stderr then):
  /// nothing tern writes may be one of its inputs.
  static std::unique_ptr<OpProbe> FromEnvironment(const std::string& model_path);
  ~OpProbe();

  void F32(const char* op, const char* name, const float* data, size_t count);
  void Qd8(const char* op, const char* name, const int8_t* q, size_t count, const xnn_quantization_params* params, size_t rows);

 private:
  explicit OpProbe(std::FILE* f) : f_(f) {}
  std::FILE* f_;
};

}  // namespace tern
