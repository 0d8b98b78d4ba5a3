# Android arm64-v8a, API 26, WITHOUT the NDK: the build that CI compiles and runs (preset
# android-arm64-test). Debian's clang-14/lld-14 with --target=aarch64-linux-android26 against the bionic
# test sysroot of ../shared/android/ and the prefix that targets/android/build-test-deps.sh builds
# (compiler-rt builtins, libc++/libc++abi/libunwind in namespace __ndk1, cpuinfo, pthreadpool, XNNPACK,
# SentencePiece, header-only libraries). Executables are linked statically (bionic's libc.a), so they run
# under qemu-aarch64 without Android's dynamic linker; shared libraries (libtern_jni.so) link against
# the API-26 stub libraries with -Wl,--no-undefined. Users build with the NDK: toolchains/android-arm64.cmake.
#
#   targets/android/build-test-deps.sh            # once; cached in ~/.cache/tern/android
#   cmake --preset android-arm64-test && cmake --build --preset android-arm64-test
#   ctest --preset android-arm64-test             # under qemu-aarch64 -cpu cortex-a76 (and -a55)
#
# TERN_ANDROID_DEPS: that prefix (default build-android-deps, a link to the cache entry).
# TERN_ANDROID_BOOTSTRAP=ON: used by build-test-deps.sh for compiler-rt and libc++ themselves (no C++
# library and no builtins yet).
set(CMAKE_SYSTEM_NAME Linux)   # "Android" would make CMake look for an NDK
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(ANDROID TRUE)              # what the NDK's toolchain file sets: the project's Android branches
set(TERN_ANDROID_API 26)
set(TERN_ANDROID_DEPS "${CMAKE_CURRENT_LIST_DIR}/../build-android-deps" CACHE PATH "prefix made by targets/android/build-test-deps.sh")
get_filename_component(TERN_ANDROID_DEPS "${TERN_ANDROID_DEPS}" REALPATH)
if(NOT EXISTS "${TERN_ANDROID_DEPS}/sysroot/usr/include/android/api-level.h")
  message(FATAL_ERROR "No Android test prefix at ${TERN_ANDROID_DEPS}: run targets/android/build-test-deps.sh")
endif()
# A rebuilt prefix (a new cache key) has new absolute paths: the cached ones of this build would be stale.
if(DEFINED CACHE{TERN_ANDROID_PREFIX_USED} AND NOT "$CACHE{TERN_ANDROID_PREFIX_USED}" STREQUAL "${TERN_ANDROID_DEPS}")
  message(FATAL_ERROR "The Android test prefix is now ${TERN_ANDROID_DEPS} (was $CACHE{TERN_ANDROID_PREFIX_USED}): "
                      "configure afresh: cmake --fresh --preset android-arm64-test")
endif()
set(TERN_ANDROID_PREFIX_USED "${TERN_ANDROID_DEPS}" CACHE INTERNAL "the resolved prefix this build was configured with")
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES TERN_ANDROID_DEPS TERN_ANDROID_BOOTSTRAP)
set(_triple aarch64-linux-android${TERN_ANDROID_API})
set(_p "${TERN_ANDROID_DEPS}")
set(CMAKE_SYSROOT "${_p}/sysroot")
set(CMAKE_C_COMPILER clang-14)
set(CMAKE_CXX_COMPILER clang++-14)
set(CMAKE_ASM_COMPILER clang-14)
set(CMAKE_C_COMPILER_TARGET ${_triple})
set(CMAKE_CXX_COMPILER_TARGET ${_triple})
set(CMAKE_ASM_COMPILER_TARGET ${_triple})
set(CMAKE_AR llvm-ar-14 CACHE FILEPATH "")
set(CMAKE_RANLIB llvm-ranlib-14 CACHE FILEPATH "")
# -resource-dir: clang's own headers plus the compiler-rt builtins built for Android (lib/linux/
# libclang_rt.builtins-aarch64-android.a, with emutls: API < 29 has no ELF TLS).
set(_common "-resource-dir=${_p}/clang -fPIC -Wno-unused-command-line-argument")
set(CMAKE_C_FLAGS_INIT "${_common}")
set(CMAKE_ASM_FLAGS_INIT "${_common}")
if(TERN_ANDROID_BOOTSTRAP)
  set(CMAKE_CXX_FLAGS_INIT "${_common}")
  set(CMAKE_EXE_LINKER_FLAGS_INIT "-fuse-ld=lld -resource-dir=${_p}/clang")
  set(CMAKE_SHARED_LINKER_FLAGS_INIT "-fuse-ld=lld -resource-dir=${_p}/clang")
  set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
else()
  set(CMAKE_CXX_FLAGS_INIT "${_common} -stdlib=libc++ -nostdinc++ -isystem ${_p}/sysroot/usr/include/c++/v1")
  set(_link "-fuse-ld=lld -resource-dir=${_p}/clang -stdlib=libc++ -rtlib=compiler-rt --unwindlib=libunwind")
  # Executables: static bionic (crtbegin_static.o of the test sysroot). liblog: a stub in the static
  # directory for executables, the API-26 liblog.so for shared libraries (cpuinfo logs through it).
  set(CMAKE_EXE_LINKER_FLAGS_INIT "${_link} -static")
  set(CMAKE_SHARED_LINKER_FLAGS_INIT "${_link} -static-libstdc++ -Wl,--no-undefined")
  set(CMAKE_MODULE_LINKER_FLAGS_INIT "${_link} -static-libstdc++ -Wl,--no-undefined")
  set(CMAKE_C_STANDARD_LIBRARIES "-llog" CACHE STRING "")
  set(CMAKE_CXX_STANDARD_LIBRARIES "-llog" CACHE STRING "")
endif()
set(CMAKE_FIND_ROOT_PATH "${_p}/sysroot" "${_p}")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)   # flatc, python, java: the build machine's
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
set(ENV{PKG_CONFIG_SYSROOT_DIR} "")
set(ENV{PKG_CONFIG_LIBDIR} "${_p}/lib/pkgconfig")
set(ENV{PKG_CONFIG_PATH} "")
# Tests: static executables under qemu-aarch64 ($TERN_QEMU_CPU, default cortex-a76).
set(CMAKE_CROSSCOMPILING_EMULATOR "${CMAKE_CURRENT_LIST_DIR}/../targets/android/qemu-run.sh")
