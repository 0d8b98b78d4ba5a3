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

// Translator.Result of sentence i of `r`, through Translator.makeResult (nullptr: an exception is pending).
jobject MakeResult(JNIEnv* env, jclass cls, jmethodID make, const tern_results* r, size_t i) {
  const char* error = tern_result_error(r, i);
  jstring jerror = nullptr;
  if (error && !(jerror = env->NewStringUTF(error))) return nullptr;
  size_t len = 0, n_tokens = 0;
  const char* text = tern_result_text(r, i, 0, &len);
  jbyteArray jtext = nullptr;
  if (text) {
    if (!(jtext = env->NewByteArray(static_cast<jsize>(len)))) return nullptr;
    env->SetByteArrayRegion(jtext, 0, static_cast<jsize>(len), reinterpret_cast<const jbyte*>(text));
  }
  const uint32_t* tokens = tern_result_tokens(r, i, 0, &n_tokens);
  jintArray jtokens = nullptr, jsources = nullptr;
  jfloatArray jlogprobs = nullptr;
  if (tokens) {
    std::vector<jint> t(tokens, tokens + n_tokens);
    const float* lp = tern_result_token_logprobs(r, i, 0, nullptr);
    const int32_t* src = tern_result_token_sources(r, i, 0, nullptr);
    if (!(jtokens = env->NewIntArray(static_cast<jsize>(n_tokens))) || !(jlogprobs = env->NewFloatArray(static_cast<jsize>(n_tokens))) ||
        !(jsources = env->NewIntArray(static_cast<jsize>(n_tokens))))
      return nullptr;
    env->SetIntArrayRegion(jtokens, 0, static_cast<jsize>(n_tokens), t.data());
    env->SetFloatArrayRegion(jlogprobs, 0, static_cast<jsize>(n_tokens), lp);
    env->SetIntArrayRegion(jsources, 0, static_cast<jsize>(n_tokens), reinterpret_cast<const jint*>(src));
  }
  jobject out = env->CallStaticObjectMethod(cls, make, jtext, static_cast<jfloat>(tern_result_score(r, i, 0)), jerror,
                                            static_cast<jint>(tern_result_code(r, i)), jtokens, jlogprobs, jsources);
  for (jobject o : {static_cast<jobject>(jtext), static_cast<jobject>(jerror), static_cast<jobject>(jtokens),
                    static_cast<jobject>(jlogprobs), static_cast<jobject>(jsources)})
    if (o) env->DeleteLocalRef(o);
  return env->ExceptionCheck() ? nullptr : out;
}

// tern_translate_params from a Translator.Options (false: an exception is pending). `lang` keeps the
// target language's bytes for the call.
bool ReadOptions(JNIEnv* env, jobject options, jint early_stopping, tern_translate_params* p, std::string* lang) {
  jclass c = env->GetObjectClass(options);
  auto i = [&](const char* name) { return env->GetIntField(options, env->GetFieldID(c, name, "I")); };
  auto z = [&](const char* name) { return env->GetBooleanField(options, env->GetFieldID(c, name, "Z")) == JNI_TRUE; };
  const jint beam = i("beamSize"), max_length = i("maxLength"), hf_rules = i("hfRules");
  const jfloat length_penalty = env->GetFloatField(options, env->GetFieldID(c, "lengthPenalty", "F"));
  p->split_sentences = z("splitSentences") ? 1 : 0;
  p->use_shortlist = z("useShortlist") ? 1 : 0;
  p->return_scores = z("returnScores") ? 1 : 0;
  p->return_alignment = z("returnAlignment") ? 1 : 0;
  auto target = static_cast<jstring>(env->GetObjectField(options, env->GetFieldID(c, "targetLang", "Ljava/lang/String;")));
  if (env->ExceptionCheck()) return false;  // a field is missing (NoSuchFieldError)
  p->beam_size = beam > 0 ? static_cast<uint32_t>(beam) : 0;
  p->max_length = max_length > 0 ? static_cast<uint32_t>(max_length) : 0;
  p->length_penalty = length_penalty;  // NaN: the file's
  p->early_stopping = early_stopping;  // -1: the file's
  p->hf_rules = hf_rules > 0 ? static_cast<uint32_t>(hf_rules) : 0;
  if (target) {
    const char* l = env->GetStringUTFChars(target, nullptr);
    if (!l) return false;
    *lang = l;
    env->ReleaseStringUTFChars(target, l);
    p->target_lang = lang->c_str();
  }
  return true;
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

JNIEXPORT jboolean JNICALL Java_dev_tern_Translator_nativeTranslate(JNIEnv* env, jclass cls, jlong handle,
                                                                    jobjectArray sentences, jobject options,
                                                                    jint early_stopping, jobject listener, jint index_offset,
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
  if (!ReadOptions(env, options, early_stopping, &p, &lang)) return JNI_FALSE;
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
  const jmethodID make = env->GetStaticMethodID(cls, "makeResult", "([BFLjava/lang/String;I[I[F[I)Ldev/tern/Translator$Result;");
  if (!make) return JNI_FALSE;
  for (jsize i = 0; i < n; ++i) {
    jobject r = MakeResult(env, cls, make, results.r, static_cast<size_t>(i));
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
  delete s;
}

}  // extern "C"
