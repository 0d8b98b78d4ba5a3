#!/usr/bin/env bash
# The installed package as a user sees it: `cmake --install` of BUILD_DIR into a temporary prefix, then a
# project outside the tree (tests/package) found through find_package(tern CONFIG) links libtern.so
# (tern::tern) and libtern.a (tern::tern_static), and a C program is built with `pkg-config tern`. All
# three translate a sentence with MODEL.
#   tests/package_test.sh BUILD_DIR MODEL
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$1 model=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$work/prefix" > "$work/install.log" || fail "cmake --install: $(tail -5 "$work/install.log")"
for f in include/tern/translator.h include/tern/tern.h lib/libtern.a lib/libtern.so lib/cmake/tern/ternConfig.cmake \
         lib/pkgconfig/tern.pc bin/tern bin/tern-convert; do
  [ -e "$work/prefix/$f" ] || fail "not installed: $f"
done
# Only the public API is exported from the shared library.
nm -D --defined-only "$work/prefix/lib/libtern.so" > "$work/symbols"
grep -q ' T tern_translate$' "$work/symbols" || fail "tern_translate not exported"
grep -q 'Translator6Create' "$work/symbols" || fail "tern::Translator::Create not exported"
! grep -q 'PackLinear\|RunSearch\|format6FromFb' "$work/symbols" || fail "internal symbols exported: $(grep -c . "$work/symbols")"

cmake -S "$here/package" -B "$work/consumer" -G Ninja -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_BUILD_TYPE=Release \
  > "$work/configure.log" 2>&1 || fail "configure: $(tail -20 "$work/configure.log")"
cmake --build "$work/consumer" > "$work/build.log" 2>&1 || fail "build: $(tail -20 "$work/build.log")"
export LD_LIBRARY_PATH="$work/prefix/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
out=$("$work/consumer/consumer" "$model" "A dog runs.") || fail "consumer (shared) failed"
[ -n "$out" ] || fail "consumer (shared) printed nothing"
out_static=$("$work/consumer/consumer_static" "$model" "A dog runs.") || fail "consumer (static) failed"
[ "$out" = "$out_static" ] || fail "static and shared differ: '$out' vs '$out_static'"

export PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig"
cc -o "$work/consumer_c" "$here/package/consumer.c" $(pkg-config --cflags --libs tern) || fail "C consumer build"
out_c=$("$work/consumer_c" "$model" "A dog runs.") || fail "C consumer failed"
[ "$out" = "$out_c" ] || fail "C and C++ differ: '$out' vs '$out_c'"
echo "package_test: installed tree works from CMake (shared, static) and pkg-config (C): $out"
