// JNI glue for dev.tern.Translator over the C API (tern.h); helpers shared with dev.tern.Engine in
// jni_common.h. Builds for the host (tests with the JDK) and for Android (the same source). Errors become dev.tern.TernException; no C++ exception escapes.
#include <jni.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "jni_common.h"
#include "tern/tern.h"

namespace {

using tern_jni::LocalRefs;
using tern_jni::MakeResult;
using tern_jni::ReadOptions;
using tern_jni::Throw;

// The byte[] elements of `arrays` as strings (`pointers`: their c_str, NULL for a null element).
void ReadBytes(JNIEnv* env, jobjectArray arrays, std::vector<std::string>* out, std::vector<const char*>* pointers) {
  const jsize n = env->GetArrayLength(arrays);
  out->assign(static_cast<size_t>(n), std::string());
  pointers->assign(static_cast<size_t>(n), nullptr);
  for (jsize i = 0; i < n; ++i) {
    auto bytes = static_cast<jbyteArray>(env->GetObjectArrayElement(arrays, i));
    if (!bytes) continue;
    std::string& s = (*out)[static_cast<size_t>(i)];
    const jsize len = env->GetArrayLength(bytes);
    s.resize(static_cast<size_t>(len));
    if (len) env->GetByteArrayRegion(bytes, 0, len, reinterpret_cast<jbyte*>(&s[0]));
    env->DeleteLocalRef(bytes);
    (*pointers)[static_cast<size_t>(i)] = s.c_str();
  }
}

// Fills out[0..n) with the Translator.Result of each sentence of `r` (false: an exception is pending).
bool FillResults(JNIEnv* env, jclass cls, const tern_results* r, const std::vector<std::string>& inputs, jobjectArray out) {
  tern_jni::ResultMethods m;
  if (!tern_jni::GetResultMethods(env, cls, &m)) return false;
  for (size_t i = 0; i < inputs.size(); ++i) {
    jobject o = MakeResult(env, cls, m, r, i, inputs[i]);
    if (!o) return false;
    env->SetObjectArrayElement(out, static_cast<jsize>(i), o);
    env->DeleteLocalRef(o);
  }
  return true;
}

// A Java Translator's native side. Several Java threads may call translate on one Translator: everything
// per call (input copies, the result set) lives in that call, and the C API lets one call run at a time
// (a concurrent one fails with TERN_BUSY, raised as TernException).
struct Session {
  tern_translator* translator = nullptr;
  tern_model* model = nullptr;        // kept for glossaries
  tern_glossary* glossary = nullptr;  // setGlossary's (replaced under Java's write lock: no call runs then)
};

// A result set owned by one JNI call.
struct ResultsOwner {
  tern_results* r = tern_results_create();
  ~ResultsOwner() { tern_results_free(r); }
};

// A Java TokenListener behind the C API's token callback. Each event becomes a byte[] and a call of
// Translator.dispatchToken (which makes the String and calls the listener). A Java exception stops the call
// and stays pending, so the Java caller sees it.
struct JavaListener {
  JNIEnv* env;
  jclass translator_class;
  jmethodID dispatch;
  jobject listener;
};

int OnToken(const tern_token_event* e, void* user_data) {
  auto* l = static_cast<JavaListener*>(user_data);
  JNIEnv* env = l->env;
  jbyteArray text = env->NewByteArray(static_cast<jsize>(e->text_len));
  if (!text) return 0;  // OutOfMemoryError pending
  if (e->text_len) env->SetByteArrayRegion(text, 0, static_cast<jsize>(e->text_len), reinterpret_cast<const jbyte*>(e->text));
  const jboolean go = env->CallStaticBooleanMethod(l->translator_class, l->dispatch, l->listener,
                                                   static_cast<jint>(e->index), static_cast<jint>(e->part),
                                                   static_cast<jint>(e->token), text, e->last ? JNI_TRUE : JNI_FALSE);
  env->DeleteLocalRef(text);
  if (env->ExceptionCheck()) return 0;
  return go ? 1 : 0;
}

// Java LogitsProcessors (Options.logitsProcessors) behind the C API's logits callback: per row, the prefix,
// scores and columns become Java arrays for Translator.dispatchLogits, and the scores are copied back. A
// Java exception stays pending (the caller sees it); later rows are left to the model.
struct JavaLogits {
  JNIEnv* env;
  jclass translator_class;
  jmethodID dispatch;
  jobjectArray processors;
};

void OnLogits(tern_logits_row* row, void* user_data) {
  auto* j = static_cast<JavaLogits*>(user_data);
  JNIEnv* env = j->env;
  if (env->ExceptionCheck()) return;
  const auto n = static_cast<jsize>(row->n_columns), steps = static_cast<jsize>(row->step);
  jintArray prefix = env->NewIntArray(steps);
  jfloatArray scores = env->NewFloatArray(n);
  jintArray columns = row->columns ? env->NewIntArray(n) : nullptr;
  if (prefix && scores && (columns || !row->columns)) {
    if (steps) env->SetIntArrayRegion(prefix, 0, steps, reinterpret_cast<const jint*>(row->prefix));
    env->SetFloatArrayRegion(scores, 0, n, row->scores);
    if (columns) env->SetIntArrayRegion(columns, 0, n, reinterpret_cast<const jint*>(row->columns));
    env->CallStaticVoidMethod(j->translator_class, j->dispatch, j->processors, static_cast<jint>(row->input),
                              static_cast<jint>(row->part), static_cast<jint>(row->hypothesis), static_cast<jint>(row->step),
                              prefix, scores, columns);
    if (!env->ExceptionCheck()) env->GetFloatArrayRegion(scores, 0, n, row->scores);
  }
  if (prefix) env->DeleteLocalRef(prefix);
  if (scores) env->DeleteLocalRef(scores);
  if (columns) env->DeleteLocalRef(columns);
}

// A call that fills a result set from `inputs` under the Options (scoring, ICU messages): the options read,
// run(&params, results, &err), the results into `out`; a failed call throws.
template <typename Run>
void ResultsCall(JNIEnv* env, jclass cls, jobject options, const std::vector<std::string>& inputs, jobjectArray out, Run run) {
  ResultsOwner results;
  if (!results.r) return Throw(env, "out of memory");
  tern_translate_params p = tern_translate_default_params();
  tern_jni::OptionStorage keep;
  if (!ReadOptions(env, options, nullptr, inputs.size(), &p, &keep)) return;
  tern_error err;
  if (run(&p, results.r, &err) != TERN_OK) return Throw(env, err.message);
  FillResults(env, cls, results.r, inputs, out);
}

}  // namespace

extern "C" {

JNIEXPORT jlong JNICALL Java_dev_tern_Translator_nativeOpen(JNIEnv* env, jclass, jstring path, jint threads, jint max_batch,
                                                            jint max_beam, jint max_n_best, jboolean attention,
                                                            jstring packed_cache_dir) {
  tern_model* model = tern_jni::LoadModel(env, path, packed_cache_dir);
  if (!model) return 0;
  tern_error err;
  tern_translator_params tp = tern_translator_default_params();
  tp.threads = threads > 0 ? static_cast<uint32_t>(threads) : 0;
  tp.max_batch = static_cast<uint32_t>(max_batch);
  tp.max_beam = static_cast<uint32_t>(max_beam);      // >= 0 (Translator's constructor)
  tp.max_n_best = static_cast<uint32_t>(max_n_best);
  tp.attention = attention ? 1 : 0;
  tern_translator* tr = tern_translator_create(model, &tp, &err);
  if (!tr) return tern_model_free(model), Throw(env, err.message), 0;
  auto* s = new (std::nothrow) Session;
  if (!s) return tern_translator_free(tr), tern_model_free(model), Throw(env, "out of memory"), 0;
  s->translator = tr;
  s->model = model;
  return reinterpret_cast<jlong>(s);
}

JNIEXPORT void JNICALL Java_dev_tern_Translator_nativeTranslate(JNIEnv* env, jclass cls, jlong handle,
                                                                    jobjectArray sentences, jobjectArray prefix_bytes,
                                                                    jintArray keep_spans,
                                                                    jobject options, jobject listener,
                                                                    jobjectArray out) {
  auto* s = reinterpret_cast<Session*>(handle);
  if (!s) return Throw(env, "translator is closed");
  // One C call for every sentence: more than max_batch run in chunks there (tern/call_chunks.h).
  std::vector<std::string> inputs, prefixes;
  std::vector<const char*> pointers, prefix_pointers;
  ReadBytes(env, sentences, &inputs, &pointers);
  const size_t n = inputs.size();
  ResultsOwner results;
  if (!results.r) return Throw(env, "out of memory");
  tern_translate_params p = tern_translate_default_params();
  tern_jni::OptionStorage keep;
  if (!ReadOptions(env, options, s->glossary, n, &p, &keep)) return;
  if (!tern_jni::ReadKeepSpans(env, keep_spans, inputs, &keep, &p)) return;
  // Options.targetPrefix as UTF-8, one per sentence (Translator.translateLocked; null: none).
  if (!tern_jni::CheckPerSentence(env, prefix_bytes, n, "targetPrefix")) return;
  if (prefix_bytes) {
    ReadBytes(env, prefix_bytes, &prefixes, &prefix_pointers);
    p.target_prefix = prefix_pointers.data();
  }
  auto processors = static_cast<jobjectArray>(env->GetObjectField(
      options, env->GetFieldID(env->GetObjectClass(options), "logitsProcessors", "[Ldev/tern/Translator$LogitsProcessor;")));
  JavaLogits logits{env, cls, nullptr, processors};
  if (processors && env->GetArrayLength(processors) > 0) {
    logits.dispatch = env->GetStaticMethodID(cls, "dispatchLogits", "([Ldev/tern/Translator$LogitsProcessor;IIII[I[F[I)V");
    if (!logits.dispatch) return;  // NoSuchMethodError pending
    p.logits_callback = OnLogits;
    p.logits_user_data = &logits;
  }
  JavaListener java{env, cls, nullptr, listener};
  if (listener) {
    java.dispatch = env->GetStaticMethodID(cls, "dispatchToken", "(Ldev/tern/Translator$TokenListener;III[BZ)Z");
    if (!java.dispatch) return;  // NoSuchMethodError pending
    p.token_callback = OnToken;
    p.token_user_data = &java;
  }
  tern_error err;
  const tern_status_code rc = tern_translate(s->translator, pointers.data(), n, &p, results.r, &err);
  if (env->ExceptionCheck()) return;  // a listener or processor threw: that exception reaches the caller
  if (rc != TERN_OK && rc != TERN_CANCELLED) return Throw(env, err.message);
  FillResults(env, cls, results.r, inputs, out);  // false: an exception is pending for the caller
}

JNIEXPORT void JNICALL Java_dev_tern_Translator_nativeScore(JNIEnv* env, jclass cls, jlong handle, jobjectArray sources,
                                                            jobjectArray targets, jobject options, jobjectArray out) {
  auto* s = reinterpret_cast<Session*>(handle);
  if (!s) return Throw(env, "translator is closed");
  std::vector<std::string> src, tgt;
  std::vector<const char*> src_pointers, tgt_pointers;
  ReadBytes(env, sources, &src, &src_pointers);
  ReadBytes(env, targets, &tgt, &tgt_pointers);
  ResultsCall(env, cls, options, src, out, [&](const tern_translate_params* p, tern_results* r, tern_error* err) {
    return tern_score(s->translator, src_pointers.data(), tgt_pointers.data(), src.size(), p, r, err);
  });
}

JNIEXPORT void JNICALL Java_dev_tern_Translator_nativeIcuMessages(JNIEnv* env, jclass cls, jlong handle, jobjectArray messages,
                                                                  jobject options, jobjectArray out) {
  auto* s = reinterpret_cast<Session*>(handle);
  if (!s) return Throw(env, "translator is closed");
  std::vector<std::string> msgs;
  std::vector<const char*> pointers;
  ReadBytes(env, messages, &msgs, &pointers);
  ResultsCall(env, cls, options, msgs, out, [&](const tern_translate_params* p, tern_results* r, tern_error* err) {
    return tern_translate_icu_messages(s->translator, pointers.data(), msgs.size(), p, r, err);
  });
}

JNIEXPORT jlong JNICALL Java_dev_tern_Translator_nativeArenaBytes(JNIEnv*, jclass, jlong handle) {
  auto* s = reinterpret_cast<Session*>(handle);
  return s ? static_cast<jlong>(tern_translator_arena_bytes(s->translator)) : 0;
}

JNIEXPORT void JNICALL Java_dev_tern_Translator_nativeClose(JNIEnv*, jclass, jlong handle) {
  auto* s = reinterpret_cast<Session*>(handle);
  if (!s) return;
  tern_translator_free(s->translator);
  tern_glossary_free(s->glossary);
  tern_model_free(s->model);
  delete s;
}

JNIEXPORT void JNICALL Java_dev_tern_Translator_nativeSetGlossary(JNIEnv* env, jclass, jlong handle, jobjectArray sources,
                                                                   jobjectArray targets, jboolean ignore_case) {
  auto* s = reinterpret_cast<Session*>(handle);
  if (!s) return Throw(env, "translator is closed");
  const jsize n = env->GetArrayLength(sources);
  std::vector<std::string> src(static_cast<size_t>(n)), tgt(static_cast<size_t>(n));
  std::vector<const char*> ps(static_cast<size_t>(n)), pt(static_cast<size_t>(n));
  for (jsize i = 0; i < n; ++i) {
    for (int side = 0; side < 2; ++side) {
      auto bytes = static_cast<jbyteArray>(env->GetObjectArrayElement(side ? targets : sources, i));
      std::string& out = (side ? tgt : src)[static_cast<size_t>(i)];
      const jsize len = env->GetArrayLength(bytes);
      out.resize(static_cast<size_t>(len));
      if (len) env->GetByteArrayRegion(bytes, 0, len, reinterpret_cast<jbyte*>(&out[0]));
      env->DeleteLocalRef(bytes);
    }
    ps[static_cast<size_t>(i)] = src[static_cast<size_t>(i)].c_str();
    pt[static_cast<size_t>(i)] = tgt[static_cast<size_t>(i)].c_str();
  }
  tern_glossary* g = nullptr;
  if (n > 0) {
    tern_error err;
    g = tern_glossary_create(s->model, ps.data(), pt.data(), static_cast<size_t>(n), ignore_case ? 1 : 0, &err);
    if (!g) return Throw(env, err.message);
  }
  tern_glossary_free(s->glossary);
  s->glossary = g;
}

}  // extern "C"
