#!/usr/bin/env bash
# Downloads Multi30k task 1 raw text (train, val, test_2016_flickr in en, de, fr, cs) into DIR, for users
# with internet access (the repository never holds the data). Default DIR: ../shared/data/multi30k.
# Source: the public Multi30k repository (github.com/multi30k/dataset, data/task1/raw), unpacked from .gz.
set -euo pipefail
dir=${1:-"$(cd "$(dirname "$0")/.." && pwd)/../shared/data/multi30k"}
base=https://raw.githubusercontent.com/multi30k/dataset/master/data/task1/raw
mkdir -p "$dir"
for split in train val test_2016_flickr; do
  for lang in en de fr cs; do
    out="$dir/$split.$lang"
    [ -s "$out" ] && continue
    echo "get-multi30k: $split.$lang"
    curl -fsSL "$base/$split.$lang.gz" | gunzip > "$out.tmp"
    mv "$out.tmp" "$out"
  done
done
wc -l "$dir"/*.en
