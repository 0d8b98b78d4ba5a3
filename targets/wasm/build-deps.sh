#!/usr/bin/env bash
# Builds the prefix that the wasm preset (toolchains/wasm.cmake) compiles tern against, with Debian's
# Emscripten: cpuinfo, pthreadpool (+ FXdiv), XNNPACK (its wasm SIMD microkernels, production ones only),
# SentencePiece (static, its own protobuf-lite), and the build machine's header-only FlatBuffers, nlohmann-json,
# CLI11 and doctest with their CMake config files.
#
#   targets/wasm/build-deps.sh [DIR]              (default DIR: build-wasm-deps)
#   targets/wasm/build-deps.sh --threads [DIR]    (default DIR: build-wasm-threads-deps)
#
# --threads: the prefix of the preset wasm-threads: everything compiled with -pthread, pthreadpool on
# Emscripten's pthreads (its CMake always takes the one-thread shim on Emscripten: that choice is edited).
#
# Sources: Debian's source packages' upstream tarballs (scripts/target-deps.sh: TERN_DEB_MIRROR, retried
# TERN_WASM_ATTEMPTS times with backoff from TERN_WASM_BACKOFF s, verified, kept in TERN_CACHE_DIR/src).
# Cache: the prefix is TERN_CACHE_DIR/wasm/KEY or TERN_CACHE_DIR/wasm-threads/KEY (KEY: a hash of this
# script, the toolchain file and the Emscripten version); DIR becomes a link to it; complete when its .tern-wasm-info exists and its manifest
# matches (scripts/cache-entry.sh). TERN_WASM_REFRESH=1 rebuilds.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/scripts/retry.sh"
. "$here/scripts/cache-entry.sh"
. "$here/targets/wasm/env.sh"
threads=0
if [ "${1:-}" = --threads ]; then threads=1; shift; fi
variant=wasm; [ "$threads" = 0 ] || variant=wasm-threads
dir=${1:-"$here/build-$variant-deps"}
cache_root=${TERN_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/tern}
mirror=${TERN_DEB_MIRROR:-http://deb.debian.org/debian}
attempts=${TERN_WASM_ATTEMPTS:-4}
backoff=${TERN_WASM_BACKOFF:-15}
refresh=${TERN_WASM_REFRESH:-0}
toolchain="$here/toolchains/wasm.cmake"
jobs=${TERN_WASM_JOBS:-$(nproc)}
log() { echo "wasm build-deps: $*" >&2; }

sources=(
  "cpuinfo cpuinfo cpuinfo_0.0~git20250905.877328f.orig.tar.xz 557ca404a3836b9f335a3a06b65ff9fe9dbaaefab7fb5c0185f53d9f33615a10"
  "cpuinfo cpuinfo cpuinfo_0.0~git20250327.39ea79a.orig.tar.xz 2a10028948f7f0663c56cc34405484391ee3d7ccdf09fe51d73897937b99d9d4"
  "pthreadpool pthreadpool pthreadpool_0.0~git20240616.560c60d.orig.tar.xz 4cc3cbd933b28131d2a34edc54f76af9fb41bc490af5eae1a5bd3cd07ea90708"
  "fxdiv fxdiv fxdiv_0.0~git20200417.b408327.orig.tar.xz 7953482badaf4cb34026c3487c257b8e4ab2df061c019bd6fabbbc12ad52c44b"
  "xnnpack xnnpack xnnpack_0.0~git20241108.4ea82e5.orig.tar.xz 90bde2caef0f880f627bab0dc805a86c4b8070cd98e3243db3046ab3f3be1a99"
  "sentencepiece sentencepiece sentencepiece_0.1.97.orig.tar.gz 56430381f45dc6debfd2e0cbde4f039f9499c49ca825af184b0cbf318c17a18f"
  "sentencepiece sentencepiece sentencepiece_0.2.0.orig.tar.gz d72556a0cb343d6ea23264ecdbc0ff04dfecd879be4d2d7a7026b9de1af2e4d1"
)

for tool in emcc em++ emcmake cmake ninja curl sha256sum node; do
  command -v "$tool" > /dev/null || { log "$tool missing (scripts/setup.sh installs it)"; exit 1; }
done
layout=1
key=$( { echo "layout=$layout threads=$threads"; cat "$0" "$toolchain" "$here/scripts/target-deps.sh"; emcc --version | head -n 1; } | sha256sum | cut -c1-16)
. "$here/scripts/target-deps.sh"   # fetch, unpack, the shared libraries' builds, the cached prefix

build() {
  P=$1
  work="$P/src"
  target_args=(-DTERN_WASM_BOOTSTRAP=ON -DTERN_WASM_DEPS="$P" -DTERN_WASM_THREADS=$([ "$threads" = 1 ] && echo ON || echo OFF))
  mkdir -p "$P/include" "$P/lib" "$work"
  local cpuinfo pthreadpool fxdiv xnnpack spm
  cpuinfo=$(fetch cpuinfo); pthreadpool=$(fetch pthreadpool); fxdiv=$(fetch fxdiv)
  xnnpack=$(fetch xnnpack); spm=$(fetch sentencepiece)

  unpack "$cpuinfo" "$work/cpuinfo"
  cmake_build cpuinfo "$work/cpuinfo" -DCPUINFO_LIBRARY_TYPE=static -DCPUINFO_BUILD_TOOLS=OFF \
      -DCPUINFO_BUILD_UNIT_TESTS=OFF -DCPUINFO_BUILD_MOCK_TESTS=OFF -DCPUINFO_BUILD_BENCHMARKS=OFF -DCPUINFO_BUILD_PKG_CONFIG=ON

  if [ "$threads" = 0 ]; then
    build_pthreadpool "$P" "$work" "$fxdiv" "$pthreadpool"
  else
    unpack "$fxdiv" "$work/fxdiv"
    unpack "$pthreadpool" "$work/pthreadpool"
    python3 - "$work/pthreadpool/CMakeLists.txt" <<'PY'
import sys
p = sys.argv[1]
s = open(p).read()
# The pthreads sources, not the shim; POSIX declarations (posix_memalign) under its -std=c11.
edits = [
    ("IF(EMSCRIPTEN)\n  LIST(APPEND PTHREADPOOL_SRCS src/shim.c)\nELSE()", "IF(FALSE)\n  LIST(APPEND PTHREADPOOL_SRCS src/shim.c)\nELSE()"),
    ("TARGET_INCLUDE_DIRECTORIES(pthreadpool PRIVATE src)\n",
     "TARGET_INCLUDE_DIRECTORIES(pthreadpool PRIVATE src)\nTARGET_COMPILE_DEFINITIONS(pthreadpool PRIVATE _GNU_SOURCE)\n"),
]
for a, b in edits:
    if s.count(a) != 1:
        sys.exit("pthreadpool's CMakeLists.txt: %r found %d times (a new snapshot: update targets/wasm/build-deps.sh)" % (a[:40], s.count(a)))
    s = s.replace(a, b)
open(p, "w").write(s)
PY
    cmake_build pthreadpool "$work/pthreadpool" -DPTHREADPOOL_LIBRARY_TYPE=static -DPTHREADPOOL_BUILD_TESTS=OFF \
        -DPTHREADPOOL_BUILD_BENCHMARKS=OFF -DFXDIV_SOURCE_DIR="$work/fxdiv"
    cp "$work/fxdiv/include/fxdiv.h" "$P/include/"
  fi

  unpack "$xnnpack" "$work/xnnpack"
  # This snapshot builds WebAssembly with Bazel only: its CMake is taught the Emscripten target (processor
  # "wasm", the scalar + wasm + wasm SIMD production microkernels). Each edit must apply, or the build stops.
  python3 - "$work/xnnpack/CMakeLists.txt" <<'PY'
import sys
p = sys.argv[1]
s = open(p).read()
edits = [
    ("IF(CMAKE_OSX_ARCHITECTURES)\n  LIST(LENGTH", "IF(EMSCRIPTEN)\n  SET(XNNPACK_TARGET_PROCESSOR \"wasm\")\nELSEIF(CMAKE_OSX_ARCHITECTURES)\n  LIST(LENGTH"),
    ("^(Android|Darwin|iOS|Linux|Windows|CYGWIN|MSYS|QURT)$", "^(Android|Darwin|iOS|Linux|Windows|CYGWIN|MSYS|QURT|Emscripten)$"),
    ("SET(NON_PROD_MICROKERNEL_SRCS ${NON_PROD_SCALAR_MICROKERNEL_SRCS})\n",
     "SET(NON_PROD_MICROKERNEL_SRCS ${NON_PROD_SCALAR_MICROKERNEL_SRCS})\n"
     "IF(XNNPACK_TARGET_PROCESSOR STREQUAL \"wasm\")\n"
     "  LIST(APPEND PROD_MICROKERNEL_SRCS ${PROD_WASM_MICROKERNEL_SRCS} ${PROD_WASMSIMD_MICROKERNEL_SRCS})\n"
     "ENDIF()\n"),
]
for a, b in edits:
    if s.count(a) != 1:
        sys.exit("XNNPACK's CMakeLists.txt: %r found %d times (a new snapshot: update targets/wasm/build-deps.sh)" % (a[:50], s.count(a)))
    s = s.replace(a, b)
open(p, "w").write(s)
PY
  # Some generated wasm SIMD kernels include <arm_neon.h> where they mean <wasm_simd128.h> (a template slip;
  # Bazel's build finds both through Emscripten's SIMDe shim, which Debian's Emscripten leaves out).
  grep -rl --include='*wasm*.c' '#include <arm_neon.h>' "$work/xnnpack/src" | xargs -r sed -i 's|^#include <arm_neon.h>$|#include <wasm_simd128.h>|'
  build_xnnpack "$P" "$work/xnnpack"

  unpack "$spm" "$work/sentencepiece"
  build_sentencepiece "$work/sentencepiece"
  copy_header_libraries "$P"
  rm -rf "$work"
  finish_entry "$P" "$variant" "compiler=$(emcc --version | head -n 1)" \
      "sources=$(basename "$cpuinfo") $(basename "$pthreadpool") $(basename "$fxdiv") $(basename "$xnnpack") $(basename "$spm")"
}

cached_build "$variant"
