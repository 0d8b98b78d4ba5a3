/* The C API compiles as C and translates: the usage example of tern.h, with assertions. */
#include <stdio.h>
#include <string.h>

#include "tern/tern.h"

#define CHECK(c) do { if (!(c)) { fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #c); return 1; } } while (0)

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
  tern_model_free(model); /* the translator keeps it alive */
  CHECK(tern_translator_arena_bytes(tr) > 0);

  const char* in[] = {"A man in a blue shirt.", "bad \xff", "The dog runs."};
  tern_translate_params p = tern_translate_default_params();
  CHECK(tern_translate(tr, in, 3, &p, &err) == TERN_OK);
  CHECK(tern_result_count(tr) == 3);
  size_t len = 0, n = 0;
  CHECK(tern_result_text(tr, 0, 0, &len) != NULL);
  CHECK(tern_result_error(tr, 0) == NULL);
  CHECK(tern_result_ids(tr, 0, 0, &n) != NULL);
  CHECK(tern_result_text(tr, 1, 0, &len) == NULL);
  CHECK(strcmp(tern_result_error(tr, 1), "invalid UTF-8 at byte 4") == 0);
  CHECK(tern_result_hypotheses(tr, 2) == 1);

  const char* four[] = {"a", "b", "c", "d"};
  CHECK(tern_translate(tr, four, 4, &p, &err) == TERN_INVALID_ARGUMENT);
  CHECK(strcmp(err.message, "4 sentences exceed max_batch 3") == 0);

  uint32_t ids[] = {5, 6, 0};
  const uint32_t* srcs[] = {ids};
  size_t lens[] = {3};
  CHECK(tern_translate_ids(tr, srcs, lens, 1, &p, &err) == TERN_OK);
  CHECK(tern_result_ids(tr, 0, 0, &n) != NULL);
  tern_translator_free(tr);
  printf("1 passed, 0 failed\n");
  return 0;
}
