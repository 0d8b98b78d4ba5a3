// Greedy tokens/s of the JavaScript API under Node (the number beside native tern's `tern-bench --beam 1
// --batch B --threads T` in docs/performance.md): LINES lines of INPUT, BATCH texts per call (default 1, one
// sentence per call), on a translator of THREADS threads (default 1; more loads tern-web-threads, the package's
// threaded module, which Node runs on worker threads).
// Usage: node bench/wasm_speed.mjs build-wasm/targets/wasm/site/package/tern.mjs MODEL INPUT [LINES [THREADS [BATCH]]]
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import os from 'node:os';

const [api, modelPath, inputPath, n = '200', threadsArg = '1', batchArg = '1'] = process.argv.slice(2);
const [threads, batch] = [Number(threadsArg), Number(batchArg)];
const tern = await import(pathToFileURL(api).href);
await tern.init({ threads: threads > 1 });
const lines = readFileSync(inputPath, 'utf8').split('\n').filter((l) => l).slice(0, Number(n));
const model = await tern.loadModel(readFileSync(modelPath), { name: modelPath });
const t = model.translator({ maxBatch: batch, threads });
const options = { beamSize: 1, splitSentences: false };
await t.translate(lines.slice(0, batch), options);  // warm-up
let tokens = 0;
const t0 = performance.now();
for (let i = 0; i < lines.length; i += batch) {
  for (const r of await t.translate(lines.slice(i, i + batch), options)) tokens += r.hypotheses[0].tokens.length;
}
const s = (performance.now() - t0) / 1000;
console.log(JSON.stringify({ system: 'tern wasm (Node ' + process.versions.node + ')', cpu: os.cpus()[0].model,
  threads: t.threads, batch, sentences: lines.length, target_tokens: tokens, seconds: s, tokens_per_s: tokens / s,
  memory_mib: (await tern.memoryBytes()) / 1048576 }));
