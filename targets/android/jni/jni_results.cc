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


// Translator.Hypothesis k of sentence i (nullptr: an exception is pending).
jobject MakeHypothesis(JNIEnv* env, jclass cls, const ResultMethods& m, const tern_results* r, size_t i, size_t k) {
  LocalRefs refs{env, {}};
  size_t len = 0, n = 0;
  const char* text = tern_result_text(r, i, k, &len);
  jbyteArray jtext = nullptr;
  if (text) {
    if (!(jtext = refs.Keep(env->NewByteArray(static_cast<jsize>(len))))) return nullptr;
    env->SetByteArrayRegion(jtext, 0, static_cast<jsize>(len), reinterpret_cast<const jbyte*>(text));
  }
  const uint32_t* tokens = tern_result_tokens(r, i, k, &n);
  const std::vector<jint> ids(tokens, tokens + (tokens ? n : 0));
  const int32_t* src = tern_result_token_sources(r, i, k, nullptr);
  jintArray jtokens = Ints(env, refs, ids.data(), ids.size());
  jintArray jsources = jtokens ? Ints(env, refs, reinterpret_cast<const jint*>(src), ids.size()) : nullptr;
  jfloatArray jlogprobs = jsources ? refs.Keep(env->NewFloatArray(static_cast<jsize>(ids.size()))) : nullptr;
  if (!jlogprobs) return nullptr;
  if (!ids.empty()) env->SetFloatArrayRegion(jlogprobs, 0, static_cast<jsize>(n), tern_result_token_logprobs(r, i, k, nullptr));
  size_t n_spans = 0;
  const tern_text_span* spans = tern_result_token_spans(r, i, k, &n_spans);
  jintArray jspans = Spans(env, refs, spans, spans ? n_spans : 0, text ? Utf16Offsets(text, len) : std::vector<jint>(1, 0));
  if (!jspans) return nullptr;
  size_t rows = 0, cols = 0;
  const float* attention = tern_result_attention(r, i, k, &rows, &cols);
  jfloatArray jattention = nullptr;
  if (attention) {
    if (!(jattention = refs.Keep(env->NewFloatArray(static_cast<jsize>(rows * cols))))) return nullptr;
    env->SetFloatArrayRegion(jattention, 0, static_cast<jsize>(rows * cols), attention);
  }
  jobject out = env->CallStaticObjectMethod(cls, m.make_hypothesis, jtext, static_cast<jfloat>(tern_result_score(r, i, k)),
                                            jtokens, jlogprobs, jsources, jspans, jattention, static_cast<jint>(rows),
                                            static_cast<jint>(cols));
  return env->ExceptionCheck() ? nullptr : out;
}


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
  m->make_hypothesis = env->GetStaticMethodID(translator, "makeHypothesis", "([BF[I[F[I[I[FII)Ldev/tern/Translator$Hypothesis;");
  if (!m->make_hypothesis) return false;
  m->hypothesis_class = env->FindClass("dev/tern/Translator$Hypothesis");
  return m->hypothesis_class != nullptr;
}

}  // namespace tern_jni
