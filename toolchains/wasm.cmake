# WebAssembly (wasm32, SIMD128 on; one thread, or with TERN_WASM_THREADS pthreads for cross-origin isolated
# pages): Debian's Emscripten (3.1.69, trixie; scripts/setup.sh) with
# the prefix that targets/wasm/build-deps.sh builds (cpuinfo, pthreadpool, XNNPACK's wasm SIMD microkernels,
# SentencePiece, header-only libraries). Preset `wasm`:
#
#   targets/wasm/build-deps.sh                    # once; cached in ~/.cache/tern/wasm
#   cmake --preset wasm && cmake --build --preset wasm
#   ctest --preset wasm                           # the wasm tests under Node
#
# Preset `wasm-threads` (TERN_WASM_THREADS=ON): everything compiled with -pthread (shared memory, atomics)
# against the prefix `targets/wasm/build-deps.sh --threads` builds (pthreadpool on Emscripten's pthreads).
#
# TERN_WASM_DEPS: that prefix (default build-wasm-deps or build-wasm-threads-deps, a link to the cache entry).
include(/usr/share/emscripten/cmake/Modules/Platform/Emscripten.cmake)
set(TERN_WASM TRUE)
if(TERN_WASM_THREADS)
  set(_tern_wasm_deps build-wasm-threads-deps)
  set(_tern_wasm_threads_arg " --threads")
else()
  set(_tern_wasm_deps build-wasm-deps)
  set(_tern_wasm_threads_arg "")
endif()
set(TERN_WASM_DEPS "${CMAKE_CURRENT_LIST_DIR}/../${_tern_wasm_deps}" CACHE PATH "prefix made by targets/wasm/build-deps.sh")
get_filename_component(TERN_WASM_DEPS "${TERN_WASM_DEPS}" REALPATH)
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES TERN_WASM_DEPS TERN_WASM_BOOTSTRAP TERN_WASM_THREADS)
if(NOT TERN_WASM_BOOTSTRAP AND NOT EXISTS "${TERN_WASM_DEPS}/lib/libXNNPACK.a")
  message(FATAL_ERROR "No wasm prefix at ${TERN_WASM_DEPS}: run targets/wasm/build-deps.sh${_tern_wasm_threads_arg}")
endif()
list(APPEND CMAKE_FIND_ROOT_PATH "${TERN_WASM_DEPS}")
# PKG_CONFIG_PATH: Emscripten's platform file sets PKG_CONFIG_LIBDIR to its own sysroot after this file runs.
set(ENV{PKG_CONFIG_PATH} "${TERN_WASM_DEPS}/lib/pkgconfig")
set(ENV{PKG_CONFIG_SYSROOT_DIR} "")
# SIMD128 everywhere (every browser since 2021, Node 16+); no relaxed SIMD (not in every browser yet).
# -pthread: every object of a threaded module, the prefix's too (Emscripten refuses to link a mix).
if(TERN_WASM_THREADS)
  set(CMAKE_C_FLAGS_INIT "-msimd128 -pthread")
  set(CMAKE_CXX_FLAGS_INIT "-msimd128 -pthread")
  set(CMAKE_EXE_LINKER_FLAGS_INIT "-pthread")
else()
  set(CMAKE_C_FLAGS_INIT "-msimd128")
  set(CMAKE_CXX_FLAGS_INIT "-msimd128")
endif()
set(CMAKE_CROSSCOMPILING_EMULATOR "/usr/bin/node")
