# Android arm64-v8a, API level 26 (Android 8.0), through the NDK's own toolchain file.
#   cmake --preset android-arm64 -DCMAKE_PREFIX_PATH=/path/to/android-arm64-deps   (ANDROID_NDK set)
# The NDK cannot be installed on the development machines of this project, so this file is not
# exercised in CI; see targets/android/README.md for what the user supplies.
if(NOT DEFINED ANDROID_NDK)
  if(DEFINED ENV{ANDROID_NDK})
    set(ANDROID_NDK "$ENV{ANDROID_NDK}")
  elseif(DEFINED ENV{ANDROID_NDK_HOME})
    set(ANDROID_NDK "$ENV{ANDROID_NDK_HOME}")
  else()
    message(FATAL_ERROR "Set ANDROID_NDK (or ANDROID_NDK_HOME) to the NDK directory (r26 or newer)")
  endif()
endif()
set(ANDROID_ABI arm64-v8a)
set(ANDROID_PLATFORM android-26)
set(ANDROID_STL c++_shared)
include("${ANDROID_NDK}/build/cmake/android.toolchain.cmake")
# Dependencies (XNNPACK, cpuinfo, pthreadpool, FlatBuffers headers, SentencePiece, nlohmann-json, CLI11)
# come from CMAKE_PREFIX_PATH; flatc from the build machine.
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
