#!/usr/bin/env bash
# Downloads the tokenizer and config files (not the weights) of two real OPUS-MT models into
# ~/.cache/tern/opus-assets (or $TERN_OPUS_ASSETS), where tests/opus_shapes_test.sh and the benchmarks
# look for them; without them those use generated stand-ins. Needs access to huggingface.co; each file
# is retried with backoff (scripts/retry.sh). Nothing lands in the repository.
#   scripts/get-opus-assets.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/retry.sh"
root=${TERN_OPUS_ASSETS:-${XDG_CACHE_HOME:-$HOME/.cache}/tern/opus-assets}
get() {  # REPO DIR FILE...
  local repo=$1 dir=$root/$2
  shift 2
  mkdir -p "$dir"
  for f in "$@"; do
    [ -s "$dir/$f" ] && continue
    retry 3 10 curl -fsSL -o "$dir/$f.part" "https://huggingface.co/$repo/resolve/main/$f" && mv "$dir/$f.part" "$dir/$f"
  done
}
get Helsinki-NLP/opus-mt-tc-big-en-pt tc-big-en-pt config.json generation_config.json tokenizer_config.json \
  source.spm target.spm vocab.json
get Helsinki-NLP/opus-mt-en-mg en-mg config.json tokenizer_config.json source.spm target.spm vocab.json
echo "get-opus-assets: $root"
