// The JavaScript API in a Web Worker (or a Node worker thread): the page posts requests, the worker runs
// tern.mjs and posts the answers, so that the page's thread never waits for a translation. Protocol, one
// message each way per request:
//   -> { id, op: 'load', source, name }        source: an ArrayBuffer (transferred) or a URL
//   -> { id, op: 'translator', config }        on the loaded model (one per worker): { maxBatch, threads, memoryBytes }
//   -> { id, op: 'translate', texts, options, stream, cancel }
//        stream: true posts each token as { id, token: TokenEvent } before the answer; cancel: a SharedArrayBuffer
//        (cross-origin isolated pages) whose first Int32 the page sets to stop the call at its next step
//   -> { id, op: 'memory' }                    the WebAssembly memory, bytes ({ memoryBytes })
//   <- { id, result } or { id, error: { message, code } }
// Requests run one at a time, in order.
import { loadModel, memoryBytes } from './tern.mjs';

const port = typeof self !== 'undefined' && typeof self.postMessage === 'function'
  ? self
  : (await import('node:worker_threads')).parentPort;

let model = null;
let translator = null;
let queue = Promise.resolve();

async function run(message) {
  switch (message.op) {
    case 'load':
      translator?.close();
      model?.close();
      translator = null;
      model = await loadModel(message.source, { name: message.name });
      return { bytes: model.bytes };
    case 'translator':
      if (!model) throw new Error('no model: send { op: "load" } first');
      translator?.close();
      translator = model.translator(message.config ?? {});
      return { maxBatch: translator.maxBatch, threads: translator.threads, memoryBytes: await memoryBytes() };
    case 'translate':
      if (!translator) translator = model ? model.translator() : null;
      if (!translator) throw new Error('no model: send { op: "load" } first');
      return translator.translate(message.texts, message.options ?? {}, message.stream || message.cancel ? {
        onToken: message.stream ? (event) => { port.postMessage({ id: message.id, token: event }); } : undefined,
        cancelFlag: message.cancel ? new Int32Array(message.cancel) : undefined,
      } : null);
    case 'memory':
      return { memoryBytes: await memoryBytes() };
    default:
      throw new Error(`unknown op ${message.op}`);
  }
}

function onMessage(event) {
  const message = event?.data ?? event;  // a Web Worker's MessageEvent, or Node's value
  queue = queue.then(async () => {
    try {
      port.postMessage({ id: message.id, result: await run(message) });
    } catch (e) {
      port.postMessage({ id: message.id, error: { message: e.message, code: e.code ?? 0 } });
    }
  });
}

if (typeof port.addEventListener === 'function' && typeof self !== 'undefined') port.addEventListener('message', onMessage);
else port.on('message', onMessage);
