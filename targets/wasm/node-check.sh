#!/usr/bin/env bash
# The WebAssembly build under Node against the native build, on the same machine (CTest wasm_node, preset wasm):
#   1. int8 output identical: every line of test_2016_flickr (or the bundled sample without ../shared), greedy
#      and beam 4, text and exact scores, from build-wasm's tern.js and the native tern, texts split into
#      sentences (by Node's Intl.Segmenter there, by ICU here) and not split (--no-split);
#   2. a hostile model (truncated; its first bytes flipped) and invalid UTF-8 input fail cleanly: the CLI's
#      message naming the file and its exit status 2 for the model (no WebAssembly trap or abort), the line's
#      own error for the input.
# Usage: node-check.sh TERN_JS NATIVE_TERN MODEL INPUT [FALLBACK_INPUT]   (FALLBACK_INPUT when INPUT is absent)
set -euo pipefail
js=$1 native=$2 model=$3 input=$4
[ -f "$input" ] || input=${5:?"no $input and no fallback input"}
[ -x "$native" ] || { echo "node-check: no native tern at $native (build the default preset first)"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
wasm() { node "$js" "$@"; }
for run in "1" "4" "1 --no-split" "4 --no-split"; do
  read -r beam split <<< "$run"
  args=(translate -m "$model" --beam "$beam" $split --scores --exact-scores)
  wasm "${args[@]}" < "$input" > "$tmp/wasm.txt"
  "$native" "${args[@]}" --threads 1 < "$input" > "$tmp/native.txt"
  if ! cmp -s "$tmp/wasm.txt" "$tmp/native.txt"; then
    echo "node-check: beam $beam $split: the wasm output differs from the native one ($(diff "$tmp/wasm.txt" "$tmp/native.txt" | grep -c '^<') lines):"
    diff "$tmp/wasm.txt" "$tmp/native.txt" | head -n 6
    exit 1
  fi
  echo "node-check: beam $beam $split: $(wc -l < "$tmp/wasm.txt") lines identical to native, sha256 $(sha256sum < "$tmp/wasm.txt" | cut -c1-16)"
done
# Hostile model files, made here: the first half of the model; the model with its first bytes flipped.
head -c "$(( $(stat -c %s "$model") / 2 ))" "$model" > "$tmp/half.tern"
{ printf '\xff\xff\xff\xff'; tail -c +5 "$model"; } > "$tmp/flipped.tern"
for bad in half flipped; do
  set +e
  echo "A dog." | wasm translate -m "$tmp/$bad.tern" > "$tmp/out.txt" 2> "$tmp/err.txt"
  rc=$?
  set -e
  if [ "$rc" != 2 ] || ! grep -q "$bad.tern" "$tmp/err.txt" || grep -q "RuntimeError\|Aborted" "$tmp/err.txt"; then
    echo "node-check: $bad.tern: want exit 2 and a message naming the file, got exit $rc: $(head -c 300 "$tmp/err.txt")"
    exit 1
  fi
  echo "node-check: $bad.tern refused: $(head -n 1 "$tmp/err.txt" | cut -c1-120)"
done
# Invalid UTF-8 fails alone: the good lines around it are translated.
printf 'A dog runs.\nbad \xff byte\nTwo men.\n' | wasm translate -m "$model" --format json > "$tmp/out.txt" 2> "$tmp/err.txt" || true  # (exit 1: a line failed)
if [ "$(grep -c '"error"' "$tmp/out.txt")" != 1 ] || [ "$(grep -c '"text"' "$tmp/out.txt")" != 2 ]; then
  echo "node-check: invalid UTF-8: want one error line and two translations, got:"; cat "$tmp/out.txt" "$tmp/err.txt"; exit 1
fi
echo "node-check: invalid UTF-8 fails alone: $(grep -o '"error":"[^"]*' "$tmp/out.txt" | cut -c10-110)"
