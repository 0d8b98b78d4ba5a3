#!/usr/bin/env bash
# CMAKE_CROSSCOMPILING_EMULATOR for the Raspberry Pi presets: runs an ARM binary under qemu-user with the
# sysroot's libraries. CPU: $TERN_QEMU_CPU, default cortex-a76 (Pi 5, dot-product kernels) for arm64 and
# cortex-a15 (ARMv7-A + NEON) for armhf. Use TERN_QEMU_CPU=cortex-a72 for a Pi 4 (XNNPACK's NEON path).
# Never `max`: it enables i8mm, which no Pi has.
# Usage: qemu-run.sh arm64|armhf SYSROOT PROGRAM [ARGS...]
set -euo pipefail
arch=$1 sysroot=$2
shift 2
case "$arch" in
  arm64) exec qemu-aarch64-static -cpu "${TERN_QEMU_CPU:-cortex-a76}" -L "$sysroot" "$@" ;;
  armhf) exec qemu-arm-static -cpu "${TERN_QEMU_CPU:-cortex-a15}" -L "$sysroot" "$@" ;;
  *) echo "qemu-run: unknown architecture $arch" >&2; exit 2 ;;
esac
