/* Translates one sentence through tern's installed C API (built with pkg-config's flags for tern). */
#include <stdio.h>

#include <tern/tern.h>

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: consumer_c MODEL SENTENCE\n");
    return 2;
  }
  tern_error err;
  tern_model* model = tern_model_load(argv[1], &err);
  if (!model) {
    fprintf(stderr, "%s\n", err.message);
    return 1;
  }
  tern_translator_params tp = tern_translator_default_params();
  tp.threads = 1;
  tern_translator* tr = tern_translator_create(model, &tp, &err);
  if (!tr) {
    fprintf(stderr, "%s\n", err.message);
    tern_model_free(model);
    return 1;
  }
  const char* in[] = {argv[2]};
  tern_translate_params p = tern_translate_default_params();
  int rc = 1;
  tern_results* res = tern_results_create();
  if (res && tern_translate(tr, in, 1, &p, res, &err) == TERN_OK) {
    size_t len = 0;
    const char* text = tern_result_text(res, 0, 0, &len);
    if (text) {
      printf("%.*s\n", (int)len, text);
      rc = 0;
    } else {
      fprintf(stderr, "%s\n", tern_result_error(res, 0));
    }
  } else {
    fprintf(stderr, "%s\n", err.message);
  }
  tern_results_free(res);
  tern_translator_free(tr);
  tern_model_free(model);
  return rc;
}
