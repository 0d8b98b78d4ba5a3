#!/usr/bin/env bash
# What a Raspberry Pi needs to run a cross-built tern: the sysroot's suite, the newest glibc symbol
# version the binaries use (the device's glibc must be at least that), and the shared libraries they
# load (install them on the device from the same suite).
#
#   targets/rpi/device-needs.sh BUILD_DIR      e.g. build-rpi-arm64
set -euo pipefail
build=${1:?usage: device-needs.sh BUILD_DIR}
bins=()
for f in "$build/targets/desktop/tern" "$build/runtime/libtern.so" "$build/targets/android/libtern_jni.so"; do
  [ -f "$f" ] && bins+=("$f")
done
[ ${#bins[@]} -gt 0 ] || { echo "device-needs: no tern binaries under $build (build it first)" >&2; exit 1; }
sysroot=$(sed -n 's/^TERN_SYSROOT:PATH=//p' "$build/CMakeCache.txt" 2>/dev/null || true)
if [ -n "$sysroot" ] && [ -f "$sysroot/.tern-sysroot-info" ]; then
  echo "sysroot: $(readlink -f "$sysroot") ($(sed -n 's/^suite=//p' "$sysroot/.tern-sysroot-info"), glibc $(sed -n 's/^libc6-dev=//p' "$sysroot/.tern-sysroot-info"))"
fi
echo "glibc needed: $(readelf -V "${bins[@]}" 2>/dev/null | grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -n 1 | sed 's/GLIBC_//')"
echo "shared libraries loaded:"
readelf -d "${bins[@]}" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/  \1/p' | grep -v -e libtern | sort -u
