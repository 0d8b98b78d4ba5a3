#!/usr/bin/env bash
# Builds the tern command (Release; only it: `cmake --build --preset default` builds the rest, the tests and
# benchmarks) and translates a few English sentences with the bundled en-de model. If the bundled model is
# missing, builds tern-convert and converts a tiny random test model instead (its output is not German).
set -euo pipefail
cd "$(dirname "$0")/.."
# Without the Python package (its pybind11 comes with `scripts/setup.sh test`); the preset turns it on again at
# the next `cmake --preset default` or `cmake --workflow --preset default`.
cmake --preset default -DTERN_BUILD_PYTHON=OFF > /dev/null
cmake --build --preset default --target tern_bin
model=models/en-de/en-de.int8.tern
if [ ! -f "$model" ]; then
  echo "demo: $model not found; using a tiny random model (output is noise; needs PyTorch: scripts/setup.sh test)" >&2
  cmake --build --preset default --target tern-convert
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
