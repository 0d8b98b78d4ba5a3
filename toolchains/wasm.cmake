# WebAssembly (wasm32, SIMD128 on, one thread): Debian's Emscripten (3.1.69, trixie; scripts/setup.sh) with
# the prefix that targets/wasm/build-deps.sh builds (cpuinfo, pthreadpool, XNNPACK's wasm SIMD microkernels,
# SentencePiece, header-only libraries). Preset `wasm`:
#
#   targets/wasm/build-deps.sh                    # once; cached in ~/.cache/tern/wasm
#   cmake --preset wasm && cmake --build --preset wasm
#   ctest --preset wasm                           # the wasm tests under Node
#
# TERN_WASM_DEPS: that prefix (default build-wasm-deps, a link to the cache entry).
include(/usr/share/emscripten/cmake/Modules/Platform/Emscripten.cmake)
set(TERN_WASM TRUE)
set(TERN_WASM_DEPS "${CMAKE_CURRENT_LIST_DIR}/../build-wasm-deps" CACHE PATH "prefix made by targets/wasm/build-deps.sh")
get_filename_component(TERN_WASM_DEPS "${TERN_WASM_DEPS}" REALPATH)
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES TERN_WASM_DEPS TERN_WASM_BOOTSTRAP)
if(NOT TERN_WASM_BOOTSTRAP AND NOT EXISTS "${TERN_WASM_DEPS}/lib/libXNNPACK.a")
  message(FATAL_ERROR "No wasm prefix at ${TERN_WASM_DEPS}: run targets/wasm/build-deps.sh")
endif()
list(APPEND CMAKE_FIND_ROOT_PATH "${TERN_WASM_DEPS}")
# PKG_CONFIG_PATH: Emscripten's platform file sets PKG_CONFIG_LIBDIR to its own sysroot after this file runs.
set(ENV{PKG_CONFIG_PATH} "${TERN_WASM_DEPS}/lib/pkgconfig")
set(ENV{PKG_CONFIG_SYSROOT_DIR} "")
# SIMD128 everywhere (every browser since 2021, Node 16+); no relaxed SIMD (not in every browser yet).
set(CMAKE_C_FLAGS_INIT "-msimd128")
set(CMAKE_CXX_FLAGS_INIT "-msimd128")
set(CMAKE_CROSSCOMPILING_EMULATOR "/usr/bin/node")
