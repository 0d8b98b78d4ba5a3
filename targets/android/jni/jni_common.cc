// JNI helpers every part of the binding uses: exceptions, the model load, String offsets. Results as Java
// objects are jni_results.cc; Translator.Options as tern_translate_params, jni_options.cc.
#include "jni_common.h"

namespace tern_jni {

void Throw(JNIEnv* env, const char* message) {
  jclass cls = env->FindClass("dev/tern/TernException");
  if (cls) env->ThrowNew(cls, message);
}

// UTF-16 index (Java String offsets) of each byte offset 0..n of the UTF-8 text s[0..n).
std::vector<jint> Utf16Offsets(const char* s, size_t n) {
  std::vector<jint> at(n + 1);
  jint units = 0;
  for (size_t k = 0; k < n; ++k) {
    at[k] = units;
    const auto c = static_cast<unsigned char>(s[k]);
    if ((c & 0xc0) != 0x80) units += c >= 0xf0 ? 2 : 1;  // a lead byte; 4-byte sequences are surrogate pairs
  }
  at[n] = units;
  return at;
}


tern_model* LoadModel(JNIEnv* env, jstring path, jstring packed_cache_dir) {
  const char* p = env->GetStringUTFChars(path, nullptr);
  if (!p) return nullptr;
  const char* dir = packed_cache_dir ? env->GetStringUTFChars(packed_cache_dir, nullptr) : nullptr;
  if (packed_cache_dir && !dir) return env->ReleaseStringUTFChars(path, p), nullptr;
  tern_model_params mp = tern_model_default_params();
  mp.packed_cache_dir = dir;
  tern_error err;
  tern_model* model = tern_model_load_with_params(p, &mp, &err);
  env->ReleaseStringUTFChars(path, p);
  if (dir) env->ReleaseStringUTFChars(packed_cache_dir, dir);
  if (!model) Throw(env, err.message);
  return model;
}

}  // namespace tern_jni
