package dev.tern;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.locks.ReentrantReadWriteLock;

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
 * Streaming and cancellation: pass a {@link TokenListener}; return false from it to stop the call.
 *
 * <pre>
 * Translator.Result[] r = t.translate(new String[] {"A dog runs."}, new Translator.Options(),
 *     (index, part, token, text, last) -> { System.out.print(text); return !userPressedStop; });
 * </pre>
 *
 * One Translator runs one call at a time: a call made while another thread's call runs fails at once with a
 * {@link TernException} saying the translator is busy (use one Translator per thread). {@link #close} waits
 * for calls in progress. Text crosses JNI as UTF-8 bytes. The model file is read
 * into memory (tern_model_load's default), so an app update that rewrites it cannot crash a session.
 */
public final class Translator implements AutoCloseable {
  static {
    System.loadLibrary("tern_jni");
  }

  /** Per-call options; 0 (or NaN for the length penalty) means the model file's default. */
  public static final class Options {
    // BEGIN fields: Options (runtime/fields/generate.py writes these from runtime/fields/fields.py)
    /**
     * 1 = greedy (argmax; Hugging Face greedy search semantics). 0: the file's.
     */
    public int beamSize = 0;
    /**
     * Beam search: score = sum_logprob / generated_len ^ length_penalty. NaN: the file's.
     */
    public float lengthPenalty = Float.NaN;
    /**
     * transformers' early_stopping (tern/model.h EarlyStopping): false, true or never. "false", "true" or
     * "never"; null: the file's.
     */
    public String earlyStopping = null;
    /**
     * Beam search's stopping rule, finished-set merge and n-best order: transformers 5.x's (a sentence stops
     * when its best running beam / generated_len ^ length_penalty cannot beat its worst finished hypothesis,
     * for good) or 4.x's (BeamHypotheses.is_done on the best candidate). 5 or 4.
     */
    public int hfRules = 5;
    /**
     * Generated tokens including `&lt;/s&gt;` (like max_new_tokens); at most the Translator's
     * max_target_tokens. 0: the file's.
     */
    public int maxLength = 0;
    /**
     * &gt; 0: also at most ceil(ratio * source tokens) + 10 generated tokens; 0: off. NaN: the file's.
     */
    public float maxLengthRatio = Float.NaN;
    /**
     * Hypotheses returned per sentence (&lt;= beam_size and &lt;= max_n_best).
     */
    public int nBest = 1;
    /**
     * Fill Hypothesis::score and token_logprobs.
     */
    public boolean returnScores = true;
    /**
     * Fill Hypothesis::token_sources: the source token each generated token attends to most (the decoder's
     * cross-attention; docs/translating.md "Confidence and alignment").
     */
    public boolean returnAlignment = false;
    /**
     * Multilingual models (Model::language_tokens): "por" puts the token &gt;&gt;por&lt;&lt; first in every
     * source, in place of any "&gt;&gt;xxx&lt;&lt;" the text starts with (MarianTokenizer). Null: none.
     */
    public String targetLang = null;
    /**
     * Split each text into sentences (ICU's sentence BreakIterator, runtime/src/text/sentence_splitter.h),
     * translate them as one batch and join the translations with the whitespace that separated them, one
     * result per input text.
     */
    public boolean splitSentences = true;
    /**
     * A model with a lexical shortlist (Model::shortlist) scores only the shortlist of the call's sentences
     * (runtime/src/search/vocab_map.h); false scores the whole target vocabulary.
     */
    public boolean useShortlist = true;
    /**
     * Inline markup in the texts (runtime/src/markup/html.h says what is recognized): the output keeps exactly
     * the input's tags, placed around the words translated from the text they enclosed. "html",
     * "html-lenient", "xml"; null: plain text.
     */
    public String markup = null;
    /**
     * The call's own rules on the next-token scores ({@link LogitsProcessor}), after the file's; null: none. A
     * Java call per hypothesis per step: slow, for rules no option covers.
     */
    public LogitsProcessor[] logitsProcessors = null;
    /**
     * Use the translator's glossary ({@link Translator#setGlossary}), if it has one.
     */
    public boolean useGlossary = true;
    /**
     * Do-not-translate spans of plain texts (docs/translating.md "Terminology"): placeholders ({0}, {name},
     * %s, %1$d, %(name)s, { $var }, $t(key), %{name}: every syntax in
     * runtime/src/markup/placeholder_syntax.h), URLs, e-mail addresses and numbers with units
     * (runtime/src/markup/protect.h lists what is found) come out of the text before translation and go back
     * verbatim where the alignment places them; keep_spans adds the caller's own (sorted per text, not
     * overlapping; a bad one fails its text alone).
     */
    public boolean keepPlaceholders = false;
    /**
     * Markup: the contents of code, kbd, samp, var and pre elements and of elements whose class holds
     * "notranslate" are kept verbatim, as translate="no" ones are (translate="yes" on such a tag translates
     * it).
     */
    public boolean translateCode = false;
    /**
     * Per sentence, the text its translation starts with (target prefix: transformers' decoder_input_ids);
     * null, or a null entry: none. One per sentence of the call.
     */
    public String[] targetPrefix = null;
    /**
     * The same as target ids: per sentence the ids its translation starts with; null, or a null entry: none.
     * Not together with targetPrefix.
     */
    public int[][] targetPrefixIds = null;
    /**
     * Sample (transformers' do_sample) in place of greedy search's argmax: the row the logits rules produced
     * is warped in transformers' order (temperature, top-k, top-p) and a token is drawn from its softmax by
     * tern's own counter-based generator (runtime/src/search/sampling.h): the same call with the same seed
     * gives the same output on every CPU.
     */
    public boolean doSample = false;
    /**
     * Sampling: scores / temperature (TemperatureLogitsWarper).
     */
    public float samplingTemperature = 1.0f;
    /**
     * Sampling: keep the top_k highest scores (ties kept; TopKLogitsWarper); 0: off.
     */
    public int samplingTopK = 50;
    /**
     * Sampling: keep the most likely tokens whose probabilities reach top_p (TopPLogitsWarper); 1: off.
     */
    public float samplingTopP = 1.0f;
    /**
     * Sampling: the generator's seed.
     */
    public long seed = 0;
    /**
     * The call's own RepetitionPenaltyLogitsProcessor in place of the file's (transformers' order,
     * runtime/src/search/logits_processors.h); 1: off. NaN: the file's.
     */
    public float repetitionPenalty = Float.NaN;
    /**
     * The call's own NoRepeatNGramLogitsProcessor in place of the file's: an n-gram of this size is never
     * repeated; 0: off. -1: the file's.
     */
    public int noRepeatNgramSize = -1;
    /**
     * The call's own MinLengthLogitsProcessor in place of the file's: tokens generated before `&lt;/s&gt;` is
     * allowed (transformers' min_length - 1). -1: the file's.
     */
    public int minLength = -1;
    /**
     * &gt; 0: a sentence longer than this many source tokens is cut to it (its first tokens, then
     * `&lt;/s&gt;`), as CTranslate2's max_input_length does (at most max_source_tokens); 0: such a sentence
     * fails alone (kResourceExhausted), as one over max_source_tokens always does.
     */
    public int maxInputLength = 0;
    /**
     * &gt; 0: CTranslate2's return_alternatives: the `alternatives` most likely tokens at the end of the
     * target prefix (or at the first position without one), `&lt;/s&gt;` excluded, each continued by the
     * call's search (greedy, beam or sampling) into its own hypothesis, in the order of that first token's
     * log-probability (runtime/src/session/alternatives_call.h).
     */
    public int alternatives = 0;
    /**
     * return_alternatives: first tokens less likely than this probability are left out (CTranslate2's
     * min_alternative_expansion_prob).
     */
    public float minAlternativeExpansionProb = 0.0f;
    /**
     * Target id sequences never generated (CTranslate2's suppress_sequences); null: none.
     */
    public int[][] suppressSequences = null;
    /**
     * Never generate the unknown token (CTranslate2's disable_unk; Hyperparameters::unk_id).
     */
    public boolean disableUnk = false;
    /**
     * Fill Hypothesis::attention (CTranslate2's return_attention): per token, the cross-attention of
     * alignment_layer averaged over its heads, over the source tokens.
     */
    public boolean returnAttention = false;
    /**
     * More target ids that end a hypothesis as &lt;/s&gt; does (at most 8); null: none.
     */
    public int[] endTokens = null;
    /**
     * `&lt;/s&gt;` forced at the last position a hypothesis may take (max_length; transformers'
     * ForcedEOSTokenLogitsProcessor, forced_eos_token_id = eos) on (true) or off (false) for this call; unset:
     * the file's (GenerationDefaults::forced_eos). Null: the file's.
     */
    public Boolean forcedEos = null;
    /**
     * The decoder layer (0-based) whose cross-attention gives token_sources; unset: the model's default
     * (docs/translating.md "Confidence and alignment" says which and why). -1: the file's.
     */
    public int alignmentLayer = -1;
    /**
     * The caller's own do-not-translate spans, as triples (sentence index, begin, end) of String offsets
     * (tern::KeepSpan): kept verbatim and placed by alignment, as keepPlaceholders does; sorted per sentence,
     * not overlapping (a bad one fails its sentence alone).
     */
    public int[] keepSpans = null;
    /**
     * The syntaxes keep_placeholders finds (placeholder_syntax bits; PlaceholderSyntaxesFromNames reads a list
     * of names: printf, python-named, ruby-named, brace, fluent, i18next, shell, url, email, number-unit,
     * default, all, none). Names, comma-separated.
     */
    public String placeholderSyntaxes = "default";
    /**
     * On by default: a plain text (keep_placeholders off, no markup, no keep_spans) that holds a URL, an
     * e-mail address or a printf or brace placeholder (placeholder_syntax::kAutoProtect, within
     * placeholder_syntaxes) gets them kept verbatim as keep_placeholders keeps them; a text without any is
     * translated exactly as with it off.
     */
    public boolean autoProtect = true;
    /**
     * Sampling: top-k and top-p keep at least this many tokens (transformers' min_tokens_to_keep).
     */
    public int samplingMinTokensToKeep = 1;
    /**
     * Beam search: the coverage penalty of Wu et al. 2016 (GNMT) as CTranslate2's decoding.cc applies it: a
     * finished hypothesis' score gains beta x sum over source tokens j of log(min(c_j, 1)), c_j its tokens'
     * summed cross-attention on j (the last decoder layer's first head, CTranslate2's alignment head for
     * Marian models; `&lt;/s&gt;` included; tokens never attended to left out), after the length penalty; and
     * a sentence finishes as CTranslate2's beam search finishes it, once beam_size hypotheses have
     * (early_stopping true, unless the call sets early_stopping). 0: off.
     */
    public float coveragePenalty = 0.0f;
    /**
     * A generated unknown token (`&lt;unk&gt;`) becomes the source token it attends to most (its token_sources
     * entry), as CTranslate2's replace_unknowns: in the text, that source token's own bytes.
     */
    public boolean replaceUnknowns = false;
    /**
     * Sampling: each sentence's key, which its draws depend on in place of its index in the call
     * (tern::TranslateOptions::sampling_keys); null: the index.
     */
    public long[] samplingKeys = null;
    // END fields: Options
  }

  /**
   * A per-call logits processor (tern::LogitsProcessor; transformers' LogitsProcessor): rewrites
   * {@link LogitsRow#scores} in place, called on the translating thread once per live hypothesis per step.
   * An exception it throws reaches the caller of translate.
   */
  public interface LogitsProcessor {
    void process(LogitsRow row);
  }

  /** One hypothesis' next-token scores at one step (tern::LogitsRow); valid during process() only. */
  public static final class LogitsRow {
    public final int input;        // the input sentence, as results are indexed
    public final int part;         // its sentence within that text when texts are split, else 0
    public final int hypothesis;   // its beam slot, 0..beam-1
    public final int step;         // the position being chosen: 0 = the first generated token
    public final int[] prefix;     // the tokens this hypothesis generated so far
    /** Log-probabilities (beam search) or logits (greedy) after the file's rules; NEGATIVE_INFINITY bans a token. */
    public final float[] scores;
    public final int[] columns;    // the token of each column; null: column k scores token k

    LogitsRow(int input, int part, int hypothesis, int step, int[] prefix, float[] scores, int[] columns) {
      this.input = input;
      this.part = part;
      this.hypothesis = hypothesis;
      this.step = step;
      this.prefix = prefix;
      this.scores = scores;
      this.columns = columns;
    }

    /** The column of target token {@code token}, or -1 when the row has none for it. */
    public int column(int token) {
      if (columns == null) return token >= 0 && token < scores.length ? token : -1;
      for (int k = 0; k < columns.length; ++k)
        if (columns[k] == token) return k;
      return -1;
    }
  }

  /** Translator limits (tern_translator_params); 0: the file's default. */
  public static final class Config {
    public int threads = 0;      // 0: the performance cores
    public int maxBatch = 8;     // sentences per native call (longer arrays are split)
    public int maxBeam = 0;      // largest beamSize a call may use
    public int maxNBest = 0;     // largest nBest / alternatives a call may ask for (default 1)
    public boolean attention = false;  // plan the buffers Options.returnAttention needs
    /**
     * A directory for the packed-weights cache (tern::LoadOptions::packed_cache_dir), e.g. {@code
     * context.getCacheDir().getPath()}: the first load writes this CPU's packed weights there, later loads
     * map them instead of packing (faster start, memory the system can reclaim). null: none.
     */
    public String packedCacheDir = null;
  }

  /**
   * Receives generated text as it is produced (tern::TokenEvent): greedy search, every token as it is
   * chosen; beam search, a sentence's best hypothesis when it finishes. The texts of one sentence, in
   * order, make up its translation. Called on the translating thread.
   */
  public interface TokenListener {
    /**
     * @param index the input sentence
     * @param part its sentence within that text when texts are split, else 0
     * @param token the generated token id
     * @param text what the sentence's translation gains (may be empty)
     * @param last the sentence is complete
     * @return true to go on, false to stop the call (the results of finished sentences are returned; the
     *     others are cancelled)
     */
    boolean onToken(int index, int part, int token, String text, boolean last);
  }

  /**
   * One sentence's outcome: text and score, or the error for that sentence alone. Per generated token (the
   * best hypothesis' tokens, its final &lt;/s&gt; included when it ended with one; null if the sentence failed):
   * the token id, its log-probability after the logits processors, the source token it aligns to (an index
   * into sourceIds; -1 unless {@link Options#returnAlignment} or markup), and its [begin, end) in
   * {@code text} (two ints per token, String offsets). The source tokens with their [begin, end) in the input
   * String. Confidence: the mean and minimum token log-probability, and whether the mean is below the
   * default threshold (tern/confidence.h).
   */
  public static final class Result {
    /** Every hypothesis, best first (nBest or alternatives of them; empty if the sentence failed). */
    public final Hypothesis[] hypotheses;
    public final String text;   // null if the sentence failed
    public final float score;
    public final String error;  // null if the sentence was translated
    public final boolean cancelled;  // a TokenListener stopped the call before this sentence finished
    public final int[] tokens;
    public final float[] tokenLogprobs;
    public final int[] tokenSources;
    public final int[] tokenSpans;
    public final int[] sourceIds;
    public final int[] sourceSpans;
    public final float confidenceMean, confidenceMin;
    public final boolean lowConfidence;

    Result(Hypothesis[] hypotheses, String error, boolean cancelled, int[] sourceIds, int[] sourceSpans, float[] confidence) {
      this.hypotheses = hypotheses == null ? new Hypothesis[0] : hypotheses;
      Hypothesis best = this.hypotheses.length > 0 ? this.hypotheses[0] : null;
      this.text = best == null ? null : best.text;
      this.score = best == null ? 0f : best.score;
      this.error = error;
      this.cancelled = cancelled;
      this.tokens = best == null ? null : best.tokens;
      this.tokenLogprobs = best == null ? null : best.tokenLogprobs;
      this.tokenSources = best == null ? null : best.tokenSources;
      this.tokenSpans = best == null ? null : best.tokenSpans;
      this.sourceIds = sourceIds;
      this.sourceSpans = sourceSpans;
      this.confidenceMean = confidence == null ? 0f : confidence[0];
      this.confidenceMin = confidence == null ? 0f : confidence[1];
      this.lowConfidence = confidence != null && confidence[2] != 0f;
    }

    public boolean ok() {
      return error == null;
    }
  }

  // BEGIN fields: Hypothesis
  // Generated by runtime/fields/generate.py from runtime/fields/fields.py: edit the table, not this file.
  /** One output sequence (the result table's hypothesis fields; spans in UTF-16 units of text). */
  public static final class Hypothesis {
    /** the detokenized target text (UTF-8; empty for ids calls) */
    public final String text;
    /** [n] generated ids without the decoder start token and the final {@code </s>} */
    public final int[] ids;
    /** beam: sum of log-probabilities / generated_len ^ length_penalty; greedy: the sum (0 without
     * return_scores) */
    public final float score;
    /** [n or n+1] the generated ids, the final {@code </s>} included when there was one */
    public final int[] tokens;
    /** [tokens] each token's natural-log probability after the logits processors (transformers'
     * compute_transition_scores(normalize_logits=True)); 0s without return_scores */
    public final float[] tokenLogprobs;
    /** [tokens] the source token each aligns to, an index into source_ids (return_alignment), else -1 */
    public final int[] tokenSources;
    /** [tokens] each token's bytes [begin, end) in text (a word-initial piece without its space; {@code </s>}
     * empty at the end); empty for ids calls ([begin, end] pairs in UTF-16 units) */
    public final int[] tokenSpans;
    /** [tokens x source tokens] row-major: each token's cross-attention over the source (return_attention),
     * else empty */
    public final float[] attention;
    public final int attentionRows, attentionCols;

    Hypothesis(String text, int[] ids, float score, int[] tokens, float[] tokenLogprobs, int[] tokenSources,
        int[] tokenSpans, float[] attention, int attentionRows, int attentionCols) {
      this.text = text;
      this.ids = ids;
      this.score = score;
      this.tokens = tokens;
      this.tokenLogprobs = tokenLogprobs;
      this.tokenSources = tokenSources;
      this.tokenSpans = tokenSpans;
      this.attention = attention;
      this.attentionRows = attentionRows;
      this.attentionCols = attentionCols;
    }
  }

  // Called by the native code for each hypothesis (targets/android/jni/result_fields.inc; text as UTF-8).
  private static Hypothesis makeHypothesis(byte[] text, int[] ids, float score, int[] tokens,
      float[] tokenLogprobs, int[] tokenSources, int[] tokenSpans, float[] attention, int attentionRows,
      int attentionCols) {
    return new Hypothesis(text == null ? null : new String(text, StandardCharsets.UTF_8), ids, score, tokens,
        tokenLogprobs, tokenSources, tokenSpans, attention, attentionRows, attentionCols);
  }
  // END fields: Hypothesis

  private long handle;
  private final int maxBatch;
  // translate holds the read lock (several threads may enter; the native side lets one run and refuses the
  // others as busy), close the write lock: the native session is never freed under a running call.
  private final ReentrantReadWriteLock lifetime = new ReentrantReadWriteLock();

  /**
   * Loads and verifies the model and creates a session.
   *
   * @param threads 0 = the performance cores
   * @param maxBatch sentences per native call (longer arrays are split)
   */
  public Translator(String modelPath, int threads, int maxBatch) throws TernException {
    this(modelPath, config(threads, maxBatch));
  }

  /** The same with every limit of {@link Config}. */
  public Translator(String modelPath, Config config) throws TernException {
    if (config == null) config = new Config();
    if (config.maxBeam < 0 || config.maxNBest < 0) throw new TernException("Config: maxBeam and maxNBest must be >= 0");
    this.maxBatch = Math.max(1, config.maxBatch);
    this.handle = nativeOpen(modelPath, config.threads, this.maxBatch, config.maxBeam, config.maxNBest, config.attention,
        config.packedCacheDir);
  }

  private static Config config(int threads, int maxBatch) {
    Config c = new Config();
    c.threads = threads;
    c.maxBatch = maxBatch;
    return c;
  }

  /** Translates every sentence; a failing sentence gets its own error, the others are translated. */
  public Result[] translate(String[] sentences, Options options) throws TernException {
    return translate(sentences, options, null);
  }

  /**
   * The same, streaming to {@code listener} (may be null). When the listener stops the call, the
   * sentences that finished have their results and the others {@code cancelled}; later native batches of
   * a long array are not started. An exception the listener throws stops the call and is rethrown.
   */
  public Result[] translate(String[] sentences, Options options, TokenListener listener) throws TernException {
    lifetime.readLock().lock();
    try {
      return translateLocked(sentences, options, listener);
    } finally {
      lifetime.readLock().unlock();
    }
  }

  private Result[] translateLocked(String[] sentences, Options options, TokenListener listener) throws TernException {
    if (handle == 0) throw new TernException("translator is closed");
    if (sentences == null) throw new TernException("sentences is null");
    if (options == null) options = new Options();
    checkOptions(options, sentences.length);
    if (options.targetPrefix != null && options.targetPrefix.length != sentences.length)
      throw new TernException("targetPrefix: " + options.targetPrefix.length + " prefixes for " + sentences.length
          + " sentences (one per sentence, null for none)");
    // One native call: more sentences than maxBatch run in chunks there (tern/call_chunks.h, tern_translate).
    byte[][] in = new byte[sentences.length][];
    for (int i = 0; i < sentences.length; ++i) {
      if (sentences[i] == null) throw new TernException("sentence " + i + " is null");
      in[i] = sentences[i].getBytes(StandardCharsets.UTF_8);
    }
    byte[][] prefixes = null;
    if (options.targetPrefix != null) {
      prefixes = new byte[sentences.length][];
      for (int i = 0; i < sentences.length; ++i)
        prefixes[i] = options.targetPrefix[i] == null ? null : options.targetPrefix[i].getBytes(StandardCharsets.UTF_8);
    }
    Result[] out = new Result[sentences.length];
    nativeTranslate(handle, in, prefixes, options.keepSpans, options, listener, out);
    return out;
  }

  // What the native side takes as unsigned: refused here rather than wrapped around.
  static void checkOptions(Options o, int sentences) throws TernException {
    if (o.samplingTopK < 0) throw new TernException("samplingTopK must be >= 0 (0: all tokens), is " + o.samplingTopK);
    if (o.maxInputLength < 0) throw new TernException("maxInputLength must be >= 0 (0: off), is " + o.maxInputLength);
    if (o.nBest < 1) throw new TernException("nBest must be >= 1, is " + o.nBest);
    if (o.keepSpans != null) {
      if (o.keepSpans.length % 3 != 0) throw new TernException("keepSpans: triples (sentence, begin, end), " + o.keepSpans.length + " ints");
      for (int i = 0; i < o.keepSpans.length; i += 3)
        if (o.keepSpans[i] < 0 || o.keepSpans[i] >= sentences)
          throw new TernException("keepSpans: sentence " + o.keepSpans[i] + " of " + sentences);
    }
    if (o.alternatives < 0) throw new TernException("alternatives must be >= 0 (0: off), is " + o.alternatives);
    if (o.suppressSequences != null)
      for (int k = 0; k < o.suppressSequences.length; ++k)
        if (o.suppressSequences[k] == null) throw new TernException("suppressSequences[" + k + "] is null");
  }

  private static final int CANCELLED = 9;  // TERN_CANCELLED
  private static final String BUSY_IN_LISTENER =
      "Translator: called from its own listener while it is translating (use another Translator)";

  // Called by the native code for each sentence's result (null arrays when it failed).
  private static Result makeResult(Hypothesis[] hypotheses, String error, int code, int[] sourceIds, int[] sourceSpans,
      float[] confidence) {
    return new Result(hypotheses, error, code == CANCELLED, sourceIds, sourceSpans, confidence);
  }


  // Called by the native code for each streamed token: UTF-8 bytes to a String, then the listener.
  // Called by the native code for each row when Options.logitsProcessors is set.
  // The Engine's: the same, on a worker thread (package access).
  static void dispatchEngineLogits(LogitsProcessor[] processors, int input, int part, int hypothesis, int step, int[] prefix,
                                   float[] scores, int[] columns) {
    dispatchLogits(processors, input, part, hypothesis, step, prefix, scores, columns);
  }

  private static void dispatchLogits(LogitsProcessor[] processors, int input, int part, int hypothesis, int step, int[] prefix,
                                     float[] scores, int[] columns) {
    LogitsRow row = new LogitsRow(input, part, hypothesis, step, prefix, scores, columns);
    for (LogitsProcessor p : processors)
      if (p != null) p.process(row);
  }

  private static boolean dispatchToken(TokenListener listener, int index, int part, int token, byte[] text, boolean last) {
    return listener.onToken(index, part, token, new String(text, StandardCharsets.UTF_8), last);
  }

  /**
   * Scores given translations (tern_score; CTranslate2's score_batch): per pair, hypothesis 0 holds the
   * target's tokens (tokenized as the target side, &lt;/s&gt; last), each token's log-probability
   * (transformers' compute_transition_scores with normalize_logits) and their sum as the score. A pair
   * fails alone (a target over max_target_tokens, a token the rules ban). Options: maxLength,
   * maxLengthRatio, returnAlignment, targetLang and the logits rules apply; markup, placeholders, glossary
   * and prefixes throw.
   */
  public Result[] score(String[] sources, String[] targets, Options options) throws TernException {
    lifetime.readLock().lock();
    try {
      if (handle == 0) throw new TernException("translator is closed");
      if (sources == null || targets == null || sources.length != targets.length)
        throw new TernException("score: sources and targets must be arrays of one length");
      if (options == null) options = new Options();
      checkOptions(options, sources.length);
      // One native call: more pairs than maxBatch run in chunks there (tern_score).
      byte[][] src = new byte[sources.length][], tgt = new byte[sources.length][];
      for (int i = 0; i < sources.length; ++i) {
        if (sources[i] == null || targets[i] == null) throw new TernException("pair " + i + " is null");
        src[i] = sources[i].getBytes(StandardCharsets.UTF_8);
        tgt[i] = targets[i].getBytes(StandardCharsets.UTF_8);
      }
      Result[] out = new Result[sources.length];
      nativeScore(handle, src, tgt, options, out);
      return out;
    } finally {
      lifetime.readLock().unlock();
    }
  }

  /**
   * Translates ICU MessageFormat messages ({@code "{n, plural, one {# file} other {# files}}"}): the text of each
   * message and of every plural / select case is translated, the arguments, case keys and {@code #} kept and the
   * exact syntax rebuilt (tern/icu_message.h; Fluent select expressions' variants too, with the "fluent"
   * placeholder syntax). Result i's text is the translated message (no ids or scores), or
   * its error (a malformed message fails alone). Takes beamSize, maxLength, keepPlaceholders,
   * placeholderSyntaxes and targetLang of {@code options}; markup and target prefixes throw.
   */
  public Result[] translateIcuMessages(String[] messages, Options options) throws TernException {
    lifetime.readLock().lock();
    try {
      if (handle == 0) throw new TernException("translator is closed");
      if (messages == null) throw new TernException("translateIcuMessages: messages is null");
      if (options == null) options = new Options();
      checkOptions(options, messages.length);
      Result[] out = new Result[messages.length];
      for (int start = 0; start < messages.length; start += maxBatch) {
        int n = Math.min(maxBatch, messages.length - start);
        byte[][] in = new byte[n][];
        for (int i = 0; i < n; ++i) {
          if (messages[start + i] == null) throw new TernException("message " + (start + i) + " is null");
          in[i] = messages[start + i].getBytes(StandardCharsets.UTF_8);
        }
        Result[] results = new Result[n];
        nativeIcuMessages(handle, in, options, results);
        System.arraycopy(results, 0, out, start, n);
      }
      return out;
    } finally {
      lifetime.readLock().unlock();
    }
  }

  /** Bytes of the translator's arena. */
  public long arenaBytes() {
    lifetime.readLock().lock();
    try {
      return handle == 0 ? 0 : nativeArenaBytes(handle);
    } finally {
      lifetime.readLock().unlock();
    }
  }

  /**
   * Terminology (docs/translating.md "Terminology"): from now on, each occurrence of sources[i] in a sentence (a whole
   * word or words) comes out as targets[i], once per occurrence (constrained decoding). Null or empty
   * arrays remove the glossary. Waits for a call in progress. A bad entry (empty, the same source with
   * another target, a target the model's vocabulary cannot spell) throws, naming it; the old glossary
   * stays.
   *
   * @param ignoreCase a source term also matches in lower case, capitalized and in capitals
   */
  public void setGlossary(String[] sources, String[] targets, boolean ignoreCase) throws TernException {
    int n = sources == null ? 0 : sources.length;
    if ((targets == null ? 0 : targets.length) != n) throw new TernException("sources and targets differ in length");
    byte[][] src = new byte[n][], tgt = new byte[n][];
    for (int i = 0; i < n; ++i) {
      if (sources[i] == null || targets[i] == null) throw new TernException("glossary entry " + (i + 1) + " is null");
      src[i] = sources[i].getBytes(StandardCharsets.UTF_8);
      tgt[i] = targets[i].getBytes(StandardCharsets.UTF_8);
    }
    // From this translator's own listener (the calling thread holds the read lock): waiting for the write
    // lock would wait for itself.
    if (lifetime.getReadHoldCount() > 0) throw new TernException(BUSY_IN_LISTENER);
    lifetime.writeLock().lock();
    try {
      if (handle == 0) throw new TernException("translator is closed");
      nativeSetGlossary(handle, src, tgt, ignoreCase);
    } finally {
      lifetime.writeLock().unlock();
    }
  }

  /**
   * Frees the native session, after any call in progress has returned. Closing twice is allowed. From this
   * translator's own listener it throws IllegalStateException (the call in progress is its caller).
   */
  @Override
  public void close() {
    if (lifetime.getReadHoldCount() > 0) throw new IllegalStateException(BUSY_IN_LISTENER);
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

  private static native long nativeOpen(String modelPath, int threads, int maxBatch, int maxBeam, int maxNBest,
      boolean attention, String packedCacheDir) throws TernException;

  // Fills out[0..n) (a sentence the listener's stop left untranslated: cancelled).
  private static native void nativeTranslate(long handle, byte[][] sentences, byte[][] targetPrefix, int[] keepSpans, Options options,
      TokenListener listener, Result[] out) throws TernException;

  private static native void nativeIcuMessages(long handle, byte[][] messages, Options options, Result[] out)
      throws TernException;
  private static native void nativeScore(long handle, byte[][] sources, byte[][] targets, Options options, Result[] out)
      throws TernException;

  private static native long nativeArenaBytes(long handle);

  private static native void nativeSetGlossary(long handle, byte[][] sources, byte[][] targets, boolean ignoreCase)
      throws TernException;

  private static native void nativeClose(long handle);
}
