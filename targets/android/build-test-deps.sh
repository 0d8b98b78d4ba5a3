#!/usr/bin/env bash
# Builds the prefix that the android-arm64-test preset (toolchains/android-arm64-test.cmake) compiles
# tern against, without the Android NDK:
#   sysroot/      the bionic aarch64/API-26 test sysroot (../shared/android/, see its README), plus
#                 libc++, libc++abi and libunwind (LLVM 14, namespace __ndk1 as in the NDK, static),
#                 empty libpthread.a/librt.a (bionic has both in libc) and a liblog.a stub for static
#                 executables (the API-26 liblog.so stub serves shared libraries);
#   clang/        a clang resource directory: Debian clang-14's headers and compiler-rt's builtins built
#                 for aarch64-linux-android (emutls included: API < 29 has no ELF TLS);
#   lib/, include/  cpuinfo, pthreadpool (+ FXdiv), XNNPACK (KleidiAI off, production microkernels only,
#                 compiled against the same cpuinfo.h it links with), SentencePiece (static, its own
#                 protobuf-lite), and the build machine's header-only FlatBuffers, nlohmann-json, CLI11,
#                 doctest (with their CMake config files) and xxHash.
#
#   targets/android/build-test-deps.sh [DIR]      (default DIR: build-android-deps)
#
# Sources are Debian's source packages' upstream tarballs (.orig.tar.*), fetched from the Debian archive
# (TERN_DEB_MIRROR, default http://deb.debian.org/debian), each checked against the SHA-256 that Debian's
# Sources index lists, and kept in TERN_CACHE_DIR/src (default ~/.cache/tern/src). Where more than one
# version works, they are tried in order: a mirror in mid-sync that 404s one version (it happened to
# cpuinfo 0.0~git20250327 and sentencepiece 0.2.0) does not stop the build. Each download is retried
# TERN_ANDROID_ATTEMPTS times (default 4) with backoff from TERN_ANDROID_BACKOFF s (default 15).
#
# Cache. The finished prefix is TERN_CACHE_DIR/android/KEY, KEY a hash of this script, the toolchain
# file, the sysroot tarball and the compiler version; DIR becomes a link to it. An entry is used only if
# its .tern-android-info exists (written last) and its manifest (type, size, path of every file)
# matches (scripts/cache-entry.sh); otherwise it is deleted and rebuilt. Entries of other keys unused
# for 14 days are deleted. TERN_ANDROID_REFRESH=1 rebuilds. Cold, with the sources downloaded: 161-166 s
# on 2 cores (AMD EPYC Zen 4); warm: under a second.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/scripts/target-deps.sh"   # fetch, unpack, the shared libraries' builds, the cached prefix
dir=${1:-"$here/build-android-deps"}
target_settings ANDROID
tarball=${TERN_ANDROID_SYSROOT:-"$here/../shared/android/bionic-arm64-api26-sysroot.tar.xz"}
toolchain="$here/toolchains/android-arm64-test.cmake"
triple=aarch64-linux-android
log() { echo "build-test-deps: $*" >&2; }

# Source tarballs beside scripts/target-deps.sh's shared_sources: "package pool-dir file sha256".
sources=(
  "llvm llvm-toolchain-14 llvm-toolchain-14_14.0.6.orig.tar.xz d9bce5f42381d781e273c724db1ab0acd66259bf2782b79891664dbf1953d22c"
)

[ -f "$tarball" ] || { log "no Android sysroot at $tarball (../shared/android/bionic-arm64-api26-sysroot.tar.xz)"; exit 1; }
for tool in clang-14 clang++-14 ld.lld-14 llvm-ar-14 llvm-ranlib-14 llvm-nm-14 cmake ninja curl sha256sum flatc; do
  command -v "$tool" > /dev/null || { log "$tool missing (`scripts/setup.sh cross` installs it)"; exit 1; }
done
resource=$(clang-14 -print-resource-dir)
layout=1   # bump when the prefix layout changes
key=$( { echo "layout=$layout"; cat "$0" "$here/scripts/target-deps.sh" "$toolchain"; sha256sum < "$tarball"; clang-14 --version | head -n 1; } | sha256sum | cut -c1-16)

build() {
  P=$1
  work="$P/src"
  target_args=(-DTERN_ANDROID_DEPS="$P")
  mkdir -p "$P/sysroot" "$P/clang" "$work"
  local llvm cpuinfo pthreadpool fxdiv xnnpack spm
  llvm=$(fetch llvm); cpuinfo=$(fetch cpuinfo); pthreadpool=$(fetch pthreadpool); fxdiv=$(fetch fxdiv)
  xnnpack=$(fetch xnnpack); spm=$(fetch sentencepiece)

  tar -xf "$tarball" -C "$P/sysroot"
  [ -f "$P/sysroot/usr/include/android/api-level.h" ] || { log "$tarball is not the bionic sysroot (no usr/include/android)"; return 1; }
  cp -r "$resource/include" "$P/clang/include"
  local L="$work/llvm"
  local top
  top=$(basename "$llvm" .orig.tar.xz)   # the tarball's top directory: llvm-toolchain-14_14.0.6
  unpack "$llvm" "$L" "$top/compiler-rt" "$top/libcxx" "$top/libcxxabi" "$top/libunwind" "$top/runtimes" \
         "$top/llvm/cmake" "$top/llvm/utils/llvm-lit" "$top/cmake"

  # compiler-rt builtins (standalone), installed as the Android builtins of the resource directory.
  cmake_build builtins "$L/compiler-rt/lib/builtins" -DTERN_ANDROID_BOOTSTRAP=ON \
      -DCOMPILER_RT_BUILD_BUILTINS=ON -DCOMPILER_RT_DEFAULT_TARGET_ONLY=ON -DCOMPILER_RT_STANDALONE_BUILD=ON \
      -DCOMPILER_RT_BAREMETAL_BUILD=OFF -DLLVM_CMAKE_DIR="$L/llvm/cmake/modules" \
      -DCMAKE_C_COMPILER_WORKS=ON -DCMAKE_ASM_COMPILER_WORKS=ON -DCMAKE_INSTALL_PREFIX="$work/builtins-install"
  mkdir -p "$P/clang/lib/linux"
  cp "$(find "$work/builtins-install" -name 'libclang_rt.builtins*.a' | head -n 1)" \
     "$P/clang/lib/linux/libclang_rt.builtins-aarch64-android.a"

  # libc++ / libc++abi / libunwind, static, the NDK's ABI namespace.
  local libdir="$P/sysroot/usr/lib/$triple"
  cmake_build runtimes "$L/runtimes" -DTERN_ANDROID_BOOTSTRAP=ON \
      -DLLVM_ENABLE_RUNTIMES="libunwind;libcxxabi;libcxx" -DCMAKE_INSTALL_PREFIX="$P/sysroot/usr" \
      -DLIBCXX_ABI_NAMESPACE=__ndk1 -DLIBCXX_ENABLE_SHARED=OFF -DLIBCXX_ENABLE_STATIC_ABI_LIBRARY=ON \
      -DLIBCXX_INCLUDE_TESTS=OFF -DLIBCXX_INCLUDE_BENCHMARKS=OFF -DLIBCXXABI_ENABLE_SHARED=OFF \
      -DLIBCXXABI_USE_LLVM_UNWINDER=ON -DLIBCXXABI_ENABLE_STATIC_UNWINDER=ON -DLIBUNWIND_ENABLE_SHARED=OFF \
      -DLIBCXX_INSTALL_LIBRARY_DIR="$libdir" -DLIBCXXABI_INSTALL_LIBRARY_DIR="$libdir" \
      -DLIBUNWIND_INSTALL_LIBRARY_DIR="$libdir"
  [ -f "$P/sysroot/usr/include/c++/v1/vector" ] && [ -f "$libdir/libc++.a" ] || { log "libc++ was not installed where expected"; return 1; }

  # bionic has pthread and rt in libc; cpuinfo and SentencePiece log through liblog.
  llvm-ar-14 rc "$libdir/libpthread.a"; llvm-ar-14 rc "$libdir/librt.a"
  cat > "$work/log_stub.c" <<'C'
/* liblog for static test executables: Android's logging calls write to stderr. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
int __android_log_write(int prio, const char* tag, const char* text) { return fprintf(stderr, "%s: %s\n", tag ? tag : "", text ? text : ""); }
int __android_log_vprint(int prio, const char* tag, const char* fmt, va_list ap) {
  fprintf(stderr, "%s: ", tag ? tag : ""); int n = vfprintf(stderr, fmt, ap); fputc('\n', stderr); return n; }
int __android_log_print(int prio, const char* tag, const char* fmt, ...) {
  va_list ap; va_start(ap, fmt); int n = __android_log_vprint(prio, tag, fmt, ap); va_end(ap); return n; }
void __android_log_assert(const char* cond, const char* tag, const char* fmt, ...) {
  fprintf(stderr, "%s: assertion %s\n", tag ? tag : "", cond ? cond : ""); abort(); }
C
  clang-14 --target=${triple}26 --sysroot="$P/sysroot" -resource-dir="$P/clang" -O2 -fPIC -c "$work/log_stub.c" -o "$work/log_stub.o"
  llvm-ar-14 rc "$libdir/liblog.a" "$work/log_stub.o"

  # cpuinfo. Built as "Linux", its CMake leaves out src/arm/android/properties.c, which the __ANDROID__
  # code paths call: it is compiled and added to the archive.
  unpack "$cpuinfo" "$work/cpuinfo"
  cmake_build cpuinfo "$work/cpuinfo" -DCPUINFO_LIBRARY_TYPE=static -DCPUINFO_BUILD_TOOLS=OFF \
      -DCPUINFO_BUILD_UNIT_TESTS=OFF -DCPUINFO_BUILD_MOCK_TESTS=OFF -DCPUINFO_BUILD_BENCHMARKS=OFF -DCPUINFO_BUILD_PKG_CONFIG=ON
  clang-14 --target=${triple}26 --sysroot="$P/sysroot" -resource-dir="$P/clang" -O2 -fPIC -D_GNU_SOURCE=1 \
      -DCPUINFO_LOG_LEVEL=2 -DCPUINFO_LOG_TO_STDIO=1 -I"$work/cpuinfo/include" -I"$work/cpuinfo/src" \
      -c "$work/cpuinfo/src/arm/android/properties.c" -o "$work/properties.o"
  llvm-ar-14 rs "$P/lib/libcpuinfo.a" "$work/properties.o" 2> /dev/null

  build_pthreadpool "$P" "$work" "$fxdiv" "$pthreadpool"
  unpack "$xnnpack" "$work/xnnpack"
  build_xnnpack "$P" "$work/xnnpack"
  unpack "$spm" "$work/sentencepiece"
  build_sentencepiece "$work/sentencepiece"
  copy_header_libraries "$P"

  rm -rf "$work"   # sources and build trees: ~1.5 GB; the prefix is ~150 MB
  finish_entry "$P" android "sysroot=$(basename "$tarball") $(sha256sum < "$tarball" | cut -c1-16)" \
      "compiler=$(clang-14 --version | head -n 1)" \
      "sources=$(basename "$llvm") $(basename "$cpuinfo") $(basename "$pthreadpool") $(basename "$fxdiv") $(basename "$xnnpack") $(basename "$spm")"
}

cached_build android
