// Greedy, one sentence per call, one thread: tokens/s of the JavaScript API under Node (the number beside
// native tern's `tern-bench --beam 1 --batch 1 --threads 1` in docs/targets.md).
// Usage: node bench/wasm_speed.mjs build-wasm/targets/wasm/site/package/tern.mjs MODEL INPUT [LINES]
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import os from 'node:os';

const [api, modelPath, inputPath, n = '200'] = process.argv.slice(2);
const tern = await import(pathToFileURL(api).href);
const lines = readFileSync(inputPath, 'utf8').split('\n').filter((l) => l).slice(0, Number(n));
const model = await tern.loadModel(readFileSync(modelPath), { name: modelPath });
const t = model.translator({ maxBatch: 1 });
await t.translate([lines[0]], { beamSize: 1, splitSentences: false });  // warm-up
let tokens = 0;
const t0 = performance.now();
for (const line of lines) {
  const [r] = await t.translate([line], { beamSize: 1, splitSentences: false });
  tokens += r.hypotheses[0].tokens.length;
}
const s = (performance.now() - t0) / 1000;
console.log(JSON.stringify({ system: 'tern wasm (Node ' + process.versions.node + ')', cpu: os.cpus()[0].model,
  sentences: lines.length, target_tokens: tokens, seconds: s, tokens_per_s: tokens / s,
  memory_mib: (await tern.memoryBytes()) / 1048576 }));
