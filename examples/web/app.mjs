// The example page's script: the JavaScript API in a Web Worker (package/worker.mjs), fed what is typed; the
// status line shows the model's size, the WebAssembly memory and the speed of the last translation.
const status = document.getElementById('status');
const source = document.getElementById('source');
const target = document.getElementById('target');

const worker = new Worker(new URL('./package/worker.mjs', import.meta.url), { type: 'module' });
let next = 0;
const pending = new Map();
worker.onmessage = ({ data }) => {
  if (data.token) return;  // a streamed token (this page asks for none)
  const p = pending.get(data.id);
  pending.delete(data.id);
  if (data.error) p.reject(new Error(data.error.message));
  else p.resolve(data.result);
};
const ask = (message, transfer = []) => new Promise((resolve, reject) => {
  const id = ++next;
  pending.set(id, { resolve, reject });
  worker.postMessage({ id, ...message }, transfer);
});

window.ternAsk = ask;  // for the page's tests and measurements (targets/wasm/browser-test.py)

const mib = (bytes) => (bytes / 1048576).toFixed(1) + ' MiB';
let threadsNote = '';  // "; N threads" (more than one on a cross-origin isolated page: package/tern.mjs)

async function start() {
  const t0 = performance.now();
  const bytes = await (await fetch('en-de.int8.tern')).arrayBuffer();
  const loaded = await ask({ op: 'load', source: bytes, name: 'en-de.int8.tern' }, [bytes]);
  const info = await ask({ op: 'translator', config: {} });
  status.textContent = `model ${mib(loaded.bytes)} loaded in ${Math.round(performance.now() - t0)} ms; ` +
                       `WebAssembly memory ${mib(info.memoryBytes)}`;
  threadsNote = `; ${info.threads} thread${info.threads > 1 ? 's' : ''}`;
  status.textContent += threadsNote;
  document.body.dataset.threads = String(info.threads);
  source.disabled = false;
  source.focus();
  document.body.dataset.ready = '1';
}

let latest = 0;
async function translate() {
  const request = ++latest;
  const text = source.value.trim();
  if (!text) {
    target.textContent = '';
    return;
  }
  const t0 = performance.now();
  const [r] = await ask({ op: 'translate', texts: [text], options: {} });
  if (request !== latest) return;  // typed on meanwhile: a newer request answers
  const ms = performance.now() - t0;
  if (!r.ok) {
    target.textContent = '';
    status.textContent = r.error;
    return;
  }
  const tokens = r.hypotheses[0].tokens.length;
  const { memoryBytes } = await ask({ op: 'memory' });
  target.textContent = r.hypotheses[0].text;
  target.dataset.source = text;
  status.textContent = `${tokens} tokens in ${Math.round(ms)} ms (${Math.round(tokens / (ms / 1000))} tokens/s); ` +
                       `WebAssembly memory ${mib(memoryBytes)}${threadsNote}`;
}

let timer = 0;
source.addEventListener('input', () => {
  clearTimeout(timer);
  timer = setTimeout(translate, 150);
});
start().catch((e) => { status.textContent = 'could not load the model: ' + e.message; });
