// JNI helpers dev.tern.Translator (tern_jni.cc) and dev.tern.Engine (engine_jni.cc) share: exceptions,
// results as Translator.Result objects, Translator.Options as tern_translate_params.
#pragma once

#include <jni.h>

#include <string>
#include <vector>

#include "tern/tern.h"

namespace tern_jni {

/// Throws dev.tern.TernException(message).
void Throw(JNIEnv* env, const char* message);

/// Local references a JNI call makes, deleted when it returns.
struct LocalRefs {
  JNIEnv* env;
  std::vector<jobject> refs;
  ~LocalRefs() {
    for (jobject o : refs)
      if (o) env->DeleteLocalRef(o);
  }
  template <typename T>
  T Keep(T o) {
    refs.push_back(o);
    return o;
  }
};

/// Translator.Result of sentence i of `r` (input: its UTF-8 text), through Translator.makeResult (`make`,
/// a static method of `cls`); nullptr: an exception is pending.
jobject MakeResult(JNIEnv* env, jclass cls, jmethodID make, const tern_results* r, size_t i, const std::string& input);

/// tern_translate_params from a Translator.Options (false: an exception is pending). `lang` keeps the
/// target language's bytes for the call.
bool ReadOptions(JNIEnv* env, jobject options, jint early_stopping, jint markup, const tern_glossary* glossary,
                 tern_translate_params* p, std::string* lang);

/// The Translator.makeResult method ID (nullptr: NoSuchMethodError pending).
jmethodID MakeResultMethod(JNIEnv* env, jclass translator);

}  // namespace tern_jni
