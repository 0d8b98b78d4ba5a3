// JNI glue for dev.tern.Translator over the C API (tern.h). Builds for the host (tests with the JDK)
// and for Android (the same source). Errors become dev.tern.TernException; no C++ exception escapes.
#include <jni.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "tern/tern.h"

namespace {

// A Java Translator's native side. Several Java threads may call translate on one Translator: everything
// per call (input copies, the result set) lives in that call, and the C API lets one call run at a time
// (a concurrent one fails with TERN_BUSY, raised as TernException).
struct Session {
  tern_translator* translator = nullptr;
};

// A result set owned by one JNI call.
struct ResultsOwner {
  tern_results* r = tern_results_create();
  ~ResultsOwner() { tern_results_free(r); }
};

void Throw(JNIEnv* env, const char* message) {
  jclass cls = env->FindClass("dev/tern/TernException");
  if (cls) env->ThrowNew(cls, message);
}

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
  tern_model_free(model);  // the translator keeps the model alive
  if (!tr) return Throw(env, err.message), 0;
  auto* s = new (std::nothrow) Session;
  if (!s) return tern_translator_free(tr), Throw(env, "out of memory"), 0;
  s->translator = tr;
  return reinterpret_cast<jlong>(s);
}

JNIEXPORT jboolean JNICALL Java_dev_tern_Translator_nativeTranslate(
    JNIEnv* env, jclass cls, jlong handle, jobjectArray sentences, jint beam, jint max_length, jfloat length_penalty,
    jint early_stopping, jint hf_rules, jstring target_lang, jboolean split_sentences, jboolean use_shortlist, jobject listener, jint index_offset,
    jobjectArray texts, jfloatArray scores, jobjectArray errors, jintArray codes) {
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
  p.beam_size = beam > 0 ? static_cast<uint32_t>(beam) : 0;
  p.max_length = max_length > 0 ? static_cast<uint32_t>(max_length) : 0;
  if (!std::isnan(length_penalty)) p.length_penalty = length_penalty;
  p.early_stopping = early_stopping;
  p.hf_rules = hf_rules > 0 ? static_cast<uint32_t>(hf_rules) : 0;
  p.split_sentences = split_sentences ? 1 : 0;
  p.use_shortlist = use_shortlist ? 1 : 0;
  std::string lang;
  if (target_lang) {
    const char* l = env->GetStringUTFChars(target_lang, nullptr);
    if (!l) return JNI_FALSE;
    lang = l;
    env->ReleaseStringUTFChars(target_lang, l);
    p.target_lang = lang.c_str();
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
  std::vector<jfloat> sc(static_cast<size_t>(n), 0.f);
  std::vector<jint> cd(static_cast<size_t>(n), 0);
  for (jsize i = 0; i < n; ++i) {
    cd[static_cast<size_t>(i)] = static_cast<jint>(tern_result_code(results.r, static_cast<size_t>(i)));
    if (const char* e = tern_result_error(results.r, static_cast<size_t>(i))) {
      jstring msg = env->NewStringUTF(e);
      env->SetObjectArrayElement(errors, i, msg);
      env->DeleteLocalRef(msg);
      continue;
    }
    size_t len = 0;
    const char* text = tern_result_text(results.r, static_cast<size_t>(i), 0, &len);
    jbyteArray out = env->NewByteArray(static_cast<jsize>(len));
    if (!out) return JNI_FALSE;
    env->SetByteArrayRegion(out, 0, static_cast<jsize>(len), reinterpret_cast<const jbyte*>(text));
    env->SetObjectArrayElement(texts, i, out);
    env->DeleteLocalRef(out);
    sc[static_cast<size_t>(i)] = tern_result_score(results.r, static_cast<size_t>(i), 0);
  }
  env->SetFloatArrayRegion(scores, 0, n, sc.data());
  env->SetIntArrayRegion(codes, 0, n, cd.data());
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
  delete s;
}

}  // extern "C"
