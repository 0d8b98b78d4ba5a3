"""Type stubs of tern._tern (targets/python/src). Shapes are NumPy shapes; ids are uint32; byte offsets are
into the UTF-8 of a text; log-probabilities are natural logs."""

import os
from typing import Any, Callable, Dict, Iterator, List, Literal, Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

__version__: str
MAX_BEAM: int  # the largest beam (and n_best) a Translator can be made for

_Path = Union[str, "os.PathLike[str]"]
_Text = Union[str, bytes]
_Ids = Union[npt.NDArray[np.integer], Sequence[int]]

def cpu_summary() -> str:
    """The CPU as cpuinfo describes it and the ISA path tern uses."""
def default_threads() -> int:
    """Threads a Translator uses when threads=0."""
def peak_rss_mib() -> float:
    """This process's peak resident set size, MiB."""

class Model:
    """A verified .tern file, read-only, shared by any number of Translators and threads."""
    @staticmethod
    def load(path: _Path, mmap: bool = False, memory_budget: int = 2 << 30,
             packed_cache_dir: Union[_Path, None, Literal[False]] = None,
             packed_cache_max_bytes: Optional[int] = None) -> "Model":
        """Read into memory of its own (every binding's default); mmap=True maps the file instead (the file must
        then not be rewritten in place while the Model lives). packed_cache_dir: where packed weights are cached for
        this CPU (None: the per-user cache,
        $TERN_PACKED_CACHE_DIR or $XDG_CACHE_HOME/tern/packed or ~/.cache/tern/packed, unless TERN_PACKED_CACHE=off;
        False: none). packed_cache_max_bytes: the directory's bound in bytes, least recently used entries removed
        first (None: 2 GiB for the per-user cache, unbounded for a directory given).
        Raises IoError, InvalidModelError (the check and the tensor), UnsupportedError, ResourceExhaustedError."""
    @staticmethod
    def from_bytes(data: bytes, name: str = "<bytes>", memory_budget: int = 2 << 30) -> "Model": ...
    name: str
    file_bytes: int
    packed_weights_note: str  # where the packed weights came from; "" before the first Translator
    format_version: int
    weight_dtype: str  # "f32", "f16", "int8", "qc4w", "qb4w"
    hparams: Dict[str, Union[int, str]]      # d_model, n_heads, head_dim, ffn_dim, layers, vocab sizes, special ids
    generation: Dict[str, object]            # beam_size, length_penalty, max_length, early_stopping, ...
    limits: Dict[str, int]                   # max_source_tokens, max_target_tokens, max_batch, max_rows
    provenance: Dict[str, object]
    source_vocab: List[str]                  # piece of each source id
    target_vocab: List[str]                  # piece of each target id
    language_tokens: List[str]               # ">>xxx<<" codes of a multilingual model
    source_lang: str
    target_lang: str
    shortlist: Optional[Dict[str, object]]   # frequent, candidates, method

class Glossary:
    """Terminology: each source term found in a sentence must appear as its target term."""
    @staticmethod
    def load(model: Model, path: _Path, case_insensitive: bool = False) -> "Glossary":
        """TSV: source<TAB>target per line. Raises NotFoundError, InvalidArgumentError (file:line)."""
    @staticmethod
    def from_entries(model: Model, entries: Sequence[Tuple[str, str]], case_insensitive: bool = False) -> "Glossary": ...
    def __len__(self) -> int: ...

class Tokenizer:
    """Text <-> ids exactly as a Translator tokenizes (MarianTokenizer's rules)."""
    def __init__(self, model: Model, side: str = "source") -> None: ...
    def encode(self, text: _Text, target_lang: str = "") -> npt.NDArray[np.uint32]:
        """uint32 [n], </s> last. Raises InvalidArgumentError (invalid UTF-8, NUL, unknown target_lang)."""
    def decode(self, ids: _Ids) -> str: ...

def tokenize(model: Model, text: _Text, side: str = "source", target_lang: str = "") -> npt.NDArray[np.uint32]: ...
def detokenize(model: Model, ids: _Ids) -> str: ...

class Confidence:
    mean_logprob: float   # mean token log-probability, </s> included
    min_logprob: float
    tokens: int
    low: bool             # mean below the default sentence threshold (-0.50)

class Hypothesis:
    # The result table's hypothesis fields (runtime/fields/fields.py RESULTS says what each holds).
    # fields: Hypothesis
    text: str
    ids: npt.NDArray[np.uint32]
    score: float
    tokens: npt.NDArray[np.uint32]
    token_logprobs: npt.NDArray[np.float32]
    token_sources: npt.NDArray[np.int32]
    token_spans: List[Tuple[int, int]]
    attention: Optional[npt.NDArray[np.float32]]
    # end fields: Hypothesis
    confidence: Confidence

class TranslationResult:
    hypotheses: List[Hypothesis]               # best first; [] when the input failed
    error: Optional[Exception]                 # a tern.TernError for an input that failed alone
    ok: bool
    text: str                                  # the best hypothesis' text (raises the input's error)
    score: float
    # fields: TranslationResult
    source_ids: npt.NDArray[np.uint32]
    source_spans: List[Tuple[int, int]]
    # end fields: TranslationResult

class LogitsRow:
    """One hypothesis' next-token scores at one step, given to a logits processor (tern::LogitsRow); valid
    during that call only."""
    input: int        # the input it translates, as results are indexed
    part: int         # its sentence within that text (split_sentences)
    hypothesis: int   # its beam slot, 0..beam-1
    step: int         # the position being chosen (0: the first token)
    prefix: np.ndarray   # uint32: the tokens it generated so far (a copy)
    scores: np.ndarray   # float32 view, rewritten in place; -inf bans a token
    columns: Optional[np.ndarray]  # uint32 token of each column (a shortlist), or None
    def column(self, token: int) -> int:
        """The column of target token `token`, or -1."""

class StreamEvent:
    index: int    # the input it belongs to
    part: int     # its sentence within that text
    parts: int
    token: int    # the generated id (eos_id on the last event of a sentence ending in </s>)
    text: str     # the text it adds
    last: bool
    logprob: float  # the token's log-probability (as Hypothesis.token_logprobs)

class CancelToken:
    """cancel() from any thread stops the calls given this token (they raise CancelledError)."""
    def __init__(self) -> None: ...
    def cancel(self) -> None: ...
    def reset(self) -> None: ...
    cancelled: bool

# A callback gets each StreamEvent and returns True to stop the call (CTranslate2's convention).
_Callback = Callable[[StreamEvent], Optional[bool]]

class Translator:
    """A translation session on a Model (its own arena and threads). Calls release the GIL; calls on one
    Translator from several threads take turns."""
    def __init__(self, model: Model, *, threads: int = 0, max_batch: int = 0, max_beam: int = 0, max_n_best: int = 1,
                 max_source_tokens: int = 0, max_target_tokens: int = 0) -> None:
        """0: the file's default limit (threads: cpuinfo's performance cores). Raises InvalidArgumentError,
        ResourceExhaustedError (arena over the Model's memory_budget), InvalidModelError."""
    @staticmethod
    def config_for(model: Model, *, inputs: int = 1, beam_size: int = 0, n_best: int = 1, alternatives: int = 0,
                   source_tokens: int = 0, max_length: int = 0, attention: bool = False,
                   at_least: Optional[Dict[str, Union[int, bool]]] = None) -> Dict[str, Union[int, bool]]:
        """The limits (max_batch, max_beam, max_n_best, max_source_tokens, max_target_tokens, attention) of a
        Translator that takes such calls, never below at_least: tern::TranslatorConfigFor. Raises
        InvalidArgumentError when the model cannot take them."""
    def translate_batch(self, texts: Sequence[_Text], *,
                        # fields: texts keywords
                        beam_size: Optional[int] = None, length_penalty: Optional[float] = None,
                        early_stopping: Union[None, bool, str] = None, hf_rules: int = 5,
                        max_length: Optional[int] = None, max_length_ratio: Optional[float] = None, n_best: int = 1,
                        return_scores: bool = True, return_alignment: bool = False, target_lang: str = "",
                        split_sentences: bool = True, use_shortlist: bool = True, markup: Optional[str] = None,
                        callback: Optional[_Callback] = None, cancel: Optional[CancelToken] = None,
                        logits_processors: Optional[Sequence[Callable[[LogitsRow], None]]] = None,
                        glossary: Optional[Glossary] = None, keep_placeholders: bool = False,
                        translate_code: bool = False, target_prefix: Optional[Sequence[Optional[_Text]]] = None,
                        target_prefix_ids: Optional[Sequence[Optional[_Ids]]] = None, do_sample: bool = False,
                        sampling_temperature: float = 1.0, sampling_topk: int = 50, sampling_topp: float = 1.0,
                        seed: int = 0, repetition_penalty: Optional[float] = None,
                        no_repeat_ngram_size: Optional[int] = None, min_length: Optional[int] = None,
                        max_input_length: int = 0, alternatives: int = 0,
                        min_alternative_expansion_prob: float = 0.0,
                        suppress_sequences: Optional[Sequence[_Ids]] = None, disable_unk: bool = False,
                        return_attention: bool = False, end_tokens: Sequence[int] = (),
                        forced_eos: Optional[bool] = None, alignment_layer: Optional[int] = None,
                        keep_spans: Sequence[Tuple[int, int, int]] = (), placeholder_syntaxes: str = "default",
                        auto_protect: bool = True, sampling_min_tokens_to_keep: int = 1,
                        coverage_penalty: float = 0.0, replace_unknowns: bool = False,
                        sampling_keys: Optional[Sequence[int]] = None,
                        # end fields: texts keywords
                        on_error: str = "raise") -> List[TranslationResult]:
        """One TranslationResult per text. beam_size 1: greedy. max_length: generated tokens with </s>.
        early_stopping: True, False or "never" (transformers'). hf_rules: 5 or 4 (transformers 5.x / 4.x
        beam rules). markup: None, "html", "html-lenient", "xml" (app strings' <0>..</0>, <link>..</link>). keep_spans: (text index, begin byte, end byte).
        auto_protect (default): URLs, e-mail addresses, printf and brace placeholders in plain texts are kept
        verbatim without keep_placeholders; False translates them as they are.
        target_prefix: per text, what its translation starts with (None: nothing; target_prefix_ids: as
        target ids); the hypotheses hold it first, their scores count the tokens after it.
        do_sample: sampling (greedy only) with sampling_temperature / topk / topp and seed. repetition_penalty,
        no_repeat_ngram_size, min_length: this call's logits rules (None: the file's). max_input_length > 0 cuts
        longer sources. alternatives N > 0: the N most likely tokens after the prefix, each continued by the
        search, are the N hypotheses (CTranslate2's return_alternatives; n_best 1). suppress_sequences: target id
        lists never generated; disable_unk: never <unk>. end_tokens: more target ids that end a hypothesis as
        </s> does. forced_eos: </s> forced at max_length on (True) or off (False); None: the file's.
        logits_processors: callables called with a LogitsRow per live hypothesis per step, after the file's rules
        (transformers' logits_processor=): they rewrite row.scores in place; one that raises stops the call and
        its exception is raised (a Python call per row: slow, for rules no option covers).
        on_error "raise": the first failed input's error is raised after the call (.index, .results); "keep":
        it is that result's .error. Raises TypeError (not a list of str/bytes), InvalidArgumentError (options),
        CancelledError (callback returned True, CancelToken; .results), KeyboardInterrupt (Ctrl-C)."""
    def translate_ids(self, sources: Sequence[_Ids], *,
                      # fields: ids keywords
                      beam_size: Optional[int] = None, length_penalty: Optional[float] = None,
                      early_stopping: Union[None, bool, str] = None, hf_rules: int = 5,
                      max_length: Optional[int] = None, max_length_ratio: Optional[float] = None, n_best: int = 1,
                      return_scores: bool = True, return_alignment: bool = False, use_shortlist: bool = True,
                      callback: Optional[_Callback] = None, cancel: Optional[CancelToken] = None,
                      logits_processors: Optional[Sequence[Callable[[LogitsRow], None]]] = None,
                      target_prefix_ids: Optional[Sequence[Optional[_Ids]]] = None, do_sample: bool = False,
                      sampling_temperature: float = 1.0, sampling_topk: int = 50, sampling_topp: float = 1.0,
                      seed: int = 0, repetition_penalty: Optional[float] = None,
                      no_repeat_ngram_size: Optional[int] = None, min_length: Optional[int] = None,
                      max_input_length: int = 0, alternatives: int = 0, min_alternative_expansion_prob: float = 0.0,
                      suppress_sequences: Optional[Sequence[_Ids]] = None, disable_unk: bool = False,
                      return_attention: bool = False, end_tokens: Sequence[int] = (),
                      forced_eos: Optional[bool] = None, alignment_layer: Optional[int] = None,
                      sampling_min_tokens_to_keep: int = 1, coverage_penalty: float = 0.0,
                      replace_unknowns: bool = False, sampling_keys: Optional[Sequence[int]] = None,
                      # end fields: ids keywords
                      on_error: str = "raise") -> List[TranslationResult]:
        """Each source: 1-D integer ids, </s> included. Results carry ids only."""
    def translate_icu_messages(self, messages: Sequence[_Text], *, beam_size: Optional[int] = None,
                               max_length: Optional[int] = None, keep_placeholders: bool = False,
                               placeholder_syntaxes: str = "default", target_lang: str = "",
                               on_error: str = "raise") -> List[Optional[str]]:
        """ICU MessageFormat messages (tern/icu_message.h): the text of each message and of every plural /
        select case (and of every Fluent select expression's variant, with the "fluent" placeholder syntax)
        translated, arguments and '#' kept, the syntax rebuilt. A malformed message raises
        InvalidArgumentError naming its index and byte (on_error='raise') or is None (on_error='keep')."""
    def generate_tokens(self, source: Union[_Text, _Ids], **options: Any) -> Iterator[StreamEvent]:
        """One sentence's steps as an iterator (tern/steps.py; CTranslate2's generate_tokens): a text, or source
        ids with </s>; translate_batch's / translate_ids' keywords. Leaving the loop early cancels the call."""
    def score_batch(self, sources: Sequence[_Text], targets: Sequence[_Text], *,
                    # fields: score_texts keywords
                    max_length: Optional[int] = None, max_length_ratio: Optional[float] = None,
                    return_alignment: bool = False, target_lang: str = "", callback: Optional[_Callback] = None,
                    cancel: Optional[CancelToken] = None,
                    logits_processors: Optional[Sequence[Callable[[LogitsRow], None]]] = None,
                    repetition_penalty: Optional[float] = None, no_repeat_ngram_size: Optional[int] = None,
                    min_length: Optional[int] = None, max_input_length: int = 0,
                    suppress_sequences: Optional[Sequence[_Ids]] = None, disable_unk: bool = False,
                    forced_eos: Optional[bool] = None, alignment_layer: Optional[int] = None,
                    # end fields: score_texts keywords
                    on_error: str = "raise") -> List[TranslationResult]:
        """Scores given translations: per pair, hypotheses[0] holds the target's ids, token_logprobs (</s>
        last) and score, their sum (greedy search's score of the same tokens)."""
    def score_ids(self, sources: Sequence[_Ids], targets: Sequence[_Ids], *,
                  # fields: score_ids keywords
                  max_length: Optional[int] = None, max_length_ratio: Optional[float] = None,
                  return_alignment: bool = False, callback: Optional[_Callback] = None,
                  cancel: Optional[CancelToken] = None,
                  logits_processors: Optional[Sequence[Callable[[LogitsRow], None]]] = None,
                  repetition_penalty: Optional[float] = None, no_repeat_ngram_size: Optional[int] = None,
                  min_length: Optional[int] = None, max_input_length: int = 0,
                  suppress_sequences: Optional[Sequence[_Ids]] = None, disable_unk: bool = False,
                  forced_eos: Optional[bool] = None, alignment_layer: Optional[int] = None,
                  # end fields: score_ids keywords
                  on_error: str = "raise") -> List[TranslationResult]:
        """score_batch on ids: sources with </s>, targets without it."""
    max_batch: int
    threads: int
    arena_bytes: int
    splits_sentences: bool
    model: Model
    profile: Dict[str, int]  # decoder_steps, generated_tokens, weight_bytes_read, output_columns, single_thread_steps
    def reset_profile(self) -> None: ...

class _Ticket:
    """A submitted request of an _Engine (tern.Future holds it)."""
    id: int
    done: bool
    def cancel(self) -> bool: ...  # True: it was still queued (taken out, never runs)

# done(error or None, results or None, info): called once per request on a worker thread, with the GIL.
_Done = Callable[[Optional[Exception], Optional[List[TranslationResult]], Dict[str, float]], None]

class _Engine:
    """tern::Engine (tern/engine.h); the public face is tern.Engine (tern/serving.py)."""
    def __init__(self, model: Model, *, replicas: int = 0, threads: int = 1, max_batch: int = 0, max_beam: int = 0,
                 max_n_best: int = 1, max_source_tokens: int = 0, max_target_tokens: int = 0, max_queued: int = 0,
                 continuous_batching: bool = True) -> None: ...
    def submit(self, texts: Sequence[_Text], done: _Done, *,
               # fields: texts keywords
               beam_size: Optional[int] = None, length_penalty: Optional[float] = None,
               early_stopping: Union[None, bool, str] = None, hf_rules: int = 5, max_length: Optional[int] = None,
               max_length_ratio: Optional[float] = None, n_best: int = 1, return_scores: bool = True,
               return_alignment: bool = False, target_lang: str = "", split_sentences: bool = True,
               use_shortlist: bool = True, markup: Optional[str] = None, callback: Optional[_Callback] = None,
               cancel: Optional[CancelToken] = None,
               logits_processors: Optional[Sequence[Callable[[LogitsRow], None]]] = None,
               glossary: Optional[Glossary] = None, keep_placeholders: bool = False, translate_code: bool = False,
               target_prefix: Optional[Sequence[Optional[_Text]]] = None,
               target_prefix_ids: Optional[Sequence[Optional[_Ids]]] = None, do_sample: bool = False,
               sampling_temperature: float = 1.0, sampling_topk: int = 50, sampling_topp: float = 1.0, seed: int = 0,
               repetition_penalty: Optional[float] = None, no_repeat_ngram_size: Optional[int] = None,
               min_length: Optional[int] = None, max_input_length: int = 0, alternatives: int = 0,
               min_alternative_expansion_prob: float = 0.0, suppress_sequences: Optional[Sequence[_Ids]] = None,
               disable_unk: bool = False, return_attention: bool = False, end_tokens: Sequence[int] = (),
               forced_eos: Optional[bool] = None, alignment_layer: Optional[int] = None,
               keep_spans: Sequence[Tuple[int, int, int]] = (), placeholder_syntaxes: str = "default",
               auto_protect: bool = True, sampling_min_tokens_to_keep: int = 1, coverage_penalty: float = 0.0,
               replace_unknowns: bool = False, sampling_keys: Optional[Sequence[int]] = None,
               # end fields: texts keywords
               ) -> _Ticket:
        """translate_batch's keywords, every one (the field table's); TypeError for another."""
    def submit_ids(self, sources: Sequence[_Ids], done: _Done, *,
                   # fields: ids keywords
                   beam_size: Optional[int] = None, length_penalty: Optional[float] = None,
                   early_stopping: Union[None, bool, str] = None, hf_rules: int = 5,
                   max_length: Optional[int] = None, max_length_ratio: Optional[float] = None, n_best: int = 1,
                   return_scores: bool = True, return_alignment: bool = False, use_shortlist: bool = True,
                   callback: Optional[_Callback] = None, cancel: Optional[CancelToken] = None,
                   logits_processors: Optional[Sequence[Callable[[LogitsRow], None]]] = None,
                   target_prefix_ids: Optional[Sequence[Optional[_Ids]]] = None, do_sample: bool = False,
                   sampling_temperature: float = 1.0, sampling_topk: int = 50, sampling_topp: float = 1.0,
                   seed: int = 0, repetition_penalty: Optional[float] = None,
                   no_repeat_ngram_size: Optional[int] = None, min_length: Optional[int] = None,
                   max_input_length: int = 0, alternatives: int = 0, min_alternative_expansion_prob: float = 0.0,
                   suppress_sequences: Optional[Sequence[_Ids]] = None, disable_unk: bool = False,
                   return_attention: bool = False, end_tokens: Sequence[int] = (), forced_eos: Optional[bool] = None,
                   alignment_layer: Optional[int] = None, sampling_min_tokens_to_keep: int = 1,
                   coverage_penalty: float = 0.0, replace_unknowns: bool = False,
                   sampling_keys: Optional[Sequence[int]] = None,
                   # end fields: ids keywords
                   ) -> _Ticket: ...
    def close(self) -> None: ...
    replicas: int
    max_batch: int
    queued: int
    arena_bytes: int

def convert(checkpoint_dir: _Path, output: _Path, *, weights: str = "int8", int4_block: int = 64,
            shortlist: Optional[Tuple[_Path, _Path]] = None, shortlist_marian: Optional[_Path] = None,
            shortlist_frequent: int = 100, shortlist_best: int = 25, max_batch: Optional[int] = None,
            max_source_tokens: int = 256, max_target_tokens: int = 256, arena_budget_mib: float = 256.0,
            source_lang: str = "") -> Dict[str, object]:
    """MarianMT checkpoint directory -> .tern, as tern-convert. weights: f32, f16, int8, qc4w, qb4w, int4, mixed.
    Returns path, file_bytes, tensors, formats {name: (count, bytes)}, max_batch, arena_bytes, shortlist."""
