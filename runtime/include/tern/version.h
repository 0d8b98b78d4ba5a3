// The version of tern (the library, its C API and the tools), the one place it is written: CMake reads
// it for the project version and the shared library's soname (libtern.so.MAJOR.MINOR while MAJOR is 0:
// every 0.x minor version may change the ABI).
#pragma once

#include "tern/export.h"

#define TERN_VERSION_MAJOR 0
#define TERN_VERSION_MINOR 2
#define TERN_VERSION_PATCH 0
#define TERN_VERSION_STRING "0.2.0"

#ifdef __cplusplus
namespace tern {
/// The version of the library in use (it may differ from TERN_VERSION_STRING of the headers an application
/// was built with), e.g. "0.2.0".
TERN_API const char* Version();
}  // namespace tern
#endif
