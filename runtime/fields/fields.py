"""The field tables of a call: every per-call option (TranslateOptions) once, with how each binding spells it,
its range, its default and whether requests that differ in it may share a call. runtime/fields/generate.py
writes every binding's code from these rows (the C++ struct, the C params struct and its conversion, the range
checks, the engine's sharing rule, the Python keywords and stubs, the Java Options fields and their JNI
conversion, the CLI flags); `generate.py --check` (CTest `fields_current`) fails when a committed file is not
what the table gives.

Adding an option: one O(...) row below (at the end: the C struct's layout is an ABI), its behaviour where the
search or the session reads it, and its test; then `/usr/bin/python3 runtime/fields/generate.py`.

Kinds (what the generator knows how to carry through every binding):
  bool, u32, u64, f32          a plain value with a default
  opt_u32, opt_f32, opt_bool    std::optional: unset means "the model file's default" (C, Java: a sentinel)
  str                           std::string_view (C: const char*, NULL or "" for none; Java: String)
  enum:NAME                     HfRules, Markup; opt_enum:EarlyStopping (unset: the file's)
  syntaxes                      placeholder_syntax bits (C: bits; Python, Java, the CLI: a list of names)
  special                       a pointer, a callback or per-input data: carried by each binding's own code
                                (c_options.cc, call_options.cc, jni_options.cc, translate_options.cc), which the
                                fields test checks names every special row
Sharing (engine): "equal" (requests that differ in it do not share a call), "alone" (a request where it is
not its default runs alone), "same" (shared only when both point at the same object), "input" (per input:
any requests share).
Per input (per_input): "slice" data has one entry per input (or none), "by_text" entries name an input by its index;
a call of more inputs than a Translator's max_batch runs in chunks (tern/call_chunks.h: the engine, C, JNI and Python),
each chunk's part sliced or renumbered by the generated SliceInputFields.
Ranges (one rule per field, CheckOptionRanges; every binding and the CLI go through it): see CHECKS.
"""

from dataclasses import dataclass, field
from typing import Optional


@dataclass
class O:
    name: str                      # TranslateOptions member (a path: "sampling.top_k")
    kind: str
    default: object                # C++ default (None: unset optional)
    doc: str                       # the C++ doc; its first sentence is every other binding's
    c: Optional[str] = None        # C field (tern_translate_params); "" = a special with several C fields
    c_type: Optional[str] = None   # C type when the kind allows two ("int" sentinel -1, "uint32_t" sentinel 0)
    py: Optional[str] = None       # Python keyword (None: the last part of name)
    java: Optional[str] = None     # Java Options field (None: camelCase of py)
    cli: Optional[str] = None      # CLI flag ("": no flag of its own, said in cli_note)
    cli_help: str = ""
    cli_note: str = ""             # why the CLI spells it otherwise
    texts_only: bool = False       # Translate (texts) only, not the ids calls
    score: bool = False            # Score / ScoreIds take it too
    share: str = "equal"
    per_input: str = ""            # per-input data: "slice" (one entry per input) or "by_text" (entries naming an
                                   # input by index): how a call in chunks gives each chunk its part (CallChunks)
    check: Optional[str] = None
    c_comment: str = ""            # the C struct's comment (None: derived)
    java_comment: str = ""
    cpp_type: Optional[str] = None # special: the C++ member's type
    py_type: Optional[str] = None  # special: the stub's type
    py_default: Optional[str] = None
    continuous: str = ""           # what a continuous call's refusal names it by when it is set (CONTINUOUS below);
                                   # "": continuous calls share it like any other option
    resolved: str = ""             # its member of ResolvedOptions (session/batch.h), resolved by generated code
                                   # (RESOLVED below); "": resolved by hand in ResolveOptions
    file_default: str = ""         # the GenerationDefaults member an unset (optional) value takes

    @property
    def member(self):
        return self.name

    @property
    def pyname(self):
        return self.name.split(".")[-1] if self.py is None else self.py

    @property
    def javaname(self):
        if self.java:
            return self.java
        parts = self.pyname.split("_")
        return parts[0] + "".join(p[:1].upper() + p[1:] for p in parts[1:])

    @property
    def cname(self):
        return self.name.split(".")[-1] if self.c is None else self.c


# The range rules: id -> (the condition a value must meet, as C++ on `v`; what the message says it must be).
CHECKS = {
    "ge1": ("v >= 1", "at least 1"),
    "finite": ("std::isfinite(v)", "finite"),
    "finite_ge0": ("std::isfinite(v) && v >= 0.f", "finite and >= 0"),
    "finite_gt0": ("std::isfinite(v) && v > 0.f", "finite and > 0"),
    "unit": ("v >= 0.f && v <= 1.f", "in [0, 1]"),
    "top_p": ("v > 0.f && v <= 1.f", "in (0, 1]"),
    "temperature": ("std::isfinite(v) && v >= SamplingOptions::kMinTemperature",
                    "finite and >= 1e-06 (a smaller one overflows the scores; greedy search is its limit)"),
    "hf_rules": ("v == HfRules::kTransformers5 || v == HfRules::kTransformers4", "5 or 4"),
    "markup": ("static_cast<uint8_t>(v) <= static_cast<uint8_t>(Markup::kXml)", "0 (none), 1 (html), 2 (html-lenient) or 3 (xml)"),
    "early_stopping": ("static_cast<uint8_t>(v) <= static_cast<uint8_t>(EarlyStopping::kNever)", "false 0, true 1, never 2"),
    "syntaxes": ("(v & ~placeholder_syntax::kAll) == 0u", "placeholder_syntax bits only (placeholder_syntax::kAll: 1023)"),
    "end_tokens": ("v.size() <= 8", "at most 8 tokens"),
}

OPTIONS = [
    O("beam_size", "opt_u32", None, "1 = greedy (argmax; Hugging Face greedy search semantics). Unset: the file's "
      "default; at most the Translator's max_beam.", c_type="uint32_t", cli="--beam", cli_help="beam size; 1 = greedy (default: the model's)",
      score=False, check="ge1"),
    O("length_penalty", "opt_f32", None, "Beam search: score = sum_logprob / generated_len ^ length_penalty.",
      cli="--length-penalty", cli_help="beam scores are sum_logprob / generated_len ^ this (default: the model's)", check="finite"),
    O("early_stopping", "opt_enum:EarlyStopping", None, "transformers' early_stopping (tern/model.h EarlyStopping): "
      "false, true or never.", c_type="int", cli="--early-stopping",
      cli_help="beam search's early_stopping as in transformers: false, true or never (default: the model's)", check="early_stopping"),
    O("hf_rules", "enum:HfRules", "HfRules::kTransformers5", "Beam search's stopping rule, finished-set merge and "
      "n-best order: transformers 5.x's (a sentence stops when its best running beam / generated_len ^ "
      "length_penalty cannot beat its worst finished hypothesis, for good) or 4.x's (BeamHypotheses.is_done on the "
      "best candidate). Greedy search is the same in both.", cli="--hf-rules",
      cli_help="beam search by transformers 5.x's rules (5, the default) or 4.x's (4): docs/conformance.md", check="hf_rules"),
    O("max_length", "opt_u32", None, "Generated tokens including `</s>` (like max_new_tokens); at most the "
      "Translator's max_target_tokens.", c_type="uint32_t", cli="--max-length",
      cli_help="maximum generated tokens per sentence, </s> included", score=True, check="ge1"),
    O("max_length_ratio", "opt_f32", None, "> 0: also at most ceil(ratio * source tokens) + 10 generated tokens; 0: "
      "off.", cli="--max-length-ratio", cli_help="also at most ceil(ratio x source tokens) + 10 tokens; 0: off",
      score=True, check="finite_ge0"),
    O("n_best", "u32", 1, "Hypotheses returned per sentence (<= beam_size and <= max_n_best).", cli="--n-best",
      cli_help="hypotheses per sentence (K lines each, with scores)", check="ge1"),
    O("return_scores", "bool", True, "Fill Hypothesis::score and token_logprobs.", cli="",
      cli_note="on with --scores, --exact-scores, --format json, --n-best or --alternatives (which print them), "
      "off otherwise"),
    O("return_alignment", "bool", False, "Fill Hypothesis::token_sources: the source token each generated token "
      "attends to most (the decoder's cross-attention; docs/translating.md \"Confidence and alignment\").",
      cli="--alignment", cli_help="compute each token's source position (--format json prints it)", score=True),
    O("target_lang", "str", None, "Multilingual models (Model::language_tokens): \"por\" puts the token >>por<< "
      "first in every source, in place of any \">>xxx<<\" the text starts with (MarianTokenizer). Empty: the text's "
      "own code, if any. A language the model lacks makes the call fail with kInvalidArgument. Translate() only.",
      cli="--target-lang", cli_help="multilingual models: target language, e.g. por (puts >>por<< first)",
      texts_only=True, score=True),
    O("split_sentences", "bool", True, "Split each text into sentences (ICU's sentence BreakIterator, "
      "runtime/src/text/sentence_splitter.h), translate them as one batch and join the translations with the "
      "whitespace that separated them, one result per input text. Off: each text is one sentence. Translate() only.",
      cli="--no-split", cli_help="translate each line as one sentence (default: split lines into sentences)",
      texts_only=True),
    O("use_shortlist", "bool", True, "A model with a lexical shortlist (Model::shortlist) scores only the shortlist "
      "of the call's sentences (runtime/src/search/vocab_map.h); false scores the whole target vocabulary. No "
      "effect without one.", cli="--no-shortlist",
      cli_help="score the whole target vocabulary even if the model has a shortlist"),
    O("markup", "enum:Markup", "Markup::kNone", "Inline markup in the texts (runtime/src/markup/html.h says what is "
      "recognized): the output keeps exactly the input's tags, placed around the words translated from the text "
      "they enclosed. Turns alignment on; spans are then bytes of the marked-up input and output. Not with on_token "
      "(the tags go in once a sentence is complete): that is kInvalidArgument. Translate() only.",
      c_type="int", cli="--html", texts_only=True, check="markup",
      cli_note="--html[=strict|lenient|xml] (a flag with an optional value)"),
    O("on_token", "special", None, "Streaming (whisper.cpp's callbacks with user_data): each generated token "
      "(TokenEvent). Called on the translating thread; a call it makes into the same Translator returns kBusy "
      "(nothing deadlocks). Returning false stops the call (kCancelled; *results still filled: sentences that "
      "finished have their results, the others the error kCancelled). Nothing is allocated on the callback path.",
      c="", cpp_type="TokenCallback", py="callback", java="", cli="--stream", share="alone", score=True,
      cli_note="--stream prints each token as it comes", py_type="Optional[_Callback]", py_default="None"),
    O("on_token_user_data", "special", None, "Passed to on_token.", c="", cpp_type="void*", py="", java="", cli="",
      share="alone", cli_note="the CLI's own", py_type=None),
    O("abort", "special", None, "Checked before each decoder step; true stops the call (kCancelled, as on_token's "
      "false).", c="", cpp_type="AbortCallback", py="cancel", java="", cli="", share="alone", score=True,
      cli_note="Ctrl-C (SIGINT/SIGTERM) stops the CLI's call", py_type="Optional[CancelToken]", py_default="None"),
    O("abort_user_data", "special", None, "Passed to abort.", c="", cpp_type="void*", py="", java="", cli="",
      share="alone", cli_note="the CLI's own"),
    O("logits_processors", "special", None, "The call's own logits processors (tern/logits_processor.h), applied in "
      "order after the file's rules to every hypothesis at every step. Not owned; they must outlive the call.",
      c="", cpp_type="Span<LogitsProcessor* const>", java="logitsProcessors", cli="", share="same", score=True,
      cli_note="a program's own code: the C, C++, Python and Java APIs",
      py_type="Optional[Sequence[Callable[[LogitsRow], None]]]", py_default="None"),
    O("glossary", "special", None, "Terminology (tern/glossary.h): each occurrence of a glossary source term in a "
      "sentence makes its target term a constraint the translation must contain (docs/translating.md "
      "\"Terminology\"). Not owned; must outlive the call. A sentence with more than kMaxConstraints (16) "
      "occurrences or 256 target tokens of them fails alone (kResourceExhausted). With constraints a call scores "
      "the whole vocabulary (no shortlist).", c="glossary", cpp_type="const Glossary*", java="", cli="--glossary",
      share="same", texts_only=True, py_type="Optional[Glossary]", py_default="None",
      cli_note="--glossary FILE (and --glossary-ignore-case)"),
    O("keep_placeholders", "bool", False, "Do-not-translate spans of plain texts (docs/translating.md "
      "\"Terminology\"): placeholders ({0}, {name}, %s, %1$d, %(name)s, { $var }, $t(key), %{name}: every syntax in "
      "runtime/src/markup/placeholder_syntax.h), URLs, e-mail addresses and numbers with units "
      "(runtime/src/markup/protect.h lists what is found) come out of the text before translation and go back "
      "verbatim where the alignment places them; keep_spans adds the caller's own (sorted per text, not overlapping; "
      "a bad one fails its text alone). With markup both apply to the text between the tags (a span that starts "
      "inside a tag or a translate=\"no\" element is ignored; one that reaches a tag stops before it), besides "
      "translate=\"no\" elements. Turns alignment on; spans are then bytes of the input and output texts. Not with "
      "on_token. Translate() only.", cli="--keep-placeholders",
      cli_help="placeholders ({0}, %s), URLs, e-mail addresses and numbers with units come out verbatim, placed by alignment (with --html: those in the text between the tags)", texts_only=True),
    O("translate_code", "bool", False, "Markup: the contents of code, kbd, samp, var and pre elements and of elements "
      "whose class holds \"notranslate\" are kept verbatim, as translate=\"no\" ones are (translate=\"yes\" on such "
      "a tag translates it). True translates them (translate=\"no\" still holds). No effect on plain text.",
      cli="--translate-code", cli_help="--html: translate <code>, <kbd>, <samp>, <var>, <pre> and class=\"notranslate\" elements (kept verbatim by default, as translate=\"no\" ones)",
      texts_only=True),
    O("target_prefix", "special", None, "Target prefixes (interactive and computer-aided translation; transformers' "
      "generate() with decoder_input_ids = [decoder_start] + prefix): the translation of input i starts with "
      "target_prefix[i], tokenized alone by the model's target SentencePiece (no `</s>`; an empty text: no prefix), "
      "and the search goes on from its end. One per input, or none. Hypotheses hold the prefix's tokens first (each "
      "with its log-probability under the logits rules); the score and beam search's length penalty count only the "
      "tokens after it, max_length counts it too (runtime/src/search/forced_tokens.h). A prefix that leaves no room "
      "for `</s>` within max_length fails its input alone. Turns split_sentences off; not with markup, "
      "keep_placeholders or keep_spans (kInvalidArgument). A prefix's last word is forced as the pieces it splits "
      "into alone (\"Ma\" stays \"▁Ma\", it does not become \"▁Mann\").", c="target_prefix",
      cpp_type="Span<const std::string_view>", cli="--target-prefix", share="alone", per_input="slice", texts_only=True,
      py_type="Optional[Sequence[Optional[_Text]]]", py_default="None", cli_note="--target-prefix TEXT (every line's)"),
    O("target_prefix_ids", "special", None, "The same as target ids (one span per input; an empty span: no prefix). "
      "An id outside the target vocabulary, or `</s>`, fails its input alone. Not together with target_prefix.",
      c="", cpp_type="Span<const Span<const uint32_t>>", cli="", share="alone", per_input="slice",
      py_type="Optional[Sequence[Optional[_Ids]]]", py_default="None", cli_note="--ids with --target-prefix"),
    O("sampling.enabled", "bool", False, "Sample (transformers' do_sample) in place of greedy search's argmax: the "
      "row the logits rules produced is warped in transformers' order (temperature, top-k, top-p) and a token is "
      "drawn from its softmax by tern's own counter-based generator (runtime/src/search/sampling.h): the same call "
      "with the same seed gives the same output on every CPU. Greedy search only: an unset beam_size means 1, "
      "another is kInvalidArgument.", c="do_sample", py="do_sample", cli="--sample",
      cli_help="sample each token instead of taking the most likely (transformers' do_sample; greedy search only: --beam 1); any --sample-* option turns it on"),
    O("sampling.temperature", "f32", 1.0, "Sampling: scores / temperature (TemperatureLogitsWarper).",
      c="sampling_temperature", py="sampling_temperature", cli="--sample-temperature",
      cli_help="sampling: divide the scores by this (default 1)", check="temperature"),
    O("sampling.top_k", "u32", 50, "Sampling: keep the top_k highest scores (ties kept; TopKLogitsWarper); 0: off.",
      c="sampling_topk", py="sampling_topk", java="samplingTopK", cli="--sample-topk",
      cli_help="sampling: keep the K most likely tokens (default 50; 0: all)"),
    O("sampling.top_p", "f32", 1.0, "Sampling: keep the most likely tokens whose probabilities reach top_p "
      "(TopPLogitsWarper); 1: off.", c="sampling_topp", py="sampling_topp", java="samplingTopP", cli="--sample-topp",
      cli_help="sampling: keep the most likely tokens whose probabilities reach P (default 1: all)", check="top_p"),
    O("sampling.seed", "u64", 0, "Sampling: the generator's seed. A sentence's draws depend on it, the position and "
      "the sentence's key (its input's index in the call, or sampling_keys', and its part in a split text); never on "
      "the other sentences of the call.", c="sampling_seed", py="seed", java="seed", cli="--seed",
      cli_help="sampling: the generator's seed (the same seed and input: the same output on every CPU)"),
    O("repetition_penalty", "opt_f32", None, "The call's own RepetitionPenaltyLogitsProcessor in place of the file's "
      "(transformers' order, runtime/src/search/logits_processors.h); 1: off.", cli="--repetition-penalty",
      cli_help="transformers' repetition penalty (1: off; default: the model's)", check="finite_gt0", score=True),
    O("no_repeat_ngram_size", "opt_u32", None, "The call's own NoRepeatNGramLogitsProcessor in place of the file's: "
      "an n-gram of this size is never repeated; 0: off.", c_type="int", cli="--no-repeat-ngram-size",
      cli_help="never repeat an n-gram of this size (0: off; default: the model's)", score=True),
    O("min_length", "opt_u32", None, "The call's own MinLengthLogitsProcessor in place of the file's: tokens generated "
      "before `</s>` is allowed (transformers' min_length - 1).", c_type="int", cli="--min-length",
      cli_help="tokens generated before </s> is allowed (default: the model's)", score=True),
    O("max_input_length", "u32", 0, "> 0: a sentence longer than this many source tokens is cut to it (its first "
      "tokens, then `</s>`), as CTranslate2's max_input_length does (at most max_source_tokens); 0: such a sentence "
      "fails alone (kResourceExhausted), as one over max_source_tokens always does.", cli="--max-input-length",
      cli_help="cut a longer sentence to this many source tokens, </s> kept (default 0: such a sentence fails)", score=True),
    O("alternatives", "u32", 0, "> 0: CTranslate2's return_alternatives: the `alternatives` most likely tokens at the "
      "end of the target prefix (or at the first position without one), `</s>` excluded, each continued by the "
      "call's search (greedy, beam or sampling) into its own hypothesis, in the order of that first token's "
      "log-probability (runtime/src/session/alternatives_call.h). Hypothesis::score is that log-probability plus the "
      "continuation's score, as CTranslate2 adds them. Needs n_best 1, alternatives <= max_n_best and inputs x "
      "alternatives <= max_batch; not with markup, placeholders, keep_spans, a glossary or on_token "
      "(kInvalidArgument). Turns split_sentences off.", cli="--alternatives",
      cli_help="N lines per input: the N most likely words after --target-prefix (or first words), each continued by the search (CTranslate2's return_alternatives; with --n-best 1)", share="alone"),
    O("min_alternative_expansion_prob", "f32", 0.0, "return_alternatives: first tokens less likely than this "
      "probability are left out (CTranslate2's min_alternative_expansion_prob).", cli="--min-alternative-expansion-prob",
      cli_help="--alternatives: leave out first words less likely than this probability (default 0)", check="unit"),
    O("suppress_sequences", "special", None, "Target token sequences never generated (CTranslate2's "
      "suppress_sequences, transformers' bad_words_ids with NoBadWordsLogitsProcessor, after the file's own): a "
      "sequence of one token is banned everywhere, a longer one's last token wherever the tokens so far (a target "
      "prefix included) end with the ones before it. Not owned. An empty sequence or an id outside the target "
      "vocabulary: kInvalidArgument.", c="", cpp_type="Span<const Span<const uint32_t>>", cli="--suppress",
      share="same", py_type="Optional[Sequence[_Ids]]", py_default="None", score=True,
      cli_note="--suppress 'ID ID ...' (repeatable)"),
    O("disable_unk", "bool", False, "Never generate the unknown token (CTranslate2's disable_unk; "
      "Hyperparameters::unk_id).", cli="--disable-unk", cli_help="never generate the unknown token", score=True),
    O("return_attention", "bool", False, "Fill Hypothesis::attention (CTranslate2's return_attention): per token, the "
      "cross-attention of alignment_layer averaged over its heads, over the source tokens. Needs a Translator created "
      "with TranslatorConfig::attention (kInvalidArgument otherwise). Computed after the search by decoding each "
      "returned hypothesis again (runtime/src/session/attention_pass.h); a text split into several sentences has "
      "none (turn split_sentences off).", cli="--attention", cli_help="each token's cross-attention over the source "
      "tokens (--format json prints it, a row per token)"),
    O("end_tokens", "special", None, "More target tokens that end a hypothesis as `</s>` does (transformers' "
      "eos_token_id as a list, CTranslate2's end_token; at most 8): the ending token is in Hypothesis::tokens, not in "
      "ids; min_length holds them all back; the file's forced `</s>` at max_length stays `</s>`. Not owned. An id "
      "outside the target vocabulary: kInvalidArgument.", c="", cpp_type="Span<const uint32_t>", cli="--end-token",
      share="same", check="end_tokens", py_type="Sequence[int]", py_default="()",
      cli_note="--end-token ID (repeatable)"),
    O("forced_eos", "opt_bool", None, "`</s>` forced at the last position a hypothesis may take (max_length; "
      "transformers' ForcedEOSTokenLogitsProcessor, forced_eos_token_id = eos) on (true) or off (false) for this "
      "call; unset: the file's (GenerationDefaults::forced_eos). Off, a hypothesis cut at max_length ends without "
      "`</s>`.", cli="--forced-eos", cli_help="true: </s> forced at --max-length (transformers' forced_eos_token_id); false: a cut line ends without it (default: the model's)", score=True),
    O("alignment_layer", "opt_u32", None, "The decoder layer (0-based) whose cross-attention gives token_sources; "
      "unset: the model's default (docs/translating.md \"Confidence and alignment\" says which and why). Beyond the "
      "decoder's layers: kInvalidArgument.", c_type="int", cli="--alignment-layer",
      cli_help="the decoder layer whose cross-attention gives the alignment (0-based; default: the model's)", score=True),
    O("keep_spans", "special", None, "The caller's own do-not-translate spans (see keep_placeholders).", c="",
      cpp_type="Span<const KeepSpan>", cli="", share="alone", per_input="by_text", texts_only=True,
      py_type="Sequence[Tuple[int, int, int]]", py_default="()", cli_note="the CLI keeps placeholders it finds"),
    O("placeholder_syntaxes", "syntaxes", "placeholder_syntax::kDefault", "The syntaxes keep_placeholders finds "
      "(placeholder_syntax bits; PlaceholderSyntaxesFromNames reads a list of names: printf, python-named, "
      "ruby-named, brace, fluent, i18next, shell, url, email, number-unit, default, all, none).",
      cli="--placeholder-syntaxes", cli_help="the syntaxes --keep-placeholders finds, as names: printf, python-named, ruby-named, brace, fluent, i18next, shell, url, email, number-unit, default (all but shell), all, none (default: default)",
      texts_only=True, check="syntaxes"),
    O("auto_protect", "bool", True, "On by default: a plain text (keep_placeholders off, no markup, no keep_spans) "
      "that holds a URL, an e-mail address or a printf or brace placeholder (placeholder_syntax::kAutoProtect, within "
      "placeholder_syntaxes) gets them kept verbatim as keep_placeholders keeps them; a text without any is "
      "translated exactly as with it off. Only where a call can keep spans: not with on_token, target prefixes or "
      "alternatives (those translate such a text as it is), nor in Score or TranslateIds. TranslateContinuous hands "
      "such a text back with kUnsupported (tern::Engine then translates it with Translate). false: every text is "
      "translated as it is (an address may come out translated).", cli="--no-auto-protect",
      cli_help="translate URLs, e-mail addresses and printf / brace placeholders as they are (by default a plain line keeps them verbatim without --keep-placeholders)", texts_only=True),
    # ---- added after the first release of tern_translate_params (the C struct grows at its end) ----
    O("sampling.min_tokens_to_keep", "u32", 1, "Sampling: top-k and top-p keep at least this many tokens "
      "(transformers' min_tokens_to_keep).", c="sampling_min_tokens_to_keep", py="sampling_min_tokens_to_keep",
      cli="--sample-min-tokens", cli_help="sampling: top-k and top-p keep at least this many tokens", check="ge1"),
    O("coverage_penalty", "f32", 0.0, "Beam search: the coverage penalty of Wu et al. 2016 (GNMT) as CTranslate2's "
      "decoding.cc applies it: a finished hypothesis' score gains beta x sum over source tokens j of "
      "log(min(c_j, 1)), c_j its tokens' summed cross-attention on j (the last decoder layer's first head, "
      "CTranslate2's alignment head for Marian models; `</s>` included; tokens never attended to left out), after "
      "the length penalty; and a sentence finishes as CTranslate2's beam search finishes it, once beam_size "
      "hypotheses have (early_stopping true, unless the call sets early_stopping). 0: off. Greedy search: no "
      "effect (one hypothesis).", cli="--coverage-penalty",
      cli_help="beam search: the coverage penalty's weight (Wu et al. 2016; 0: off; CTranslate2 takes a negative one)",
      check="finite"),
    O("replace_unknowns", "bool", False, "A generated unknown token (`<unk>`) becomes the source token it attends to "
      "most (its token_sources entry), as CTranslate2's replace_unknowns: in the text, that source token's own bytes. "
      "Turns alignment on.", cli="--replace-unknowns",
      cli_help="a generated <unk> becomes the source token it attends to most"),
    O("sampling_keys", "special", None, "Sampling: each input's key (one per input, or none: its index in this "
      "call), which its draws depend on instead of its index. A caller that batches inputs of several requests into "
      "one call gives each its index in its own request, so that a seeded request samples the same alone or batched "
      "(tern::Engine and the bindings' chunking do).", c="", cpp_type="Span<const uint64_t>", cli="",
      share="input", per_input="slice", cli_note="each line is keyed by its line number", py_type="Optional[Sequence[int]]",
      py_default="None"),
]

# Continuous batching (Translator::TranslateContinuous, the engine's continuous calls: sentences join and leave a
# running batch one by one) refuses these options when they are set, each named in its refusal as given here:
# they need the whole call's sentences up front (markup, placeholders, keep spans, glossary constraints, target
# prefixes), a second pass (alternatives, attention), a per-call callback or draw (on_token, logits processors,
# sampling) or whole-hypothesis bookkeeping (coverage, unknowns). Every other option a continuous call shares.
# The generator writes the check (session/continuous_fields.inc) and its test reads the same rows.
CONTINUOUS = {
    "markup": "markup", "keep_placeholders": "keep_placeholders", "keep_spans": "keep_spans", "glossary": "a glossary",
    "target_prefix": "target prefixes", "target_prefix_ids": "target prefixes", "alternatives": "alternatives",
    "return_attention": "return_attention", "on_token": "on_token", "sampling.enabled": "sampling",
    "coverage_penalty": "coverage_penalty", "replace_unknowns": "replace_unknowns", "logits_processors": "logits_processors",
}
for _o in OPTIONS:
    _o.continuous = CONTINUOUS.get(_o.name, "")

# How a call's value reaches what reads it: its member of ResolvedOptions (session/batch.h; a member that its base
# SearchOptions declares, search/search.h, is the search's own and is not generated again), and for an optional
# value the model file's default it takes when unset (GenerationDefaults, generation_config.json). The generator
# writes the members (session/resolved_members.inc) and the resolution (session/resolved_fields.inc), which
# ResolveOptions runs first; the range checks stay CheckOptionRanges' and the behaviour its reader's. A new
# option that a search, a logits rule or a stage only reads: one entry here and the code that reads it.
RESOLVED = {
    "length_penalty": ("length_penalty", "length_penalty"), "max_length_ratio": ("max_length_ratio", "max_length_ratio"),
    "repetition_penalty": ("rules.repetition_penalty", "repetition_penalty"),
    "no_repeat_ngram_size": ("rules.no_repeat_ngram_size", "no_repeat_ngram_size"),
    "min_length": ("rules.min_length", "min_length"), "forced_eos": ("rules.forced_eos", "forced_eos"),
    "use_shortlist": ("use_shortlist", ""), "hf_rules": ("hf_rules", ""), "disable_unk": ("disable_unk", ""),
    "replace_unknowns": ("replace_unknowns", ""), "return_scores": ("want_scores", ""),
    "return_attention": ("want_attention", ""),
}
for _o in OPTIONS:
    _o.resolved, _o.file_default = RESOLVED.get(_o.name, ("", ""))

# A non-default value of every option, for the fields test (tests/fields/): each binding sends it, and the
# library's echo of the options it received (TERN_ECHO_OPTIONS) must show it. Special rows: what the test's
# own code gives (the echo says "set" for a callback or a pointer, the element count for per-input data).
TEST_VALUES = {
    "beam_size": 3, "length_penalty": 0.5, "early_stopping": "never", "hf_rules": 4, "max_length": 17,
    "max_length_ratio": 1.5, "n_best": 2, "return_scores": False, "return_alignment": True, "target_lang": "deu",
    "split_sentences": False, "use_shortlist": False, "markup": "xml", "keep_placeholders": True,
    "translate_code": True, "sampling.enabled": True, "sampling.temperature": 0.75, "sampling.top_k": 7,
    "sampling.top_p": 0.875, "sampling.seed": 12345, "repetition_penalty": 1.25, "no_repeat_ngram_size": 3,
    "min_length": 2, "max_input_length": 9, "alternatives": 2, "min_alternative_expansion_prob": 0.125,
    "disable_unk": True, "return_attention": True, "forced_eos": False, "alignment_layer": 1,
    "placeholder_syntaxes": "printf,url", "auto_protect": False, "sampling.min_tokens_to_keep": 3,
    "coverage_penalty": 0.25, "replace_unknowns": True,
}


@dataclass
class R:
    name: str                      # member of tern::Hypothesis / OwnedHypothesis ("hypothesis") or of
                                   # tern::TranslationResult / OwnedResult ("result")
    level: str
    kind: str                      # text, f32, u32s, i32s, f32s, spans, matrix (f32 [tokens x source tokens])
    doc: str                       # what it holds (every binding's doc; C and Python add the element type)
    channel: Optional[str] = None  # per-token arrays the search writes: its track channel (TERN_RESULT_CHANNELS)
    java: Optional[str] = None     # Java field (None: camelCase of name)

    @property
    def javaname(self):
        if self.java:
            return self.java
        parts = self.name.split("_")
        return parts[0] + "".join(p[:1].upper() + p[1:] for p in parts[1:])


# The result table: every field of a translation result once, in the order each binding lists them.
# runtime/fields/generate.py writes from it the C++ field lists (tern/result_fields.h: TERN_HYPOTHESIS_FIELDS,
# TERN_RESULT_FIELDS, TERN_RESULT_CHANNELS), the C accessors (tern.h and api/c_result_fields.inc), the Python
# Hypothesis and TranslationResult fields (results.cc, _tern.pyi), Java's Hypothesis fields and their JNI
# conversion, the CLI's JSON members and the library's echo (TERN_ECHO_RESULTS) that the fields tests compare
# each binding's results with. Adding a result field: a row here, its member in tern::Hypothesis /
# tern::OwnedHypothesis (or the result structs), where the search or the session fills it, and its test.
RESULTS = [
    R("text", "hypothesis", "text", "the detokenized target text (UTF-8; empty for ids calls)"),
    R("ids", "hypothesis", "u32s", "[n] generated ids without the decoder start token and the final </s>"),
    R("score", "hypothesis", "f32", "beam: sum of log-probabilities / generated_len ^ length_penalty; greedy: the sum "
      "(0 without return_scores)"),
    R("tokens", "hypothesis", "u32s", "[n or n+1] the generated ids, the final </s> included when there was one",
      channel="token"),
    R("token_logprobs", "hypothesis", "f32s", "[tokens] each token's natural-log probability after the logits "
      "processors (transformers' compute_transition_scores(normalize_logits=True)); 0s without return_scores",
      channel="logprob"),
    R("token_sources", "hypothesis", "i32s", "[tokens] the source token each aligns to, an index into source_ids "
      "(return_alignment), else -1", channel="source"),
    R("token_spans", "hypothesis", "spans", "[tokens] each token's bytes [begin, end) in text (a word-initial piece "
      "without its space; </s> empty at the end); empty for ids calls"),
    R("attention", "hypothesis", "matrix", "[tokens x source tokens] row-major: each token's cross-attention over "
      "the source (return_attention), else empty"),
    R("source_ids", "result", "u32s", "[m] the source tokens the input became (MarianTokenizer's ids, </s> last); "
      "empty when the input failed before it was tokenized"),
    R("source_spans", "result", "spans", "[m] each source token's bytes [begin, end) in the input text; empty for "
      "ids calls"),
]
