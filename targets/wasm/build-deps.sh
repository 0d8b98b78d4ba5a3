#!/usr/bin/env bash
# Builds the prefix that the wasm preset (toolchains/wasm.cmake) compiles tern against, with Debian's
# Emscripten: cpuinfo, pthreadpool (+ FXdiv), XNNPACK (its wasm SIMD microkernels, production ones only),
# SentencePiece (static, its own protobuf-lite), and the build machine's header-only FlatBuffers, nlohmann-json,
# CLI11, doctest (with their CMake config files) and xxHash.
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
# script, scripts/target-deps.sh, the toolchain file and the Emscripten version); DIR becomes a link to it;
# complete when its info file (.tern-wasm-info, or .tern-wasm-threads-info) exists and its manifest matches
# (scripts/cache-entry.sh). TERN_WASM_REFRESH=1 rebuilds.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/scripts/target-deps.sh"   # fetch, unpack, the shared libraries' builds, the cached prefix
. "$here/targets/wasm/env.sh"
threads=0
if [ "${1:-}" = --threads ]; then threads=1; shift; fi
variant=wasm; [ "$threads" = 0 ] || variant=wasm-threads
dir=${1:-"$here/build-$variant-deps"}
target_settings WASM
toolchain="$here/toolchains/wasm.cmake"
log() { echo "wasm build-deps: $*" >&2; }

for tool in emcc em++ emcmake cmake ninja curl sha256sum node; do
  command -v "$tool" > /dev/null || { log "$tool missing (`scripts/setup.sh wasm` installs it)"; exit 1; }
done
layout=1
key=$( { echo "layout=$layout threads=$threads"; cat "$0" "$toolchain" "$here/scripts/target-deps.sh"; emcc --version | head -n 1; } | sha256sum | cut -c1-16)

# Applies the edits on stdin (a Python list of (old, new) string pairs) to FILE: each old text must occur exactly
# once, or the build stops, naming FILE (a new source snapshot: update this script).
apply_edits() {
  python3 -c '
import ast, sys
p = sys.argv[1]
s = open(p).read()
for a, b in ast.literal_eval(sys.stdin.read()):
    if s.count(a) != 1:
        sys.exit("%s: %r found %d times (a new snapshot: update targets/wasm/build-deps.sh)" % (p, a[:50], s.count(a)))
    s = s.replace(a, b)
open(p, "w").write(s)
' "$1"
}

# --threads: pthreadpool's sources on Emscripten's pthreads, not its one-thread shim; POSIX declarations
# (posix_memalign) under its -std=c11.
pthreads_not_shim() {
  apply_edits "$1/CMakeLists.txt" <<'EDITS'
[("IF(EMSCRIPTEN)\n  LIST(APPEND PTHREADPOOL_SRCS src/shim.c)\nELSE()", "IF(FALSE)\n  LIST(APPEND PTHREADPOOL_SRCS src/shim.c)\nELSE()"),
 ("TARGET_INCLUDE_DIRECTORIES(pthreadpool PRIVATE src)\n",
  "TARGET_INCLUDE_DIRECTORIES(pthreadpool PRIVATE src)\nTARGET_COMPILE_DEFINITIONS(pthreadpool PRIVATE _GNU_SOURCE)\n")]
EDITS
}

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

  pthreadpool_edit=""; [ "$threads" = 0 ] || pthreadpool_edit=pthreads_not_shim
  build_pthreadpool "$P" "$work" "$fxdiv" "$pthreadpool" $pthreadpool_edit

  unpack "$xnnpack" "$work/xnnpack"
  # This snapshot builds WebAssembly with Bazel only: its CMake is taught the Emscripten target (processor
  # "wasm", the scalar + wasm + wasm SIMD production microkernels). Each edit must apply, or the build stops.
  apply_edits "$work/xnnpack/CMakeLists.txt" <<'EDITS'
[("IF(CMAKE_OSX_ARCHITECTURES)\n  LIST(LENGTH", "IF(EMSCRIPTEN)\n  SET(XNNPACK_TARGET_PROCESSOR \"wasm\")\nELSEIF(CMAKE_OSX_ARCHITECTURES)\n  LIST(LENGTH"),
 ("^(Android|Darwin|iOS|Linux|Windows|CYGWIN|MSYS|QURT)$", "^(Android|Darwin|iOS|Linux|Windows|CYGWIN|MSYS|QURT|Emscripten)$"),
 ("SET(NON_PROD_MICROKERNEL_SRCS ${NON_PROD_SCALAR_MICROKERNEL_SRCS})\n",
  "SET(NON_PROD_MICROKERNEL_SRCS ${NON_PROD_SCALAR_MICROKERNEL_SRCS})\n"
  "IF(XNNPACK_TARGET_PROCESSOR STREQUAL \"wasm\")\n"
  "  LIST(APPEND PROD_MICROKERNEL_SRCS ${PROD_WASM_MICROKERNEL_SRCS} ${PROD_WASMSIMD_MICROKERNEL_SRCS})\n"
  "ENDIF()\n")]
EDITS
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
