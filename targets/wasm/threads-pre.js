// Prepended to tern-web-threads.mjs (preset wasm-threads; -sPTHREAD_POOL_SIZE=ternPoolWorkers): the Web
// Workers Emscripten starts with the module, before it resolves, for translators' pthreadpool threads. They
// must exist before a translator is made: pthreadpool_create waits for its threads, and a Worker made then
// would start only once the calling thread returns to its event loop (web_api.cc: GrantThreads). Three at most
// (translators of up to 4 threads); the logical processors the browser reports less one.
var ternPoolWorkers = Math.max(1, Math.min((typeof navigator !== 'undefined' && navigator.hardwareConcurrency) || 4, 4) - 1);
