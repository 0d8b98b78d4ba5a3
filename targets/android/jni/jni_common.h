// JNI helpers dev.tern.Translator (tern_jni.cc) and dev.tern.Engine (engine_jni.cc) share: exceptions, the
// model load and String offsets (jni_common.cc), results as Translator.Result objects (jni_results.cc),
// Translator.Options as tern_translate_params (jni_options.cc).
#pragma once

#include <jni.h>

#include <string>
#include <vector>

#include "tern/tern.h"

namespace tern_jni {

/// Throws dev.tern.TernException(message).
void Throw(JNIEnv* env, const char* message);

/// tern_model_load_with_params for a Java path and packed-cache directory (null: none): the model, or NULL
/// with a Java exception thrown (the load's error, or none when a String could not be read).
tern_model* LoadModel(JNIEnv* env, jstring path, jstring packed_cache_dir);

/// The UTF-16 index (Java String offset) of each byte offset 0..n of the UTF-8 text s[0..n): n + 1 entries.
std::vector<jint> Utf16Offsets(const char* s, size_t n);

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

/// The Translator.makeResult and makeHypothesis method IDs of `translator` (false: NoSuchMethodError pending).
struct ResultMethods {
  jmethodID make_result = nullptr, make_hypothesis = nullptr;
  jclass hypothesis_class = nullptr;  // a local reference (or a global one the caller made)
};
/// Translator.Result of sentence i of `r` (input: its UTF-8 text; empty for scoring's spans), its hypotheses
/// through Translator.makeHypothesis, through Translator.makeResult (static methods of `cls`); nullptr: an
/// exception is pending.
jobject MakeResult(JNIEnv* env, jclass cls, const ResultMethods& m, const tern_results* r, size_t i, const std::string& input);

/// What tern_translate_params points to for a call (the target language's bytes, suppress_sequences and
/// end_tokens as uint32_t): alive until the call (or the engine's request) completes.
struct OptionStorage {
  std::string lang;
  std::string bad;  // the first Options field holding a value no parameter takes (a negative count)
  std::vector<std::vector<uint32_t>> suppress;
  std::vector<const uint32_t*> suppress_ids;
  std::vector<size_t> suppress_lengths;
  std::vector<uint32_t> end_tokens;
  std::vector<tern_keep_span> keep_spans;
  std::vector<std::vector<uint32_t>> prefix_ids;  // targetPrefixIds of the chunk
  std::vector<const uint32_t*> prefix_id_pointers;
  std::vector<size_t> prefix_id_lengths;
  std::vector<uint64_t> sampling_keys;            // the chunk's
};

/// Options.keepSpans triples (sentence, begin, end in String offsets) as tern_keep_span byte ranges of
/// `inputs` (UTF-8) into `keep` and `p`. An offset that is not a character boundary of its sentence, or a
/// sentence out of range, becomes a span the C API refuses (its sentence fails alone, or the call). False (a
/// TernException pending) when the array's length is not a multiple of 3.
bool ReadKeepSpans(JNIEnv* env, jintArray triples, const std::vector<std::string>& inputs, OptionStorage* keep,
                   tern_translate_params* p);

/// Whether a per-sentence array `a` (null: none) has one entry per sentence of the call; false (a TernException
/// naming `what` pending) when its length is another.
bool CheckPerSentence(JNIEnv* env, jobjectArray a, size_t n, const char* what);

/// tern_translate_params from a Translator.Options for a call of n inputs (false: an exception is pending): the
/// field table's plain fields (options_fields.inc), then the special ones (the glossary, suppressSequences,
/// endTokens, targetPrefixIds and samplingKeys, one per input each when given; without samplingKeys the C API
/// keys each input by its index in the call). `keep` holds what the params point to.
/// Negative ids become UINT32_MAX, which the C API refuses as outside the vocabulary.
bool ReadOptions(JNIEnv* env, jobject options, const tern_glossary* glossary, size_t n,
                 tern_translate_params* p, OptionStorage* keep);

bool GetResultMethods(JNIEnv* env, jclass translator, ResultMethods* m);

}  // namespace tern_jni
