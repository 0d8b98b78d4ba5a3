// The JavaScript API under Node (CTest wasm_js_api, preset wasm): translations equal to the native build's
// expected output, options from the field table reaching the call (n-best, alignment, attention), a call wrong
// as a whole rejected with a TernError (an unknown option, a value out of range), invalid UTF-8 failing its text
// alone, a hostile model file refused, and the same translation through the Web Worker protocol (worker.mjs in
// a Node worker thread), the token stream and its cancellation (onToken, an AbortSignal, a SharedArrayBuffer flag
// set by another thread while the worker translates).
// With --threads N (CTest wasm_threads_js_api, preset wasm-threads): the same through tern-web-threads with a
// translator of N threads, FLICKR's first 200 lines identical at 1 and N threads (greedy and beam 4), and a
// module whose pool Workers are all held giving a new translator one thread instead of waiting; the worker
// protocol is the one-thread run's (and the isolated page's in Chromium).
// Usage: node test.mjs PACKAGE/tern.mjs MODEL INPUT EXPECTED [--threads N [FLICKR]]
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { cpus } from 'node:os';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

const [api, modelPath, inputPath, expectedPath, threadsFlag, threadsArg, flickrPath] = process.argv.slice(2);
const threads = threadsFlag === '--threads' ? Number(threadsArg) : 0;
const tern = await import(pathToFileURL(api).href);
if (threads) await tern.init({ threads: true });
const lines = (p) => readFileSync(p, 'utf8').split('\n').filter((l) => l.length > 0);
const bytes = readFileSync(modelPath);
let checks = 0;
const ok = (what) => { checks++; console.log('ok', what); };

// 0. package.json's "files" lists every file the package directory has (a module left out would not be packed).
const packageDir = dirname(api);
const listed = JSON.parse(readFileSync(`${packageDir}/package.json`, 'utf8')).files;
for (const f of readdirSync(packageDir)) if (f !== 'package.json') assert.ok(listed.includes(f), `package.json's files lacks ${f}`);
ok(`package.json lists the package's ${readdirSync(packageDir).length - 1} files`);

const model = await tern.loadModel(new Uint8Array(bytes), { name: 'en-de.int8.tern' });
const translator = model.translator({ maxNBest: 2, attention: true, ...(threads ? { threads } : {}) });
assert.equal(await tern.hasThreads(), threads > 0);
assert.equal(translator.threads, threads ? Math.min(threads, cpus().length, 4) : 1);
if (threads) ok(`tern-web-threads: a translator of ${translator.threads} threads`);

// 1. The bundled sentences as the native build translates them (tests/data/bundled.int8.de).
const input = lines(inputPath), expected = lines(expectedPath);
const results = await translator.translate(input);
assert.deepEqual(results.map((r) => r.hypotheses[0].text), expected);
ok(`${input.length} sentences equal the native build's`);

// 2. The options reach the call; every result field is there.
const [r] = await translator.translate(['A dog runs on the grass.'],
  { beamSize: 4, nBest: 2, returnAlignment: true, returnAttention: true, splitSentences: false });
assert.equal(r.hypotheses.length, 2);
const h = r.hypotheses[0];
for (const f of ['text', 'ids', 'score', 'tokens', 'tokenLogprobs', 'tokenSources', 'tokenSpans', 'attention'])
  assert.ok(f in h, `hypothesis field ${f}`);
assert.equal(h.tokenLogprobs.length, h.tokens.length);
assert.equal(h.attention.length, h.tokens.length * r.sourceIds.length);
assert.ok(h.tokenSources.every((s) => s >= 0 && s < r.sourceIds.length));
assert.deepEqual(h.tokenSpans.map(([b, e]) => new TextEncoder().encode(h.text).slice(b, e).length), h.tokenSpans.map(([b, e]) => e - b));
ok('nBest, alignment and attention reach the call; every result field is there');

// 3. A call wrong as a whole rejects; the translator stays usable.
await assert.rejects(translator.translate(['A dog.'], { beemSize: 4 }), (e) => e instanceof tern.TernError && /no option 'beemSize'/.test(e.message));
await assert.rejects(translator.translate(['A dog.'], { beamSize: 0 }), (e) => e instanceof tern.TernError && /beam_size 0/.test(e.message));
await assert.rejects(translator.translate(['A dog.'], { returnScores: 'yes' }), (e) => /options.returnScores: a boolean/.test(e.message));
assert.throws(() => model.translator({ maxBatch: 1.5 }), (e) => e instanceof tern.TernError && /config.maxBatch/.test(e.message));
assert.throws(() => model.translator({ maxBach: 4 }), (e) => e instanceof tern.TernError && /no field 'maxBach'/.test(e.message));
ok('an unknown option, values out of range and a bad translator config are refused with a TernError');

// 3b. A seeded sampled call gives the same output at any maxBatch: the module runs the chunks (tern/call_chunks.h)
// and keys each text by its index in the call (a JavaScript loop restarted the keys per chunk: 8 of 24 alike).
{
  const texts = Array.from({ length: 24 }, (_, i) => `A dog number ${i} runs on the beach.`);
  const sampled = { doSample: true, samplingTopK: 0, samplingTemperature: 1.5, seed: 7, maxLength: 16 };
  const texts_of = async (maxBatch) => {
    const t = model.translator({ maxBatch });
    const out = (await t.translate(texts, sampled)).map((x) => x.hypotheses[0].text);
    t.close();
    return out;
  };
  const one = await texts_of(1);
  for (const b of [3, 8]) assert.deepEqual(await texts_of(b), one, `maxBatch ${b}`);
  ok('a seeded sampled call of 24 texts: the same output at maxBatch 1, 3 and 8');
}

// 4. Invalid UTF-8 fails its text alone.
const mixed = await translator.translate(['A dog.', new Uint8Array([0x62, 0x61, 0x64, 0xff]), 'Two men.']);
assert.deepEqual(mixed.map((x) => x.ok), [true, false, true]);
assert.match(mixed[1].error, /invalid UTF-8/);
ok(`invalid UTF-8 fails alone: ${mixed[1].error}`);

// 5. Hostile model files are refused with the model's name.
await assert.rejects(tern.loadModel(bytes.subarray(0, bytes.length >> 1), { name: 'half.tern' }),
  (e) => e instanceof tern.TernError && /half.tern/.test(e.message));
const flipped = new Uint8Array(bytes);
flipped.fill(0xff, 0, 8);
await assert.rejects(tern.loadModel(flipped, { name: 'flipped.tern' }), (e) => e instanceof tern.TernError && /flipped.tern/.test(e.message));
ok('a truncated and a corrupted model are refused');
// 6. The token stream: each token as it is chosen; onToken returning true stops the call; an aborted signal.
const events = [];
const [streamed] = await translator.translate(['A dog runs on the grass.'], { beamSize: 1 }, { onToken: (e) => { events.push(e); } });
assert.equal(events.map((e) => e.text).join(''), streamed.hypotheses[0].text);
assert.deepEqual(events.map((e) => e.token), streamed.hypotheses[0].tokens);
assert.ok(events.at(-1).last && events.every((e) => e.input === 0));
let seen = 0;
const stopped = await translator.translate(['A dog runs on the grass.', 'Two men play music.'], { beamSize: 1 }, { onToken: () => ++seen >= 2 });
assert.ok(stopped.some((x) => !x.ok && x.code === 9), 'a stopped call has cancelled results');
const controller = new AbortController();
controller.abort();
const aborted = await translator.translate(['A dog.', 'Two men.'], {}, { signal: controller.signal });
assert.deepEqual(aborted.map((x) => x.code), [9, 9]);
ok('the token stream, a callback that stops the call, an aborted signal');
translator.close();

if (threads) {
  // 7. The same translations at 1 and N threads; a translator never waits for a pool Worker.
  if (flickrPath && existsSync(flickrPath)) {
    const flickr = lines(flickrPath).slice(0, 200);
    const one = model.translator({ threads: 1 });
    const many = model.translator({ threads });
    for (const beamSize of [1, 4]) {
      const a = await one.translate(flickr, { beamSize, returnScores: true });
      const b = await many.translate(flickr, { beamSize, returnScores: true });
      assert.deepEqual(b, a, `beam ${beamSize}: ${many.threads} threads against 1`);
    }
    ok(`${flickr.length} lines of ${flickrPath.split('/').at(-1)}, greedy and beam 4: ${many.threads} threads = 1 thread`);
    one.close();
    many.close();
  }
  const held = [];
  while (held.length < 8 && (held.length === 0 || held.at(-1).threads > 1)) held.push(model.translator({ threads: 2 }));
  const last = held.at(-1);
  assert.equal(last.threads, 1, 'the pool runs out after a few translators of 2 threads');
  assert.deepEqual((await last.translate(input.slice(0, 2))).map((x) => x.hypotheses[0].text), expected.slice(0, 2));
  held.forEach((t) => t.close());
  const again = model.translator({ threads: 2 });
  assert.equal(again.threads, Math.min(2, cpus().length));
  again.close();
  model.close();
  ok(`${held.length - 1} translators of 2 threads hold the pool; the next gets 1 thread and translates; closed, their Workers return`);
  console.log(`js api (threads): ${checks} checks passed`);
  process.exit(0);
}
model.close();

// 6. The Web Worker protocol (worker.mjs) in a worker thread.
const worker = new Worker(new URL('./worker.mjs', pathToFileURL(api)));
let next = 0;
const pending = new Map();
const tokens = new Map();  // id -> the streamed events
worker.on('message', (m) => {
  if (m.token) return (tokens.get(m.id) ?? tokens.set(m.id, []).get(m.id)).push(m.token);
  const p = pending.get(m.id);
  pending.delete(m.id);
  m.error ? p.reject(m.error) : p.resolve(m.result);
});
const ask = (message, transfer) => new Promise((resolve, reject) => {
  const id = ++next;
  pending.set(id, { resolve, reject });
  worker.postMessage({ id, ...message }, transfer);
});
const copy = new Uint8Array(bytes).buffer;
await ask({ op: 'load', source: copy, name: 'en-de.int8.tern' }, [copy]);
const viaWorker = await ask({ op: 'translate', texts: input.slice(0, 3) });
assert.deepEqual(viaWorker.map((x) => x.hypotheses[0].text), expected.slice(0, 3));
await assert.rejects(ask({ op: 'translate', texts: ['x'], options: { nBest: 'two' } }), (e) => /options.nBest/.test(e.message));
// Streaming through the worker, and a cancel flag set here while the worker translates (one text per chunk).
await ask({ op: 'translator', config: { maxBatch: 1 } });
const flag = new SharedArrayBuffer(4);
const many = Array.from({ length: 40 }, (_, i) => input[i % input.length]);
const first = new Promise((resolve) => { worker.on('message', (m) => { if (m.token) resolve(); }); });
const running = ask({ op: 'translate', texts: many, stream: true, cancel: flag });
await first;
Atomics.store(new Int32Array(flag), 0, 1);
const partial = await running;
const done = partial.filter((x) => x.ok).length;
assert.equal(partial.length, many.length);
assert.ok(done < many.length && partial.slice(done).every((x) => !x.ok && x.code === 9), `cancelled while running: ${done} of ${many.length} finished`);
assert.ok(tokens.get(next).length > 0);
await worker.terminate();
ok(`the worker protocol translates, streams, stops on the shared flag (${done} of ${many.length} finished) and reports errors`);
console.log(`js api: ${checks} checks passed`);
