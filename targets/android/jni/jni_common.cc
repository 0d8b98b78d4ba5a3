// JNI helpers dev.tern.Translator and dev.tern.Engine share: exceptions, results as Java objects, options.
#include "jni_common.h"

#include <algorithm>

namespace tern_jni {

void Throw(JNIEnv* env, const char* message) {
  jclass cls = env->FindClass("dev/tern/TernException");
  if (cls) env->ThrowNew(cls, message);
}

namespace {

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

}  // namespace

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
  p->translate_code = z("translateCode") ? 1 : 0;
  const bool use_glossary = z("useGlossary");
  auto f = [&](const char* name) { return env->GetFloatField(options, env->GetFieldID(c, name, "F")); };
  p->max_length_ratio = f("maxLengthRatio");  // NaN: the file's
  p->do_sample = z("doSample") ? 1 : 0;
  p->sampling_temperature = f("samplingTemperature");
  p->sampling_topk = static_cast<uint32_t>(i("samplingTopK"));  // >= 0 (Translator.checkOptions)
  p->sampling_topp = f("samplingTopP");
  p->sampling_seed = static_cast<uint64_t>(env->GetLongField(options, env->GetFieldID(c, "seed", "J")));
  p->repetition_penalty = f("repetitionPenalty");
  p->no_repeat_ngram_size = i("noRepeatNgramSize");  // below -1: refused by the C API
  p->min_length = i("minLength");
  p->max_input_length = static_cast<uint32_t>(i("maxInputLength"));  // >= 0 (Translator.checkOptions)
  p->disable_unk = z("disableUnk") ? 1 : 0;
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

jmethodID MakeResultMethod(JNIEnv* env, jclass translator) {
  return env->GetStaticMethodID(translator, "makeResult",
                                "([BFLjava/lang/String;I[I[F[I[I[I[I[F)Ldev/tern/Translator$Result;");
}

}  // namespace tern_jni
