#include "read_file.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace tern::convert {
namespace {

template <typename Buffer>
Status Read(const std::string& path, uint64_t max_bytes, Buffer* out) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0)
    return Status(errno == ENOENT ? StatusCode::kNotFound : StatusCode::kIoError, path + ": cannot open (" + std::strerror(errno) + ")");
  if (!S_ISREG(st.st_mode)) return Status(StatusCode::kIoError, path + ": not a regular file");
  if (static_cast<uint64_t>(st.st_size) > max_bytes)
    return Status(StatusCode::kIoError, path + ": " + std::to_string(st.st_size) + " bytes, more than the " +
                                            std::to_string(max_bytes) + " this file may have");
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return Status(StatusCode::kIoError, path + ": cannot open (" + std::strerror(errno) + ")");
  out->resize(static_cast<size_t>(st.st_size));
  const size_t got = out->empty() ? 0 : std::fread(&(*out)[0], 1, out->size(), f);
  const bool error = std::ferror(f) != 0;
  std::fclose(f);
  if (error || got != out->size())
    return Status(StatusCode::kIoError, path + ": read " + std::to_string(got) + " of " + std::to_string(out->size()) + " bytes");
  return Status::Ok();
}

}  // namespace

Status ReadWholeFile(const std::string& path, uint64_t max_bytes, std::string* out) { return Read(path, max_bytes, out); }
Status ReadWholeFile(const std::string& path, uint64_t max_bytes, std::vector<uint8_t>* out) {
  return Read(path, max_bytes, out);
}

bool PathExists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

}  // namespace tern::convert
