// JNI glue for dev.tern.Engine over the engine's C API (tern/tern_engine.h). A submission's completion runs
// on an engine worker thread: it attaches that thread to the JVM, turns the results into Translator.Result
// objects (jni_common.h) and completes the Java CompletableFuture through Engine.complete, then frees the
// request (tern_request_free from its own callback). No C++ exception escapes.
#include <jni.h>

#include <atomic>
#include <new>
#include <string>
#include <vector>

#include "jni_common.h"
#include "tern/tern_engine.h"

namespace {

// Owned by the Java Engine's handle and by each submission in flight (a completion may still run after
// nativeClose returned: closed from a callback, tern_engine_free does not wait for the workers).
struct EngineSession {
  tern_model* model = nullptr;
  tern_engine* engine = nullptr;
  JavaVM* vm = nullptr;
  jclass engine_class = nullptr;      // global references
  jclass translator_class = nullptr;
  jmethodID complete = nullptr;
  tern_jni::ResultMethods make;  // its hypothesis_class a global reference
  std::atomic<int> owners{1};
};

// Drops one owner of `s`; the last deletes its global references (with `env`, the caller's) and it.
void Release(EngineSession* s, JNIEnv* env) {
  if (s->owners.fetch_sub(1) != 1) return;
  if (env) {
    env->DeleteGlobalRef(s->engine_class);
    env->DeleteGlobalRef(s->translator_class);
    env->DeleteGlobalRef(s->make.hypothesis_class);
  }
  delete s;
}

// JavaVM::AttachCurrentThread takes void** in the JDK's jni.h and JNIEnv** in the NDK's: the parameter type
// is deduced from whichever header this builds with.
template <typename Env>
jint AttachWith(jint (JavaVM::*attach)(Env, void*), JavaVM* vm, JNIEnv** env) {
  return (vm->*attach)(reinterpret_cast<Env>(env), nullptr);
}

// One submission in flight: the Java future (a global reference) and the inputs (for source spans).
struct Pending {
  EngineSession* session = nullptr;
  jobject future = nullptr;
  std::vector<std::string> inputs;
  tern_jni::OptionStorage keep;  // what the request's params point to, alive until completion
  std::vector<std::string> prefixes;  // Options.targetPrefix as UTF-8
  std::vector<const char*> prefix_pointers;
  jobjectArray processors = nullptr;  // Options.logitsProcessors (a global reference), run on a worker thread
  jmethodID dispatch = nullptr;       // Translator.dispatchEngineLogits
  std::string processor_error;        // what a processor threw (the request then fails with it)
};

// The JNIEnv of this (worker) thread, attached as a daemon the first time: a worker runs many rows of many
// requests, and the JVM must not wait for it at exit.
JNIEnv* WorkerEnv(JavaVM* vm) {
  JNIEnv* env = nullptr;
  if (vm->GetEnv(reinterpret_cast<void**>(&env), JNI_VERSION_1_6) == JNI_OK) return env;
  return AttachWith(&JavaVM::AttachCurrentThreadAsDaemon, vm, &env) == JNI_OK ? env : nullptr;
}

// Options.logitsProcessors of an engine request, per row on the worker thread (Translator.dispatchEngineLogits).
void OnLogits(tern_logits_row* row, void* user_data) {
  auto* p = static_cast<Pending*>(user_data);
  if (!p->processor_error.empty()) return;
  JNIEnv* env = WorkerEnv(p->session->vm);
  if (!env) return;
  const auto n = static_cast<jsize>(row->n_columns), steps = static_cast<jsize>(row->step);
  jintArray prefix = env->NewIntArray(steps);
  jfloatArray scores = env->NewFloatArray(n);
  jintArray columns = row->columns ? env->NewIntArray(n) : nullptr;
  if (prefix && scores && (columns || !row->columns)) {
    if (steps) env->SetIntArrayRegion(prefix, 0, steps, reinterpret_cast<const jint*>(row->prefix));
    env->SetFloatArrayRegion(scores, 0, n, row->scores);
    if (columns) env->SetIntArrayRegion(columns, 0, n, reinterpret_cast<const jint*>(row->columns));
    env->CallStaticVoidMethod(p->session->translator_class, p->dispatch, p->processors, static_cast<jint>(row->input),
                              static_cast<jint>(row->part), static_cast<jint>(row->hypothesis), static_cast<jint>(row->step),
                              prefix, scores, columns);
    if (!env->ExceptionCheck()) env->GetFloatArrayRegion(scores, 0, n, row->scores);
  }
  if (env->ExceptionCheck()) {  // the request stops (OnAbort) and fails with the exception's text
    jthrowable t = env->ExceptionOccurred();
    env->ExceptionClear();
    jstring msg = static_cast<jstring>(env->CallObjectMethod(t, env->GetMethodID(env->GetObjectClass(t), "toString", "()Ljava/lang/String;")));
    env->ExceptionClear();
    const char* c = msg ? env->GetStringUTFChars(msg, nullptr) : nullptr;
    p->processor_error = std::string("a logits processor threw ") + (c ? c : "an exception");
    if (c) env->ReleaseStringUTFChars(msg, c);
  }
  for (jobject o : {static_cast<jobject>(prefix), static_cast<jobject>(scores), static_cast<jobject>(columns)})
    if (o) env->DeleteLocalRef(o);
}

int OnAbort(void* user_data) { return static_cast<Pending*>(user_data)->processor_error.empty() ? 0 : 1; }

void Completed(tern_request* request, void* user_data) {
  auto* p = static_cast<Pending*>(user_data);
  EngineSession* s = p->session;
  JavaVM* vm = s->vm;
  JNIEnv* env = nullptr;
  bool attached = false;
  if (vm->GetEnv(reinterpret_cast<void**>(&env), JNI_VERSION_1_6) == JNI_EDETACHED) {
    if (AttachWith(&JavaVM::AttachCurrentThread, vm, &env) != JNI_OK) env = nullptr;
    attached = env != nullptr;
  }
  if (env) {
    tern_results* results = tern_results_create();
    tern_error err;
    const tern_status_code rc = results ? tern_request_results(request, results, &err) : TERN_RESOURCE_EXHAUSTED;
    jobjectArray out = nullptr;
    jstring error = nullptr;
    if (rc == TERN_OK || rc == TERN_CANCELLED) {
      out = env->NewObjectArray(static_cast<jsize>(p->inputs.size()), env->FindClass("dev/tern/Translator$Result"), nullptr);
      for (size_t i = 0; out && i < p->inputs.size() && !env->ExceptionCheck(); ++i) {
        jobject r = tern_jni::MakeResult(env, s->translator_class, s->make, results, i, p->inputs[i]);
        if (!r) break;
        env->SetObjectArrayElement(out, static_cast<jsize>(i), r);
        env->DeleteLocalRef(r);
      }
    } else {
      error = env->NewStringUTF(results ? err.message : "out of memory");
    }
    if (!p->processor_error.empty()) out = nullptr, error = env->NewStringUTF(p->processor_error.c_str());
    if (env->ExceptionCheck()) {  // a result could not be made: the future gets the exception's message
      env->ExceptionClear();
      out = nullptr;
      error = env->NewStringUTF("dev.tern.Engine: results could not be made (out of memory)");
    }
    // Java code may run here (the future's dependents) and close the Engine: `s` stays ours until Release.
    env->CallStaticVoidMethod(s->engine_class, s->complete, p->future, out, error);
    env->ExceptionClear();
    env->DeleteGlobalRef(p->future);
    if (p->processors) env->DeleteGlobalRef(p->processors);
    tern_results_free(results);
  }
  delete p;
  tern_request_free(request);  // from its own callback: released when this returns
  Release(s, env);
  if (attached) vm->DetachCurrentThread();
}

}  // namespace

extern "C" {

JNIEXPORT jlong JNICALL Java_dev_tern_Engine_nativeOpen(JNIEnv* env, jclass cls, jstring path, jint replicas, jint threads,
                                                        jint max_batch, jint max_beam, jint max_n_best, jboolean attention,
                                                        jstring packed_cache_dir) {
  tern_model* model = tern_jni::LoadModel(env, path, packed_cache_dir);
  if (!model) return 0;
  tern_error err;
  tern_engine_params ep = tern_engine_default_params();
  ep.replicas = replicas > 0 ? static_cast<uint32_t>(replicas) : 0;
  ep.translator.threads = threads > 0 ? static_cast<uint32_t>(threads) : 0;
  ep.translator.max_batch = max_batch > 0 ? static_cast<uint32_t>(max_batch) : 0;
  ep.translator.max_beam = static_cast<uint32_t>(max_beam);  // >= 0 (Engine's constructor)
  ep.translator.max_n_best = static_cast<uint32_t>(max_n_best);
  ep.translator.attention = attention ? 1 : 0;
  auto* s = new (std::nothrow) EngineSession;
  jclass translator = env->FindClass("dev/tern/Translator");
  if (!s || !translator) return delete s, tern_model_free(model), 0;  // NoClassDefFoundError pending, or out of memory
  s->engine = tern_engine_create(model, &ep, &err);
  if (!s->engine) return delete s, tern_model_free(model), tern_jni::Throw(env, err.message), 0;
  s->model = model;
  env->GetJavaVM(&s->vm);
  s->engine_class = static_cast<jclass>(env->NewGlobalRef(cls));
  s->translator_class = static_cast<jclass>(env->NewGlobalRef(translator));
  s->complete = env->GetStaticMethodID(cls, "complete",
                                       "(Ljava/util/concurrent/CompletableFuture;[Ldev/tern/Translator$Result;Ljava/lang/String;)V");
  if (!tern_jni::GetResultMethods(env, translator, &s->make)) {  // NoSuchMethodError pending
    tern_engine_free(s->engine), tern_model_free(model);
    env->DeleteGlobalRef(s->engine_class), env->DeleteGlobalRef(s->translator_class);
    delete s;
    return 0;
  }
  s->make.hypothesis_class = static_cast<jclass>(env->NewGlobalRef(s->make.hypothesis_class));
  return reinterpret_cast<jlong>(s);
}

JNIEXPORT void JNICALL Java_dev_tern_Engine_nativeSubmit(JNIEnv* env, jclass, jlong handle, jobjectArray sentences,
                                                         jobjectArray prefix_bytes, jintArray keep_spans, jobject options,
                                                         jobject future) {
  auto* s = reinterpret_cast<EngineSession*>(handle);
  if (!s) return tern_jni::Throw(env, "engine is closed");
  auto* p = new (std::nothrow) Pending;
  if (!p) return tern_jni::Throw(env, "out of memory");
  p->session = s;
  const jsize n = env->GetArrayLength(sentences);
  p->inputs.resize(static_cast<size_t>(n));
  std::vector<const char*> pointers(static_cast<size_t>(n));
  for (jsize i = 0; i < n; ++i) {
    auto bytes = static_cast<jbyteArray>(env->GetObjectArrayElement(sentences, i));
    const jsize len = env->GetArrayLength(bytes);
    std::string& in = p->inputs[static_cast<size_t>(i)];
    in.resize(static_cast<size_t>(len));
    if (len) env->GetByteArrayRegion(bytes, 0, len, reinterpret_cast<jbyte*>(&in[0]));
    env->DeleteLocalRef(bytes);
  }
  for (size_t i = 0; i < p->inputs.size(); ++i) pointers[i] = p->inputs[i].c_str();
  tern_translate_params tp = tern_translate_default_params();
  if (!tern_jni::ReadOptions(env, options, nullptr, p->inputs.size(), &tp, &p->keep)) {
    delete p;
    return;
  }
  if (!tern_jni::ReadKeepSpans(env, keep_spans, p->inputs, &p->keep, &tp) ||
      !tern_jni::CheckPerSentence(env, prefix_bytes, p->inputs.size(), "targetPrefix")) {
    delete p;
    return;
  }
  if (prefix_bytes) {  // Options.targetPrefix as UTF-8 (null entries: none)
    const jsize k = env->GetArrayLength(prefix_bytes);
    p->prefixes.assign(static_cast<size_t>(k), std::string());
    p->prefix_pointers.assign(static_cast<size_t>(k), nullptr);
    for (jsize i = 0; i < k; ++i) {
      auto b = static_cast<jbyteArray>(env->GetObjectArrayElement(prefix_bytes, i));
      if (!b) continue;
      std::string& str = p->prefixes[static_cast<size_t>(i)];
      str.resize(static_cast<size_t>(env->GetArrayLength(b)));
      if (!str.empty()) env->GetByteArrayRegion(b, 0, static_cast<jsize>(str.size()), reinterpret_cast<jbyte*>(&str[0]));
      env->DeleteLocalRef(b);
      p->prefix_pointers[static_cast<size_t>(i)] = str.c_str();
    }
    tp.target_prefix = p->prefix_pointers.data();
  }
  auto processors = static_cast<jobjectArray>(env->GetObjectField(
      options, env->GetFieldID(env->GetObjectClass(options), "logitsProcessors", "[Ldev/tern/Translator$LogitsProcessor;")));
  if (env->ExceptionCheck()) return delete p;
  if (processors && env->GetArrayLength(processors) > 0) {
    p->dispatch = env->GetStaticMethodID(s->translator_class, "dispatchEngineLogits",
                                         "([Ldev/tern/Translator$LogitsProcessor;IIII[I[F[I)V");
    if (!p->dispatch) return delete p;  // NoSuchMethodError pending
    p->processors = static_cast<jobjectArray>(env->NewGlobalRef(processors));
    tp.logits_callback = OnLogits, tp.logits_user_data = p;
    tp.abort_callback = OnAbort, tp.abort_user_data = p;
  }
  p->future = env->NewGlobalRef(future);
  tern_error err;
  s->owners.fetch_add(1);  // the completion's
  if (!tern_submit(s->engine, pointers.data(), pointers.size(), &tp, Completed, p, &err)) {
    env->DeleteGlobalRef(p->future);
    if (p->processors) env->DeleteGlobalRef(p->processors);
    delete p;
    Release(s, env);
    tern_jni::Throw(env, err.message);
  }
}

JNIEXPORT void JNICALL Java_dev_tern_Engine_nativeClose(JNIEnv* env, jclass, jlong handle) {
  auto* s = reinterpret_cast<EngineSession*>(handle);
  if (!s) return;
  // Completes every request (their futures) before it returns; from a completion (a future's dependent) it
  // does not wait, and the completions still running hold `s`.
  tern_engine_free(s->engine);
  tern_model_free(s->model);
  Release(s, env);
}

}  // extern "C"
