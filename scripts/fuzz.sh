#!/usr/bin/env bash
# Builds the libFuzzer targets (preset `fuzz`: clang, ASan + UBSan) and runs each one for a time, from
# its seed corpus, and prints the executions it made:
#   fuzz_loader           any bytes as a .tern: the verifier
#   fuzz_model_translate  any bytes as a .tern, then (if accepted) a Translator with small limits translates
#   fuzz_translate        any bytes as input text to a Translator on a tiny model
#   fuzz_converter_parsers the converter's safetensors / config.json / vocab.json / generation keys parsers,
#                         and SentencePiece models (tern's check, then SentencePiece itself)
# Seeds: tests/fuzz/seeds/<kind>/ (committed), the tiny test models and their checkpoint files (made from
# code by scripts/make-test-models.sh; nothing binary is committed for them), and every regression input
# under tests/fuzz/regressions/<kind>/. The corpus grown by a run is kept in build-fuzz/corpus/ and reused
# by the next run. A crash leaves its input in build-fuzz/crashes/ and fails the script: turn it into a fix
# and a regression file.
#
# Usage: scripts/fuzz.sh --ci                       what CI runs: each target 30,000 executions from seed 1
#                                                   on a fresh corpus (about the same inputs on any machine,
#                                                   whatever its speed), at most 180 s each
#        scripts/fuzz.sh [SECONDS]                  each target SECONDS (default 60), random seed
#        scripts/fuzz.sh --minutes N [--jobs J] [--target NAME]...
#                                                   long runs: N minutes per target, J parallel workers
# (needs the default build for tern-convert and the test models)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=60 jobs=1 targets=() ci=0 ci_runs=30000
while [ $# -gt 0 ]; do
  case "$1" in
    --minutes) seconds=$(( $2 * 60 )); shift 2 ;;
    --seconds) seconds=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --target) targets+=("$2"); shift 2 ;;
    --ci) ci=1 seconds=180; shift ;;
    -h|--help) sed -n '2,23p' "$0"; exit 0 ;;
    [0-9]*) seconds=$1; shift ;;
    *) echo "fuzz: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
[ ${#targets[@]} -gt 0 ] || targets=(fuzz_loader fuzz_model_translate fuzz_translate fuzz_converter_parsers)

cmake --preset fuzz > /dev/null
cmake --build --preset fuzz --target "${targets[@]}"
models=build-fuzz/test-models
[ -f "$models/pre-relu.int8-shortlist.tern" ] || scripts/make-test-models.sh "$models" build/converter/tern-convert > /dev/null
corpus=build-fuzz/corpus
if [ $ci -eq 1 ]; then corpus=build-fuzz/corpus-ci; rm -rf "$corpus"; fi
mkdir -p "$corpus"/{loader,translate,parsers} build-fuzz/crashes
# Seeds (copied over whatever the corpus already holds: files with the same name are the same seed).
cp "$models"/*.tern "$corpus/loader/"
cp tests/fuzz/seeds/translate/* "$corpus/translate/"
cp tests/fuzz/seeds/parsers/* "$corpus/parsers/"
printf '\x00' | cat - "$models/post-swish/model.safetensors" > "$corpus/parsers/checkpoint-safetensors"
printf '\x01' | cat - "$models/post-swish/config.json" > "$corpus/parsers/checkpoint-config"
printf '\x05' | cat - "$models/post-swish/source.spm" > "$corpus/parsers/checkpoint-spm"
for kind in loader translate parsers; do
  [ -d "tests/fuzz/regressions/$kind" ] && cp tests/fuzz/regressions/$kind/* "$corpus/$kind/" 2>/dev/null || true
done
rm -f "$corpus"/*/README.md
export TERN_FUZZ_MODEL="$PWD/$models/post-swish.int8.tern"
# Undefined behaviour is a finding like a crash: it stops the run and leaves its input.
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1

kind_of() {
  case "$1" in
    fuzz_loader|fuzz_model_translate) echo loader ;;
    fuzz_translate) echo translate ;;
    *) echo parsers ;;
  esac
}
run() {  # run TARGET: prints "fuzz: TARGET: N executions", and on a failure the report and the input
  local target=$1 log=build-fuzz/$1.log
  local extra=()
  if [ $ci -eq 1 ]; then
    echo "fuzz: $target: $ci_runs executions from seed 1 (at most ${seconds}s)"
    extra=(-seed=1 -runs="$ci_runs")
  else
    echo "fuzz: $target for ${seconds}s ($jobs worker(s))"
    [ "$jobs" -gt 1 ] && extra=(-jobs="$jobs" -workers="$jobs")
  fi
  set +e
  build-fuzz/tests/fuzz/"$target" -max_total_time="$seconds" -rss_limit_mb=4096 -max_len=1200000 -timeout=60 \
    -artifact_prefix=build-fuzz/crashes/"$target"- -print_final_stats=1 "${extra[@]}" "$corpus/$(kind_of "$target")" \
    > "$log" 2>&1
  local rc=$?
  set -e
  # With -jobs, each worker logs to fuzz-N.log in the current directory, and libFuzzer copies each one
  # into its own output when the worker exits: the log already holds every worker's figures once.
  [ "$jobs" -gt 1 ] && rm -f fuzz-*.log
  local execs
  execs=$(grep -h '^stat::number_of_executed_units' "$log" | awk '{s += $2} END {print s + 0}')
  echo "fuzz: $target: $execs executions"
  # What failed, with its stack: sanitizer reports (==N==ERROR), libFuzzer's (==N== ERROR: deadly signal,
  # after an uncaught exception's "terminate called ..."), UBSan's "runtime error".
  if [ $rc -ne 0 ]; then
    grep -a -m1 -A40 -E '^(==[0-9]+== ?ERROR|terminate called|.*: runtime error:)' "$log" | head -60
    # The failing input itself, so a CI log alone reproduces it: base64 -d > crash; TARGET crash
    grep -a -E '^(SUMMARY|Base64: |artifact_prefix=)' "$log" || true
  fi
  return $rc
}
status=0
for t in "${targets[@]}"; do run "$t" || status=1; done
if [ $status -ne 0 ]; then echo "fuzz: crashes in build-fuzz/crashes/"; ls build-fuzz/crashes; fi
exit $status
