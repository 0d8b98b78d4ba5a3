#!/usr/bin/env bash
# The int8 identity check on all 1,000 lines of test_2016_flickr (CI checks the first 50 on every core:
# tests/int8_identity_test.sh). Prints the SHA-256 of the bundled int8 model's output (greedy, beam 4;
# `--no-split --ids --exact-scores --threads 1`) and compares it with tests/data/int8_identity.sha256, which was
# recorded on x86-64. Under qemu: a cross build's tern and TERN_EMULATOR, e.g.
#   TERN_EMULATOR="qemu-aarch64-static -cpu cortex-a53 -L build-sysroots/arm64" \
#     scripts/int8_identity.sh build-rpi-arm64/targets/desktop/tern
#   TERN_EMULATOR=targets/rpi/qemu-run.sh TERN_QEMU_CPU=cortex-a72 scripts/int8_identity.sh build-rpi-arm64/targets/desktop/tern
# Usage: scripts/int8_identity.sh [TERN] [LINES]      (defaults: build/targets/desktop/tern, 1000)
#        scripts/int8_identity.sh --record TERN       (x86-64 only: rewrite the hashes file for 50 and 1000 lines)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
record=0
if [ "${1:-}" = --record ]; then record=1; shift; fi
tern_bin=${1:-$root/build/targets/desktop/tern}
lines=${2:-1000}
model=$root/models/en-de/en-de.int8.tern
shared=${TERN_SHARED_DIR:-$root/../shared}  # holds data/multi30k
hashes=$root/tests/data/int8_identity.sha256
if [ $record = 1 ]; then
  { echo "# SHA-256 of the bundled int8 model's output on the first N lines of test_2016_flickr (x86-64,"
    echo "# $(date -u +%Y-%m-%d), scripts/int8_identity.sh --record): search, lines, hash"
    for n in 50 1000; do
      TERN_IDENTITY_RECORD=1 "$root/tests/int8_identity_test.sh" "$tern_bin" "$model" "$shared" "$n" /dev/null
    done; } > "$hashes.tmp"
  mv "$hashes.tmp" "$hashes"
  cat "$hashes"
  exit 0
fi
start=$(date +%s)
"$root/tests/int8_identity_test.sh" "$tern_bin" "$model" "$shared" "$lines" "$hashes"
echo "($(( $(date +%s) - start )) s)"
