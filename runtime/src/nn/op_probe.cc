#include "nn/op_probe.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>

namespace tern {

namespace {

// A file the probe may append to: new, empty, or a dump already (its first line a record header "<op>
// <name> <f32|i8|i32f32> <count>"). Anything else may be one of tern's inputs (a model, a text): refused.
// The read position of an "a+" stream is implementation-defined (C11 7.21.5.3): glibc starts at the
// beginning, bionic at the end (which read every file as empty and appended a dump to a text), so rewind.
bool IsDumpOrEmpty(std::FILE* f) {
  std::rewind(f);
  char head[256] = {};
  const size_t n = std::fread(head, 1, sizeof(head) - 1, f);
  if (n == 0) return true;
  const char* nl = static_cast<const char*>(std::memchr(head, '\n', n));
  if (!nl) return false;
  char op[128], name[128], type[16];
  unsigned long long count = 0;
  const std::string line(head, static_cast<size_t>(nl - head));
  if (std::sscanf(line.c_str(), "%127s %127s %15s %llu", op, name, type, &count) != 4) return false;
  return std::strcmp(type, "f32") == 0 || std::strcmp(type, "i8") == 0 || std::strcmp(type, "i32f32") == 0;
}

}  // namespace

std::unique_ptr<OpProbe> OpProbe::FromEnvironment(const std::string& model_path) {
  const char* path = std::getenv("TERN_DUMP_OPS");
  if (!path || !*path) return nullptr;
  struct stat dump {}, model {};
  if (::stat(path, &dump) == 0 && ::stat(model_path.c_str(), &model) == 0 && dump.st_dev == model.st_dev &&
      dump.st_ino == model.st_ino) {
    std::fprintf(stderr, "tern: TERN_DUMP_OPS=%s is the model file; ops are not dumped\n", path);
    return nullptr;
  }
  // Opened without blocking and only as a regular file (a FIFO named here would hold the first call for good).
  const int fd = ::open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC | O_NOCTTY | O_NONBLOCK, 0644);
  struct stat st {};
  std::FILE* f = nullptr;
  if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && fcntl(fd, F_SETFL, O_APPEND) == 0) f = fdopen(fd, "a+b");
  if (!f && fd >= 0) ::close(fd);
  if (!f) {
    std::fprintf(stderr, "tern: TERN_DUMP_OPS=%s: cannot open it; ops are not dumped\n", path);
    return nullptr;
  }
  if (!IsDumpOrEmpty(f)) {
    std::fclose(f);
    std::fprintf(stderr, "tern: TERN_DUMP_OPS=%s holds something other than an op dump (an input?); ops are not dumped\n", path);
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
