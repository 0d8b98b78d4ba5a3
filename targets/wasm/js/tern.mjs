// tern's JavaScript API (an ES module; types in tern.d.ts): load a .tern model from bytes or a URL, make a
// Translator, translate texts. It runs wherever the module does (a Web Worker, a page, Node); worker.mjs runs
// it in a Web Worker so that a page's thread never waits for a translation. The model is verified as in every
// other binding: a hostile file fails with a TernError, never a crash. Options and results are the field
// tables' (runtime/fields/fields.py; fields.d.ts is generated from them).
//
// Two builds of the module: tern-web (one thread; runs everywhere) and tern-web-threads (pthreads: needs
// SharedArrayBuffer, so a cross-origin isolated page, a worker of one, or Node). init() takes the threaded one
// where the page is cross-origin isolated and the package has it.

/** An error of tern's: `code` is tern's StatusCode, `input` the index of the input it concerns (or -1). */
export class TernError extends Error {
  constructor(message, code = 0, input = -1) {
    super(message);
    this.name = 'TernError';
    this.code = code;
    this.input = input;
  }
}

let runtime = null;
/**
 * The WebAssembly module, instantiated once; later calls return the first one whatever their options.
 * `threads`: true loads tern-web-threads (rejects with a TernError when the package or the environment has no
 * threads), false tern-web; absent: tern-web-threads where globalThis.crossOriginIsolated is true, SharedArrayBuffer
 * exists and the package has it, else tern-web (WebKitGTK 2.50 reports an isolated page but has no
 * SharedArrayBuffer: the threaded module would never start there). The other options are Emscripten's (e.g.
 * { locateFile }).
 */
export function init(options = {}) {
  if (runtime) return runtime;
  const { threads, ...emscripten } = options;
  const want = threads ?? (globalThis.crossOriginIsolated === true && typeof SharedArrayBuffer === 'function');
  const threaded = want
    ? import('./tern-web-threads.mjs').catch((e) => {
        if (threads === true) throw new TernError(`tern-web-threads could not be loaded: ${e.message}`, 5);
        return import('./tern-web.mjs');
      })
    : import('./tern-web.mjs');
  runtime = threaded.then((m) => {
    if (threads === true && typeof SharedArrayBuffer === 'undefined')
      throw new TernError('threads need SharedArrayBuffer: serve the page cross-origin isolated (COOP + COEP headers)', 5);
    return m.default(emscripten);
  });
  runtime.catch(() => { runtime = null; });  // a failed load may be retried
  return runtime;
}

/** Whether the loaded module has threads (translators may take more than one). */
export async function hasThreads() {
  return (await init())._tern_web_has_threads() !== 0;
}

// The module's memory as bytes. With threads the memory is shared and may have grown on another thread since
// the module's own view was made: the view is renewed when its buffer is not the memory's.
function heapU8(M) {
  if (M.wasmMemory && M.HEAPU8.buffer !== M.wasmMemory.buffer) return new Uint8Array(M.wasmMemory.buffer);
  return M.HEAPU8;
}

/** The WebAssembly memory the module holds now (the model's copy, arenas, buffers), bytes. */
export async function memoryBytes() {
  return heapU8(await init()).length;
}

function lastError(M) {
  const e = JSON.parse(M.UTF8ToString(M._tern_web_last_error()));
  return new TernError(e.error, e.code);
}

function withBytes(M, bytes, fn) {
  const p = M._malloc(Math.max(1, bytes.length));
  if (!p) throw new TernError('out of WebAssembly memory for ' + bytes.length + ' bytes', 6);
  try {
    heapU8(M).set(bytes, p);
    return fn(p);
  } finally {
    M._free(p);
  }
}

function withString(M, s, fn) {
  const p = M.stringToNewUTF8(s);
  try {
    return fn(p);
  } finally {
    M._free(p);
  }
}

/**
 * Loads and verifies a model: `source` an ArrayBuffer, a typed array, or a URL (string or URL) fetched here.
 * Rejects with a TernError naming the model when the file is not a valid .tern.
 */
export async function loadModel(source, { name } = {}) {
  const M = await init();
  let bytes = source;
  if (typeof source === 'string' || source instanceof URL) {
    const response = await fetch(source);
    if (!response.ok) throw new TernError(`${source}: HTTP ${response.status}`, 3);
    bytes = new Uint8Array(await response.arrayBuffer());
    name ??= String(source);
  } else if (source instanceof ArrayBuffer) {
    bytes = new Uint8Array(source);
  } else if (ArrayBuffer.isView(source)) {
    bytes = new Uint8Array(source.buffer, source.byteOffset, source.byteLength);
  } else {
    throw new TypeError('loadModel: an ArrayBuffer, a typed array or a URL');
  }
  const handle = withBytes(M, bytes, (p) => withString(M, name ?? '<bytes>', (n) => M._tern_web_model_load(p, bytes.length, n)));
  if (!handle) throw lastError(M);
  return new Model(M, handle, bytes.length);
}

export class Model {
  constructor(M, handle, bytes) {
    this._M = M;
    this._h = handle;
    /** The file's size, bytes. */
    this.bytes = bytes;
  }

  /**
   * A Translator (its arena planned once): config { threads, maxBatch, maxBeam, maxNBest, maxSourceTokens,
   * maxTargetTokens, attention } as tern::TranslatorConfig (0 or absent: the model's defaults). threads: what
   * it may use; it gets 1 in the one-thread module, else at most 4, the logical processors the browser reports
   * (the default) and 1 + the module's free pool Workers (translator.threads says what it got). Output is the
   * same whatever the threads.
   */
  translator(config = {}) {
    if (!this._h) throw new TernError('the model was closed', 3);
    const h = withString(this._M, JSON.stringify(config), (c) => this._M._tern_web_translator_create(this._h, c));
    if (!h) throw lastError(this._M);
    return new Translator(this._M, h, this);
  }

  /** Frees the model (its Translators keep it until they are closed). */
  close() {
    if (this._h) this._M._tern_web_model_free(this._h);
    this._h = 0;
  }
}

const encoder = new TextEncoder();

export class Translator {
  constructor(M, handle, model) {
    this._M = M;
    this._h = handle;
    this._model = model;
    /** Texts per call into the module (longer calls run in chunks of it). */
    this.maxBatch = M._tern_web_max_batch(handle);
    /** The threads it translates on. */
    this.threads = M._tern_web_threads(handle);
  }

  /**
   * Translates `texts` (strings, or Uint8Arrays of UTF-8) with `options` (TranslateOptions): one result per
   * text, a text that fails (invalid UTF-8, too long) with its own error and the others translated. Rejects
   * with a TernError when the call is wrong as a whole (an unknown option, a value out of range).
   * `stream`: { onToken(event), signal, cancelFlag } — onToken gets each generated token as it is chosen
   * ({ input, part, parts, token, text, last, logprob }) and stops the call by returning true (CTranslate2's
   * convention); an aborted AbortSignal or a nonzero cancelFlag[0] (an Int32Array over a SharedArrayBuffer,
   * which another thread may set while this one translates) stops it at the next step. A stopped call resolves
   * with the finished texts' results and the others' { ok: false, code: 9 } (StatusCode::kCancelled).
   */
  async translate(texts, options = {}, stream = null) {
    if (!this._h) throw new TernError('the translator was closed', 3);
    if (!Array.isArray(texts)) throw new TypeError('translate: an array of texts');
    const optionsJson = JSON.stringify(options);
    const M = this._M;
    const stopped = () => stream && (stream.signal?.aborted || (stream.cancelFlag && Atomics.load(stream.cancelFlag, 0) !== 0));
    if (stopped()) return texts.map(() => ({ ok: false, error: 'cancelled by the caller', code: 9 }));  // StatusCode::kCancelled
    // One call into the module: it runs longer calls in chunks of maxBatch itself (tern/call_chunks.h, the one
    // loop), each text's sampling key its index in this call, whatever maxBatch is.
    const bytes = texts.map((t, i) => {
      const b = typeof t === 'string' ? encoder.encode(t) : t;
      if (!(b instanceof Uint8Array)) throw new TypeError(`translate: text ${i} is neither a string nor a Uint8Array`);
      return b;
    });
    const blob = new Uint8Array(bytes.reduce((n, b) => n + b.length, 0));
    const offsets = new Uint32Array(bytes.length + 1);
    bytes.forEach((b, i) => {
      blob.set(b, offsets[i]);
      offsets[i + 1] = offsets[i] + b.length;
    });
    if (stream) {
      M.ternOnToken = (index, part, parts, token, text, last, logprob) =>
        stream.onToken ? stream.onToken({ input: index, part, parts, token, text, last, logprob }) === true : false;
      M.ternAbort = stopped;
    }
    let answer;
    try {
      answer = withBytes(M, blob, (b) =>
        withBytes(M, new Uint8Array(offsets.buffer), (o) =>
          withString(M, optionsJson, (opt) =>
            JSON.parse(M.UTF8ToString(M._tern_web_translate(this._h, b, o, bytes.length, opt, stream ? 1 : 0))))));
    } finally {
      M.ternOnToken = M.ternAbort = null;
    }
    if (answer.error !== undefined) throw new TernError(answer.error, answer.code);
    return answer.results;
  }

  /** Frees the translator's arena. */
  close() {
    if (this._h) this._M._tern_web_translator_free(this._h);
    this._h = 0;
  }
}
