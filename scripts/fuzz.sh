#!/usr/bin/env bash
# Builds the libFuzzer targets (preset `fuzz`: clang, ASan + UBSan) and runs each for SECONDS (default 60)
# from seeds made of the tiny test models, plus every regression input under tests/fuzz/regressions/.
# A crash leaves its input in build-fuzz/crashes/ and fails the script: turn it into a fix and a
# regression file.
# Usage: scripts/fuzz.sh [SECONDS]   (needs the default build for tern-convert and the test models)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
cmake --preset fuzz > /dev/null
cmake --build --preset fuzz
models=build-fuzz/test-models
[ -f "$models/post-swish.int8.tern" ] || scripts/make-test-models.sh "$models" build/converter/tern-convert > /dev/null
work=build-fuzz/corpus
rm -rf "$work" && mkdir -p "$work"/{loader,translate,parsers} build-fuzz/crashes
cp "$models"/*.tern "$work/loader/"
printf 'A man in a blue shirt.' > "$work/translate/seed1"
printf 'Zwei Kinder\nspielen \xff\n\n   ' > "$work/translate/seed2"
printf '\x00' | cat - "$models/post-swish/model.safetensors" > "$work/parsers/safetensors"
printf '\x01' | cat - "$models/post-swish/config.json" > "$work/parsers/config"
printf '\x02' | cat - "$models/post-swish/vocab.json" > "$work/parsers/vocab"
printf '\x03' | cat - "$models/post-swish/generation_config.json" > "$work/parsers/generation"
for kind in loader translate parsers; do
  [ -d "tests/fuzz/regressions/$kind" ] && cp tests/fuzz/regressions/$kind/* "$work/$kind/" 2>/dev/null || true
done
export TERN_FUZZ_MODEL="$PWD/$models/post-swish.int8.tern"
run() {  # run TARGET CORPUS
  echo "fuzz: $1 for ${seconds}s"
  build-fuzz/tests/fuzz/"$1" -max_total_time="$seconds" -rss_limit_mb=4096 -max_len=1200000 \
    -artifact_prefix=build-fuzz/crashes/"$1"- -print_final_stats=1 "$2" 2>&1 | grep -E "^(Done|stat::number_of_executed_units|==[0-9]+==ERROR|SUMMARY)" || true
  test "${PIPESTATUS[0]}" -eq 0
}
status=0
run fuzz_loader "$work/loader" || status=1
run fuzz_translate "$work/translate" || status=1
run fuzz_converter_parsers "$work/parsers" || status=1
if [ $status -ne 0 ]; then echo "fuzz: crashes in build-fuzz/crashes/"; ls build-fuzz/crashes; fi
exit $status
