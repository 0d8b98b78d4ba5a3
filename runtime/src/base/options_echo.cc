#include "base/options_echo.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

namespace tern {
namespace {

std::string Float(float v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", static_cast<double>(v));
  return buf;
}

}  // namespace

#include "base/options_echo.inc"

void AppendToEchoFile(const char* variable, const std::string& text) {
  const char* path = std::getenv(variable);
  if (!path || !*path) return;
  const int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | O_NOFOLLOW, 0644);
  if (fd < 0) return;
  struct stat st;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
    const ssize_t n = write(fd, text.data(), text.size());  // O_APPEND: one write, one line or block
    (void)n;
  }
  close(fd);
}

void EchoCall(const char* entry, const TranslateOptions& o) {
  const char* path = std::getenv("TERN_ECHO_OPTIONS");
  if (!path || !*path) return;
  AppendToEchoFile("TERN_ECHO_OPTIONS", std::string(entry) + " " + EchoOptions(o) + "\n");
}

}  // namespace tern
