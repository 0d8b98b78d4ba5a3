#!/usr/bin/env bash
# CMAKE_CROSSCOMPILING_EMULATOR of the android-arm64-test preset: runs a static bionic executable under
# qemu-aarch64 (no Android dynamic linker is needed). CPU: $TERN_QEMU_CPU, default cortex-a76; the
# presets also run cortex-a55 (the LITTLE core of most phones). Never `max`: it enables features no
# phone core of the tested kind has.
# Usage: qemu-run.sh PROGRAM [ARGS...]
set -euo pipefail
exec qemu-aarch64-static -cpu "${TERN_QEMU_CPU:-cortex-a76}" "$@"
