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

/* tern_translate_params, the per-call options, from the field table (runtime/fields/fields.py). */
#include "tern/tern_translate_params.h"

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
