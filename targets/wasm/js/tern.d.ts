// Types of tern's JavaScript API (tern.mjs). TranslateOptions, Hypothesis and TranslationResult come from the
// field tables (fields.d.ts, generated from runtime/fields/fields.py).
import type { TranslateOptions, TranslationResult } from './fields';
export type { TranslateOptions, Hypothesis, TranslationResult } from './fields';

/** An error of tern's: `code` is tern's StatusCode, `input` the index of the input it concerns (or -1). */
export class TernError extends Error {
  code: number;
  input: number;
}

/**
 * Instantiates the WebAssembly module once. threads: true loads tern-web-threads (pthreads; rejects where there is
 * no SharedArrayBuffer or the package lacks it), false tern-web (one thread); absent: tern-web-threads where
 * globalThis.crossOriginIsolated is true and the package has it. The rest: Emscripten's options ({ locateFile }).
 */
export function init(options?: { threads?: boolean; [emscripten: string]: unknown }): Promise<unknown>;

/** Whether the loaded module has threads. */
export function hasThreads(): Promise<boolean>;

/** The WebAssembly memory the module holds now (the model's copy, arenas, buffers), bytes. */
export function memoryBytes(): Promise<number>;

/** Loads and verifies a .tern model from bytes or a URL; rejects with a TernError for an invalid file. */
export function loadModel(source: ArrayBuffer | ArrayBufferView | string | URL, options?: { name?: string }): Promise<Model>;

/** tern::TranslatorConfig's limits (0 or absent: the model's defaults). */
export interface TranslatorConfig {
  /**
   * threads it may use (0 or absent: the logical processors the browser reports); it gets 1 in the one-thread
   * module, else at most 4 and 1 + the module's free pool Workers (Translator.threads). Output is the same.
   */
  threads?: number;
  maxBatch?: number;
  maxBeam?: number;
  maxNBest?: number;
  maxSourceTokens?: number;
  maxTargetTokens?: number;
  /** plans the buffers TranslateOptions.returnAttention needs */
  attention?: boolean;
}

export class Model {
  /** the file's size, bytes */
  readonly bytes: number;
  translator(config?: TranslatorConfig): Translator;
  close(): void;
}

/** A generated token, as it is chosen (tern::TokenEvent). */
export interface TokenEvent {
  /** the input it belongs to, as results are indexed */
  input: number;
  /** its sentence within that text, and the text's sentences */
  part: number;
  parts: number;
  /** the generated id (eos_id with the last event when the sentence ended with </s>) */
  token: number;
  /** the text it adds (may be empty) */
  text: string;
  /** the sentence is complete */
  last: boolean;
  /** its log-probability, as Hypothesis.tokenLogprobs holds it */
  logprob: number;
}

/** A streaming call: onToken returns true to stop it; signal or cancelFlag[0] != 0 stop it at the next step. */
export interface StreamOptions {
  onToken?: (event: TokenEvent) => boolean | void;
  signal?: AbortSignal;
  /** over a SharedArrayBuffer: another thread sets it while this one translates */
  cancelFlag?: Int32Array;
}

export class Translator {
  /** texts per call into the module (longer calls run in chunks of it) */
  readonly maxBatch: number;
  /** the threads it translates on */
  readonly threads: number;
  /** One result per text (a text that fails has its own error); rejects when the call is wrong as a whole. */
  translate(texts: (string | Uint8Array)[], options?: TranslateOptions, stream?: StreamOptions): Promise<TranslationResult[]>;
  close(): void;
}
