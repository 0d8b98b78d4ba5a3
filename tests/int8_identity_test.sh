#!/usr/bin/env bash
# The same int8 output on every CPU (docs/design.md "Identical int8 output on every CPU"): the bundled int8 model
# translates the first LINES lines of Multi30k test_2016_flickr, tokenized by `tern tokenize`, as ids
# (`--no-split --ids --exact-scores`, 1 thread), greedy, beam 4 and sampled (temperature 0.9, top-p 0.95,
# seed 42: tern's own generator), on the host or a target under qemu ($TERN_EMULATOR, $TERN_QEMU_CPU picks
# the core); the SHA-256 of each output must equal the one recorded on x86-64 in HASHES ("greedy <hash>",
# "beam4 <hash>", "sample <hash>" for that many lines). TERN_IDENTITY_RECORD=1 prints "search lines hash"
# lines instead (scripts/int8_identity.sh --record).
# Usage: int8_identity_test.sh TERN MODEL SHARED_DIR LINES HASHES   ($TERN_SHARED_DIR, if set, replaces SHARED_DIR:
# the data beside the repository, ../shared; a user's clone has none and the test is skipped)
set -uo pipefail
tern_bin=$1 model=$2 shared=${TERN_SHARED_DIR:-$3} lines=$4 hashes=$5
text=$shared/data/multi30k/test_2016_flickr.en
if [ ! -f "$text" ]; then echo "SKIP: $text not found (Multi30k beside the repository)"; exit 77; fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
head -n "$lines" "$text" > "$tmp/src.en"
${TERN_EMULATOR:-} "$tern_bin" tokenize -m "$model" --input "$tmp/src.en" > "$tmp/src.ids" || { echo "FAILED: tokenize"; exit 1; }
fail=0
for search in greedy beam4 sample; do
  case $search in
    greedy) how=(--beam 1) ;;
    beam4) how=(--beam 4) ;;
    sample) how=(--beam 1 --sample --sample-temperature 0.9 --sample-topp 0.95 --seed 42) ;;
  esac
  ${TERN_EMULATOR:-} "$tern_bin" translate -m "$model" --input "$tmp/src.ids" --output "$tmp/$search.out" --ids --no-split \
    --exact-scores --threads 1 "${how[@]}" || { echo "FAILED: translate $search"; fail=1; continue; }
  got=$(sha256sum < "$tmp/$search.out" | cut -d' ' -f1)
  if [ "${TERN_IDENTITY_RECORD:-0}" = 1 ]; then echo "$search $lines $got"; continue; fi
  want=$(awk -v s="$search" -v n="$lines" '$1 == s && $2 == n { print $3 }' "$hashes")
  echo "$search, $lines lines: sha256 $got (x86-64: ${want:-none recorded})"
  if [ "$got" != "$want" ]; then
    echo "FAILED: $search output differs from x86-64's; its first lines:"; head -n 5 "$tmp/$search.out"; fail=1
  fi
done
exit $fail
