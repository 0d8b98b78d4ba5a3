// tern's JavaScript API (an ES module; types in tern.d.ts): load a .tern model from bytes or a URL, make a
// Translator, translate texts. It runs wherever the module does (a Web Worker, a page, Node); worker.mjs runs
// it in a Web Worker so that a page's thread never waits for a translation. The model is verified as in every
// other binding: a hostile file fails with a TernError, never a crash. Options and results are the field
// tables' (runtime/fields/fields.py; fields.d.ts is generated from them).
import createTernWeb from './tern-web.mjs';

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
/** The WebAssembly module, instantiated once (options: Emscripten's, e.g. { locateFile }). */
export function init(options = {}) {
  runtime ??= createTernWeb(options);
  return runtime;
}

/** The WebAssembly memory the module holds now (the model's copy, arenas, buffers), bytes. */
export async function memoryBytes() {
  return (await init()).HEAPU8.length;
}

function lastError(M) {
  const e = JSON.parse(M.UTF8ToString(M._tern_web_last_error()));
  return new TernError(e.error, e.code);
}

function withBytes(M, bytes, fn) {
  const p = M._malloc(Math.max(1, bytes.length));
  if (!p) throw new TernError('out of WebAssembly memory for ' + bytes.length + ' bytes', 8);
  try {
    M.HEAPU8.set(bytes, p);
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
    if (!response.ok) throw new TernError(`${source}: HTTP ${response.status}`, 5);
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
   * A Translator (its arena planned once): config { maxBatch, maxBeam, maxNBest, maxSourceTokens,
   * maxTargetTokens, attention } as tern::TranslatorConfig (0 or absent: the model's defaults). One thread.
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
    const results = [];
    const M = this._M;
    const stopped = () => stream && (stream.signal?.aborted || (stream.cancelFlag && Atomics.load(stream.cancelFlag, 0) !== 0));
    let cancelled = false;
    for (let begin = 0; begin < texts.length; begin += this.maxBatch) {
      if (cancelled || stopped()) {
        for (let i = begin; i < texts.length; ++i) results.push({ ok: false, error: 'cancelled by the caller', code: 9 });  // tern's StatusCode::kCancelled
        break;
      }
      if (stream) {
        M.ternOnToken = (index, part, parts, token, text, last, logprob) =>
          stream.onToken ? stream.onToken({ input: begin + index, part, parts, token, text, last, logprob }) === true : false;
        M.ternAbort = stopped;
      }
      const chunk = texts.slice(begin, begin + this.maxBatch).map((t) => (typeof t === 'string' ? encoder.encode(t) : t));
      const total = chunk.reduce((n, b) => n + b.length, 0);
      const blob = new Uint8Array(total);
      const offsets = new Uint32Array(chunk.length + 1);
      chunk.forEach((b, i) => {
        if (!(b instanceof Uint8Array)) throw new TypeError(`translate: text ${begin + i} is neither a string nor a Uint8Array`);
        blob.set(b, offsets[i]);
        offsets[i + 1] = offsets[i] + b.length;
      });
      let answer;
      try {
        answer = withBytes(M, blob, (b) =>
          withBytes(M, new Uint8Array(offsets.buffer), (o) =>
            withString(M, optionsJson, (opt) =>
              JSON.parse(M.UTF8ToString(M._tern_web_translate(this._h, b, o, chunk.length, opt, stream ? 1 : 0))))));
      } finally {
        M.ternOnToken = M.ternAbort = null;
      }
      if (answer.error !== undefined) throw new TernError(answer.error, answer.code);
      results.push(...answer.results);
      cancelled = answer.cancelled;
      await null;  // lets the caller's other tasks run between chunks
    }
    return results;
  }

  /** Frees the translator's arena. */
  close() {
    if (this._h) this._M._tern_web_translator_free(this._h);
    this._h = 0;
  }
}
