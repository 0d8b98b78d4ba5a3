#!/usr/bin/env bash
# The two real OPUS-MT shapes end to end: a random-weight checkpoint of each (converter/pytorch/
# make_opus_shape.py, 1+1 layers so the test stays fast; the vocabulary, widths and special ids are the
# real ones), converted to int8, loaded, translated greedy and beam 2; `tern tokenize` checked against
# MarianTokenizer's rules on its tokenizer files (tests/python/marian_tokenizer_check.py); the
# multilingual tc-big shape with --target-lang. Prints file size, load time, arena bytes and peak RSS.
#
# Tokenizer files: the real ones when present in $TERN_OPUS_ASSETS (else ../shared/opus-assets beside the
# repository, as $TERN_SHARED_DIR names it, else ~/.cache/tern/opus-assets; tests/test_spm_encoder.cc looks
# in the same places),
# directories tc-big-en-pt/ and en-mg/ holding config.json, source.spm, target.spm, vocab.json (from
# Helsinki-NLP/opus-mt-tc-big-en-pt and an opus-mt-en-mg export; scripts/get-opus-assets.sh downloads
# them where there is internet); else stand-ins generated at test time (SentencePiece trained on
# Multi30k, or without it on text made from the bundled model's vocabulary; a vocab.json of the real size
# and special ids). The test says which it used.
#   tests/opus_shapes_test.sh TERN TERN_CONVERT WORK_DIR
set -uo pipefail
tern_bin=$1 convert=$2 work=$3
here=$(cd "$(dirname "$0")/.." && pwd)
py=/usr/bin/python3
shared=${TERN_SHARED_DIR:-$here/../shared}
if [ -n "${TERN_OPUS_ASSETS:-}" ]; then assets_root=$TERN_OPUS_ASSETS
elif [ -d "$shared/opus-assets" ]; then assets_root=$shared/opus-assets
else assets_root=${XDG_CACHE_HOME:-$HOME/.cache}/tern/opus-assets
fi
mkdir -p "$work"
fail=0
check() { local what=$1; shift; if "$@"; then echo "ok: $what"; else echo "FAILED: $what"; fail=$((fail + 1)); fi; }

for spec in classic:en-mg tc-big:tc-big-en-pt; do
  shape=${spec%%:*} assets=$assets_root/${spec#*:}
  if [ -f "$assets/vocab.json" ] && [ -f "$assets/source.spm" ] && [ -f "$assets/config.json" ]; then
    kind=real; args=(--assets "$assets")
  elif [ -f "$shared/data/multi30k/train.en" ]; then
    kind=stand-in; args=()
  else  # a user's clone: SentencePiece trained on text made from the bundled model's vocabulary
    kind=stand-in-bundled; args=()
  fi
  ckpt=$work/$shape-$kind
  if [ ! -f "$ckpt/.done" ]; then
    rm -rf "$ckpt"
    "$py" "$here/converter/pytorch/make_opus_shape.py" "$ckpt" --shape "$shape" --layers 1 "${args[@]}" || { fail=$((fail + 1)); continue; }
    touch "$ckpt/.done"
  fi
  model=$work/$shape-$kind.int8.tern
  t0=$(date +%s%N)
  check "$shape ($kind tokenizer files): converts to int8" "$convert" -q "$ckpt" "$model"
  convert_ms=$(( ($(date +%s%N) - t0) / 1000000 ))
  check "$shape: tokenize agrees with MarianTokenizer's rules" "$py" "$here/tests/python/marian_tokenizer_check.py" "$ckpt" "$tern_bin" "$model"
  lang=()
  if [ "$shape" = tc-big ]; then lang=(--target-lang por); fi
  printf 'A man in a blue shirt is standing on a ladder.\nTwo children play. A dog runs.\n' > "$work/in.txt"
  "$tern_bin" translate -m "$model" --beam 1 --max-length 12 --threads 1 --verbose "${lang[@]}" --input "$work/in.txt" \
    --output "$work/out.txt" 2> "$work/verbose.txt"
  check "$shape: greedy translates every line" test "$(wc -l < "$work/out.txt")" -eq 2
  "$tern_bin" translate -m "$model" --beam 2 --max-length 12 --threads 1 "${lang[@]}" --input "$work/in.txt" --output "$work/out2.txt"
  check "$shape: beam 2 translates every line" test "$(wc -l < "$work/out2.txt")" -eq 2
  file_mib=$(awk -v b="$(stat -c %s "$model")" 'BEGIN { printf "%.1f", b / 1048576 }')
  load_ms=$(sed -n 's/.*loaded in \([0-9.]*\) ms.*/\1/p' "$work/verbose.txt")
  arena=$(sed -n 's/.*arena \([0-9]*\) bytes.*/\1/p' "$work/verbose.txt")
  rss=$(sed -n 's/.*peak RSS \([0-9.]*\) MiB.*/\1/p' "$work/verbose.txt")
  echo "figures: $shape (1+1 layers, $kind tokenizer files): file $file_mib MiB, converted in $convert_ms ms, load $load_ms ms, arena $arena bytes, peak RSS $rss MiB"
  if [ "$shape" = tc-big ]; then
    "$tern_bin" translate -m "$model" --max-length 4 --input "$work/in.txt" --output /dev/null 2> "$work/warn.txt"
    check "tc-big: a line without a language token is warned about" grep -q "give --target-lang" "$work/warn.txt"
    "$tern_bin" translate -m "$model" --max-length 4 --target-lang xyz --input "$work/in.txt" --output /dev/null 2> "$work/err.txt"
    check "tc-big: an unknown --target-lang is refused, naming the model's languages" \
      grep -q "the model has no >>xyz<< token (it has >>pob<<, >>por<<)" "$work/err.txt"
    "$tern_bin" inspect "$model" > "$work/inspect.txt"
    check "tc-big: inspect lists the language tokens" grep -q '^tokenizer.language_tokens: \[">>pob<<",">>por<<"\]' "$work/inspect.txt"
    check "tc-big: renormalize_logits and forced EOS kept from generation_config.json" \
      grep -q '^generation.renormalize_logits: true' "$work/inspect.txt"
  fi
done
echo "opus_shapes_test: $fail failed"
test $fail -eq 0
