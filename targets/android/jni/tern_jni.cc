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
  jint index_offset;
};

int OnToken(const tern_token_event* e, void* user_data) {
  auto* l = static_cast<JavaListener*>(user_data);
  JNIEnv* env = l->env;
  jbyteArray text = env->NewByteArray(static_cast<jsize>(e->text_len));
  if (!text) return 0;  // OutOfMemoryError pending
  if (e->text_len) env->SetByteArrayRegion(text, 0, static_cast<jsize>(e->text_len), reinterpret_cast<const jbyte*>(e->text));
  const jboolean go = env->CallStaticBooleanMethod(l->translator_class, l->dispatch, l->listener,
                                                   static_cast<jint>(e->index) + l->index_offset, static_cast<jint>(e->part),
                                                   static_cast<jint>(e->token), text, e->last ? JNI_TRUE : JNI_FALSE);
  env->DeleteLocalRef(text);
  if (env->ExceptionCheck()) return 0;
  return go ? 1 : 0;
}

}  // namespace

extern "C" {

JNIEXPORT jlong JNICALL Java_dev_tern_Translator_nativeOpen(JNIEnv* env, jclass, jstring path, jint threads, jint max_batch) {
  const char* p = env->GetStringUTFChars(path, nullptr);
  if (!p) return 0;
  tern_error err;
  tern_model* model = tern_model_load(p, &err);
  env->ReleaseStringUTFChars(path, p);
  if (!model) return Throw(env, err.message), 0;
  tern_translator_params tp = tern_translator_default_params();
  tp.threads = threads > 0 ? static_cast<uint32_t>(threads) : 0;
  tp.max_batch = static_cast<uint32_t>(max_batch);
  tern_translator* tr = tern_translator_create(model, &tp, &err);
  if (!tr) return tern_model_free(model), Throw(env, err.message), 0;
  auto* s = new (std::nothrow) Session;
  if (!s) return tern_translator_free(tr), tern_model_free(model), Throw(env, "out of memory"), 0;
  s->translator = tr;
  s->model = model;
  return reinterpret_cast<jlong>(s);
}

JNIEXPORT jboolean JNICALL Java_dev_tern_Translator_nativeTranslate(JNIEnv* env, jclass cls, jlong handle,
                                                                    jobjectArray sentences, jobjectArray prefix_bytes,
                                                                    jobject options,
                                                                    jint early_stopping, jint markup, jobject listener,
                                                                    jint index_offset,
                                                                    jobjectArray out) {
  auto* s = reinterpret_cast<Session*>(handle);
  if (!s) return Throw(env, "translator is closed"), JNI_FALSE;
  const jsize n = env->GetArrayLength(sentences);
  // The C API checks n against max_batch (before it reads anything); the copies are this call's own.
  std::vector<std::string> inputs(static_cast<size_t>(n));
  std::vector<const char*> pointers(static_cast<size_t>(n));
  for (jsize i = 0; i < n; ++i) {
    auto bytes = static_cast<jbyteArray>(env->GetObjectArrayElement(sentences, i));
    const jsize len = env->GetArrayLength(bytes);
    inputs[i].resize(static_cast<size_t>(len));
    if (len) env->GetByteArrayRegion(bytes, 0, len, reinterpret_cast<jbyte*>(&inputs[i][0]));
    env->DeleteLocalRef(bytes);
    pointers[i] = inputs[i].c_str();
  }
  ResultsOwner results;
  if (!results.r) return Throw(env, "out of memory"), JNI_FALSE;
  tern_translate_params p = tern_translate_default_params();
  std::string lang;
  if (!ReadOptions(env, options, early_stopping, markup, s->glossary, &p, &lang)) return JNI_FALSE;
  // Options.targetPrefix: this chunk's, as UTF-8 (Translator.translateLocked; null: none).
  std::vector<std::string> prefixes;
  std::vector<const char*> prefix_pointers;
  if (prefix_bytes) {
    prefixes.resize(static_cast<size_t>(n));
    prefix_pointers.resize(static_cast<size_t>(n));
    for (jsize i = 0; i < n; ++i) {
      auto bytes = static_cast<jbyteArray>(env->GetObjectArrayElement(prefix_bytes, i));
      if (!bytes) continue;
      const jsize len = env->GetArrayLength(bytes);
      std::string& pre = prefixes[static_cast<size_t>(i)];
      pre.resize(static_cast<size_t>(len));
      if (len) env->GetByteArrayRegion(bytes, 0, len, reinterpret_cast<jbyte*>(&pre[0]));
      env->DeleteLocalRef(bytes);
      prefix_pointers[static_cast<size_t>(i)] = pre.c_str();
    }
    p.target_prefix = prefix_pointers.data();
  }
  JavaListener java{env, cls, nullptr, listener, index_offset};
  if (listener) {
    java.dispatch = env->GetStaticMethodID(cls, "dispatchToken", "(Ldev/tern/Translator$TokenListener;III[BZ)Z");
    if (!java.dispatch) return JNI_FALSE;  // NoSuchMethodError pending
    p.token_callback = OnToken;
    p.token_user_data = &java;
  }
  tern_error err;
  const tern_status_code rc = tern_translate(s->translator, pointers.data(), static_cast<size_t>(n), &p, results.r, &err);
  if (env->ExceptionCheck()) return JNI_FALSE;  // the listener threw: that exception reaches the caller
  if (rc != TERN_OK && rc != TERN_CANCELLED) return Throw(env, err.message), JNI_FALSE;
  const jmethodID make = tern_jni::MakeResultMethod(env, cls);
  if (!make) return JNI_FALSE;
  for (jsize i = 0; i < n; ++i) {
    jobject r = MakeResult(env, cls, make, results.r, static_cast<size_t>(i), inputs[static_cast<size_t>(i)]);
    if (!r) return JNI_FALSE;  // a Java exception is pending
    env->SetObjectArrayElement(out, i, r);
    env->DeleteLocalRef(r);
  }
  return rc == TERN_CANCELLED ? JNI_TRUE : JNI_FALSE;
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
