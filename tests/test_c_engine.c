/* The engine's C API (tern/tern_engine.h) from C: submit from the calling thread, wait, read results with
 * tern.h's accessors; results equal tern_translate's; a completion callback; cancelling; a bad text failing
 * alone; the params' struct_size check; freeing the engine with requests queued; return_attention's rows (the
 * engine's results came back without them before: c_engine.cc rebuilt hypotheses field by field). */
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tern/tern_engine.h"

#define CHECK(c) do { if (!(c)) { fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #c); return 1; } } while (0)

static void on_done(tern_request* r, void* user_data) {
  tern_results* res = tern_results_create();
  tern_error err;
  if (tern_request_results(r, res, &err) == TERN_OK && tern_result_count(res) == 2) ++*(int*)user_data;
  tern_results_free(res);
}

/* Fire and forget: the callback reads its results and frees its own request. */
static atomic_int forgotten;
static void read_and_free(tern_request* r, void* user_data) {
  (void)user_data;
  tern_results* res = tern_results_create();
  tern_error err;
  if (tern_request_results(r, res, &err) == TERN_OK && tern_result_count(res) == 2) atomic_fetch_add(&forgotten, 1);
  tern_results_free(res);
  tern_request_free(r);
}

/* The same for an empty request (no results to read). */
static atomic_int freed_empty;
static void read_and_free_empty(tern_request* r, void* user_data) {
  (void)user_data;
  atomic_fetch_add(&freed_empty, 1);
  tern_request_free(r);
}

/* Round four: a completion callback frees another request of its own call, waits on it, and frees the
 * engine. Before, tern_request_free waited for that request, which only this callback's thread could finish:
 * the worker and every later request hung. */
static tern_request* other;
static atomic_int other_wait = -1, freed_other;
static void free_the_other(tern_request* r, void* user_data) {
  (void)r, (void)user_data;
  atomic_store(&other_wait, tern_request_wait(other, -1)); /* does not wait in a callback: 0, not complete */
  tern_request_free(other);
  atomic_store(&freed_other, 1);
}
static tern_engine* doomed;
static atomic_int engine_freed;
static void free_the_engine(tern_request* r, void* user_data) {
  (void)user_data;
  tern_engine_free(doomed); /* on its own worker: returns without joining it */
  tern_request_free(r);
  atomic_store(&engine_freed, 1);
}

/* An abort callback that holds its worker until released: the queue fills behind it. */
static atomic_int entered, released;
static int hold(void* user_data) {
  (void)user_data;
  atomic_store(&entered, 1);
  struct timespec ms = {0, 1000000};
  while (!atomic_load(&released)) nanosleep(&ms, NULL);
  return 0;
}

int main(int argc, char** argv) {
  CHECK(argc == 2);
  tern_error err;
  tern_model* m = tern_model_load(argv[1], &err);
  CHECK(m != NULL);
  const char* in[] = {"A man in a blue shirt is standing on a ladder.", "Two young children are playing in the sand."};
  tern_translator* tr = tern_translator_create(m, NULL, &err);
  CHECK(tr != NULL);
  tern_results* want = tern_results_create();
  CHECK(tern_translate(tr, in, 2, NULL, want, &err) == TERN_OK);

  tern_engine_params p = tern_engine_default_params();
  CHECK(p.struct_size == sizeof(tern_engine_params));
  p.replicas = 1;
  p.struct_size = 8;
  CHECK(tern_engine_create(m, &p, &err) == NULL && err.code == TERN_INVALID_ARGUMENT);
  CHECK(strstr(err.message, "struct_size 8") != NULL);
  p.struct_size = sizeof p;
  p.translator.struct_size = 4; /* the nested struct's own size is named as such */
  CHECK(tern_engine_create(m, &p, &err) == NULL &&
        strcmp(err.message, "tern_engine_create: params->translator.struct_size 4 (use tern_engine_default_params())") == 0);
  p.translator.struct_size = sizeof p.translator;
  p.continuous_batching = 2;
  CHECK(tern_engine_create(m, &p, &err) == NULL &&
        strcmp(err.message, "tern_engine_params.continuous_batching 2 (0 or 1)") == 0);
  p.continuous_batching = 1;
  tern_engine* e = tern_engine_create(m, &p, &err);
  CHECK(e != NULL);

  int completed = 0;
  tern_request* r = tern_submit(e, in, 2, NULL, on_done, &completed, &err);
  CHECK(r != NULL);
  CHECK(tern_request_wait(r, -1) == 1);
  tern_results* got = tern_results_create();
  CHECK(tern_request_results(r, got, &err) == TERN_OK);
  CHECK(tern_result_count(got) == 2);
  for (size_t i = 0; i < 2; ++i) {
    size_t a = 0, b = 0;
    const char* x = tern_result_text(got, i, 0, &a);
    const char* y = tern_result_text(want, i, 0, &b);
    CHECK(x && y && a == b && memcmp(x, y, a) == 0);
    CHECK(tern_result_score(got, i, 0) == tern_result_score(want, i, 0));
  }
  CHECK(completed == 1); /* tern_request_wait returns once the completion callback returned */
  tern_request_free(r);

  for (int i = 0; i < 8; ++i) CHECK(tern_submit(e, in, 2, NULL, read_and_free, NULL, &err) != NULL);
  /* An empty request completes inside tern_submit, whose on_done frees it before tern_submit returns: tern_submit
   * must not touch it after that (it wrote the ticket into freed memory; ASan saw it, plain builds crashed
   * about 1 run in 4 on an 8-request burst). */
  for (int i = 0; i < 64; ++i) CHECK(tern_submit(e, in, 0, NULL, read_and_free_empty, NULL, &err) != NULL);

  /* return_attention through the engine: each hypothesis' rows, as tern_translate gives them. */
  {
    tern_translator_params tp = tern_translator_default_params();
    tp.attention = 1;
    tern_translator* ta = tern_translator_create(m, &tp, &err);
    CHECK(ta != NULL);
    tern_translate_params att = tern_translate_default_params();
    att.return_attention = 1;
    tern_results* want_att = tern_results_create();
    CHECK(tern_translate(ta, in, 2, &att, want_att, &err) == TERN_OK);
    tern_engine_params pa = tern_engine_default_params();
    pa.replicas = 1;
    pa.translator.attention = 1;
    for (int continuous = 0; continuous < 2; ++continuous) {
      pa.continuous_batching = continuous;
      tern_engine* ea = tern_engine_create(m, &pa, &err);
      CHECK(ea != NULL);
      tern_request* ra = tern_submit(ea, in, 2, &att, NULL, NULL, &err);
      CHECK(ra != NULL && tern_request_wait(ra, -1) == 1 && tern_request_results(ra, got, &err) == TERN_OK);
      for (size_t i = 0; i < 2; ++i) {
        size_t rows = 0, cols = 0, want_rows = 0, want_cols = 0;
        const float* a = tern_result_attention(got, i, 0, &rows, &cols);
        const float* w = tern_result_attention(want_att, i, 0, &want_rows, &want_cols);
        CHECK(w != NULL && want_rows > 0 && want_cols > 0);
        CHECK(a != NULL && rows == want_rows && cols == want_cols);
        for (size_t k = 0; k < rows * cols; ++k) CHECK(fabsf(a[k] - w[k]) <= 1e-5f);
      }
      tern_request_free(ra);
      tern_engine_free(ea);
    }
    tern_results_free(want_att);
    tern_translator_free(ta);
  }

  /* A bad text fails alone; ids work; NULLs are refused. */
  const char* bad[] = {"A dog.", "\xff\xfe broken"};
  r = tern_submit(e, bad, 2, NULL, NULL, NULL, &err);
  CHECK(r != NULL && tern_request_wait(r, -1) == 1);
  CHECK(tern_request_results(r, got, &err) == TERN_OK);
  CHECK(tern_result_code(got, 0) == TERN_OK && tern_result_code(got, 1) == TERN_INVALID_ARGUMENT);
  tern_request_free(r);
  const uint32_t src[] = {5, 6, 7, 0};
  const uint32_t* srcs[] = {src};
  size_t lens[] = {4};
  r = tern_submit_ids(e, srcs, lens, 1, NULL, NULL, NULL, &err);
  CHECK(r != NULL && tern_request_wait(r, -1) == 1 && tern_request_results(r, got, &err) == TERN_OK);
  CHECK(tern_result_count(got) == 1 && tern_result_code(got, 0) == TERN_OK);
  tern_request_free(r);
  CHECK(tern_submit(NULL, in, 1, NULL, NULL, NULL, &err) == NULL && err.code == TERN_INVALID_ARGUMENT);
  tern_translate_params bad_params = tern_translate_default_params();
  bad_params.beam_size = 1000;
  CHECK(tern_submit(e, in, 1, &bad_params, NULL, NULL, &err) == NULL && err.code == TERN_INVALID_ARGUMENT);

  /* Many requests behind a held one, one cancelled while queued; then the engine freed with work queued:
   * each completes, readable after. */
  tern_translate_params held = tern_translate_default_params();
  held.abort_callback = hold;
  tern_request* blocker = tern_submit(e, in, 1, &held, NULL, NULL, &err);
  CHECK(blocker != NULL);
  struct timespec ms = {0, 1000000};
  while (!atomic_load(&entered)) nanosleep(&ms, NULL);
  tern_request* many[40];
  for (int i = 0; i < 40; ++i) {
    many[i] = tern_submit(e, in, 2, NULL, NULL, NULL, &err);
    CHECK(many[i] != NULL);
  }
  tern_request_cancel(many[39]);
  CHECK(tern_request_wait(many[39], 10000) == 1);
  CHECK(tern_request_results(many[39], got, &err) == TERN_CANCELLED);
  CHECK(tern_result_count(got) == 2 && tern_result_code(got, 0) == TERN_CANCELLED);
  atomic_store(&released, 1);
  tern_engine_free(e);
  tern_request_free(blocker);
  CHECK(atomic_load(&forgotten) == 8); /* every fire-and-forget request completed (and freed itself) */
  CHECK(atomic_load(&freed_empty) == 64);
  for (int i = 0; i < 40; ++i) {
    CHECK(tern_request_wait(many[i], 0) == 1);
    tern_status_code c = tern_request_results(many[i], got, &err);
    CHECK(c == TERN_OK || c == TERN_CANCELLED);
    CHECK(tern_result_count(got) == 2);
    tern_request_free(many[i]);
  }
  /* Round four, static and continuous calls: A's callback frees B (queued behind the same held worker, so
   * both share one call), then the engine from a callback. Nothing may hang. */
  for (int continuous = 0; continuous < 2; ++continuous) {
    tern_engine_params q = tern_engine_default_params();
    q.replicas = 1;
    q.continuous_batching = continuous;
    tern_engine* e2 = tern_engine_create(m, &q, &err);
    CHECK(e2 != NULL);
    atomic_store(&released, 0), atomic_store(&entered, 0), atomic_store(&other_wait, -1), atomic_store(&freed_other, 0);
    tern_request* hold2 = tern_submit(e2, in, 1, &held, NULL, NULL, &err);
    CHECK(hold2 != NULL);
    while (!atomic_load(&entered)) nanosleep(&ms, NULL);
    tern_request* a = tern_submit(e2, in, 2, NULL, free_the_other, NULL, &err);
    other = tern_submit(e2, in, 2, NULL, NULL, NULL, &err);
    CHECK(a != NULL && other != NULL);
    atomic_store(&released, 1);
    CHECK(tern_request_wait(a, -1) == 1);
    CHECK(atomic_load(&freed_other) == 1 && atomic_load(&other_wait) == 0);
    CHECK(tern_request_results(a, got, &err) == TERN_OK && tern_result_count(got) == 2);
    tern_request_free(a);
    tern_request_free(hold2);
    doomed = e2;
    atomic_store(&engine_freed, 0);
    CHECK(tern_submit(e2, in, 1, NULL, free_the_engine, NULL, &err) != NULL);
    for (int k = 0; k < 60000 && !atomic_load(&engine_freed); ++k) nanosleep(&ms, NULL);
    CHECK(atomic_load(&engine_freed) == 1);
  }

  tern_results_free(got);
  tern_results_free(want);
  tern_translator_free(tr);
  tern_model_free(m);
  printf("c engine: ok\n");
  return 0;
}
