/* The C API compiles as C and translates: the usage example of tern.h, with assertions; streaming and
 * cancellation through C callbacks; bad input on the device path (NULL handles and pointers, empty
 * batches, an over-long line, invalid UTF-8). */
#define _DEFAULT_SOURCE     /* mkdtemp */
#define _FILE_OFFSET_BITS 64 /* readdir on filesystems with 64-bit inode numbers, on 32-bit targets too */
#include <dirent.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h> /* rmdir */

#include "tern/tern.h"

#define CHECK(c) do { if (!(c)) { fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #c); return 1; } } while (0)

/* Files in `dir` whose name ends in ".ternpack"; each is removed when `remove_them`. */
static int CountPacked(const char* dir, int remove_them) {
  int n = 0;
  DIR* d = opendir(dir);
  if (!d) return -1;
  for (struct dirent* e; (e = readdir(d)) != NULL;) {
    const size_t len = strlen(e->d_name);
    if (len > 9 && strcmp(e->d_name + len - 9, ".ternpack") == 0) {
      ++n;
      if (remove_them) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        remove(path);
      }
    }
  }
  closedir(d);
  return n;
}

/* Streaming: each sentence's texts appended in order; stop after `stop_after` events when > 0. */
typedef struct {
  char text[3][4096];
  size_t len[3];
  int lasts, events, stop_after, null_texts;
} Stream;

static int on_token(const tern_token_event* e, void* user_data) {
  Stream* s = (Stream*)user_data;
  if (e->index < 3 && s->len[e->index] + e->text_len < sizeof s->text[0]) {
    memcpy(s->text[e->index] + s->len[e->index], e->text, e->text_len);
    s->len[e->index] += e->text_len;
  }
  s->lasts += e->last != 0;
  s->null_texts += e->text == NULL; /* never NULL, even when empty */
  ++s->events;
  return s->stop_after <= 0 || s->events < s->stop_after;
}

static int abort_now(void* user_data) { return ++*(int*)user_data > 2; }

/* A call in chunks: last events per input of the whole call (7), and events naming an input beyond it. */
typedef struct {
  int lasts[7];
  int beyond;
} Chunked;

static int count_chunked(const tern_token_event* e, void* user_data) {
  Chunked* c = (Chunked*)user_data;
  if (e->index >= 7) ++c->beyond;
  else c->lasts[e->index] += e->last != 0;
  return 1;
}

/* A token callback that calls back into its own translator: it gets TERN_BUSY (nothing deadlocks). */
typedef struct Reentry {
  tern_translator* tr;
  int calls, busy;
} Reentry;
static int reenter(const tern_token_event* e, void* user_data) {
  (void)e;
  Reentry* r = (Reentry*)user_data;
  tern_results* res = tern_results_create();
  tern_error err;
  const char* in[] = {"a man"};
  ++r->calls;
  if (tern_translate(r->tr, in, 1, NULL, res, &err) == TERN_BUSY && strstr(err.message, "busy") != NULL) ++r->busy;
  tern_results_free(res);
  return 1;
}

/* Round four: a token callback that frees its own translator: freed when the call returns, which goes on. */
typedef struct {
  tern_translator* tr;
  int events;
} FreeOwn;
static int free_own(const tern_token_event* e, void* user_data) {
  (void)e;
  FreeOwn* f = (FreeOwn*)user_data;
  if (f->events++ == 0) tern_translator_free(f->tr);
  return 1;
}

/* A logits callback that bans one token as the first generated token, and checks what it is given. */
typedef struct {
  uint32_t banned;
  size_t rows, bad_rows, max_step;
} Ban;

static void ban_token(tern_logits_row* row, void* user_data) {
  Ban* b = (Ban*)user_data;
  ++b->rows;
  if (row->scores == NULL || row->n_columns == 0 || (row->step > 0 && row->prefix == NULL)) ++b->bad_rows;
  if (row->columns == NULL && tern_logits_column(row, b->banned) != (int64_t)b->banned) ++b->bad_rows;
  if (tern_logits_column(row, 0xffffffffu) != -1) ++b->bad_rows;
  if (row->step > b->max_step) b->max_step = row->step;
  const int64_t c = tern_logits_column(row, b->banned);
  if (c >= 0 && row->step == 0) row->scores[c] = -1.0f / 0.0f;
}

/* Bad pointer/count pairs of tern_translate_params (each case sets one). */
static const uint32_t kTwoIds[] = {5, 6};
static const uint32_t* kPrefixes[] = {kTwoIds, NULL};
static const size_t kPrefixLengths[] = {2, 3};
static const uint32_t* kNullSeq[] = {NULL};
static const size_t kSeqLength[] = {2};
static const uint64_t kKeys[] = {1, 2, 3};
static void set_prefix_ids_without_lengths(tern_translate_params* q) { q->target_prefix_ids = kPrefixes; }
static void set_null_prefix_with_length(tern_translate_params* q) {
  q->target_prefix_ids = kPrefixes;
  q->target_prefix_lengths = kPrefixLengths;
}
static void set_suppress_null(tern_translate_params* q) { q->suppress_sequence_count = (size_t)1000000000; }
static void set_suppress_no_lengths(tern_translate_params* q) {
  q->suppress_sequences = kPrefixes;
  q->suppress_sequence_count = 1;
}
static void set_suppress_null_entry(tern_translate_params* q) {
  q->suppress_sequences = kNullSeq;
  q->suppress_sequence_lengths = kSeqLength;
  q->suppress_sequence_count = 1;
}
static void set_end_tokens_null(tern_translate_params* q) { q->end_token_count = (size_t)1000000000; }
static void set_keep_spans_null(tern_translate_params* q) { q->keep_span_count = (size_t)1000000000; }
static void set_keys_null(tern_translate_params* q) { q->sampling_key_count = (size_t)1000000000; }
static void set_keys_count(tern_translate_params* q) {
  q->sampling_keys = kKeys;
  q->sampling_key_count = 3;
}

int main(int argc, char** argv) {
  CHECK(argc == 2);
  tern_error err;
  CHECK(tern_model_load("/nonexistent.tern", &err) == NULL);
  CHECK(err.code == TERN_IO_ERROR);
  CHECK(strstr(err.message, "/nonexistent.tern: cannot open") != NULL);

  tern_model* model = tern_model_load(argv[1], &err);
  CHECK(model != NULL);
  tern_translator_params tp = tern_translator_default_params();
  tp.threads = 1;
  tp.max_batch = 3;
  tern_translator* tr = tern_translator_create(model, &tp, &err);
  CHECK(tr != NULL);
  tern_model* model_for_glossary = tern_model_load(argv[1], &err);
  CHECK(model_for_glossary != NULL);
  tern_model_free(model); /* the translator keeps it alive */
  CHECK(tern_translator_arena_bytes(tr) > 0);
  tern_results* res = tern_results_create();
  CHECK(res != NULL);

  const char* in[] = {"A man in a blue shirt.", "bad \xff", "The dog runs."};
  tern_translate_params p = tern_translate_default_params();
  CHECK(tern_translate(tr, in, 3, &p, res, &err) == TERN_OK);
  CHECK(tern_result_count(res) == 3);
  size_t len = 0, n = 0;
  CHECK(tern_result_text(res, 0, 0, &len) != NULL);
  CHECK(tern_result_error(res, 0) == NULL);
  CHECK(tern_result_ids(res, 0, 0, &n) != NULL);
  CHECK(tern_result_text(res, 1, 0, &len) == NULL);
  CHECK(strcmp(tern_result_error(res, 1), "invalid UTF-8 at byte 4") == 0);
  CHECK(tern_result_hypotheses(res, 2) == 1);

  const char* four[] = {"a", "b", "c", "d"};
  /* More sentences than max_batch (3) run in chunks (tern/call_chunks.h): the translations of one call each,
   * token events naming inputs of the whole call, each chunk its own target prefixes; a cancellation leaves
   * the sentences of the chunks after it cancelled. (Before the chunker: "7 sentences exceed max_batch 3".) */
  {
    const char* seven[] = {"a", "b", "c", "The dog runs.", "e", "A man in a blue shirt.", "A dog."};
    const char* prefix[] = {NULL, NULL, NULL, NULL, NULL, "Ein Mann", NULL};
    char alone[7][512];
    for (size_t i = 0; i < 7; ++i) {
      CHECK(tern_translate(tr, seven + i, 1, &p, res, &err) == TERN_OK);
      snprintf(alone[i], sizeof alone[i], "%s", tern_result_text(res, 0, 0, &len));
    }
    Chunked seen;
    memset(&seen, 0, sizeof seen);
    tern_translate_params q = tern_translate_default_params();
    q.token_callback = count_chunked;
    q.token_user_data = &seen;
    CHECK(tern_translate(tr, seven, 7, &q, res, &err) == TERN_OK);
    CHECK(tern_result_count(res) == 7);
    for (size_t i = 0; i < 7; ++i) {
      CHECK(strcmp(tern_result_text(res, i, 0, &len), alone[i]) == 0);
      CHECK(seen.lasts[i] == 1); /* one last event per input, indexed in the whole call */
    }
    CHECK(seen.beyond == 0);
    q.token_callback = NULL;
    q.target_prefix = prefix;
    CHECK(tern_translate(tr, seven, 7, &q, res, &err) == TERN_OK);
    CHECK(strncmp(tern_result_text(res, 5, 0, &len), "Ein Mann", 8) == 0);
    CHECK(strcmp(tern_result_text(res, 6, 0, &len), alone[6]) == 0);
    q.target_prefix = NULL;
    int calls = 0;
    q.abort_callback = abort_now;
    q.abort_user_data = &calls;
    CHECK(tern_translate(tr, seven, 7, &q, res, &err) == TERN_CANCELLED);
    CHECK(tern_result_count(res) == 7);
    CHECK(tern_result_code(res, 6) == TERN_CANCELLED);
    CHECK(strcmp(tern_result_error(res, 6), "cancelled by the caller") == 0);
  }

  /* struct_size: a params struct from before struct_size existed (0, or smaller than this release's) is
   * refused, naming the call and the size; a bigger one (a newer caller) is read up to what tern knows. */
  {
    tern_translate_params old_p = tern_translate_default_params();
    old_p.struct_size = 0;
    CHECK(tern_translate(tr, four, 1, &old_p, res, &err) == TERN_INVALID_ARGUMENT);
    CHECK(strcmp(err.message, "tern_translate: params->struct_size 0 (use tern_translate_default_params())") == 0);
    old_p.struct_size = offsetof(tern_translate_params, auto_protect) - 4;
    CHECK(tern_translate(tr, four, 1, &old_p, res, &err) == TERN_INVALID_ARGUMENT);
    old_p.struct_size = offsetof(tern_translate_params, auto_protect);  /* the release before auto_protect */
    CHECK(tern_translate(tr, four, 1, &old_p, res, &err) == TERN_OK);
    struct {
      tern_translate_params p;
      uint64_t newer_field;
    } newer;
    newer.p = tern_translate_default_params();
    newer.p.struct_size = sizeof newer;
    newer.newer_field = 7;
    CHECK(tern_translate(tr, four, 1, &newer.p, res, &err) == TERN_OK);
    tern_translator_params tp0 = tern_translator_default_params();
    tp0.struct_size = 8;
    CHECK(tern_translator_create(model_for_glossary, &tp0, &err) == NULL);
    CHECK(strcmp(err.message, "tern_translator_create: params->struct_size 8 (use tern_translator_default_params())") == 0);
    tern_model_params mp0 = tern_model_default_params();
    mp0.struct_size = 0;
    CHECK(tern_model_load_with_params(argv[1], &mp0, &err) == NULL);
    CHECK(strcmp(err.message, "tern_model_load_with_params: params->struct_size 0 (use tern_model_default_params())") == 0);
    /* A struct from the release before packed_cache_dir still loads (with no cache). */
    tern_model_params old_mp = tern_model_default_params();
    old_mp.struct_size = offsetof(tern_model_params, packed_cache_dir);
    tern_model* m_old = tern_model_load_with_params(argv[1], &old_mp, &err);
    CHECK(m_old != NULL);
    tern_model_free(m_old);
    /* packed_cache_dir: the first translator writes the cache file, the next load maps it; same output. */
    char dir[] = "/tmp/tern-c-packed-cache-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    tern_model_params cp = tern_model_default_params();
    cp.packed_cache_dir = dir;
    for (int round = 0; round < 2; ++round) {
      tern_model* mc = tern_model_load_with_params(argv[1], &cp, &err);
      CHECK(mc != NULL);
      tern_translator* tc = tern_translator_create(mc, NULL, &err);
      CHECK(tc != NULL);
      CHECK(CountPacked(dir, 0) == 1);
      tern_translator_free(tc);
      tern_model_free(mc);
    }
    CHECK(CountPacked(dir, 1) == 1);
    CHECK(rmdir(dir) == 0);
  }

  uint32_t ids[] = {5, 6, 0};
  const uint32_t* srcs[] = {ids};
  size_t lens[] = {3};
  CHECK(tern_translate_ids(tr, srcs, lens, 1, &p, res, &err) == TERN_OK);
  CHECK(tern_result_ids(res, 0, 0, &n) != NULL);

  /* Streaming: the texts of each sentence, concatenated, are its result; one last event per sentence. */
  const char* two[] = {"A man in a blue shirt.", "The dog runs."};
  static Stream st;
  memset(&st, 0, sizeof st);
  p.beam_size = 1;
  p.split_sentences = 0;
  p.token_callback = on_token;
  p.token_user_data = &st;
  CHECK(tern_translate(tr, two, 2, &p, res, &err) == TERN_OK);
  for (size_t i = 0; i < 2; ++i) {
    const char* text = tern_result_text(res, i, 0, &len);
    CHECK(text != NULL && len == st.len[i] && memcmp(text, st.text[i], len) == 0);
  }
  CHECK(st.lasts == 2);
  CHECK(st.null_texts == 0);
  /* Cancellation from the token callback: TERN_CANCELLED, results still readable. */
  memset(&st, 0, sizeof st);
  st.stop_after = 2;
  CHECK(tern_translate(tr, two, 2, &p, res, &err) == TERN_CANCELLED);
  CHECK(st.events == 2);
  CHECK(tern_result_count(res) == 2);
  {
    int cancelled = 0;
    for (size_t i = 0; i < 2; ++i) {
      const tern_status_code c = tern_result_code(res, i);
      CHECK(c == TERN_OK || c == TERN_CANCELLED); /* a sentence may have ended with its first tokens */
      if (c == TERN_CANCELLED) {
        CHECK(strcmp(tern_result_error(res, i), "cancelled by the caller") == 0);
        ++cancelled;
      }
    }
    CHECK(cancelled >= 1);
  }
  /* ... and from the abort callback, checked before each decoder step (beam search too). */
  int steps = 0;
  p.token_callback = NULL;
  p.abort_callback = abort_now;
  p.abort_user_data = &steps;
  p.beam_size = 4;
  CHECK(tern_translate(tr, two, 2, &p, res, &err) == TERN_CANCELLED);
  CHECK(strstr(err.message, "cancelled") != NULL);
  CHECK(steps == 3);
  p.abort_callback = NULL;
  CHECK(tern_translate(tr, two, 2, &p, res, &err) == TERN_OK); /* the translator works after a cancelled call */
  {
    Reentry re = {tr, 0, 0};
    p.token_callback = reenter;
    p.token_user_data = &re;
    CHECK(tern_translate(tr, two, 2, &p, res, &err) == TERN_OK);
    CHECK(re.calls > 0 && re.busy == re.calls);
    p.token_callback = NULL;
  }
  { /* round four: tern_translator_free from the call's own callback (a use after free before) */
    tern_translator* doomed = tern_translator_create(model_for_glossary, NULL, &err);
    CHECK(doomed != NULL);
    FreeOwn f = {doomed, 0};
    tern_translate_params fp = tern_translate_default_params();
    fp.beam_size = 1;
    fp.token_callback = free_own;
    fp.token_user_data = &f;
    CHECK(tern_translate(doomed, two, 2, &fp, res, &err) == TERN_OK);
    CHECK(f.events > 2 && tern_result_count(res) == 2);
  }

  /* transformers' beam options: early_stopping and the 4.x rules; values outside their enums are refused. */
  p.abort_callback = NULL;
  p.beam_size = 4;
  p.early_stopping = 2;
  p.hf_rules = 4;
  CHECK(tern_translate(tr, two, 2, &p, res, &err) == TERN_OK);
  p.early_stopping = 3;
  CHECK(tern_translate(tr, two, 2, &p, res, &err) == TERN_INVALID_ARGUMENT);
  CHECK(strstr(err.message, "early_stopping 3") != NULL);
  p.early_stopping = -1;
  p.hf_rules = 3;
  CHECK(tern_translate(tr, two, 2, &p, res, &err) == TERN_INVALID_ARGUMENT);
  CHECK(strstr(err.message, "hf_rules 3: must be 5 or 4") != NULL);
  p.hf_rules = 0; /* 0 = 5 */
  CHECK(tern_translate(tr, two, 2, &p, res, &err) == TERN_OK);

  /* A per-call logits callback: the token greedy and beam search chose first is banned (the tiny model's
   * first token is often </s>: banning it everywhere would meet the file's forced </s> at the cap). */
  p.early_stopping = -1;
  p.split_sentences = 0;
  p.max_length = 8;
  p.return_alignment = 1;
  for (uint32_t beam = 1; beam <= 4; beam += 3) {
    p.beam_size = beam;
    p.logits_callback = NULL;
    CHECK(tern_translate(tr, two, 1, &p, res, &err) == TERN_OK);
    size_t nt = 0, nl = 0, ns = 0;
    const uint32_t* tokens = tern_result_tokens(res, 0, 0, &nt);
    const float* logprobs = tern_result_token_logprobs(res, 0, 0, &nl);
    const int32_t* sources = tern_result_token_sources(res, 0, 0, &ns);
    CHECK(tokens != NULL && logprobs != NULL && sources != NULL && nt >= 1 && nl == nt && ns == nt);
    float sum = 0.f;
    for (size_t k = 0; k < nt; ++k) {
      sum += logprobs[k];
      CHECK(sources[k] >= 0);
    }
    if (beam == 1) CHECK(sum - tern_result_score(res, 0, 0) < 1e-3f && tern_result_score(res, 0, 0) - sum < 1e-3f);
    static Ban ban;
    memset(&ban, 0, sizeof ban);
    ban.banned = tokens[0];
    p.logits_callback = ban_token;
    p.logits_user_data = &ban;
    CHECK(tern_translate(tr, two, 1, &p, res, &err) == TERN_OK);
    CHECK(ban.rows > 0 && ban.bad_rows == 0);
    tokens = tern_result_tokens(res, 0, 0, &nt);
    CHECK(tokens != NULL && nt >= 1);
    CHECK(tokens[0] != ban.banned);
    CHECK(ban.max_step >= 1); /* the first token is no longer </s>: the search went on */
  }
  p.logits_callback = NULL;
  p.max_length = 0;
  p.return_alignment = 0;
  /* Spans, source tokens and confidence; markup (a tag kept, an unclosed one failing its sentence alone). */
  p.beam_size = 1;
  {
    /* auto_protect (default 1): a URL and a {0} come out verbatim without keep_placeholders; 0 turns it off. */
    const char* url[] = {"A man runs {0} km to https://example.com/run."};
    CHECK(tern_translate(tr, url, 1, &p, res, &err) == TERN_OK);
    const char* text = tern_result_text(res, 0, 0, &len);
    CHECK(text != NULL && strstr(text, "https://example.com/run") != NULL && strstr(text, "{0}") != NULL);
    p.auto_protect = 0;
    CHECK(tern_translate(tr, url, 1, &p, res, &err) == TERN_OK);
    p.auto_protect = 1;
  }
  {
    const char* tagged[] = {"A man in <b>a</b> blue shirt.", "A <i>man."};
    p.markup = 1;
    CHECK(tern_translate(tr, tagged, 2, &p, res, &err) == TERN_OK);
    const char* text = tern_result_text(res, 0, 0, &len);
    CHECK(text != NULL && strstr(text, "<b>") != NULL && strstr(text, "</b>") != NULL);
    CHECK(tern_result_code(res, 1) == TERN_INVALID_ARGUMENT);
    CHECK(strcmp(tern_result_error(res, 1), "markup: <i> at byte 2 is not closed") == 0);
    size_t nt = 0, nsp = 0, nsrc = 0, nss = 0;
    tern_result_tokens(res, 0, 0, &nt);
    const tern_text_span* spans = tern_result_token_spans(res, 0, 0, &nsp);
    CHECK(spans != NULL && nsp == nt);
    for (size_t k = 0; k < nsp; ++k) CHECK(spans[k].begin <= spans[k].end && spans[k].end <= len);
    CHECK(tern_result_source_ids(res, 0, &nsrc) != NULL && nsrc >= 2);
    const tern_text_span* src_spans = tern_result_source_spans(res, 0, &nss);
    CHECK(src_spans != NULL && nss == nsrc && src_spans[nss - 1].end == strlen(tagged[0]));
    CHECK(tern_result_source_ids(res, 1, &nsrc) == NULL && nsrc == 0);
    float mean = 1.f, lowest = 1.f;
    const int low = tern_result_confidence(res, 0, 0, &mean, &lowest);
    CHECK((low == 0 || low == 1) && mean <= 0.f && lowest <= mean);
    CHECK(tern_result_confidence(res, 1, 0, &mean, &lowest) == -1);
    p.markup = 7;
    CHECK(tern_translate(tr, tagged, 1, &p, res, &err) == TERN_INVALID_ARGUMENT);
    CHECK(strstr(err.message, "markup 7: must be") != NULL);
    p.markup = 1;
    p.token_callback = on_token;
    CHECK(tern_translate(tr, tagged, 1, &p, res, &err) == TERN_INVALID_ARGUMENT);
    p.token_callback = NULL;
    p.markup = 0;
  }
  CHECK(tern_result_tokens(res, 9, 0, &n) == NULL && n == 0);

  /* Terminology: a glossary term comes out once; bad entries are named; placeholders are kept. */
  {
    const char* src[] = {"dog", "dog"};
    const char* tgt[] = {"Hund", "Kater"};
    CHECK(tern_glossary_create(model_for_glossary, src, tgt, 2, 0, &err) == NULL);
    CHECK(strcmp(err.message, "entry 2: source term 'dog' is also entry 1 with another target ('Hund' and 'Kater')") == 0);
    CHECK(tern_glossary_load(model_for_glossary, "/nonexistent.tsv", 0, &err) == NULL && err.code == TERN_NOT_FOUND);
    tern_glossary* g = tern_glossary_create(model_for_glossary, src + 1, tgt + 1, 1, 1, &err);
    CHECK(g != NULL && tern_glossary_size(g) == 1);
    const char* dogs[] = {"The dog runs.", "Dogs play with {0} and 5 km."};
    p.glossary = g;
    CHECK(tern_translate(tr, dogs, 1, &p, res, &err) == TERN_OK);
    const char* text = tern_result_text(res, 0, 0, &len);
    CHECK(text != NULL && strstr(text, "Kater") != NULL && strstr(strstr(text, "Kater") + 1, "Kater") == NULL);
    p.glossary = NULL;
    p.keep_placeholders = 1;
    CHECK(tern_translate(tr, dogs + 1, 1, &p, res, &err) == TERN_OK);
    text = tern_result_text(res, 0, 0, &len);
    CHECK(text != NULL && strstr(text, "{0}") != NULL && strstr(text, "5 km") != NULL);
    p.keep_placeholders = 0;
    tern_glossary_free(g);
    tern_glossary_free(NULL);
  }

  /* Bad input on the device path. */
  CHECK(tern_translate(NULL, two, 2, &p, res, &err) == TERN_INVALID_ARGUMENT);
  CHECK(tern_translate(tr, NULL, 2, &p, res, &err) == TERN_INVALID_ARGUMENT);
  CHECK(tern_translate_ids(tr, NULL, lens, 1, &p, res, &err) == TERN_INVALID_ARGUMENT);
  { /* Every pointer/count pair: a NULL array while its count or a length says it holds something is refused at
     * once, named, before anything is sized by that count (round five's rule). */
    const uint32_t* null_src[] = {NULL};
    size_t big[] = {(size_t)1000000000};
    CHECK(tern_translate_ids(tr, null_src, big, 1, &p, res, &err) == TERN_INVALID_ARGUMENT);
    CHECK(strcmp(err.message, "tern_translate_ids: sources[0] is NULL with length 1000000000") == 0);
    CHECK(tern_result_count(res) == 0);
    CHECK(tern_score_ids(tr, srcs, lens, null_src, big, 1, &p, res, &err) == TERN_INVALID_ARGUMENT);
    CHECK(strcmp(err.message, "tern_score_ids: targets[0] is NULL with length 1000000000") == 0);
    struct {
      const char* want;
      void (*set)(tern_translate_params*);
    } cases[] = {
        {"tern_translate_params.target_prefix_lengths is NULL with target_prefix_ids set", set_prefix_ids_without_lengths},
        {"tern_translate_params.target_prefix_ids[1] is NULL with length 3", set_null_prefix_with_length},
        {"tern_translate_params.suppress_sequences is NULL with suppress_sequence_count 1000000000", set_suppress_null},
        {"tern_translate_params.suppress_sequence_lengths is NULL with suppress_sequence_count 1", set_suppress_no_lengths},
        {"tern_translate_params.suppress_sequences[0] is NULL with length 2", set_suppress_null_entry},
        {"tern_translate_params.end_tokens is NULL with end_token_count 1000000000", set_end_tokens_null},
        {"tern_translate_params.keep_spans is NULL with keep_span_count 1000000000", set_keep_spans_null},
        {"tern_translate_params.sampling_key_count 1000000000 with sampling_keys NULL for 2 inputs", set_keys_null},
        {"tern_translate_params.sampling_key_count 3 for 2 inputs (one per input, or 0)", set_keys_count},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
      tern_translate_params q = tern_translate_default_params();
      cases[k].set(&q);
      CHECK(tern_translate(tr, two, 2, &q, res, &err) == TERN_INVALID_ARGUMENT);
      if (strstr(err.message, cases[k].want) == NULL) fprintf(stderr, "case %zu: got '%s'\n", k, err.message);
      CHECK(strstr(err.message, cases[k].want) != NULL);
      CHECK(tern_result_count(res) == 0);
    }
  }
  CHECK(tern_translate(tr, NULL, 0, &p, res, &err) == TERN_OK); /* an empty batch */
  CHECK(tern_result_count(res) == 0);
  CHECK(tern_translator_create(NULL, &tp, &err) == NULL);
  CHECK(tern_model_load(NULL, &err) == NULL && err.code == TERN_INVALID_ARGUMENT);
  CHECK(tern_result_text(NULL, 0, 0, &len) == NULL && tern_result_error(NULL, 0) == NULL && tern_result_count(NULL) == 0);
  CHECK(tern_result_code(res, 99) == TERN_INVALID_ARGUMENT);
  size_t big = 200000;
  char* long_line = (char*)malloc(big + 1);
  CHECK(long_line != NULL);
  for (size_t i = 0; i < big; ++i) long_line[i] = (i % 6 == 5) ? ' ' : 'a' + (char)(i % 5);
  long_line[big] = 0;
  const char* with_long[] = {long_line, "bad \xc3\x28 text", "The dog runs."};
  p.beam_size = 1;
  CHECK(tern_translate(tr, with_long, 3, &p, res, &err) == TERN_OK);
  CHECK(tern_result_error(res, 0) != NULL && strstr(tern_result_error(res, 0), "exceed max_source_tokens") != NULL);
  CHECK(tern_result_code(res, 0) == TERN_RESOURCE_EXHAUSTED);
  CHECK(strcmp(tern_result_error(res, 1), "invalid UTF-8 at byte 4") == 0);
  CHECK(tern_result_error(res, 2) == NULL);
  free(long_line);
  /* Target prefixes (text and ids) and scoring. */
  {
    tern_translate_params q = tern_translate_default_params();
    q.beam_size = 1;
    q.split_sentences = 0;
    const char* src2[] = {"A man in a blue shirt.", "The dog runs."};
    const char* pre[] = {"Eine Frau", NULL};
    q.target_prefix = pre;
    CHECK(tern_translate(tr, src2, 2, &q, res, &err) == TERN_OK);
    CHECK(tern_result_error(res, 1) == NULL);
    {
      /* "Eine Frau" in this model's target pieces (tern tokenize --target): the translation starts with them. */
      static const uint32_t want[] = {35, 9, 36, 16, 72};
      size_t nids = 0;
      const uint32_t* got = tern_result_ids(res, 0, 0, &nids);
      CHECK(got != NULL && nids >= 5 && memcmp(got, want, sizeof want) == 0);
    }
    const char* plain1[] = {"The dog runs."};
    q.target_prefix = NULL;
    CHECK(tern_translate(tr, plain1, 1, &q, res, &err) == TERN_OK);
    char want1[256];
    snprintf(want1, sizeof want1, "%s", tern_result_text(res, 0, 0, &len));
    const float greedy_score = tern_result_score(res, 0, 0);
    /* The greedy translation scores its greedy score; per-token log-probabilities end with </s>'s. */
    const char* tgt1[] = {want1};
    CHECK(tern_score(tr, plain1, tgt1, 1, &q, res, &err) == TERN_OK);
    CHECK(fabsf(tern_result_score(res, 0, 0) - greedy_score) < 1e-5f);
    size_t nt = 0, nid = 0;
    CHECK(tern_result_token_logprobs(res, 0, 0, &nt) != NULL);
    CHECK(tern_result_ids(res, 0, 0, &nid) != NULL && nt == nid + 1);
    /* Ids: a prefix with </s> fails its sentence alone; scoring refuses prefixes. */
    uint32_t pid[] = {9, 0};
    const uint32_t* pids[] = {pid};
    size_t plen[] = {2};
    q.target_prefix_ids = pids;
    q.target_prefix_lengths = plen;
    CHECK(tern_translate_ids(tr, srcs, lens, 1, &q, res, &err) == TERN_OK);
    CHECK(strcmp(tern_result_error(res, 0), "target_prefix: </s> at position 1 (give the tokens before it)") == 0);
    plen[0] = 1;
    CHECK(tern_translate_ids(tr, srcs, lens, 1, &q, res, &err) == TERN_OK);
    CHECK(tern_result_ids(res, 0, 0, &nid)[0] == 9);
    CHECK(tern_score_ids(tr, srcs, lens, pids, plen, 1, &q, res, &err) == TERN_INVALID_ARGUMENT);
    CHECK(strcmp(err.message, "score: target_prefix does not apply to scoring") == 0);
    q.target_prefix_ids = NULL;
    CHECK(tern_score_ids(tr, srcs, lens, pids, plen, 1, &q, res, &err) == TERN_OK);
    CHECK(tern_result_score(res, 0, 0) < 0.0f);
  }
  /* Sampling: the same seed gives the same ids; beam search with sampling is refused. */
  {
    tern_translate_params q = tern_translate_default_params();
    q.do_sample = 1;
    q.sampling_topk = 0;
    q.sampling_temperature = 1.5f;
    q.sampling_seed = 5;
    size_t na = 0, nb = 0;
    CHECK(tern_translate_ids(tr, srcs, lens, 1, &q, res, &err) == TERN_OK);
    uint32_t first[64];
    const uint32_t* a = tern_result_ids(res, 0, 0, &na);
    CHECK(a != NULL && na <= 64);
    memcpy(first, a, na * sizeof(uint32_t));
    CHECK(tern_translate_ids(tr, srcs, lens, 1, &q, res, &err) == TERN_OK);
    const uint32_t* b = tern_result_ids(res, 0, 0, &nb);
    CHECK(nb == na && memcmp(first, b, na * sizeof(uint32_t)) == 0);
    q.beam_size = 4;
    CHECK(tern_translate_ids(tr, srcs, lens, 1, &q, res, &err) == TERN_INVALID_ARGUMENT);
    CHECK(strstr(err.message, "beam sampling is not supported") != NULL);
    /* 12 texts at max_batch 1, 3 and 12: the one chunked-call loop keys each text by its index in the call, so
     * a seeded sampled call gives the same texts whatever the chunks are. */
    q.beam_size = 1;
    q.max_length = 12;
    const char* many[12];
    char storage[12][48];
    for (int i = 0; i < 12; ++i) {
      snprintf(storage[i], sizeof storage[i], "A dog number %d runs on the beach.", i);
      many[i] = storage[i];
    }
    char want[12][256];
    const uint32_t batches[] = {1, 3, 12};
    for (int k = 0; k < 3; ++k) {
      const uint32_t mb = batches[k];
      tern_translator_params bp = tern_translator_default_params();
      bp.max_batch = mb;
      tern_translator* bt = tern_translator_create(model_for_glossary, &bp, &err);
      CHECK(bt != NULL);
      CHECK(tern_translate(bt, many, 12, &q, res, &err) == TERN_OK);
      for (int i = 0; i < 12; ++i) {
        size_t tl = 0;
        const char* text = tern_result_text(res, (size_t)i, 0, &tl);
        CHECK(text != NULL && tl < 255);
        if (mb == 1) memcpy(want[i], text, tl), want[i][tl] = 0;
        else CHECK(strlen(want[i]) == tl && memcmp(want[i], text, tl) == 0);
      }
      tern_translator_free(bt);
    }
  }
  /* The call's own logits rules: min_length holds </s> back; a bad value is refused. */
  {
    tern_translate_params q = tern_translate_default_params();
    q.beam_size = 1;
    q.min_length = 6;
    size_t nm = 0, nt = 0;
    CHECK(tern_translate_ids(tr, srcs, lens, 1, &q, res, &err) == TERN_OK);
    CHECK(tern_result_ids(res, 0, 0, &nm) != NULL && nm >= 6);
    CHECK(tern_result_tokens(res, 0, 0, &nt) != NULL);
    /* suppress_sequences: the greedy first token banned, another comes first; an empty sequence is refused. */
    q.min_length = -1;
    CHECK(tern_translate_ids(tr, srcs, lens, 1, &q, res, &err) == TERN_OK);
    uint32_t first = tern_result_ids(res, 0, 0, &nm)[0];
    const uint32_t* sup[] = {&first};
    size_t sup_len[] = {1};
    q.suppress_sequences = sup;
    q.suppress_sequence_lengths = sup_len;
    q.suppress_sequence_count = 1;
    q.disable_unk = 1;
    CHECK(tern_translate_ids(tr, srcs, lens, 1, &q, res, &err) == TERN_OK);
    CHECK(tern_result_ids(res, 0, 0, &nm)[0] != first);
    sup_len[0] = 0;
    CHECK(tern_translate_ids(tr, srcs, lens, 1, &q, res, &err) == TERN_INVALID_ARGUMENT);
    CHECK(strcmp(err.message, "suppress_sequences: sequence 0 is empty") == 0);
    q.suppress_sequence_count = 0;
    /* end_tokens: the greedy first token ends the hypothesis at once (it is left out of the ids). */
    q.end_tokens = &first;
    q.end_token_count = 1;
    CHECK(tern_translate_ids(tr, srcs, lens, 1, &q, res, &err) == TERN_OK);
    nm = 99;
    tern_result_ids(res, 0, 0, &nm);
    CHECK(nm == 0);
    q.end_tokens = NULL;
    CHECK(tern_translate_ids(tr, srcs, lens, 1, &q, res, &err) == TERN_INVALID_ARGUMENT);
    q.end_token_count = 0;
    q.repetition_penalty = -1.0f;
    CHECK(tern_translate_ids(tr, srcs, lens, 1, &q, res, &err) == TERN_INVALID_ARGUMENT);
    CHECK(strcmp(err.message, "repetition_penalty -1: must be finite and > 0") == 0);
    q.repetition_penalty = NAN;
    /* forced_eos: the file's (on) ends a hypothesis cut at max_length 3 with </s> (2 ids); off, it ends
     * after 3 ids. Values other than -1, 0, 1 (and int settings below -1) are refused, naming the field. */
    q.max_length = 3;
    CHECK(tern_translate_ids(tr, srcs, lens, 1, &q, res, &err) == TERN_OK);
    tern_result_ids(res, 0, 0, &nm);
    CHECK(nm == 2);
    q.forced_eos = 0;
    CHECK(tern_translate_ids(tr, srcs, lens, 1, &q, res, &err) == TERN_OK);
    tern_result_ids(res, 0, 0, &nm);
    CHECK(nm == 3);
    q.forced_eos = 2;
    CHECK(tern_translate_ids(tr, srcs, lens, 1, &q, res, &err) == TERN_INVALID_ARGUMENT);
    CHECK(strcmp(err.message, "tern_translate_params.forced_eos 2 (0, 1; -1: the file's)") == 0);
    q.forced_eos = -1;
    q.min_length = -3;
    CHECK(tern_translate_ids(tr, srcs, lens, 1, &q, res, &err) == TERN_INVALID_ARGUMENT);
    CHECK(strcmp(err.message, "tern_translate_params.min_length -3 (0 or more; -1: the file's)") == 0);
    q.min_length = -1;
    q.max_length = 0;
    /* alignment_layer: beyond the decoder's layers, or below -1, is refused. */
    q.alignment_layer = 99;
    q.return_alignment = 1;
    CHECK(tern_translate_ids(tr, srcs, lens, 1, &q, res, &err) == TERN_INVALID_ARGUMENT);
    CHECK(strncmp(err.message, "alignment_layer 99: the decoder has", 35) == 0);
    q.alignment_layer = 0;
    CHECK(tern_translate_ids(tr, srcs, lens, 1, &q, res, &err) == TERN_OK);
    q.alignment_layer = -2;
    CHECK(tern_translate_ids(tr, srcs, lens, 1, &q, res, &err) == TERN_INVALID_ARGUMENT);
    CHECK(strcmp(err.message, "tern_translate_params.alignment_layer -2 (0 or more; -1: the file's)") == 0);
    q.alignment_layer = -1;
    q.return_alignment = 0;
    /* keep_spans: the caller's span comes back verbatim; a span naming a text the call does not have fails. */
    const char* named[] = {"A man named Qwertzuiop Blorvak walks in the park."};
    tern_keep_span ks = {0, 12, 30};
    q.keep_spans = &ks;
    q.keep_span_count = 1;
    CHECK(tern_translate(tr, named, 1, &q, res, &err) == TERN_OK);
    CHECK(strstr(tern_result_text(res, 0, 0, &nt), "Qwertzuiop Blorvak") != NULL);
    ks.text = 1;
    CHECK(tern_translate(tr, named, 1, &q, res, &err) == TERN_INVALID_ARGUMENT);
    CHECK(strcmp(err.message, "keep_spans: text 1 of 1") == 0);
    q.keep_span_count = 0;
    /* Placeholder syntaxes: the default set, names read into bits, an unknown name refused. */
    uint32_t bits = 0;
    CHECK(q.placeholder_syntaxes == TERN_PLACEHOLDER_DEFAULT);
    CHECK(tern_placeholder_syntaxes("printf, shell", &bits, &err) == TERN_OK);
    CHECK(bits == (TERN_PLACEHOLDER_PRINTF | TERN_PLACEHOLDER_SHELL));
    CHECK(tern_placeholder_syntaxes("printf,nope", &bits, &err) == TERN_INVALID_ARGUMENT);
    CHECK(strncmp(err.message, "placeholder syntax 'nope'", 25) == 0);
    q.placeholder_syntaxes = 0x400u;
    CHECK(tern_translate(tr, named, 1, &q, res, &err) == TERN_INVALID_ARGUMENT);
    q.placeholder_syntaxes = TERN_PLACEHOLDER_DEFAULT;
  }
  /* Alternatives: three distinct continuations of a prefix, each starting with it; n_best 2 is refused. */
  {
    tern_translator_params ap = tern_translator_default_params();
    ap.threads = 1;
    ap.max_batch = 3;
    ap.max_n_best = 3;
    ap.max_beam = 3;
    ap.attention = 1;
    tern_translator* at = tern_translator_create(model_for_glossary, &ap, &err);
    CHECK(at != NULL);
    tern_translate_params q = tern_translate_default_params();
    q.beam_size = 1;
    q.alternatives = 3;
    const char* src1[] = {"A man in a blue shirt."};
    const char* pre[] = {"Ein"};
    q.target_prefix = pre;
    CHECK(tern_translate(at, src1, 1, &q, res, &err) == TERN_OK);
    CHECK(tern_result_hypotheses(res, 0) == 3);
    size_t l0 = 0, l1 = 0;
    const char* t0 = tern_result_text(res, 0, 0, &l0);
    const char* t1 = tern_result_text(res, 0, 1, &l1);
    CHECK(t0 != NULL && t1 != NULL && strncmp(t0, "Ein", 3) == 0 && strncmp(t1, "Ein", 3) == 0);
    CHECK(!(l0 == l1 && memcmp(t0, t1, l0) == 0));
    q.n_best = 2;
    CHECK(tern_translate(at, src1, 1, &q, res, &err) == TERN_INVALID_ARGUMENT);
    CHECK(strcmp(err.message, "return_alternatives: n_best 2: the alternatives are the hypotheses (n_best 1)") == 0);
    /* return_attention: a row per token over the source tokens. */
    tern_translate_params aq = tern_translate_default_params();
    aq.return_attention = 1;
    CHECK(tern_translate(at, src1, 1, &aq, res, &err) == TERN_OK);
    size_t rows = 0, cols = 0, ntok = 0, nsrc = 0;
    const float* att = tern_result_attention(res, 0, 0, &rows, &cols);
    CHECK(att != NULL && tern_result_tokens(res, 0, 0, &ntok) != NULL && rows == ntok);
    CHECK(tern_result_source_ids(res, 0, &nsrc) != NULL && cols == nsrc);
    float sum = 0.0f;
    for (size_t c = 0; c < cols; ++c) sum += att[c];
    CHECK(fabsf(sum - 1.0f) < 1e-4f);
    aq.return_attention = 0;
    CHECK(tern_translate(at, src1, 1, &aq, res, &err) == TERN_OK);
    CHECK(tern_result_attention(res, 0, 0, &rows, &cols) == NULL && rows == 0);
    tern_translator_free(at);
  }
  {
    /* ICU MessageFormat messages: the structure comes back (arguments, case keys, '#'); a malformed message fails
       alone; target prefixes are refused. */
    const char* msgs[] = {"{n, plural, one {# dog runs} other {# dogs run}}", "{n, plural, one {A dog", "A dog runs."};
    tern_translate_params iq = tern_translate_default_params();
    iq.beam_size = 1;
    CHECK(tern_translate_icu_messages(tr, msgs, 3, &iq, res, &err) == TERN_OK);
    CHECK(tern_result_count(res) == 3);
    const char* m0 = tern_result_text(res, 0, 0, &len);
    CHECK(m0 != NULL && strncmp(m0, "{n, plural, one {", 17) == 0 && strstr(m0, "} other {") != NULL && strchr(m0, '#') != NULL);
    CHECK(tern_result_error(res, 0) == NULL);
    CHECK(tern_result_error(res, 1) != NULL && strstr(tern_result_error(res, 1), "ICU MessageFormat") != NULL);
    CHECK(tern_result_text(res, 1, 0, &len) == NULL);
    CHECK(tern_result_text(res, 2, 0, &len) != NULL && len > 0);
    const char* prefix[] = {"Ein"};
    iq.target_prefix = prefix;
    CHECK(tern_translate_icu_messages(tr, msgs, 1, &iq, res, &err) == TERN_INVALID_ARGUMENT && tern_result_count(res) == 0);
    iq.target_prefix = NULL;
    CHECK(tern_translate_icu_messages(tr, NULL, 3, &iq, res, &err) == TERN_INVALID_ARGUMENT);
  }
  /* A NULL result set is refused; a failed call leaves the set empty. */
  CHECK(tern_translate(tr, two, 2, &p, NULL, &err) == TERN_INVALID_ARGUMENT);
  CHECK(tern_translate(tr, four, 4, &p, res, &err) == TERN_OK && tern_result_count(res) == 4);
  {
    tern_translate_params bad = p;
    bad.struct_size = 0;
    CHECK(tern_translate(tr, four, 4, &bad, res, &err) == TERN_INVALID_ARGUMENT && tern_result_count(res) == 0);
  }
  tern_results_free(res);
  tern_results_free(NULL);
  tern_translator_free(tr);
  tern_model_free(model_for_glossary);
  tern_translator_free(NULL);
  tern_model_free(NULL);
  printf("c_api: all checks passed\n");
  return 0;
}
