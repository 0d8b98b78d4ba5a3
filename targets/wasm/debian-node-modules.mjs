// Node loader hook for Emscripten from Debian: its tools import the bare package 'acorn', which Debian installs
// under /usr/share/nodejs; this Node's ES-module resolution does not look there. Loaded through
// NODE_OPTIONS=--import (targets/wasm/env.sh) for the compiler's own Node steps only.
import { register } from 'node:module';

register('data:text/javascript,' + encodeURIComponent(`
export async function resolve(specifier, context, next) {
  if (specifier === 'acorn') return next('file:///usr/share/nodejs/acorn/dist/acorn.mjs', context);
  return next(specifier, context);
}`));
