// JNI glue for dev.tern.Translator over the C API (tern.h). Builds for the host (tests with the JDK)
// and for Android (the same source). Errors become dev.tern.TernException; no C++ exception escapes.
#include <jni.h>

#include <algorithm>
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
  tern_model* model = nullptr;        // kept for glossaries
  tern_glossary* glossary = nullptr;  // setGlossary's (replaced under Java's write lock: no call runs then)
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

// Local references a JNI call makes, deleted when it returns.
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

jintArray Ints(JNIEnv* env, LocalRefs& refs, const jint* data, size_t n) {
  jintArray a = refs.Keep(env->NewIntArray(static_cast<jsize>(n)));
  if (a && n) env->SetIntArrayRegion(a, 0, static_cast<jsize>(n), data);
  return a;
}

// Spans in bytes of a text -> [begin, end] pairs in UTF-16 units of it.
jintArray Spans(JNIEnv* env, LocalRefs& refs, const tern_text_span* spans, size_t n, const std::vector<jint>& at) {
  std::vector<jint> pairs(2 * n);
  const size_t last = at.size() - 1;
  for (size_t k = 0; k < n; ++k) pairs[2 * k] = at[std::min(spans[k].begin, last)], pairs[2 * k + 1] = at[std::min(spans[k].end, last)];
  return Ints(env, refs, pairs.data(), pairs.size());
}

// Translator.Result of sentence i of `r` (input: its UTF-8 text), through Translator.makeResult (nullptr: an
// exception is pending).
jobject MakeResult(JNIEnv* env, jclass cls, jmethodID make, const tern_results* r, size_t i, const std::string& input) {
  LocalRefs refs{env, {}};
  const char* error = tern_result_error(r, i);
  jstring jerror = error ? refs.Keep(env->NewStringUTF(error)) : nullptr;
  if (error && !jerror) return nullptr;
  size_t len = 0, n = 0, n_src = 0;
  const char* text = tern_result_text(r, i, 0, &len);
  jbyteArray jtext = nullptr;
  jintArray jtokens = nullptr, jsources = nullptr, jspans = nullptr, jsrc_ids = nullptr, jsrc_spans = nullptr;
  jfloatArray jlogprobs = nullptr, jconfidence = nullptr;
  if (text) {
    if (!(jtext = refs.Keep(env->NewByteArray(static_cast<jsize>(len))))) return nullptr;
    env->SetByteArrayRegion(jtext, 0, static_cast<jsize>(len), reinterpret_cast<const jbyte*>(text));
    const uint32_t* tokens = tern_result_tokens(r, i, 0, &n);
    const std::vector<jint> ids(tokens, tokens + n);
    const int32_t* src = tern_result_token_sources(r, i, 0, nullptr);
    if (!(jtokens = Ints(env, refs, ids.data(), n)) || !(jsources = Ints(env, refs, reinterpret_cast<const jint*>(src), n)))
      return nullptr;
    if (!(jlogprobs = refs.Keep(env->NewFloatArray(static_cast<jsize>(n))))) return nullptr;
    env->SetFloatArrayRegion(jlogprobs, 0, static_cast<jsize>(n), tern_result_token_logprobs(r, i, 0, nullptr));
    size_t n_spans = 0;
    const tern_text_span* spans = tern_result_token_spans(r, i, 0, &n_spans);
    if (!(jspans = Spans(env, refs, spans, n_spans, Utf16Offsets(text, len)))) return nullptr;
    const uint32_t* sids = tern_result_source_ids(r, i, &n_src);
    const std::vector<jint> source_ids(sids, sids + n_src);
    size_t n_src_spans = 0;
    const tern_text_span* sspans = tern_result_source_spans(r, i, &n_src_spans);
    if (!(jsrc_ids = Ints(env, refs, source_ids.data(), n_src)) ||
        !(jsrc_spans = Spans(env, refs, sspans, n_src_spans, Utf16Offsets(input.data(), input.size()))))
      return nullptr;
    float c[3] = {0.f, 0.f, 0.f};
    c[2] = tern_result_confidence(r, i, 0, &c[0], &c[1]) == 1 ? 1.f : 0.f;
    if (!(jconfidence = refs.Keep(env->NewFloatArray(3)))) return nullptr;
    env->SetFloatArrayRegion(jconfidence, 0, 3, c);
  }
  jobject out = env->CallStaticObjectMethod(cls, make, jtext, static_cast<jfloat>(tern_result_score(r, i, 0)), jerror,
                                            static_cast<jint>(tern_result_code(r, i)), jtokens, jlogprobs, jsources,
                                            jspans, jsrc_ids, jsrc_spans, jconfidence);
  return env->ExceptionCheck() ? nullptr : out;
}

// tern_translate_params from a Translator.Options (false: an exception is pending). `lang` keeps the
// target language's bytes for the call.
bool ReadOptions(JNIEnv* env, jobject options, jint early_stopping, jint markup, const tern_glossary* glossary,
                 tern_translate_params* p, std::string* lang) {
  jclass c = env->GetObjectClass(options);
  auto i = [&](const char* name) { return env->GetIntField(options, env->GetFieldID(c, name, "I")); };
  auto z = [&](const char* name) { return env->GetBooleanField(options, env->GetFieldID(c, name, "Z")) == JNI_TRUE; };
  const jint beam = i("beamSize"), max_length = i("maxLength"), hf_rules = i("hfRules");
  const jfloat length_penalty = env->GetFloatField(options, env->GetFieldID(c, "lengthPenalty", "F"));
  p->split_sentences = z("splitSentences") ? 1 : 0;
  p->use_shortlist = z("useShortlist") ? 1 : 0;
  p->return_scores = z("returnScores") ? 1 : 0;
  p->return_alignment = z("returnAlignment") ? 1 : 0;
  p->keep_placeholders = z("keepPlaceholders") ? 1 : 0;
  const bool use_glossary = z("useGlossary");
  auto target = static_cast<jstring>(env->GetObjectField(options, env->GetFieldID(c, "targetLang", "Ljava/lang/String;")));
  if (env->ExceptionCheck()) return false;  // a field is missing (NoSuchFieldError)
  p->beam_size = beam > 0 ? static_cast<uint32_t>(beam) : 0;
  p->max_length = max_length > 0 ? static_cast<uint32_t>(max_length) : 0;
  p->length_penalty = length_penalty;  // NaN: the file's
  p->early_stopping = early_stopping;  // -1: the file's
  p->markup = markup;
  p->hf_rules = hf_rules > 0 ? static_cast<uint32_t>(hf_rules) : 0;
  p->glossary = use_glossary ? glossary : nullptr;
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
  if (!tr) return tern_model_free(model), Throw(env, err.message), 0;
  auto* s = new (std::nothrow) Session;
  if (!s) return tern_translator_free(tr), tern_model_free(model), Throw(env, "out of memory"), 0;
  s->translator = tr;
  s->model = model;
  return reinterpret_cast<jlong>(s);
}

JNIEXPORT jboolean JNICALL Java_dev_tern_Translator_nativeTranslate(JNIEnv* env, jclass cls, jlong handle,
                                                                    jobjectArray sentences, jobject options,
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
  const jmethodID make = env->GetStaticMethodID(cls, "makeResult", "([BFLjava/lang/String;I[I[F[I[I[I[I[F)Ldev/tern/Translator$Result;");
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
