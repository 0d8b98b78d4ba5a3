package dev.tern;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * Many requests at once (tern::Engine, runtime/include/tern/engine.h): replicas over one model, a queue, and
 * {@link #submit} returning a {@link CompletableFuture} at once. Queued requests with the same options share
 * a call; results are the same as {@link Translator}'s for each sentence.
 *
 * <pre>
 * try (Engine e = new Engine("/data/local/tmp/en-de.int8.tern", 2, 1, 16)) {
 *   e.submit(new String[] {"A dog runs."}, new Translator.Options())
 *       .thenAccept(r -&gt; System.out.println(r[0].text));
 * }
 * </pre>
 *
 * The futures complete on the engine's worker threads. {@link #close} cancels what waits (those results
 * are {@code cancelled}), stops what runs, and returns when every future is complete. A future's dependents
 * (thenAccept, ...) run on a worker thread and may call anything on any object, close included (it then
 * returns without waiting); there {@code get()} and {@code join()} of a future not yet complete fail at once
 * (a TernException "busy") instead of waiting for a worker that may be the very thread waiting.
 */
public final class Engine implements AutoCloseable {
  static {
    System.loadLibrary("tern_jni");
  }

  private long handle;
  private final ReentrantReadWriteLock lifetime = new ReentrantReadWriteLock();
  private volatile boolean closeRequested;  // close() from inside this engine's submit (see close)

  /** True while this thread completes a future (a worker thread running the future's dependents). */
  private static final ThreadLocal<Boolean> COMPLETING = ThreadLocal.withInitial(() -> Boolean.FALSE);

  /** The futures {@link #submit} returns: get() and join() refuse to wait inside a completion. */
  static final class Future<T> extends CompletableFuture<T> {
    private void refuseWait() throws ExecutionException {
      if (!isDone() && COMPLETING.get())
        throw new ExecutionException(new TernException("busy: get() in a completion (an engine worker thread) of a "
            + "future not yet complete does not wait there"));
    }

    @Override
    public T get() throws InterruptedException, ExecutionException {
      refuseWait();
      return super.get();
    }

    @Override
    public T get(long timeout, TimeUnit unit) throws InterruptedException, ExecutionException, TimeoutException {
      refuseWait();
      return super.get(timeout, unit);
    }

    @Override
    public T join() {
      if (!isDone() && COMPLETING.get())
        throw new CompletionException(new TernException("busy: join() in a completion (an engine worker thread) of a "
            + "future not yet complete does not wait there"));
      return super.join();
    }

    @Override
    public <U> CompletableFuture<U> newIncompleteFuture() {
      return new Future<U>();
    }
  }

  /**
   * @param replicas translators serving in parallel (0: the performance cores / threads)
   * @param threads each replica's threads (0 or 1: one)
   * @param maxBatch sentences per call of a replica (0: the file's default)
   */
  public Engine(String modelPath, int replicas, int threads, int maxBatch) throws TernException {
    this.handle = nativeOpen(modelPath, replicas, threads, maxBatch, 0, 0, false, null);
  }

  /** The same with every limit of a replica from {@code config} (Config.maxBatch 0: the file's default). */
  public Engine(String modelPath, int replicas, Translator.Config config) throws TernException {
    if (config == null) config = new Translator.Config();
    if (config.maxBeam < 0 || config.maxNBest < 0) throw new TernException("Config: maxBeam and maxNBest must be >= 0");
    this.handle = nativeOpen(modelPath, replicas, config.threads, config.maxBatch, config.maxBeam, config.maxNBest,
        config.attention, config.packedCacheDir);
  }

  /**
   * Queues the sentences as one request. The future holds a Result per sentence (a failing sentence has its
   * own error), or completes exceptionally with a TernException. Throws at once for a full queue, bad
   * options or a closed engine. Every Options field is taken (the field table's, as a Translator takes them);
   * logitsProcessors run on the engine's worker thread (an exception one throws fails the request with its
   * message). The Translator's glossary and listener are a Translator's own.
   */
  public CompletableFuture<Translator.Result[]> submit(String[] sentences, Translator.Options options) throws TernException {
    if (sentences == null) throw new TernException("sentences is null");
    if (options == null) options = new Translator.Options();
    Translator.checkOptions(options, sentences.length);
    if (options.targetPrefix != null && options.targetPrefix.length != sentences.length)
      throw new TernException("targetPrefix: " + options.targetPrefix.length + " prefixes for " + sentences.length
          + " sentences (one per sentence, null for none)");
    byte[][] prefixes = null;
    if (options.targetPrefix != null) {
      prefixes = new byte[sentences.length][];
      for (int i = 0; i < sentences.length; ++i)
        prefixes[i] = options.targetPrefix[i] == null ? null : options.targetPrefix[i].getBytes(StandardCharsets.UTF_8);
    }
    byte[][] in = new byte[sentences.length][];
    for (int i = 0; i < sentences.length; ++i) {
      if (sentences[i] == null) throw new TernException("sentence " + i + " is null");
      in[i] = sentences[i].getBytes(StandardCharsets.UTF_8);
    }
    CompletableFuture<Translator.Result[]> future = new Future<>();
    lifetime.readLock().lock();
    try {
      if (handle == 0) throw new TernException("engine is closed");
      nativeSubmit(handle, in, prefixes, options.keepSpans, options, future);
    } finally {
      lifetime.readLock().unlock();
    }
    if (closeRequested && lifetime.getReadHoldCount() == 0) close();
    return future;
  }

  /** Cancels waiting requests, stops running ones, completes every future. Closing twice is allowed. */
  @Override
  public void close() {
    // From a dependent of a future that completed inside this thread's own submit (an empty request), which
    // holds the read lock: the write lock would wait for this thread. submit closes when it returns.
    if (lifetime.getReadHoldCount() > 0) {
      closeRequested = true;
      return;
    }
    lifetime.writeLock().lock();
    try {
      if (handle != 0) {
        nativeClose(handle);
        handle = 0;
      }
    } finally {
      lifetime.writeLock().unlock();
    }
  }

  // Called by the native code on a worker thread when a request completes.
  private static void complete(CompletableFuture<Translator.Result[]> future, Translator.Result[] results, String error) {
    final boolean outer = !COMPLETING.get();
    COMPLETING.set(Boolean.TRUE);
    try {
      if (error != null) future.completeExceptionally(new TernException(error));
      else future.complete(results);
    } finally {
      if (outer) COMPLETING.set(Boolean.FALSE);
    }
  }

  private static native long nativeOpen(String modelPath, int replicas, int threads, int maxBatch, int maxBeam, int maxNBest,
      boolean attention, String packedCacheDir) throws TernException;

  private static native void nativeSubmit(long handle, byte[][] sentences, byte[][] targetPrefix, int[] keepSpans,
      Translator.Options options, CompletableFuture<Translator.Result[]> future) throws TernException;

  private static native void nativeClose(long handle);
}
