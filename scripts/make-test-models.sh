#!/usr/bin/env bash
# Builds the tiny test models and their PyTorch reference outputs into DIR (used by CTest's fixture):
#   DIR/<variant>/            Marian-layout checkpoint (make_tiny.py)
#   DIR/<variant>.{f32,int8,f16,qc4w,int4,mixed}.tern, DIR/pre-relu.{int8,int4}-shortlist.tern
#   DIR/<variant>.ref.json    reference.py outputs (encoder output, logits, greedy and beam ids)
# Usage: scripts/make-test-models.sh DIR TERN_CONVERT
set -euo pipefail
dir=$1
convert=$2
here=$(cd "$(dirname "$0")/.." && pwd)
py=/usr/bin/python3
if [ ! -x "$convert" ]; then
  echo "make-test-models: no tern-convert at $convert. Build it first: for a cross build, 'cmake --build --preset" \
       "rpi-arm64' builds one for this machine (or 'cmake --workflow --preset default' the host build it uses)" >&2
  exit 1
fi
mkdir -p "$dir"
declare -A variants=(
  [post-swish]=""
  [pre-relu]="--pre-norm --activation relu"
  [gelu-learned-separate]="--activation gelu --positions learned --separate-vocab --seed 3"
  # transformers' format-2 rules: renormalize_logits, repetition_penalty, no_repeat_ngram_size, min_length;
  # a multilingual vocabulary (>>por<< and >>pob<<)
  [post-rules]="--seed 7 --language-tokens por,pob --generation {\"renormalize_logits\":true,\"repetition_penalty\":1.3,\"no_repeat_ngram_size\":2,\"min_length\":4}"
  [pre-interleaved-legacy]="--pre-norm --positions sinusoidal_interleaved --legacy-copies --seed 5"
)
for name in "${!variants[@]}"; do
  ckpt="$dir/$name"
  rm -rf "$ckpt"
  # shellcheck disable=SC2086
  "$py" "$here/converter/pytorch/make_tiny.py" "$ckpt" ${variants[$name]}
  for w in f32 int8 f16 qc4w int4 mixed; do
    # d_model 32: 4-bit blocks of 32 columns
    "$convert" -q "$ckpt" "$dir/$name.$w.tern" --weights "$w" --int4-block 32
  done
  "$py" "$here/converter/pytorch/reference.py" "$ckpt" "$dir/$name.ref.json" --sentences 8
done
# Shortlist variants of pre-relu (a shortlist from a three-line corpus): the zero-allocation test runs them.
printf 'A man in a blue shirt.\nTwo dogs play in the snow.\nA woman reads a book.\n' > "$dir/corpus.en"
printf 'Ein Mann in einem blauen Hemd.\nZwei Hunde spielen im Schnee.\nEine Frau liest ein Buch.\n' > "$dir/corpus.de"
for w in int8 int4; do
  "$convert" -q "$dir/pre-relu" "$dir/pre-relu.$w-shortlist.tern" --weights "$w" --int4-block 32 \
    --shortlist "$dir/corpus.en" "$dir/corpus.de" --shortlist-frequent 10 --shortlist-best 5
done
echo "test models in $dir"
