/** tern C API: int8 Transformer translation (encoder-decoder, Marian semantics) on small devices.
 *
 * An immutable model (tern_model, shareable by any number of translators and threads), per-session
 * translators (tern_translator: one arena, one thread pool; one call at a time: a call made while another
 * thread's call runs returns TERN_BUSY and touches nothing), and result sets (tern_results: owned by the
 * caller, filled by a translate call, read while the caller likes). Every call returns a status code; on
 * failure the optional tern_error receives a one-line message. No C++ exception crosses this API.
 *
 * Usage:
 *
 *   tern_error err;
 *   tern_model* model = tern_model_load("en-de.int8.tern", &err);
 *   if (!model) { fprintf(stderr, "%s\n", err.message); return 1; }
 *   tern_translator_params tp = tern_translator_default_params();   // limits from the file
 *   tern_translator* tr = tern_translator_create(model, &tp, &err);
 *   tern_results* res = tern_results_create();
 *   const char* in[] = {"A dog runs on the beach.", "Two children play."};
 *   tern_translate_params p = tern_translate_default_params();       // beam etc. from the file
 *   if (tern_translate(tr, in, 2, &p, res, &err) == TERN_OK) {
 *     for (size_t i = 0; i < tern_result_count(res); ++i) {
 *       size_t len;
 *       const char* text = tern_result_text(res, i, 0, &len);        // NULL if sentence i failed
 *       if (text) printf("%.*s\n", (int)len, text);
 *       else printf("error: %s\n", tern_result_error(res, i));
 *     }
 *   }
 *   tern_results_free(res);
 *   tern_translator_free(tr);
 *   tern_model_free(model);
 *
 * Results (texts, ids, scores) are copies in the caller's tern_results: they stay valid until that object
 * is used for another call or freed, whatever other threads do with the translator. Several threads may
 * share one translator (each with its own tern_results): a call made while another runs returns
 * TERN_BUSY at once; for parallel work, give each thread its own translator on the shared model.
 */
#ifndef TERN_TERN_H_
#define TERN_TERN_H_

#include <stddef.h>
#include <stdint.h>
#include "tern/export.h"
#ifdef __cplusplus
extern "C" {
#endif

/** Same values as tern::StatusCode. */
typedef enum tern_status_code {
  TERN_OK = 0,
  TERN_INVALID_ARGUMENT = 1,
  TERN_NOT_FOUND = 2,
  TERN_IO_ERROR = 3,
  TERN_INVALID_MODEL = 4,
  TERN_UNSUPPORTED = 5,
  TERN_RESOURCE_EXHAUSTED = 6,
  TERN_INTERNAL = 7,
  TERN_BUSY = 8, /**< the translator is running a call in another thread */
  TERN_CANCELLED = 9 /* the token or abort callback stopped the call */
} tern_status_code;

/** A failure: code and a NUL-terminated one-line message (cut to fit). */
typedef struct tern_error {
  tern_status_code code; /**< TERN_OK, or what kind of failure */
  char message[512];     /**< what failed and where, NUL-terminated */
} tern_error;

typedef struct tern_model tern_model;
typedef struct tern_translator tern_translator;
typedef struct tern_results tern_results;
typedef struct tern_glossary tern_glossary;

/** The library's version, e.g. "0.2.0" (tern/version.h: TERN_VERSION_STRING of the headers). */
TERN_API const char* tern_version(void);

/** Maps and verifies a .tern file. NULL on failure (err: TERN_IO_ERROR, TERN_INVALID_MODEL, TERN_UNSUPPORTED). */
/** Loads with tern_model_default_params(): the file is read into memory (see tern_model_params). */
TERN_API tern_model* tern_model_load(const char* path, tern_error* err);

/** Load-time options (tern::LoadOptions): what the file may make tern allocate. Every params struct of the C
 * API starts with struct_size: sizeof the struct as the caller compiled it (set by its *_default_params()),
 * so that fields added later (at the end) keep old callers working: tern reads only the bytes they passed
 * and keeps its defaults for the rest. A struct_size below this release's sizeof is TERN_INVALID_ARGUMENT. */
typedef struct tern_model_params {
  size_t struct_size;           /**< set by tern_model_default_params() */
  uint64_t memory_budget_bytes; /**< tables + packed weights + one translator's arena; default 2 GiB */
  int map_file;                 /**< 0 (default): read the file into memory, so an app update that rewrites
                                   or truncates it cannot crash a running model; nonzero: map it (less
                                   memory; the file must then only be replaced by rename) */
  const char* packed_cache_dir; /**< NULL (default): TERN_PACKED_CACHE_DIR or no cache; else a directory where
                                   the first translator writes this CPU's packed weights and later loads map
                                   them instead of packing (tern::LoadOptions::packed_cache_dir; an app's
                                   cache directory, e.g. Context.getCacheDir() on Android). Added after
                                   struct_size: older callers' structs stop before it. */
} tern_model_params;
TERN_API tern_model_params tern_model_default_params(void);
/** tern_model_load with params (NULL: the defaults). TERN_RESOURCE_EXHAUSTED when the file needs more. */
TERN_API tern_model* tern_model_load_with_params(const char* path, const tern_model_params* params, tern_error* err);
/** Releases the caller's reference; translators created from it keep the model alive. NULL is allowed. */
TERN_API void tern_model_free(tern_model* model);
/** Target-language tokens of a multilingual model (">>por<<"): how many, and the i-th (NUL-terminated,
 * valid while the model lives; NULL if i is out of range or model is NULL). */
TERN_API size_t tern_model_language_count(const tern_model* model);
TERN_API const char* tern_model_language(const tern_model* model, size_t i);

/** Translator limits; 0 = the file's default (threads: cpuinfo's performance cores). */
typedef struct tern_translator_params {
  size_t struct_size;          /**< set by tern_translator_default_params() (see tern_model_params) */
  uint32_t max_batch;          /**< sentences per call */
  uint32_t max_beam;           /**< largest beam a call may use */
  uint32_t max_n_best;         /**< largest n-best a call may ask for (<= max_beam); default 1 */
  uint32_t max_source_tokens;  /**< per sentence, including `</s>` */
  uint32_t max_target_tokens;  /**< generated per sentence, including `</s>` */
  uint32_t threads;            /**< 1 = no worker threads */
  int attention;               /**< nonzero: plan the buffers of return_attention (tern::TranslatorConfig::attention) */
} tern_translator_params;

TERN_API tern_translator_params tern_translator_default_params(void);

/** Creates a session: plans and allocates its arena, packs the weights. NULL on failure. */
TERN_API tern_translator* tern_translator_create(const tern_model* model, const tern_translator_params* params, tern_error* err);
TERN_API void tern_translator_free(tern_translator* translator);
/** Arena size in bytes. */
TERN_API size_t tern_translator_arena_bytes(const tern_translator* translator);

#include "tern/tern_params.h"  /* streaming and logits callbacks, tern_translate_params */

/** Glossaries (tern/glossary.h) for a model, shared by any number of calls and threads. From a TSV file
 * ("source term<TAB>target term" per line; '#' lines and empty lines skipped) or from n pairs of
 * NUL-terminated strings. case_insensitive nonzero: a source term also matches in lower case, capitalized
 * and in capitals. NULL on error (err says which line or entry, and why: an empty term, a duplicate source
 * with another target, a target the vocabulary cannot spell, invalid UTF-8). Free with tern_glossary_free
 * (NULL does nothing) once no call uses it. */
TERN_API tern_glossary* tern_glossary_load(const tern_model* model, const char* path, int case_insensitive, tern_error* err);
TERN_API tern_glossary* tern_glossary_create(const tern_model* model, const char* const* sources,
                                             const char* const* targets, size_t n, int case_insensitive, tern_error* err);
TERN_API void tern_glossary_free(tern_glossary* glossary);
/** Entries of a glossary (a pair given twice counts once); 0 for NULL. */
TERN_API size_t tern_glossary_size(const tern_glossary* glossary);

/** A result set: what one translate call returns, owned by the caller (tern_results_create), reused by
 * every call it is passed to (its memory is kept from call to call) and released by tern_results_free.
 * NULL if memory is exhausted. tern_results_free(NULL) does nothing. */
TERN_API tern_results* tern_results_create(void);
TERN_API void tern_results_free(tern_results* results);

/** Translates n UTF-8 sentences (NUL-terminated; a NULL entry is an empty text) into `results` (required;
 * emptied first, so on any failure it holds no sentence). A failing sentence gets its own error (see
 * tern_result_error); the call fails only when it is wrong as a whole (bad options), or TERN_CANCELLED (results
 * are still readable; sentences the cancellation left untranslated say "cancelled by the caller"), or TERN_BUSY
 * (another thread's call is running on this translator: nothing was read or written but `results`, which is left
 * empty). More sentences than max_batch run in chunks of max_batch (tern/call_chunks.h): callbacks name the
 * sentences of the whole call; each sentence's sampling key is its index in the call. */
TERN_API tern_status_code tern_translate(tern_translator* translator, const char* const* sentences, size_t n,
                                         const tern_translate_params* params, tern_results* results, tern_error* err);

/** The same on token ids: sources[i] has lengths[i] ids and ends with `</s>`; results carry ids only. */
TERN_API tern_status_code tern_translate_ids(tern_translator* translator, const uint32_t* const* sources,
                                             const size_t* lengths, size_t n, const tern_translate_params* params,
                                             tern_results* results, tern_error* err);

/** Scores given translations (tern::Translator::Score): the target (UTF-8; NULL: empty) of each pair is forced
 * with `</s>` after it; hypothesis 0 of result i holds its ids, each token's log-probability (`</s>` last) and
 * their sum as the score (greedy search's score of the same tokens). A pair fails alone (a target over the cap,
 * a token the rules ban: "score -inf: ..."); markup, placeholders, glossary and prefixes: TERN_INVALID_ARGUMENT. */
TERN_API tern_status_code tern_score(tern_translator* translator, const char* const* sources, const char* const* targets,
                                     size_t n, const tern_translate_params* params, tern_results* results, tern_error* err);

/** The same on ids: sources with their `</s>`, targets (target vocabulary) without it. */
TERN_API tern_status_code tern_score_ids(tern_translator* translator, const uint32_t* const* sources,
                                         const size_t* source_lengths, const uint32_t* const* targets,
                                         const size_t* target_lengths, size_t n, const tern_translate_params* params,
                                         tern_results* results, tern_error* err);

/** ICU MessageFormat messages (tern::TranslateIcuMessages, tern/icu_message.h; UTF-8, NULL: empty): the text of
 * each message and of every plural / select case (and Fluent select variant, with TERN_PLACEHOLDER_FLUENT) is
 * translated, the arguments, case keys and '#' kept, the
 * exact syntax rebuilt. Result i has one hypothesis whose text is the translated message (no ids or scores),
 * or fails alone: a malformed message ("ICU MessageFormat: '{' at byte 9 is not closed"). Takes beam_size,
 * max_length, keep_placeholders, placeholder_syntaxes and target_lang of `params`; markup, target prefixes and
 * token_callback are TERN_INVALID_ARGUMENT. More messages than max_batch run in chunks. */
TERN_API tern_status_code tern_translate_icu_messages(tern_translator* translator, const char* const* messages, size_t n,
                                                      const tern_translate_params* params, tern_results* results,
                                                      tern_error* err);

/** Reading a result set (any thread; views stay valid until `results` is used again or freed). */
/** Sentences in the set: the n of the call that filled it (0 after a failed call). */
TERN_API size_t tern_result_count(const tern_results* results);
/** NULL if sentence i succeeded, else its NUL-terminated error message. */
TERN_API const char* tern_result_error(const tern_results* results, size_t i);
/** Status of sentence i: TERN_OK, or its error's code (TERN_CANCELLED for a sentence a callback stopped);
 * TERN_INVALID_ARGUMENT when i is out of range. */
TERN_API tern_status_code tern_result_code(const tern_results* results, size_t i);
/** Hypotheses of sentence i (0 if it failed). */
TERN_API size_t tern_result_hypotheses(const tern_results* results, size_t i);
/** A byte range [begin, end) of a UTF-8 text (tern::TextSpan). */
typedef struct tern_text_span {
  size_t begin; /**< first byte */
  size_t end;   /**< one past the last byte */
} tern_text_span;
/* Every field of the result table (runtime/fields/fields.py RESULTS), one accessor each: a hypothesis field of
 * hypothesis k of sentence i, a result field of sentence i. NULL (0 for a number) when sentence i failed or
 * has no hypothesis k; views stay valid until the set is used again or freed. */
/* BEGIN fields: results */
/** text of hypothesis k of sentence i: the detokenized target text (UTF-8; empty for ids calls).
 * NUL-terminated, *length bytes before the NUL; NULL if absent. */
TERN_API const char* tern_result_text(const tern_results* results, size_t i, size_t k, size_t* length);
/** ids of hypothesis k of sentence i: [n] generated ids without the decoder start token and the final </s>.
 * *count entries; NULL if absent (never for a translated input). */
TERN_API const uint32_t* tern_result_ids(const tern_results* results, size_t i, size_t k, size_t* count);
/** score of hypothesis k of sentence i: beam: sum of log-probabilities / generated_len ^ length_penalty;
 * greedy: the sum (0 without return_scores). 0 if absent. */
TERN_API float tern_result_score(const tern_results* results, size_t i, size_t k);
/** tokens of hypothesis k of sentence i: [n or n+1] the generated ids, the final </s> included when there was
 * one. *count entries; NULL if absent (never for a translated input). */
TERN_API const uint32_t* tern_result_tokens(const tern_results* results, size_t i, size_t k, size_t* count);
/** token_logprobs of hypothesis k of sentence i: [tokens] each token's natural-log probability after the logits
 * processors (transformers' compute_transition_scores(normalize_logits=True)); 0s without return_scores.
 * *count entries; NULL if absent (never for a translated input). */
TERN_API const float* tern_result_token_logprobs(const tern_results* results, size_t i, size_t k, size_t* count);
/** token_sources of hypothesis k of sentence i: [tokens] the source token each aligns to, an index into
 * source_ids (return_alignment), else -1. *count entries; NULL if absent (never for a translated input). */
TERN_API const int32_t* tern_result_token_sources(const tern_results* results, size_t i, size_t k, size_t* count);
/** token_spans of hypothesis k of sentence i: [tokens] each token's bytes [begin, end) in text (a word-initial
 * piece without its space; </s> empty at the end); empty for ids calls. *count entries; NULL if absent (never
 * for a translated input). */
TERN_API const tern_text_span* tern_result_token_spans(const tern_results* results, size_t i, size_t k, size_t* count);
/** attention of hypothesis k of sentence i: [tokens x source tokens] row-major: each token's cross-attention
 * over the source (return_attention), else empty. *rows x *cols floats; NULL if absent. */
TERN_API const float* tern_result_attention(const tern_results* results, size_t i, size_t k, size_t* rows, size_t* cols);
/** source_ids of sentence i: [m] the source tokens the input became (MarianTokenizer's ids, </s> last); empty
 * when the input failed before it was tokenized. *count entries; NULL if absent (never for a translated
 * input). */
TERN_API const uint32_t* tern_result_source_ids(const tern_results* results, size_t i, size_t* count);
/** source_spans of sentence i: [m] each source token's bytes [begin, end) in the input text; empty for ids
 * calls. *count entries; NULL if absent (never for a translated input). */
TERN_API const tern_text_span* tern_result_source_spans(const tern_results* results, size_t i, size_t* count);
/* END fields: results */

/** Confidence (tern/confidence.h): the mean and the minimum token log-probability of hypothesis k of
 * sentence i (either pointer may be NULL). Returns 1 when the hypothesis is low confidence by the default
 * threshold (mean below TERN_LOW_CONFIDENCE_SENTENCE), 0 when not, -1 when there is no such hypothesis.
 * A token is low confidence when its log-probability is below TERN_LOW_CONFIDENCE_TOKEN. Both thresholds
 * were chosen on Multi30k val for the bundled en-de model (docs/translating.md "Confidence and alignment"). */
#define TERN_LOW_CONFIDENCE_TOKEN (-0.33f)
#define TERN_LOW_CONFIDENCE_SENTENCE (-0.50f)
TERN_API int tern_result_confidence(const tern_results* results, size_t i, size_t k, float* mean_logprob,
                                    float* min_logprob);

#ifdef __cplusplus
}
#endif

#endif /* TERN_TERN_H_ */
