/* The field tables through the C API (runtime/fields/fields.py): a non-default value of every option in
 * tern_translate_params arrives in the library's call, and in the engine's submission, as the echo shows
 * (TERN_ECHO_OPTIONS, runtime/src/base/options_echo.h). The plain fields' values are the table's
 * (fields/c_values.inc, generated); the special ones are set here. And every result field reaches the caller:
 * the result sets of tern_translate and of an engine request, read through the generated accessors
 * (fields/c_results_dump.inc), are what the library made (TERN_ECHO_RESULTS, runtime/src/base/results_echo.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tern/tern_engine.h"
#include "fields/c_values.inc"

/* The echo's encodings (runtime/src/base/results_echo.h), for the generated DumpResults. */
static void DumpText(FILE* f, const char* name, const char* t, size_t n) {
  fprintf(f, " %s=", name);
  for (size_t i = 0; i < n; ++i) fprintf(f, "%02x", (unsigned)(unsigned char)t[i]);
}
static void DumpBits(FILE* f, float v) {
  uint32_t b;
  memcpy(&b, &v, sizeof b);
  fprintf(f, "%08x", (unsigned)b);
}
static void DumpF32(FILE* f, const char* name, float v) {
  fprintf(f, " %s=", name);
  DumpBits(f, v);
}
static void DumpF32s(FILE* f, const char* name, const float* a, size_t n) {
  fprintf(f, " %s=", name);
  for (size_t i = 0; i < n; ++i) {
    if (i) fputc(',', f);
    DumpBits(f, a[i]);
  }
}
static void DumpU32s(FILE* f, const char* name, const uint32_t* a, size_t n) {
  fprintf(f, " %s=", name);
  for (size_t i = 0; i < n; ++i) fprintf(f, "%s%u", i ? "," : "", (unsigned)a[i]);
}
static void DumpI32s(FILE* f, const char* name, const int32_t* a, size_t n) {
  fprintf(f, " %s=", name);
  for (size_t i = 0; i < n; ++i) fprintf(f, "%s%d", i ? "," : "", (int)a[i]);
}
static void DumpSpans(FILE* f, const char* name, const tern_text_span* a, size_t n) {
  fprintf(f, " %s=", name);
  for (size_t i = 0; i < n; ++i) fprintf(f, "%s%zu:%zu", i ? "," : "", a[i].begin, a[i].end);
}
#include "fields/c_results_dump.inc"

/* The last block of `entry` in the results echo (malloc'd; NULL if none). */
static char* EchoBlock(const char* path, const char* entry) {
  FILE* f = fopen(path, "r");
  if (!f) return NULL;
  static char all[1 << 20];
  const size_t n = fread(all, 1, sizeof all - 1, f);
  fclose(f);
  all[n] = 0;
  char head[64];
  snprintf(head, sizeof head, "results %s ", entry);
  char* last = NULL;
  for (char* p = all; (p = strstr(p, head)) != NULL; ++p)
    if (p == all || p[-1] == '\n') last = p;
  if (!last) return NULL;
  char* end = strstr(last + 1, "\nresults ");
  const size_t len = end ? (size_t)(end + 1 - last) : strlen(last);
  char* out = (char*)malloc(len + 1);
  memcpy(out, last, len);
  out[len] = 0;
  return out;
}

/* DumpResults of `r` as a string (malloc'd). */
static char* Dumped(const char* entry, const tern_results* r) {
  char* buf = NULL;
  size_t len = 0;
  FILE* f = open_memstream(&buf, &len);
  DumpResults(f, entry, r);
  fclose(f);
  return buf;
}

/* 0 when what the caller read equals the library's echo, else 1 with both printed. */
static int SameAsEcho(const char* path, const char* entry, const tern_results* r) {
  char* echo = EchoBlock(path, entry);
  char* got = Dumped(entry, r);
  const int same = echo && strcmp(echo, got) == 0;
  if (!same) fprintf(stderr, "%s: the C accessors read\n%s\nthe library made\n%s\n", entry, got, echo ? echo : "(nothing)");
  free(echo), free(got);
  return same ? 0 : 1;
}

#define CHECK(c) do { if (!(c)) { fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #c); return 1; } } while (0)

static int on_token(const tern_token_event* e, void* u) { (void)e, (void)u; return 1; }
static int on_abort(void* u) { (void)u; return 0; }
static void on_logits(tern_logits_row* r, void* u) { (void)r, (void)u; }

/* The line of `entry` in the echo file (a static buffer; "" if none). */
static const char* EchoLine(const char* path, const char* entry) {
  static char line[16384];
  FILE* f = fopen(path, "r");
  if (!f) return "";
  const size_t n = strlen(entry);
  while (fgets(line, sizeof line, f))
    if (strncmp(line, entry, n) == 0 && line[n] == ' ') {
      fclose(f);
      line[strcspn(line, "\n")] = 0;
      return line;
    }
  fclose(f);
  return "";
}

/* Whether the echo line holds " name=value" as a whole word. */
static int Has(const char* line, const char* pair) {
  const size_t n = strlen(pair);
  for (const char* p = strstr(line, pair); p; p = strstr(p + 1, pair))
    if (p > line && p[-1] == ' ' && (p[n] == ' ' || p[n] == 0)) return 1;
  return 0;
}

static const char* const kSpecial[] = {"on_token=set", "on_token_user_data=set", "abort=set", "abort_user_data=set",
                                       "logits_processors=1", "glossary=set", "target_prefix=1", "target_prefix_ids=1",
                                       "suppress_sequences=1", "end_tokens=1", "keep_spans=1", "sampling_keys=1"};

int main(int argc, char** argv) {
  CHECK(argc == 2);
  char path[256];
  snprintf(path, sizeof path, "/tmp/tern-c-echo-%d", (int)getpid());
  remove(path);
  setenv("TERN_ECHO_OPTIONS", path, 1);
  tern_error err;
  tern_model* m = tern_model_load(argv[1], &err);
  CHECK(m != NULL);
  tern_translator_params tp = tern_translator_default_params();
  tp.attention = 1;
  tp.max_n_best = 2;
  tern_translator* tr = tern_translator_create(m, &tp, &err);
  CHECK(tr != NULL);
  const char* sources[] = {"dog"};
  const char* targets[] = {"Hund"};
  tern_glossary* g = tern_glossary_create(m, sources, targets, 1, 0, &err);
  CHECK(g != NULL);
  int user = 0;
  const char* prefix[] = {"Ein"};
  const uint32_t one_id[] = {5};
  const uint32_t* ids[] = {one_id};
  const size_t lens[] = {1};
  const uint32_t ends[] = {7};
  const tern_keep_span keep[] = {{0, 0, 1}};
  const uint64_t keys[] = {42};
  tern_translate_params p = tern_translate_default_params();
  SetFieldValues(&p);
  p.token_callback = on_token, p.token_user_data = &user;
  p.abort_callback = on_abort, p.abort_user_data = &user;
  p.logits_callback = on_logits, p.logits_user_data = &user;
  p.glossary = g;
  p.target_prefix = prefix;
  p.target_prefix_ids = ids, p.target_prefix_lengths = lens;
  p.suppress_sequences = ids, p.suppress_sequence_lengths = lens, p.suppress_sequence_count = 1;
  p.end_tokens = ends, p.end_token_count = 1;
  p.keep_spans = keep, p.keep_span_count = 1;
  p.sampling_keys = keys, p.sampling_key_count = 1;
  const char* in[] = {"A dog runs."};
  tern_results* res = tern_results_create();
  CHECK(tern_translate(tr, in, 1, &p, res, &err) != TERN_OK); /* no valid call together: the echo came first */
  const char* line = EchoLine(path, "translate");
  CHECK(*line);
  for (size_t i = 0; i < sizeof kFieldEcho / sizeof *kFieldEcho; ++i)
    if (!Has(line, kFieldEcho[i])) return fprintf(stderr, "translate: %s not in the echo\n", kFieldEcho[i]), 1;
  for (size_t i = 0; i < sizeof kSpecial / sizeof *kSpecial; ++i)
    if (!Has(line, kSpecial[i])) return fprintf(stderr, "translate: %s not in the echo\n", kSpecial[i]), 1;
  /* The engine: its submission receives every value (tern_submit read target prefixes only in tern_translate
   * before; the echo of the submission shows them). */
  tern_engine_params ep = tern_engine_default_params();
  ep.replicas = 1;
  ep.translator.attention = 1;
  ep.translator.max_n_best = 2;
  tern_engine* e = tern_engine_create(m, &ep, &err);
  CHECK(e != NULL);
  tern_request* r = tern_submit(e, in, 1, &p, NULL, NULL, &err);
  if (r) tern_request_free(r);
  line = EchoLine(path, "submit");
  CHECK(*line);
  for (size_t i = 0; i < sizeof kFieldEcho / sizeof *kFieldEcho; ++i)
    if (!Has(line, kFieldEcho[i])) return fprintf(stderr, "submit: %s not in the echo\n", kFieldEcho[i]), 1;
  for (size_t i = 0; i < sizeof kSpecial / sizeof *kSpecial; ++i)
    if (!Has(line, kSpecial[i])) return fprintf(stderr, "submit: %s not in the echo\n", kSpecial[i]), 1;
  /* Every result field through the accessors: a call with scores, alignment, attention and two hypotheses, a
   * text that fails alone (invalid UTF-8) and an empty one; then the same as an engine request. */
  char rpath[256];
  snprintf(rpath, sizeof rpath, "/tmp/tern-c-echo-results-%d", (int)getpid());
  remove(rpath);
  setenv("TERN_ECHO_RESULTS", rpath, 1);
  tern_translate_params q = tern_translate_default_params();
  q.beam_size = 2, q.n_best = 2, q.return_scores = 1, q.return_alignment = 1, q.return_attention = 1;
  const char* texts[] = {"A dog runs on the grass.", "bad \xff byte", "", "Two men play music."};
  if (tern_translate(tr, texts, 4, &q, res, &err) != TERN_OK) return fprintf(stderr, "translate: %s\n", err.message), 1;
  CHECK(tern_result_hypotheses(res, 0) == 2 && tern_result_error(res, 1) != NULL);
  if (SameAsEcho(rpath, "translate", res)) return 1;
  tern_request* rq = tern_submit(e, texts, 4, &q, NULL, NULL, &err);
  CHECK(rq != NULL);
  CHECK(tern_request_wait(rq, -1) == 1);
  tern_results* eres = tern_results_create();
  CHECK(tern_request_results(rq, eres, &err) == TERN_OK);
  if (SameAsEcho(rpath, "complete", eres)) return 1;
  char* sync = Dumped("x", res);
  char* engine = Dumped("x", eres);
  CHECK(strcmp(sync, engine) == 0); /* the engine's request gets the synchronous call's results */
  free(sync), free(engine);
  tern_results_free(eres);
  tern_request_free(rq);
  remove(rpath);
  tern_engine_free(e);
  tern_results_free(res);
  tern_glossary_free(g);
  tern_translator_free(tr);
  tern_model_free(m);
  remove(path);
  printf("c fields: ok\n");
  return 0;
}
