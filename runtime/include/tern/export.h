// Symbol visibility of the tern library. The shared library is built with hidden visibility; only what is
// marked TERN_API is exported (the public C++ classes and functions of tern/*.h and the C API of tern.h).
#pragma once

#if defined(_WIN32)
#define TERN_API
#elif defined(__GNUC__) || defined(__clang__)
#define TERN_API __attribute__((visibility("default")))
#else
#define TERN_API
#endif
