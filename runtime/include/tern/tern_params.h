/** tern C API, per-call options: the streaming, abort and logits callbacks and tern_translate_params.
 * Included by tern/tern.h (include that one): it uses the types declared there. */
#ifndef TERN_TERN_PARAMS_H_
#define TERN_TERN_PARAMS_H_
#ifndef TERN_TERN_H_
#error "include tern/tern.h, which includes this header"
#endif

/** One streamed token (tern::TokenEvent): greedy search streams every token as it is chosen, beam search
 * a sentence's best hypothesis when it finishes. `text` (text_len bytes, not NUL-terminated, never NULL:
 * "" when text_len is 0; valid during the callback) is what the sentence's text gains: the concatenated texts of a sentence are its result. */
typedef struct tern_token_event {
  size_t index;       /**< the input sentence (as results are indexed) */
  size_t part;        /**< its sentence within that text when texts are split, else 0 */
  size_t parts;       /**< sentences in that text */
  uint32_t token;     /**< the generated id */
  const char* text;   /**< what the sentence's text gains (text_len bytes, not NUL-terminated, never NULL) */
  size_t text_len;    /**< bytes at text */
  int last;           /**< nonzero: the sentence is complete */
  float logprob;      /**< the token's log-probability (as tern_result_token_logprobs gives it) */
} tern_token_event;
/** Return nonzero to go on, 0 to stop the call (it returns TERN_CANCELLED). */
typedef int (*tern_token_callback)(const tern_token_event* event, void* user_data);
/** Checked before each decoder step: return nonzero to stop the call (TERN_CANCELLED). */
typedef int (*tern_abort_callback)(void* user_data);

/** One hypothesis' next-token scores at one step, as a per-call logits callback sees them
 * (tern::LogitsRow, tern/logits_processor.h). Pointers are valid during the callback only. */
typedef struct tern_logits_row {
  size_t input;              /**< the input sentence (as results are indexed) */
  size_t part;               /**< its sentence within that text when texts are split, else 0 */
  size_t hypothesis;         /**< its beam slot, 0..beam-1 (0 in greedy search) */
  size_t step;               /**< the position being chosen: 0 = the first generated token */
  const uint32_t* prefix;    /**< the `step` tokens this hypothesis generated so far */
  float* scores;             /**< [n_columns], rewritten in place: log-probabilities (beam search) or logits
                                (greedy search) after the file's rules; -INFINITY bans a token */
  size_t n_columns;          /**< scores in the row */
  const uint32_t* columns;   /**< the token of each column; NULL: column k scores token k (whole vocabulary) */
  const void* internal_;     /**< for tern_logits_column */
} tern_logits_row;
/** The column of target token `token` in row->scores, or -1 when the row has none for it (a shortlist
 * without it, or a token outside the vocabulary). */
TERN_API int64_t tern_logits_column(const tern_logits_row* row, uint32_t token);
/** Called once per live hypothesis per step, after the file's rules, before the token is chosen; on the
 * translating thread, which it must not re-enter. */
typedef void (*tern_logits_callback)(tern_logits_row* row, void* user_data);

/** A caller's do-not-translate span (tern::KeepSpan): bytes [begin, end) of text `text` of the call. */
typedef struct tern_keep_span {
  size_t text;  /**< index of the text in the call */
  size_t begin; /**< first byte */
  size_t end;   /**< one past the last byte */
} tern_keep_span;

/** Per-call options; from tern_translate_default_params(). 0 in a count, NAN in a float = the file's default. */
typedef struct tern_translate_params {
  size_t struct_size;       /**< set by tern_translate_default_params() (see tern_model_params) */
  uint32_t beam_size;       /**< 1 = greedy; 0 = the file's */
  float length_penalty;     /**< score = sum_logprob / generated_len ^ length_penalty; NAN = the file's */
  int early_stopping;       /**< transformers' early_stopping: 0 false, 1 true, 2 "never"; -1 (default): the file's */
  uint32_t hf_rules;        /**< beam search by transformers 5.x's rules (5, the default) or 4.x's (4); 0 = 5 */
  uint32_t max_length;      /**< generated tokens including `</s>`; 0 = the file's */
  float max_length_ratio;   /**< > 0: also at most ceil(ratio * source tokens) + 10; 0: off; NAN: the file's */
  uint32_t n_best;          /**< hypotheses per sentence, default 1 */
  int return_scores;        /**< nonzero (default): fill scores and per-token log-probabilities */
  int return_alignment;     /**< nonzero: fill each token's source position (tern_result_token_sources) */
  const char* target_lang;  /**< multilingual models: "por" puts >>por<< first in every source; NULL or "": none */
  int split_sentences;      /**< nonzero (default): split texts into sentences, join their translations */
  int use_shortlist;        /**< nonzero (default): a model with a lexical shortlist scores only its tokens */
  int markup;               /**< 0 (default): plain text; 1: inline HTML/XML kept through translation (markup not
                               well-formed fails its sentence); 2: such markup repaired; 3: app strings' inline XML (no void
                               elements: tern::Markup::kXml). Not with token_callback */
  /** Streaming and cancellation (as whisper.h's callbacks): called on the translating thread; a call they make
   * into the same translator returns TERN_BUSY. A stopped call returns TERN_CANCELLED with results for the sentences that finished
   * (the others report "cancelled by the caller"). NULL: none. */
  tern_token_callback token_callback;
  void* token_user_data;              /**< passed to token_callback */
  tern_abort_callback abort_callback; /**< checked before each decoder step; nonzero stops the call */
  void* abort_user_data;              /**< passed to abort_callback */
  /** The call's own logits processor (tern_logits_row), after the file's rules. NULL: none. */
  tern_logits_callback logits_callback;
  void* logits_user_data;             /**< passed to logits_callback */
  /** Terminology (docs/translating.md "Terminology"): each occurrence of a glossary source term comes out as its target
   * term (constrained decoding; a sentence with more than 16 occurrences fails alone). NULL: none. */
  const tern_glossary* glossary;
  int keep_placeholders;    /**< nonzero: placeholders ({0}, %s), URLs, e-mail addresses and numbers with units in
                               plain texts (with markup: the text between the tags) come out verbatim, placed by alignment */
  int translate_code;       /**< markup: nonzero translates code, kbd, samp, var and pre elements and
                               class="notranslate" ones; 0 (default) keeps them verbatim */
  const char* const* target_prefix; /**< NULL, or per input the UTF-8 text its translation starts with (NULL, "": none) */
  const uint32_t* const* target_prefix_ids; /**< the same as target ids (NULL, or one array per input) */
  const size_t* target_prefix_lengths;      /**< lengths of target_prefix_ids' arrays (NULL or 0: none) */
  int do_sample;              /**< nonzero: sample (tern::SamplingOptions; greedy search only) */
  float sampling_temperature; /**< scores / temperature (default 1) */
  uint32_t sampling_topk;     /**< keep the K most likely tokens (default 50; 0: all) */
  float sampling_topp;        /**< keep the most likely tokens whose probabilities reach P (default 1: all) */
  uint64_t sampling_seed;     /**< tern's generator's seed: the same call and seed, the same output on every CPU */
  float repetition_penalty;   /**< transformers' repetition penalty (1: off); NAN (default): the file's */
  int no_repeat_ngram_size;   /**< n-grams never repeated (0: off); -1 (default): the file's */
  int min_length;             /**< tokens generated before `</s>` may come; -1 (default): the file's */
  uint32_t max_input_length;  /**< > 0: longer sources are cut to it, `</s>` kept; 0 (default): they fail alone */
  uint32_t alternatives; /**< > 0: N continuations of the prefix are the hypotheses (TranslateOptions::alternatives) */
  float min_alternative_expansion_prob; /**< alternatives: first tokens below this probability are left out (default 0) */
  /** Target id sequences never generated (tern::TranslateOptions::suppress_sequences, CTranslate2's): n arrays
   * of the given lengths; a one-token sequence is banned everywhere, a longer one's last token after the rest. */
  const uint32_t* const* suppress_sequences;
  const size_t* suppress_sequence_lengths; /**< [suppress_sequence_count] */
  size_t suppress_sequence_count;          /**< 0 (default): none */
  int disable_unk;                         /**< nonzero: never generate the unknown token (CTranslate2's disable_unk) */
  int return_attention;  /**< nonzero: tern_result_attention (needs tern_translator_params.attention) */
  const uint32_t* end_tokens; /**< more target ids that end a hypothesis as `</s>` does (TranslateOptions::end_tokens) */
  size_t end_token_count;     /**< 0 (default): none */
  int forced_eos; /**< 1: `</s>` forced at max_length (TranslateOptions::forced_eos), 0: not; -1 (default): the file's */
  int alignment_layer; /**< decoder layer (0-based) whose cross-attention gives token sources; -1 (default): the model's */
  /** The caller's own do-not-translate spans (TranslateOptions::keep_spans; with keep_placeholders): kept
   * verbatim and placed by alignment; sorted per text, not overlapping (a bad one fails its text alone). */
  const tern_keep_span* keep_spans;
  size_t keep_span_count; /**< 0 (default): none */
  /** The syntaxes keep_placeholders finds: tern::placeholder_syntax bits (TERN_PLACEHOLDER_*; default
   * TERN_PLACEHOLDER_DEFAULT, every one but the shell's); tern_placeholder_syntaxes reads a list of names. */
  uint32_t placeholder_syntaxes;
  /** 1 (default): URLs, e-mail addresses and printf / brace placeholders in a plain text are kept verbatim
   * without keep_placeholders (TranslateOptions::auto_protect); 0: translated as they are. Added after
   * placeholder_syntaxes. */
  int auto_protect;
} tern_translate_params;

#define TERN_PLACEHOLDER_PRINTF 0x1u
#define TERN_PLACEHOLDER_PYTHON_NAMED 0x2u
#define TERN_PLACEHOLDER_RUBY_NAMED 0x4u
#define TERN_PLACEHOLDER_BRACE 0x8u
#define TERN_PLACEHOLDER_FLUENT 0x10u
#define TERN_PLACEHOLDER_I18NEXT 0x20u
#define TERN_PLACEHOLDER_SHELL 0x40u
#define TERN_PLACEHOLDER_URL 0x80u
#define TERN_PLACEHOLDER_EMAIL 0x100u
#define TERN_PLACEHOLDER_NUMBER_UNIT 0x200u
#define TERN_PLACEHOLDER_DEFAULT 0x3bfu

/** The bits of a comma-separated list of syntax names (tern::PlaceholderSyntaxesFromNames: printf,
 * python-named, ruby-named, brace, fluent, i18next, shell, url, email, number-unit, default, all, none).
 * TERN_INVALID_ARGUMENT naming an unknown one. */
TERN_API tern_status_code tern_placeholder_syntaxes(const char* names, uint32_t* bits, tern_error* err);

TERN_API tern_translate_params tern_translate_default_params(void);

#endif /* TERN_TERN_PARAMS_H_ */
