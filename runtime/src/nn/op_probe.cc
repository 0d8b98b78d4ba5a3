#include "nn/op_probe.h"

#include <cstdlib>

namespace tern {

std::unique_ptr<OpProbe> OpProbe::FromEnvironment() {
  const char* path = std::getenv("TERN_DUMP_OPS");
  if (!path || !*path) return nullptr;
  std::FILE* f = std::fopen(path, "ab");
  if (!f) {
    std::fprintf(stderr, "tern: TERN_DUMP_OPS=%s: cannot open it; ops are not dumped\n", path);
    return nullptr;
  }
  return std::unique_ptr<OpProbe>(new OpProbe(f));
}

OpProbe::~OpProbe() { std::fclose(f_); }

void OpProbe::F32(const char* op, const char* name, const float* data, size_t count) {
  std::fprintf(f_, "%s %s f32 %zu\n", op, name, count);
  std::fwrite(data, sizeof(float), count, f_);
}

void OpProbe::Qd8(const char* op, const char* name, const int8_t* q, size_t count, const xnn_quantization_params* params,
                  size_t rows) {
  std::fprintf(f_, "%s %s i8 %zu\n", op, name, count);
  std::fwrite(q, 1, count, f_);
  std::fprintf(f_, "%s.params %s i32f32 %zu\n", op, name, rows);
  for (size_t r = 0; r < rows; ++r) {
    std::fwrite(&params[r].zero_point, sizeof(int32_t), 1, f_);
    std::fwrite(&params[r].scale, sizeof(float), 1, f_);
  }
}

}  // namespace tern
