"""The keyword cases of the CTranslate2 shim's conformance test (test_ctranslate2_compat.py) and of
bench/ct2_keywords.py, which records what CTranslate2 itself does with each (tests/data/ct2_keywords.json):
every keyword of Translator, translate_batch, translate_iterable, score_batch and generate_tokens over
CTranslate2 4.8.1's accepted range and its edges (negative, zero, non-integer, a string, None, NaN, the
infinities, above the model's limits)."""

INT_EDGES = [-1, 0, 1, 2, 1.5, "2", None, True, 10**6, 2**40]
FLOAT_EDGES = [-1.0, 0, 0.5, 1, 2.5, "1", None, float("nan"), float("inf")]

TRANSLATE_BATCH = {
    "max_batch_size": INT_EDGES, "batch_type": ["examples", "tokens", "x", None, 1],
    "beam_size": INT_EDGES, "patience": FLOAT_EDGES, "num_hypotheses": INT_EDGES,
    "length_penalty": FLOAT_EDGES, "coverage_penalty": FLOAT_EDGES, "repetition_penalty": FLOAT_EDGES,
    "no_repeat_ngram_size": INT_EDGES, "disable_unk": [True, False, 1, None, "x"],
    "suppress_sequences": [None, [], [["\u2581Ein"]], [[]], ["\u2581Ein"], [[1]]],
    "end_token": [None, "</s>", ["</s>", "."], [], "nope", 5],
    "return_end_token": [True, False], "prefix_bias_beta": FLOAT_EDGES,
    "max_input_length": INT_EDGES, "max_decoding_length": INT_EDGES, "min_decoding_length": INT_EDGES,
    "use_vmap": [True, False], "return_scores": [True, False, 1, None], "return_logits_vocab": [True, False],
    "return_attention": [True, False], "return_alternatives": [True, False],
    "min_alternative_expansion_prob": FLOAT_EDGES, "sampling_topk": INT_EDGES, "sampling_topp": FLOAT_EDGES,
    "sampling_temperature": FLOAT_EDGES, "replace_unknowns": [True, False],
}
SCORE_BATCH = {"max_batch_size": INT_EDGES, "batch_type": ["examples", "tokens", "x"], "max_input_length": INT_EDGES,
               "offset": INT_EDGES}
GENERATE_TOKENS = {
    "max_decoding_length": INT_EDGES, "min_decoding_length": INT_EDGES, "sampling_topk": INT_EDGES,
    "sampling_topp": FLOAT_EDGES, "sampling_temperature": FLOAT_EDGES, "return_log_prob": [True, False],
    "repetition_penalty": FLOAT_EDGES, "no_repeat_ngram_size": INT_EDGES, "disable_unk": [True, False],
    "suppress_sequences": [None, [["\u2581Ein"]], [[]]], "end_token": [None, "</s>", "nope"], "max_input_length": INT_EDGES}
TRANSLATE_ITERABLE = {"max_batch_size": INT_EDGES, "batch_type": ["examples", "tokens", "x"]}
TRANSLATOR = {"device": ["cpu", "auto", "cuda", "x"], "device_index": [0, 1, -1, [0], [0, 1]],
              "compute_type": ["default", "int8", "float32", "int8_float32", "float16", "x"],
              "inter_threads": [-1, 0, 1, 2, 1.5, "2"], "intra_threads": [-1, 0, 1, 2, 1.5], "max_queued_batches": [-1, 0, 5]}

SOURCES = ["A dog runs.", "Two cats sleep on a sofa."]
TARGETS = [["\u2581Ein", "\u2581Hund"], ["\u2581Zwei"]]


def cases(ctranslate2, model, encode):
    """(name, call) for every case: `ctranslate2` the module (CTranslate2's or tern's shim), `model` what its
    Translator loads, `encode(text)` the source pieces with </s>. The Translator is made on first use."""
    src = [encode(t) for t in SOURCES]
    made = {}

    def t():
        if "t" not in made:
            made["t"] = ctranslate2.Translator(model, intra_threads=1)
        return made["t"]

    out = []
    for k, vals in TRANSLATE_BATCH.items():
        for v in vals:
            out.append(("translate_batch %s=%r" % (k, v), lambda k=k, v=v: t().translate_batch(src, **{k: v})))
    for k, vals in SCORE_BATCH.items():
        for v in vals:
            out.append(("score_batch %s=%r" % (k, v), lambda k=k, v=v: t().score_batch(src, TARGETS, **{k: v})))
    for k, vals in GENERATE_TOKENS.items():
        for v in vals:
            out.append(("generate_tokens %s=%r" % (k, v), lambda k=k, v=v: list(t().generate_tokens(src[0], **{k: v}))))
    for k, vals in TRANSLATE_ITERABLE.items():
        for v in vals:
            out.append(("translate_iterable %s=%r" % (k, v), lambda k=k, v=v: list(t().translate_iterable(iter(src), **{k: v}))))
    for k, vals in TRANSLATOR.items():
        for v in vals:
            out.append(("Translator %s=%r" % (k, v), lambda k=k, v=v: ctranslate2.Translator(model, **{k: v})))
    return out


def outcome(call):
    """What a case gave: "ok N" (N hypotheses of the first result), "ok", or the exception's class name."""
    try:
        r = call()
        if isinstance(r, list) and r and hasattr(r[0], "hypotheses"):
            return "ok %d" % len(r[0].hypotheses)
        return "ok"
    except Exception as e:  # noqa: BLE001 - the outcome is the class
        return type(e).__name__
