// Results as Java objects: Translator.Result and Translator.Hypothesis from a tern_results, spans in String
// (UTF-16) offsets.
#include "jni_common.h"

#include <algorithm>

namespace tern_jni {
namespace {

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


jintArray IntsOf(JNIEnv* env, LocalRefs& refs, const uint32_t* data, size_t n) {
  return Ints(env, refs, reinterpret_cast<const jint*>(data), n);  // ids < 2^31 (the vocabulary's bound)
}
jintArray IntsOf(JNIEnv* env, LocalRefs& refs, const int32_t* data, size_t n) {
  return Ints(env, refs, reinterpret_cast<const jint*>(data), n);
}

jfloatArray Floats(JNIEnv* env, LocalRefs& refs, const float* data, size_t n) {
  jfloatArray a = refs.Keep(env->NewFloatArray(static_cast<jsize>(n)));
  if (a && n) env->SetFloatArrayRegion(a, 0, static_cast<jsize>(n), data);
  return a;
}

jbyteArray Bytes(JNIEnv* env, LocalRefs& refs, const char* data, size_t n) {
  jbyteArray a = refs.Keep(env->NewByteArray(static_cast<jsize>(n)));
  if (a && n) env->SetByteArrayRegion(a, 0, static_cast<jsize>(n), reinterpret_cast<const jbyte*>(data));
  return a;
}

// MakeHypothesis and kMakeHypothesisSignature: every hypothesis field of the result table.
#include "result_fields.inc"

}  // namespace

// Translator.Result of sentence i of `r` (input: its UTF-8 text), through Translator.makeResult (nullptr: an
// exception is pending).
jobject MakeResult(JNIEnv* env, jclass cls, const ResultMethods& m, const tern_results* r, size_t i, const std::string& input) {
  LocalRefs refs{env, {}};
  const char* error = tern_result_error(r, i);
  jstring jerror = error ? refs.Keep(env->NewStringUTF(error)) : nullptr;
  if (error && !jerror) return nullptr;
  const size_t n_hyp = tern_result_hypotheses(r, i);
  jobjectArray jhyps = refs.Keep(env->NewObjectArray(static_cast<jsize>(n_hyp), m.hypothesis_class, nullptr));
  if (!jhyps) return nullptr;
  for (size_t k = 0; k < n_hyp; ++k) {
    jobject h = MakeHypothesis(env, cls, m, r, i, k);
    if (!h) return nullptr;
    env->SetObjectArrayElement(jhyps, static_cast<jsize>(k), h);
    env->DeleteLocalRef(h);
  }
  jintArray jsrc_ids = nullptr, jsrc_spans = nullptr;
  jfloatArray jconfidence = nullptr;
  size_t n_src = 0;
  if (const uint32_t* sids = tern_result_source_ids(r, i, &n_src)) {
    const std::vector<jint> source_ids(sids, sids + n_src);
    size_t n_src_spans = 0;
    const tern_text_span* sspans = tern_result_source_spans(r, i, &n_src_spans);
    if (!(jsrc_ids = Ints(env, refs, source_ids.data(), n_src)) ||
        !(jsrc_spans = Spans(env, refs, sspans, sspans ? n_src_spans : 0, Utf16Offsets(input.data(), input.size()))))
      return nullptr;
  }
  if (n_hyp > 0) {
    float c[3] = {0.f, 0.f, 0.f};
    c[2] = tern_result_confidence(r, i, 0, &c[0], &c[1]) == 1 ? 1.f : 0.f;
    if (!(jconfidence = refs.Keep(env->NewFloatArray(3)))) return nullptr;
    env->SetFloatArrayRegion(jconfidence, 0, 3, c);
  }
  jobject out = env->CallStaticObjectMethod(cls, m.make_result, n_hyp ? jhyps : nullptr, jerror,
                                            static_cast<jint>(tern_result_code(r, i)), jsrc_ids, jsrc_spans, jconfidence);
  return env->ExceptionCheck() ? nullptr : out;
}

bool GetResultMethods(JNIEnv* env, jclass translator, ResultMethods* m) {
  m->make_result = env->GetStaticMethodID(translator, "makeResult",
                                          "([Ldev/tern/Translator$Hypothesis;Ljava/lang/String;I[I[I[F)Ldev/tern/Translator$Result;");
  if (!m->make_result) return false;
  m->make_hypothesis = env->GetStaticMethodID(translator, "makeHypothesis", kMakeHypothesisSignature);
  if (!m->make_hypothesis) return false;
  m->hypothesis_class = env->FindClass("dev/tern/Translator$Hypothesis");
  return m->hypothesis_class != nullptr;
}

}  // namespace tern_jni
