package dev.tern;

import java.nio.charset.StandardCharsets;

/**
 * Translation with a .tern model, over tern's C API (runtime/include/tern/tern.h) through JNI.
 *
 * <pre>
 * try (Translator t = new Translator("/data/local/tmp/en-de.int8.tern", 0, 8)) {
 *   Translator.Result[] r = t.translate(new String[] {"A dog runs."}, new Translator.Options());
 *   System.out.println(r[0].ok() ? r[0].text : r[0].error);
 * }
 * </pre>
 *
 * One Translator is used by one thread at a time. Text crosses JNI as UTF-8 bytes.
 */
public final class Translator implements AutoCloseable {
  static {
    System.loadLibrary("tern_jni");
  }

  /** Per-call options; 0 (or NaN for the length penalty) means the model file's default. */
  public static final class Options {
    public int beamSize = 0;               // 1 = greedy
    public int maxLength = 0;              // generated tokens including </s>
    public float lengthPenalty = Float.NaN;
    public String targetLang = null;       // multilingual models: "por" puts >>por<< first
    public boolean splitSentences = true;  // split texts into sentences and join their translations
    public boolean useShortlist = true;    // a model with a lexical shortlist scores only its tokens
  }

  /** One sentence's outcome: text and score, or the error for that sentence alone. */
  public static final class Result {
    public final String text;   // null if the sentence failed
    public final float score;
    public final String error;  // null if the sentence was translated

    Result(String text, float score, String error) {
      this.text = text;
      this.score = score;
      this.error = error;
    }

    public boolean ok() {
      return error == null;
    }
  }

  private long handle;
  private final int maxBatch;

  /**
   * Loads and verifies the model and creates a session.
   *
   * @param threads 0 = the performance cores
   * @param maxBatch sentences per native call (longer arrays are split)
   */
  public Translator(String modelPath, int threads, int maxBatch) throws TernException {
    this.maxBatch = Math.max(1, maxBatch);
    this.handle = nativeOpen(modelPath, threads, this.maxBatch);
  }

  /** Translates every sentence; a failing sentence gets its own error, the others are translated. */
  public Result[] translate(String[] sentences, Options options) throws TernException {
    if (handle == 0) throw new TernException("translator is closed");
    Result[] out = new Result[sentences.length];
    for (int start = 0; start < sentences.length; start += maxBatch) {
      int n = Math.min(maxBatch, sentences.length - start);
      byte[][] in = new byte[n][];
      for (int i = 0; i < n; ++i) in[i] = sentences[start + i].getBytes(StandardCharsets.UTF_8);
      byte[][] texts = new byte[n][];
      float[] scores = new float[n];
      String[] errors = new String[n];
      nativeTranslate(handle, in, options.beamSize, options.maxLength, options.lengthPenalty, options.targetLang,
          options.splitSentences, options.useShortlist, texts, scores, errors);
      for (int i = 0; i < n; ++i) {
        String text = texts[i] == null ? null : new String(texts[i], StandardCharsets.UTF_8);
        out[start + i] = new Result(text, scores[i], errors[i]);
      }
    }
    return out;
  }

  /** Bytes of the translator's arena. */
  public long arenaBytes() {
    return handle == 0 ? 0 : nativeArenaBytes(handle);
  }

  @Override
  public void close() {
    if (handle != 0) {
      nativeClose(handle);
      handle = 0;
    }
  }

  private static native long nativeOpen(String modelPath, int threads, int maxBatch) throws TernException;

  private static native void nativeTranslate(long handle, byte[][] sentences, int beam, int maxLength,
      float lengthPenalty, String targetLang, boolean splitSentences, boolean useShortlist, byte[][] texts, float[] scores,
      String[] errors) throws TernException;

  private static native long nativeArenaBytes(long handle);

  private static native void nativeClose(long handle);
}
