#!/usr/bin/env bash
# Builds tern (Release) and translates a few English sentences with the bundled en-de model. If the
# bundled model is missing, converts a tiny random test model instead (its output is not German).
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --preset default > /dev/null
cmake --build --preset default
model=models/en-de/en-de.int8.tern
if [ ! -f "$model" ]; then
  echo "demo: $model not found; using a tiny random model (output is noise)" >&2
  /usr/bin/python3 converter/pytorch/make_tiny.py build/demo-tiny
  build/converter/tern-convert -q build/demo-tiny build/demo-tiny.tern
  model=build/demo-tiny.tern
fi
printf '%s\n' \
  "A man in a blue shirt is standing on a ladder." \
  "Two young children are playing in the sand." \
  "A woman is riding a bicycle down the street." \
  "A black dog runs through the grass." |
  build/targets/desktop/tern translate -m "$model" --verbose
