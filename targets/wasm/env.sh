# Sourced before Emscripten runs (targets/wasm/build-deps.sh, .ci/run's wasm stage): Debian's Emscripten tools
# import the Node package 'acorn' from /usr/share/nodejs, where this Node's ES-module resolution does not look
# (targets/wasm/debian-node-modules.mjs maps it).
export NODE_OPTIONS="--import=file://$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/debian-node-modules.mjs${NODE_OPTIONS:+ $NODE_OPTIONS}"
