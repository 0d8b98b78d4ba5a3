#!/usr/bin/env bash
# End-to-end translation with the bundled en-de model, on the host or a target under qemu
# ($TERN_EMULATOR), checked against outputs recorded on x86-64 (tests/data/bundled.*.de, beam 4):
#  - f32: the same text, line for line (the argmax decisions do not depend on the SIMD kernels);
#  - int8: the same on every CPU since tern applies the int8 epilogue itself (docs/design.md "Identical int8 output
#    on every CPU"); MAX_INT8_DIFF lines may differ (0 in tests/CMakeLists.txt).
#  - memory: arena bytes at most 5% above tests/data/memory_budget.txt; peak RSS too, on the host in a
#    plain build only (qemu and sanitizers have footprints of their own; $TERN_SANITIZED=1 skips it).
# Usage: bundled_test.sh TERN F32_MODEL INT8_MODEL DATA_DIR MAX_INT8_DIFF
set -uo pipefail
tern_bin=$1 f32=$2 int8=$3 data=$4 max_int8_diff=$5
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0 pass=0
run() { ${TERN_EMULATOR:-} "$tern_bin" translate --beam 4 --threads 1 "$@" --input "$data/bundled.en"; }
run -m "$f32" --output "$tmp/f32.de" || fail=$((fail + 1))
if diff -u "$data/bundled.f32.de" "$tmp/f32.de"; then pass=$((pass + 1)); else echo "FAILED: f32 output differs from x86-64's"; fail=$((fail + 1)); fi
run -m "$int8" --output "$tmp/int8.de" --verbose 2> "$tmp/verbose" || fail=$((fail + 1))
differ=$(paste -d '\n' "$data/bundled.int8.de" "$tmp/int8.de" | paste - - | awk -F'\t' '$1 != $2' | wc -l)
echo "int8: $differ of $(wc -l < "$data/bundled.en") lines differ from x86-64's (allowed: $max_int8_diff)"
if [ "$differ" -le "$max_int8_diff" ]; then pass=$((pass + 1)); else fail=$((fail + 1)); diff "$data/bundled.int8.de" "$tmp/int8.de"; fi
arena=$(sed -n 's/.*arena \([0-9]*\) bytes.*/\1/p' "$tmp/verbose")
rss=$(sed -n 's/.*peak RSS \([0-9.]*\) MiB.*/\1/p' "$tmp/verbose")
read -r want_arena want_rss < <(grep -v '^#' "$data/memory_budget.txt")
echo "memory: arena $arena bytes (recorded $want_arena), peak RSS $rss MiB (recorded $want_rss)"
if awk -v a="$arena" -v w="$want_arena" 'BEGIN { exit !(a <= w * 1.05) }'; then pass=$((pass + 1)); else echo "FAILED: arena grew"; fail=$((fail + 1)); fi
if [ -z "${TERN_EMULATOR:-}" ] && [ "${TERN_SANITIZED:-0}" != 1 ]; then
  if awk -v a="$rss" -v w="$want_rss" 'BEGIN { exit !(a <= w * 1.05) }'; then pass=$((pass + 1)); else echo "FAILED: peak RSS grew"; fail=$((fail + 1)); fi
fi
echo "$pass passed, $fail failed"
test $fail -eq 0
