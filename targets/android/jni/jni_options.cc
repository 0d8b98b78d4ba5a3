// Translator.Options as tern_translate_params: the field table's plain fields (options_fields.inc) and the
// special ones, and Options.keepSpans as byte ranges.
#include "jni_common.h"

#include <algorithm>

namespace tern_jni {

namespace {

// The helpers of the generated ReadPlainOptions.
uint32_t NonNegative(const char* name, jint v, OptionStorage* keep) {
  if (v < 0 && keep->bad.empty()) keep->bad = std::string("Options.") + name + " " + std::to_string(v) + ": must be 0 or more";
  return v < 0 ? 0u : static_cast<uint32_t>(v);
}

int BooleanOrNull(JNIEnv* env, jobject options, jclass c, const char* name) {
  jobject b = env->GetObjectField(options, env->GetFieldID(c, name, "Ljava/lang/Boolean;"));
  if (!b || env->ExceptionCheck()) return -1;
  const jmethodID value = env->GetMethodID(env->GetObjectClass(b), "booleanValue", "()Z");
  const int v = value && env->CallBooleanMethod(b, value) == JNI_TRUE ? 1 : 0;
  env->DeleteLocalRef(b);
  return v;
}

// A String field as UTF-8 kept in *out (null: false, *out untouched).
bool StringOf(JNIEnv* env, jobject options, jclass c, const char* name, std::string* out) {
  auto s = static_cast<jstring>(env->GetObjectField(options, env->GetFieldID(c, name, "Ljava/lang/String;")));
  if (!s || env->ExceptionCheck()) return false;
  const char* chars = env->GetStringUTFChars(s, nullptr);
  if (!chars) return false;
  *out = chars;
  env->ReleaseStringUTFChars(s, chars);
  env->DeleteLocalRef(s);
  return true;
}

const char* StringField(JNIEnv* env, jobject options, jclass c, const char* name, std::string* keep) {
  return StringOf(env, options, c, name, keep) ? keep->c_str() : nullptr;
}

bool SyntaxesField(JNIEnv* env, jobject options, jclass c, const char* name, uint32_t* bits) {
  std::string names;
  if (!StringOf(env, options, c, name, &names)) return !env->ExceptionCheck();  // null: the default
  tern_error err;
  if (tern_placeholder_syntaxes(names.c_str(), bits, &err) != TERN_OK) return Throw(env, err.message), false;
  return true;
}

// A String field naming one of `names` (its index), or null (`null_value`); another name throws.
template <typename T>
bool EnumField(JNIEnv* env, jobject options, jclass c, const char* name, std::initializer_list<const char*> names, int null_value,
               T* out) {
  std::string v;
  if (!StringOf(env, options, c, name, &v)) {
    *out = static_cast<T>(null_value);
    return !env->ExceptionCheck();
  }
  int k = 0;
  std::string all;
  for (const char* n : names) {
    if (v == n && *n) return *out = static_cast<T>(k), true;
    if (*n) all += std::string(all.empty() ? "" : ", ") + "\"" + n + "\"";
    ++k;
  }
  Throw(env, (std::string("Options.") + name + " \"" + v + "\": must be null or one of " + all).c_str());
  return false;
}

#include "options_fields.inc"

}  // namespace

bool ReadOptions(JNIEnv* env, jobject options, const tern_glossary* glossary, size_t n,
                 tern_translate_params* p, OptionStorage* keep) {
  jclass c = env->GetObjectClass(options);
  if (!ReadPlainOptions(env, options, c, p, keep)) return false;
  if (!keep->bad.empty()) return Throw(env, keep->bad.c_str()), false;
  // The table's special rows that Options holds (callbacks and targetPrefix / keepSpans are the caller's).
  const bool use_glossary = env->GetBooleanField(options, env->GetFieldID(c, "useGlossary", "Z")) == JNI_TRUE;
  p->glossary = use_glossary ? glossary : nullptr;
  auto id = [](jint v) { return v < 0 ? UINT32_MAX : static_cast<uint32_t>(v); };
  auto ints = [&](jintArray a, std::vector<uint32_t>* out) {
    const jsize len = env->GetArrayLength(a);
    std::vector<jint> v(static_cast<size_t>(len));
    if (len) env->GetIntArrayRegion(a, 0, len, v.data());
    for (jint x : v) out->push_back(id(x));
  };
  auto suppress = static_cast<jobjectArray>(env->GetObjectField(options, env->GetFieldID(c, "suppressSequences", "[[I")));
  if (env->ExceptionCheck()) return false;
  if (suppress) {
    const jsize count = env->GetArrayLength(suppress);
    keep->suppress.assign(static_cast<size_t>(count), {});
    for (jsize k = 0; k < count; ++k) {
      auto seq = static_cast<jintArray>(env->GetObjectArrayElement(suppress, k));
      if (!seq) return Throw(env, ("suppressSequences[" + std::to_string(k) + "] is null").c_str()), false;
      ints(seq, &keep->suppress[static_cast<size_t>(k)]);
      env->DeleteLocalRef(seq);
    }
    for (const auto& seq : keep->suppress) keep->suppress_ids.push_back(seq.data()), keep->suppress_lengths.push_back(seq.size());
    p->suppress_sequences = keep->suppress_ids.data();
    p->suppress_sequence_lengths = keep->suppress_lengths.data();
    p->suppress_sequence_count = keep->suppress.size();
  }
  auto ends = static_cast<jintArray>(env->GetObjectField(options, env->GetFieldID(c, "endTokens", "[I")));
  if (env->ExceptionCheck()) return false;
  if (ends) {
    ints(ends, &keep->end_tokens);
    p->end_tokens = keep->end_tokens.data();
    p->end_token_count = keep->end_tokens.size();
  }
  // targetPrefixIds: one per sentence of the call.
  auto prefixes = static_cast<jobjectArray>(env->GetObjectField(options, env->GetFieldID(c, "targetPrefixIds", "[[I")));
  if (env->ExceptionCheck()) return false;
  if (prefixes) {
    if (static_cast<size_t>(env->GetArrayLength(prefixes)) != n)
      return Throw(env, ("targetPrefixIds: " + std::to_string(env->GetArrayLength(prefixes)) + " prefixes for " + std::to_string(n) +
                         " sentences (one per sentence)").c_str()), false;
    keep->prefix_ids.assign(n, {});
    for (size_t k = 0; k < n; ++k) {
      auto seq = static_cast<jintArray>(env->GetObjectArrayElement(prefixes, static_cast<jsize>(k)));
      if (seq) ints(seq, &keep->prefix_ids[k]), env->DeleteLocalRef(seq);
    }
    for (const auto& seq : keep->prefix_ids) keep->prefix_id_pointers.push_back(seq.data()), keep->prefix_id_lengths.push_back(seq.size());
    p->target_prefix_ids = keep->prefix_id_pointers.data();
    p->target_prefix_lengths = keep->prefix_id_lengths.data();
  }
  // samplingKeys: one per sentence; none given: the C API keys each sentence by its index in the call
  // (tern/call_chunks.h), whichever chunk it runs in.
  auto keys = static_cast<jlongArray>(env->GetObjectField(options, env->GetFieldID(c, "samplingKeys", "[J")));
  if (env->ExceptionCheck()) return false;
  if (keys) {
    if (static_cast<size_t>(env->GetArrayLength(keys)) != n)
      return Throw(env, ("samplingKeys: " + std::to_string(env->GetArrayLength(keys)) + " keys for " + std::to_string(n) +
                         " sentences (one per sentence)").c_str()), false;
    keep->sampling_keys.resize(n);
    if (n) env->GetLongArrayRegion(keys, 0, static_cast<jsize>(n), reinterpret_cast<jlong*>(keep->sampling_keys.data()));
    p->sampling_keys = keep->sampling_keys.data();
    p->sampling_key_count = n;
  }
  return !env->ExceptionCheck();
}

bool ReadKeepSpans(JNIEnv* env, jintArray triples, const std::vector<std::string>& inputs, OptionStorage* keep,
                   tern_translate_params* p) {
  if (!triples) return true;
  const jsize n = env->GetArrayLength(triples);
  if (n % 3 != 0)
    return Throw(env, ("keepSpans: " + std::to_string(n) + " ints (triples of sentence, begin, end)").c_str()), false;
  std::vector<jint> v(static_cast<size_t>(n));
  if (n) env->GetIntArrayRegion(triples, 0, n, v.data());
  for (size_t i = 0; i + 2 < v.size(); i += 3) {
    const size_t text = v[i] < 0 ? SIZE_MAX : static_cast<size_t>(v[i]);
    tern_keep_span k{text, SIZE_MAX, SIZE_MAX};  // SIZE_MAX: past the text's end, refused
    if (text < inputs.size()) {
      const std::string& s = inputs[text];
      const std::vector<jint> at = Utf16Offsets(s.data(), s.size());
      for (size_t b = 0; b <= s.size(); ++b) {
        const bool boundary = b == s.size() || (static_cast<unsigned char>(s[b]) & 0xc0) != 0x80;
        if (!boundary) continue;
        if (at[b] == v[i + 1] && k.begin == SIZE_MAX) k.begin = b;
        if (at[b] == v[i + 2] && k.end == SIZE_MAX) k.end = b;
      }
    }
    keep->keep_spans.push_back(k);
  }
  p->keep_spans = keep->keep_spans.data();
  p->keep_span_count = keep->keep_spans.size();
  return true;
}

bool CheckPerSentence(JNIEnv* env, jobjectArray a, size_t n, const char* what) {
  if (!a || static_cast<size_t>(env->GetArrayLength(a)) == n) return true;
  return Throw(env, (std::string(what) + ": " + std::to_string(env->GetArrayLength(a)) + " entries for " + std::to_string(n) +
                     " sentences (one per sentence)").c_str()),
         false;
}

}  // namespace tern_jni
