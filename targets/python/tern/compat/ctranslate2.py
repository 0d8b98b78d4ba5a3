"""A CTranslate2-compatible front end on tern: code written for ``ctranslate2.Translator`` switches with one
import::

    from tern.compat import ctranslate2          # was: import ctranslate2
    translator = ctranslate2.Translator("en-de.int8.tern")
    results = translator.translate_batch([sp.encode(text, out_type=str)], beam_size=4, return_scores=True)
    print(sp_target.decode(results[0].hypotheses[0]), results[0].scores[0])

It follows CTranslate2 4.x's Python API (``Translator.translate_batch`` and ``TranslationResult``):
``source`` is a list of token lists (the source SentencePiece pieces, without ``</s>``: it is appended, as
CTranslate2 does for OPUS-MT models), each result has ``.hypotheses`` (``num_hypotheses`` lists of target
pieces, without ``</s>``) and ``.scores`` (with ``return_scores``: the sum of the token log-probabilities
divided by ``length ** length_penalty``, ``length`` counting the generated tokens with ``</s>``), and a
result also reads as a list of ``{"tokens": ..., "score": ...}`` dicts (CTranslate2's older form).

``target_prefix`` (target pieces per example, or None) forces each translation's first tokens (tern's
target prefixes: transformers' decoder_input_ids); the hypotheses start with them and a score counts the
tokens after them. ``score_batch(source, target)`` returns ``ScoringResult``s (``tokens`` with ``</s>``,
``log_probs`` per token), with the file's logits rules applied as greedy search applies them.
``suppress_sequences`` (token lists) and ``disable_unk`` ban tokens as CTranslate2 does.
``return_alternatives`` gives the ``num_hypotheses`` most likely tokens after the prefix, each continued by
the search (tern's TranslateOptions::alternatives). ``sampling_topk`` / ``sampling_topp`` / ``sampling_temperature`` sample with ``beam_size=1`` (tern's
generator, seeded by ``set_random_seed``: the same seed, the same output on every CPU).

``replace_unknowns`` replaces each generated ``<unk>`` by the source token it attends to most (tern's
alignment, ``</s>`` left out, as CTranslate2 does with its attention). The module's functions
(``get_cuda_device_count``: 0, ``get_supported_compute_types``, ``contains_model``, ``set_random_seed``,
``set_log_level``, ``get_log_level``) keep CTranslate2's meaning on a machine without CUDA.

Every keyword is converted and checked as CTranslate2's binding and decoding.cc do (TypeError, ValueError).
What differs: ``model_path`` is a ``.tern`` file (or a directory holding one); values tern cannot honour
(patience other than 1, a prefix bias, beam sampling, ``return_logits_vocab``, beams over tern.MAX_BEAM) raise
``tern.UnsupportedError``, non-finite penalties ``tern.InvalidArgumentError``; ``device`` must be "cpu" or
"auto" (the CPU; "cuda" is a ValueError, as CTranslate2 without CUDA). Pieces the source
vocabulary lacks become ``<unk>``. A source is translated whole up to ``max_input_length`` tokens
(CTranslate2's default 1,024; the Translators are made again, larger, for a longer source, up to the model's
positions); a longer one is cut to it with a warning, as CTranslate2 cuts it, and one the model has no
positions for raises ValueError naming it, as CTranslate2's position encodings do. docs/python.md has the
table of every keyword and attribute.
"""

import concurrent.futures
import itertools
import logging
import math
import operator
import os
import threading
import warnings

from .. import _tern
from ..errors import CancelledError, UnsupportedError
from ..serving import Engine

__all__ = ["Translator", "TranslationResult", "GenerationStepResult", "ScoringResult", "AsyncTranslationResult",
           "AsyncScoringResult", "ExecutionStats", "set_random_seed", "get_cuda_device_count",
           "get_supported_compute_types", "contains_model", "set_log_level", "get_log_level", "Generator", "Encoder",
           "Whisper", "StorageView"]

__version__ = "4.8.1"  # the CTranslate2 Python API this module follows (tern's own: tern.__version__)


class TranslationResult:
    """CTranslate2's TranslationResult: ``hypotheses`` (list of token lists), ``scores`` (list of float; empty
    without return_scores), ``attention`` (with return_attention: per hypothesis, a row per generated token over
    the source tokens) and ``logits`` (always empty: return_logits_vocab is refused)."""

    __slots__ = ("hypotheses", "scores", "attention", "logits")

    def __init__(self, hypotheses, scores):
        self.hypotheses = hypotheses
        self.scores = scores
        self.attention = []
        self.logits = []

    # CTranslate2 < 2.0 returned a list of dicts per example; its TranslationResult still reads as one.
    def __getitem__(self, i):
        d = {"tokens": self.hypotheses[i]}
        if self.scores:
            d["score"] = self.scores[i]
        return d

    def __len__(self):
        return len(self.hypotheses)

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def __repr__(self):
        return "TranslationResult(hypotheses=%r, scores=%r, attention=[], logits=[])" % (self.hypotheses, self.scores)


class ScoringResult:
    """CTranslate2's ScoringResult: ``tokens`` (the target pieces and ``</s>``) and ``log_probs`` (each one's
    log-probability)."""

    def __init__(self, tokens, log_probs):
        self.tokens, self.log_probs = tokens, log_probs

    def __repr__(self):
        return "ScoringResult(tokens=%r, log_probs=%r)" % (self.tokens, self.log_probs)


class GenerationStepResult:
    """What a translate_batch callback receives (CTranslate2's GenerationStepResult); return True to stop."""

    __slots__ = ("step", "batch_id", "token_id", "hypothesis_id", "token", "log_prob", "is_last")

    def __init__(self, step, batch_id, token_id, token, is_last, log_prob=None):
        self.step, self.batch_id, self.token_id, self.hypothesis_id = step, batch_id, token_id, 0
        self.token, self.log_prob, self.is_last = token, log_prob, is_last


class ExecutionStats:
    """CTranslate2's ExecutionStats (translate_file, score_file): examples, tokens and milliseconds."""

    __slots__ = ("num_tokens", "num_examples", "total_time_in_ms")

    def __init__(self, num_tokens, num_examples, total_time_in_ms):
        self.num_tokens, self.num_examples, self.total_time_in_ms = num_tokens, num_examples, total_time_in_ms

    def __repr__(self):
        return "ExecutionStats(num_tokens=%d, num_examples=%d, total_time_in_ms=%f)" % (
            self.num_tokens, self.num_examples, self.total_time_in_ms)


class _Done:
    """A finished AsyncTranslationResult (a call with a callback runs synchronously)."""

    def __init__(self, value):
        self._value = value

    def result(self):
        return self._value

    def done(self):
        return True


class _Async:
    """CTranslate2's AsyncTranslationResult over a tern.Engine future: result() waits, done() polls."""

    def __init__(self, future, convert):
        self._future, self._convert = future, convert

    def result(self):
        return self._convert(self._future.result())

    def done(self):
        return self._future.done()


AsyncTranslationResult = AsyncScoringResult = _Async  # CTranslate2's names for what asynchronous=True returns


def _unsupported(name, why):
    class Unsupported:
        __doc__ = "CTranslate2's %s: %s (tern.UnsupportedError)." % (name, why)

        def __init__(self, *args, **kwargs):
            raise UnsupportedError("ctranslate2.%s: %s" % (name, why))

    Unsupported.__name__ = Unsupported.__qualname__ = name
    return Unsupported


Generator = _unsupported("Generator", "tern runs encoder-decoder translation models (Translator), not decoder-only ones")
Encoder = _unsupported("Encoder", "tern runs encoder-decoder translation models (Translator) only")
Whisper = _unsupported("Whisper", "tern runs text translation models (Translator) only")
StorageView = _unsupported("StorageView", "tern's results are NumPy arrays and lists")


def get_cuda_device_count():
    """CTranslate2's get_cuda_device_count: tern runs on the CPU, so 0 (as CTranslate2 without a GPU)."""
    return 0


def get_supported_compute_types(device, device_index=0):
    """CTranslate2's get_supported_compute_types: on "cpu" the types tern runs ("float32", "int8",
    "int8_float32": a .tern file's f32 and int8 formats, with float activations); "cuda" as CTranslate2 without
    CUDA ({"float32"}: nothing runs there). Another device name raises ValueError, as CTranslate2's does."""
    if device not in ("cpu", "cuda", "auto"):
        raise ValueError("unsupported device %s" % device)
    return {"float32"} if device == "cuda" else {"float32", "int8", "int8_float32"}


def contains_model(path):
    """CTranslate2's contains_model: whether `path` holds a model this module loads (a .tern file, or a
    directory with one .tern file, or model.tern)."""
    try:
        return os.path.isfile(_find_model(path, None))
    except (UnsupportedError, RuntimeError, OSError, TypeError):
        return False


_log_level = [logging.WARNING]


def set_log_level(level):
    """CTranslate2's set_log_level (a Python logging level). tern logs nothing of its own here; the level is
    kept for get_log_level. ValueError for a value that is not a logging level, as CTranslate2."""
    if level not in (logging.CRITICAL, logging.ERROR, logging.WARNING, logging.INFO, logging.DEBUG, logging.NOTSET):
        raise ValueError("Level %d is not a valid logging level" % level)
    _log_level[0] = level


def get_log_level():
    """CTranslate2's get_log_level."""
    return _log_level[0]


# The C++ type of each keyword in CTranslate2 4.8.1's binding (python/cpp/translator.cc): a value is converted
# as pybind11 converts it there, and one it would not convert is a TypeError, as CTranslate2's.
_SIZE, _INT, _FLOAT, _BOOL, _STR = "size_t", "int", "float", "bool", "str"
_TYPES = {
    "max_batch_size": _SIZE, "read_batch_size": _SIZE, "batch_type": _STR, "asynchronous": _BOOL, "beam_size": _SIZE,
    "patience": _FLOAT, "num_hypotheses": _SIZE, "length_penalty": _FLOAT, "coverage_penalty": _FLOAT,
    "repetition_penalty": _FLOAT, "no_repeat_ngram_size": _SIZE, "disable_unk": _BOOL, "return_end_token": _BOOL,
    "prefix_bias_beta": _FLOAT, "max_input_length": _SIZE, "max_decoding_length": _SIZE, "min_decoding_length": _SIZE,
    "use_vmap": _BOOL, "return_scores": _BOOL, "return_logits_vocab": _BOOL, "return_attention": _BOOL,
    "return_alternatives": _BOOL, "min_alternative_expansion_prob": _FLOAT, "sampling_topk": _SIZE,
    "sampling_topp": _FLOAT, "sampling_temperature": _FLOAT, "replace_unknowns": _BOOL, "return_log_prob": _BOOL,
    "offset": _INT, "with_scores": _BOOL, "with_tokens_score": _BOOL, "device": _STR, "compute_type": _STR,
    "inter_threads": _SIZE, "intra_threads": _SIZE, "max_queued_batches": _INT, "flash_attention": _BOOL,
    "tensor_parallel": _BOOL,
}


def _typed(fn, name, value):
    """`value` as CTranslate2's binding receives keyword `name` of `fn` (pybind11's conversions): integers from
    anything with __index__ (a bool too), never a float or a str; size_t never negative; floats from numbers;
    bools from anything with a truth value but a str. TypeError otherwise, as CTranslate2 raises."""
    kind = _TYPES.get(name)
    bad = TypeError("%s(): incompatible function arguments: %s=%r is not a %s (CTranslate2's type for it)"
                    % (fn, name, value, kind))
    if kind in (_SIZE, _INT):
        if isinstance(value, (float, str, bytes)) or value is None:
            raise bad
        try:
            v = operator.index(value)
        except TypeError:
            raise bad from None
        if (kind == _SIZE and not 0 <= v < 1 << 64) or (kind == _INT and not -(1 << 63) <= v < 1 << 63):
            raise bad
        return v
    if kind == _FLOAT:
        if isinstance(value, (str, bytes)) or value is None:
            raise bad
        try:
            return float(value)
        except (TypeError, ValueError):
            raise bad from None
    if kind == _BOOL:
        if isinstance(value, (str, bytes)):
            raise bad
        return bool(value)
    if kind == _STR:
        if not isinstance(value, str):
            raise bad
        return value
    return value


def _decoding_checks(o, vocab_size):
    """CTranslate2's validate_decoding_options (decoding.cc) and its sampler's vocabulary check, on the converted
    keywords `o`: ValueError with its messages."""
    if o["beam_size"] == 0:
        raise ValueError("The beam size must be > 0")
    if o["patience"] <= 0 or o["patience"] == math.inf:
        raise ValueError("The patience factor must be > 0")
    if o["num_hypotheses"] == 0:
        raise ValueError("The number of hypotheses must be > 0")
    sampling = o["sampling_topk"] != 1
    most = o["beam_size"] * o["patience"]  # get_max_candidates (NaN: CTranslate2 takes it; tern refuses it below)
    if (math.isfinite(most) and o["num_hypotheses"] > round(most) and not o["return_alternatives"]
            and not (o["beam_size"] == 1 and sampling)):
        raise ValueError("The number of hypotheses cannot be greater than beam_size * patience")
    if o["min_decoding_length"] > o["max_decoding_length"]:
        raise ValueError("The minimum decoding length is greater than the maximum decoding length")
    if o["max_decoding_length"] == 0:
        raise ValueError("The maximum decoding length must be > 0")
    if not o["repetition_penalty"] > 0 and not math.isnan(o["repetition_penalty"]):
        raise ValueError("The repetition penalty must be > 0")
    if o["prefix_bias_beta"] >= 1:
        raise ValueError("The beta value in biased decoding must be < 1")
    if o["prefix_bias_beta"] > 0 and o["return_alternatives"]:
        raise ValueError("Biased decoding is not compatible with the return_alternatives mode")
    if o["return_alternatives"] and not 0 <= o["min_alternative_expansion_prob"] <= 1:
        raise ValueError("The minimum alternative expansion probability must be between 0 and 1")
    if o["callback"] is not None and (o["beam_size"] != 1 or o["prefix_bias_beta"] > 0):
        raise ValueError("The callback function is not compatible with beam_size > 1 or prefix_bias_beta > 0")
    if o["sampling_topp"] <= 0 or o["sampling_topp"] > 1:
        raise ValueError("The sampling_topp parameter must be between 0 and 1")
    if sampling and o["sampling_topk"] > vocab_size:
        raise ValueError("sampling_topk option (%d) is greater than the vocabulary size (%d)" % (o["sampling_topk"], vocab_size))


def _what_tern_cannot(fn, o):
    """Values CTranslate2 takes that tern cannot honour (docs/python.md says why): tern.UnsupportedError."""
    if o["patience"] != 1:
        raise UnsupportedError("%s: patience=%r: tern's beam search ends by transformers' rules (only 1)" % (fn, o["patience"]))
    if o["prefix_bias_beta"] > 0:
        raise UnsupportedError("%s: prefix_bias_beta=%r: tern has no biased decoding (only <= 0)" % (fn, o["prefix_bias_beta"]))
    if o.get("return_logits_vocab"):
        raise UnsupportedError("%s: return_logits_vocab=True: tern returns no vocabulary logits" % fn)


_seed = [0]


def set_random_seed(seed):
    """CTranslate2's set_random_seed: the seed of tern's sampling generator for the calls that follow (with
    the same seed and inputs, the same sampled output on every CPU)."""
    _seed[0] = int(seed) & 0xFFFFFFFFFFFFFFFF


def _find_model(model_path, files):
    if files:
        raise UnsupportedError("files: tern loads a .tern file from model_path")
    path = os.fspath(model_path)
    if not os.path.exists(path):
        raise RuntimeError("Unable to open file 'model.bin' in model '%s'" % path)  # CTranslate2's message
    if os.path.isdir(path):
        found = sorted(f for f in os.listdir(path) if f.endswith(".tern"))
        if "model.tern" in found:
            found = ["model.tern"]
        if len(found) != 1:
            raise UnsupportedError("%s: a directory with one .tern file is needed, found %d" % (path, len(found)))
        path = os.path.join(path, found[0])
    return path


class Translator:
    """CTranslate2's Translator on a .tern model. inter_threads Translators share one Model and translate
    parts of a batch in parallel (the GIL is released); intra_threads is each one's thread count (0: tern's
    default). compute_type is the file's (a .tern holds one weight format)."""

    def __init__(self, model_path, device="cpu", *, device_index=0, compute_type="default", inter_threads=1,
                 intra_threads=0, max_queued_batches=0, flash_attention=False, tensor_parallel=False, files=None):
        device, compute_type, inter_threads, intra_threads, max_queued_batches, flash_attention, tensor_parallel = (
            _typed("Translator", k, v) for k, v in (("device", device), ("compute_type", compute_type),
                                                    ("inter_threads", inter_threads), ("intra_threads", intra_threads),
                                                    ("max_queued_batches", max_queued_batches),
                                                    ("flash_attention", flash_attention), ("tensor_parallel", tensor_parallel)))
        if device not in ("cpu", "auto", "cuda"):  # CTranslate2's devices; "auto" is the CPU where there is no GPU
            raise ValueError("unsupported device %s" % device)
        if device == "cuda":  # as CTranslate2 built without CUDA, or on a machine without a GPU
            raise ValueError("This CTranslate2 package was not compiled with CUDA support")
        if isinstance(device_index, (list, tuple)) and len(device_index) == 1:
            device_index = device_index[0]
        if isinstance(device_index, (list, tuple, str, bytes, float)) or device_index != 0:
            raise ValueError("device_index %r: the CPU device has index 0 only" % (device_index,))
        if compute_type not in ("default", "auto", "int8", "int8_float32", "int8_float16", "int8_bfloat16", "int16",
                                "float32", "float16", "bfloat16"):
            raise ValueError("invalid compute type: %s" % compute_type)
        if compute_type in ("float16", "int8_float16", "bfloat16", "int8_bfloat16"):  # as CTranslate2 on this CPU
            raise ValueError("Requested %s compute type, but the target device or backend do not support efficient "
                             "%s computation." % (compute_type, compute_type.split("_")[-1]))
        if tensor_parallel:
            raise UnsupportedError("tensor_parallel=True: tern runs on one CPU (inter_threads runs replicas)")
        self._model = _tern.Model.load(_find_model(model_path, files))
        self._intra_threads = intra_threads
        self._n_translators = max(1, int(inter_threads))
        self._lock = threading.Lock()
        hp = self._model.hparams
        self._positions = hp["max_positions"]  # the most source tokens (</s> included) the model has positions for
        self._limits = None  # the Translators' limits (tern.Translator.config_for), grown as calls need
        self._translators = []
        self._engine, self._engine_limits = None, None
        self._sized_for(max(4, self._model.generation["beam_size"]))
        self._source_index = {p: i for i, p in enumerate(self._model.source_vocab)}
        self._target_vocab = self._model.target_vocab
        self._target_index = {p: i for i, p in enumerate(self._target_vocab)}
        self._unk, self._eos = hp["unk_id"], hp["eos_id"]
        self._unk_target = self._target_index.get("<unk>", self._unk)
        self._unk_piece = self._target_vocab[self._unk_target]
        self.device, self.device_index, self.compute_type = "cpu", [0], self._model.weight_dtype
        self.tensor_parallel = False
        self.num_translators = self._n_translators
        self.num_queued_batches = 0
        self.num_active_batches = 0
        self.model_is_loaded = True

    def _limits_for(self, current, beam, n_best, alternatives, attention, source_tokens, decoding_length):
        """The limits of Translators that take a call (tern.Translator.config_for: tern's one sizing rule, so
        the shim never sizes on its own), never below `current`: max_beam and max_n_best at least the beam (a
        later num_hypotheses up to it needs no new Translators), token limits grown to powers of two and capped
        by the model's positions (a longer max_decoding_length is cut to them, as CTranslate2's decoding is)."""
        if max(beam, n_best, alternatives) > _tern.MAX_BEAM:
            raise UnsupportedError("beam_size / num_hypotheses %d: tern's limit is %d"
                                   % (max(beam, n_best, alternatives), _tern.MAX_BEAM))
        return _tern.Translator.config_for(self._model, beam_size=beam, n_best=max(n_best, 1 if alternatives else beam),
                                           alternatives=alternatives, source_tokens=source_tokens,
                                           max_length=decoding_length, attention=attention, at_least=current)

    def _sized_for(self, beam, attention=False, source_tokens=0, decoding_length=0, n_best=1, alternatives=0):
        """The Translators, made again with a larger arena when a call asks for more beams, hypotheses or
        alternatives than they were made for, or has a longer source or decoding length than they hold
        (CTranslate2 takes any beam_size and, up to max_input_length, any source; tern sizes its arena up front)."""
        with self._lock:
            limits = self._limits_for(self._limits, beam, n_best, alternatives, attention, source_tokens, decoding_length)
            if limits != self._limits:
                self._translators = [_tern.Translator(self._model, threads=self._intra_threads, **limits)
                                     for _ in range(self._n_translators)]
                self._limits = limits
            return self._translators

    def _engine_for(self, beam, attention=False, source_tokens=0, decoding_length=0, n_best=1):
        """The tern.Engine behind asynchronous=True and translate_iterable: inter_threads replicas of
        intra_threads threads (0: 1), made again when a call needs larger limits."""
        with self._lock:
            limits = self._limits_for(self._engine_limits or self._limits, max(beam, 4), n_best, 0, attention,
                                      source_tokens, decoding_length)
            if self._engine is None or limits != self._engine_limits:
                if self._engine is not None:
                    self._engine.close()
                self._engine = Engine(self._model, replicas=self._n_translators, threads=self._intra_threads, **limits)
                self._engine_limits = limits
            return self._engine

    def _ids(self, tokens, max_input_length, index=0):
        """Source token ids with </s>: cut to max_input_length (</s> included; 0: no limit) with a warning, as
        CTranslate2 cuts; ValueError when the model has no positions for them (CTranslate2 fails there too)."""
        if isinstance(tokens, str):
            raise TypeError("source: a list of token lists is needed, got a str in it")
        ids = [self._source_index.get(t, self._unk) for t in tokens]
        if ids and ids[-1] == self._eos:
            ids.pop()
        if max_input_length and len(ids) + 1 > max_input_length:
            warnings.warn("source %d: %d tokens cut to max_input_length %d (</s> included), as CTranslate2 cuts them"
                          % (index, len(ids) + 1, max_input_length), stacklevel=3)
            ids = ids[:max(0, max_input_length - 1)]
        if len(ids) + 1 > self._positions:
            raise ValueError("source %d: %d tokens (</s> included), but the model has positions for %d: pass "
                             "max_input_length=%d to cut it" % (index, len(ids) + 1, self._positions, self._positions))
        return ids + [self._eos]

    def _target_ids(self, tokens, what):
        if isinstance(tokens, str):
            raise TypeError("%s: a list of token lists is needed, got a str in it" % what)
        return [self._target_index.get(t, self._unk_target) for t in tokens]

    def _batches(self, sizes, max_batch_size, batch_type):
        if batch_type not in ("examples", "tokens"):
            raise ValueError("batch_type %r: 'examples' or 'tokens'" % (batch_type,))
        if max_batch_size <= 0:
            return [list(range(len(sizes)))] if sizes else []
        out, cur, cur_size = [], [], 0
        for i, n in enumerate(sizes):
            add = 1 if batch_type == "examples" else n
            if cur and cur_size + add > max_batch_size:
                out.append(cur)
                cur, cur_size = [], 0
            cur.append(i)
            cur_size += add
        return out + ([cur] if cur else [])

    def _options(self, fn, values):
        """The keywords of a decoding call converted as CTranslate2's binding converts them (TypeError for what it
        would not take), then checked as its decoding.cc checks them (ValueError), then what tern cannot honour
        (UnsupportedError); sizes past what a model can have are cut to it (a decoding length to the positions)."""
        o = {k: (_typed(fn, k, v) if k in _TYPES else v) for k, v in values.items() if k not in ("self", "source", "target_prefix")}
        if o.get("batch_type", "examples") not in ("examples", "tokens"):
            raise ValueError("Invalid batch type: %s" % o["batch_type"])
        _decoding_checks(o, len(self._target_vocab))
        _what_tern_cannot(fn, o)
        seqs = o.get("suppress_sequences")
        if seqs is not None:
            if isinstance(seqs, (str, bytes)) or any(isinstance(q, (str, bytes)) or not all(isinstance(t, str) for t in q) for q in seqs):
                raise TypeError("%s(): incompatible function arguments: suppress_sequences is not a list of token lists" % fn)
            o["suppress_sequences"] = [list(q) for q in seqs if len(q)]  # an empty sequence suppresses nothing
        end = o.get("end_token")
        if end is not None:
            ends = [end] if isinstance(end, str) else list(end)
            if not all(isinstance(t, (str, int)) and not isinstance(t, bool) for t in ends):
                raise TypeError("%s(): incompatible function arguments: end_token is not a token or a list of them" % fn)
            for t in ends:
                if isinstance(t, str) and t not in self._target_index:
                    raise ValueError("end_token %r is not in the target vocabulary" % t)
                if isinstance(t, int) and not 0 <= t < len(self._target_vocab):
                    raise ValueError("end_token id %d is outside the target vocabulary" % t)
            o["end_token"] = [t if isinstance(t, str) else self._target_vocab[t] for t in ends]
        positions = self._positions
        o["max_decoding_length"] = min(o["max_decoding_length"], positions)  # the most a decoding can have
        o["min_decoding_length"] = min(o["min_decoding_length"], o["max_decoding_length"])
        o["no_repeat_ngram_size"] = min(o["no_repeat_ngram_size"], positions + 1)  # longer: never repeats
        return o

    def translate_batch(self, source, target_prefix=None, *, max_batch_size=0, batch_type="examples", asynchronous=False,
                        beam_size=2, patience=1, num_hypotheses=1, length_penalty=1, coverage_penalty=0,
                        repetition_penalty=1, no_repeat_ngram_size=0, disable_unk=False, suppress_sequences=None,
                        end_token=None, return_end_token=False, prefix_bias_beta=0, max_input_length=1024,
                        max_decoding_length=256, min_decoding_length=1, use_vmap=False, return_scores=False,
                        return_logits_vocab=False, return_attention=False, return_alternatives=False,
                        min_alternative_expansion_prob=0, sampling_topk=1, sampling_topp=1, sampling_temperature=1,
                        replace_unknowns=False, callback=None):
        """Translates a batch of token lists; returns a TranslationResult per example (a finished
        AsyncTranslationResult each with asynchronous=True). Keywords are CTranslate2 4.8.1's, converted and checked
        as it does (TypeError, ValueError); the few values tern cannot honour raise tern.UnsupportedError."""
        o = self._options("translate_batch", locals())
        (max_batch_size, batch_type, asynchronous, beam_size, num_hypotheses, length_penalty, coverage_penalty,
         repetition_penalty, no_repeat_ngram_size, disable_unk, suppress_sequences, end_token, return_end_token,
         max_input_length, max_decoding_length, min_decoding_length, return_scores, return_attention,
         return_alternatives, min_alternative_expansion_prob, sampling_topk, sampling_topp, sampling_temperature,
         replace_unknowns) = (o[k] for k in (
            "max_batch_size", "batch_type", "asynchronous", "beam_size", "num_hypotheses", "length_penalty",
            "coverage_penalty", "repetition_penalty", "no_repeat_ngram_size", "disable_unk", "suppress_sequences",
            "end_token", "return_end_token", "max_input_length", "max_decoding_length", "min_decoding_length",
            "return_scores", "return_attention", "return_alternatives", "min_alternative_expansion_prob",
            "sampling_topk", "sampling_topp", "sampling_temperature", "replace_unknowns"))
        if not source:
            return []
        prefix_ids = None
        if target_prefix is not None and any(target_prefix):
            if len(target_prefix) != len(source):
                raise ValueError("target_prefix: %d prefixes for %d examples" % (len(target_prefix), len(source)))
            prefix_ids = [self._target_ids(p or [], "target_prefix") for p in target_prefix]
        # CTranslate2 samples when sampling_topk is not 1 (0: the whole vocabulary); tern's sampling is greedy
        # search's, with transformers' warpers (temperature, top-k, top-p).
        kw = {}
        if sampling_topk != 1:
            if beam_size != 1:
                raise UnsupportedError("sampling with beam_size %d: tern samples with beam_size=1 only" % beam_size)
            kw.update(do_sample=True, sampling_topk=int(sampling_topk), sampling_topp=float(sampling_topp),
                      sampling_temperature=float(sampling_temperature), seed=_seed[0])
        # CTranslate2's defaults leave the file's rules; another value is the call's own (transformers' processors).
        if repetition_penalty != 1:
            kw["repetition_penalty"] = float(repetition_penalty)
        if no_repeat_ngram_size != 0:
            kw["no_repeat_ngram_size"] = int(no_repeat_ngram_size)
        # CTranslate2 counts tokens before </s>, as tern's min_length does; its default 1 keeps </s> from coming first.
        kw["min_length"] = int(min_decoding_length)
        if suppress_sequences:  # token lists of the target vocabulary
            kw["suppress_sequences"] = [self._target_ids(s, "suppress_sequences") for s in suppress_sequences]
        if disable_unk:
            kw["disable_unk"] = True
        if return_attention:
            kw["return_attention"] = True
        if coverage_penalty:  # Wu et al. 2016 as CTranslate2's beam search applies it (and ends with it)
            kw["coverage_penalty"] = float(coverage_penalty)
        if replace_unknowns:  # the alignment gives each <unk> the source token it attends to most
            kw["return_alignment"] = True
        if end_token:  # tokens that end a hypothesis besides </s> (tern's end_tokens; </s> always ends one too)
            kw["end_tokens"] = [i for i in self._target_ids(end_token, "end_token") if i != self._eos]
        alternatives = {}
        if return_alternatives:  # num_hypotheses first tokens after the prefix, each continued by the search
            alternatives = dict(alternatives=int(num_hypotheses),
                                min_alternative_expansion_prob=float(min_alternative_expansion_prob))
        ids = [self._ids(s, max_input_length, k) for k, s in enumerate(source)]
        longest = max(len(x) for x in ids)
        groups = self._batches([len(x) for x in ids], max_batch_size, batch_type)
        steps = {}
        finish = lambda r, k, prefix=0, alt=None: self._result(
            r, return_scores, length_penalty, prefix, alt, source[k] if replace_unknowns else None, return_end_token)

        def run(translator, group):
            stream = None
            if callback is not None:
                def stream(ev):  # CTranslate2's step results: batch_id over the whole batch, step per example
                    batch_id = group[ev.index]
                    step = steps.get(batch_id, 0)
                    steps[batch_id] = step + 1
                    return callback(GenerationStepResult(step, batch_id, ev.token, self._target_vocab[ev.token], ev.last,
                                                         float(ev.logprob)))
            prefixes = [prefix_ids[i] for i in group] if prefix_ids else None
            try:
                res = translator.translate_ids([ids[i] for i in group], beam_size=beam_size,
                                               n_best=1 if alternatives else num_hypotheses,
                                               length_penalty=length_penalty, max_length=max_decoding_length,
                                               return_scores=return_scores, callback=stream, target_prefix_ids=prefixes,
                                               sampling_keys=list(group), **kw, **alternatives)
            except CancelledError as stopped:  # the callback returned True: what finished, empty for the rest
                res = stopped.results
            return [finish(r, group[k], len(prefixes[k]) if prefixes else 0,
                           ("greedy" if beam_size == 1 else "beam") if alternatives else None)
                    for k, r in enumerate(res)]

        if asynchronous and callback is None and not alternatives and not return_attention:
            # real futures: each example a request of the engine
            engine = self._engine_for(beam_size, attention=bool(coverage_penalty), source_tokens=longest,
                                      decoding_length=max_decoding_length, n_best=num_hypotheses)
            order = sorted(range(len(ids)), key=lambda i: len(ids[i]))  # similar lengths share calls
            futs = [None] * len(ids)
            for i in order:
                fut = engine.submit_ids([ids[i]], on_error="keep", beam_size=beam_size, n_best=num_hypotheses,
                                        length_penalty=length_penalty, max_length=max_decoding_length,
                                        return_scores=return_scores,
                                        target_prefix_ids=[prefix_ids[i]] if prefix_ids else None,
                                        sampling_keys=[i], **kw)
                prefix = len(prefix_ids[i]) if prefix_ids else 0
                futs[i] = _Async(fut, lambda rs, i=i, prefix=prefix: finish(rs[0], i, prefix))
            return futs
        translators = self._sized_for(beam_size, attention=bool(return_attention or coverage_penalty),
                                      source_tokens=longest, decoding_length=max_decoding_length,
                                      n_best=1 if alternatives else num_hypotheses,
                                      alternatives=int(num_hypotheses) if alternatives else 0)
        results = [None] * len(ids)
        if len(translators) == 1 or len(groups) <= 1 or callback is not None:
            for g in groups:
                for i, r in zip(g, run(translators[0], g)):
                    results[i] = r
        else:
            with concurrent.futures.ThreadPoolExecutor(len(translators)) as pool:
                jobs = [pool.submit(run, translators[k % len(translators)], g)
                        for k, g in enumerate(groups)]
                for g, job in zip(groups, jobs):
                    for i, r in zip(g, job.result()):
                        results[i] = r
        return [_Done(r) for r in results] if asynchronous else results

    def _result(self, r, return_scores, length_penalty, prefix=0, alternatives=None, source_tokens=None,
                end_token=False):
        hyps, scores = [], []
        for h in (r.hypotheses if r.ok else []):
            ended = end_token and len(h.tokens) > len(h.ids)  # return_end_token: the token that ended it stays
            pieces = [self._target_vocab[i] for i in (h.tokens if ended else h.ids)]
            if source_tokens is not None:  # replace_unknowns: CTranslate2 copies the caller's source token
                sources = h.token_sources
                for t, piece in enumerate(pieces):
                    if piece == self._unk_piece and 0 <= sources[t] < len(source_tokens):
                        pieces[t] = source_tokens[sources[t]]
            hyps.append(pieces)
            if return_scores and alternatives == "greedy":
                # CTranslate2: the first token's log-probability plus the continuation's score normalized by its
                # length ** length_penalty; tern's greedy continuation score is the plain sum.
                m = len(h.tokens) - prefix - 1
                cont = float(h.token_logprobs[prefix + 1:].sum())
                scores.append(float(h.score) - cont + (cont / (m ** length_penalty) if m > 0 else 0.0))
            elif return_scores and alternatives == "beam":  # the same as CTranslate2's: normalized as its beam search
                scores.append(float(h.score))
            elif return_scores:  # a target prefix is input: the score counts the tokens after it
                n = len(h.tokens) - prefix
                scores.append(float(h.token_logprobs[prefix:].sum()) / (n ** length_penalty) if n > 0 else 0.0)
        out = TranslationResult(hyps, scores)
        for h in (r.hypotheses if r.ok else []):  # CTranslate2: one row per generated token, </s> left out
            if h.attention is not None:
                out.attention.append(h.attention[: len(h.tokens) if end_token else len(h.ids)].tolist())
        return out

    def generate_tokens(self, source, target_prefix=None, *, max_decoding_length=256, min_decoding_length=1,
                        sampling_topk=1, sampling_topp=1, sampling_temperature=1, return_log_prob=False,
                        repetition_penalty=1, no_repeat_ngram_size=0, disable_unk=False, suppress_sequences=None,
                        end_token=None, max_input_length=1024, use_vmap=False):
        """CTranslate2's generate_tokens: an iterator of GenerationStepResult for one example (a token list),
        greedy search (or sampling); leaving the loop early stops the translation (tern's
        Translator.generate_tokens). Keywords converted and checked as translate_batch's (CTranslate2 runs it
        through translate_batch with beam_size 1 and a callback)."""
        o = self._options("generate_tokens", dict(locals(), beam_size=1, patience=1, num_hypotheses=1,
                                                  return_alternatives=False, prefix_bias_beta=0, callback=None))
        (max_decoding_length, min_decoding_length, sampling_topk, sampling_topp, sampling_temperature, return_log_prob,
         repetition_penalty, no_repeat_ngram_size, disable_unk, suppress_sequences, end_token, max_input_length) = (
            o[k] for k in ("max_decoding_length", "min_decoding_length", "sampling_topk", "sampling_topp",
                           "sampling_temperature", "return_log_prob", "repetition_penalty", "no_repeat_ngram_size",
                           "disable_unk", "suppress_sequences", "end_token", "max_input_length"))
        kw = dict(beam_size=1, max_length=max_decoding_length, return_scores=True)
        if sampling_topk != 1:
            kw.update(do_sample=True, sampling_topk=int(sampling_topk), sampling_topp=float(sampling_topp),
                      sampling_temperature=float(sampling_temperature), seed=_seed[0])
        if repetition_penalty != 1:
            kw["repetition_penalty"] = float(repetition_penalty)
        if no_repeat_ngram_size != 0:
            kw["no_repeat_ngram_size"] = int(no_repeat_ngram_size)
        kw["min_length"] = int(min_decoding_length)  # CTranslate2's default 1: </s> never first, as in translate_batch
        if suppress_sequences:
            kw["suppress_sequences"] = [self._target_ids(s, "suppress_sequences") for s in suppress_sequences]
        if disable_unk:
            kw["disable_unk"] = True
        if end_token:
            kw["end_tokens"] = [i for i in self._target_ids(end_token, "end_token") if i != self._eos]
        if target_prefix:
            kw["target_prefix_ids"] = [self._target_ids(target_prefix, "target_prefix")]
        ids = self._ids(source, max_input_length)
        translator = self._sized_for(1, source_tokens=len(ids), decoding_length=max_decoding_length)[0]
        for step, ev in enumerate(translator.generate_tokens(ids, **kw)):
            yield GenerationStepResult(step, 0, ev.token, self._target_vocab[ev.token], ev.last,
                                       float(ev.logprob) if return_log_prob else None)

    def score_batch(self, source, target, *, max_batch_size=0, batch_type="examples", max_input_length=1024, offset=0,
                    asynchronous=False):
        """CTranslate2's score_batch: a ScoringResult per (source, target) pair of token lists (target pieces
        without ``</s>``): each target token's log-probability, ``</s>`` last (tern's Translator.score_ids).
        offset n: the first n target tokens are scored but left out of the result, as CTranslate2 leaves them."""
        max_batch_size, batch_type, max_input_length, offset, asynchronous = (
            _typed("score_batch", k, v) for k, v in (("max_batch_size", max_batch_size), ("batch_type", batch_type),
                                                     ("max_input_length", max_input_length), ("offset", offset),
                                                     ("asynchronous", asynchronous)))
        if batch_type not in ("examples", "tokens"):
            raise ValueError("Invalid batch type: %s" % batch_type)
        if len(source) != len(target):
            raise ValueError("score_batch: %d sources and %d targets" % (len(source), len(target)))
        offset = max(0, offset)  # CTranslate2 takes a negative offset (and reads before the first token): none here
        ids = [self._ids(s, max_input_length, k) for k, s in enumerate(source)]
        tgt = [self._target_ids(t, "target") for t in target]
        for k, t in enumerate(tgt):
            if max_input_length and len(t) + 1 > max_input_length:  # CTranslate2 cuts targets at it too
                tgt[k] = t[:max(0, max_input_length - 1)]
        longest = max([len(x) for x in ids], default=0)
        translator = self._sized_for(1, source_tokens=longest, decoding_length=max([len(t) + 1 for t in tgt], default=0))[0]
        out = [None] * len(ids)
        for g in self._batches([len(x) for x in ids], max_batch_size, batch_type):
            res = translator.score_ids([ids[i] for i in g], [tgt[i] for i in g], on_error="keep")
            for i, r in zip(g, res):
                if not r.ok:
                    out[i] = ScoringResult([], [])
                    continue
                h = r.hypotheses[0]
                out[i] = ScoringResult([self._target_vocab[t] for t in h.tokens][offset:],
                                       [float(x) for x in h.token_logprobs][offset:])
        return [_Done(r) for r in out] if asynchronous else out

    @staticmethod
    def _read_ahead(iterables, n, base, what):
        """Up to n items of each of `iterables` (in step), checked as token lists. Returns (items, stop): `stop`
        is the exception that ends the iteration once the items before it are yielded (the iterable's own,
        noted with the caller's index, or a TypeError naming the item), else None."""
        items = []
        while len(items) < n:
            row = []
            for k, it in enumerate(iterables):
                try:
                    x = next(it)
                except StopIteration:
                    if k == 0:
                        return items, None
                    x = None  # a shorter target_prefix iterable: no prefix
                except Exception as raised:
                    raised.index = base + len(items)
                    raised.add_note("tern: the iterable raised this at item %d; every result before it was yielded" % raised.index)
                    return items, raised
                if x is not None and (isinstance(x, (str, bytes)) or not all(isinstance(t, str) for t in x)):
                    e = TypeError("%s item %d: a list of str tokens is needed, got %s" % (what[k], base + len(items), type(x).__name__))
                    e.index = base + len(items)
                    return items, e
                row.append(x)
            items.append(row)
        return items, None

    def translate_iterable(self, source, target_prefix=None, max_batch_size=32, batch_type="examples", **kwargs):
        """CTranslate2's translate_iterable: a TranslationResult per example of `source` (token lists), in
        order, while it reads ahead (max_batch_size x inter_threads x 4 examples at a time, submitted
        shortest first so that similar lengths share calls). target_prefix: an iterable of prefixes beside it.
        An item that is not a token list, or an exception of the iterable itself, ends the iteration after
        every result before it, with the item's position (``index``)."""
        if max_batch_size < 1:  # CTranslate2's translate_iterable (Python) compares before it converts
            raise ValueError("max_batch_size must be greater than 0")
        max_batch_size = _typed("translate_iterable", "max_batch_size", max_batch_size)
        if batch_type not in ("examples", "tokens"):
            raise ValueError("Invalid batch type: %s" % batch_type)
        its = [iter(source)] + ([iter(target_prefix)] if target_prefix is not None else [])
        ahead = max(1, max_batch_size) * self._n_translators * 4
        pending, base, stop = [], 0, None
        while True:
            rows, stop = self._read_ahead(its, ahead, base, ["source", "target_prefix"]) if stop is None else ([], stop)
            chunk = [r[0] for r in rows]
            if chunk and target_prefix is not None:
                kw = dict(kwargs, target_prefix=[r[1] for r in rows])
                submitted = self.translate_batch(chunk, max_batch_size=max_batch_size, batch_type=batch_type, **kw)
            else:
                submitted = self.translate_batch(chunk, asynchronous=True, **kwargs) if chunk else []
            for a in pending:
                yield a.result() if isinstance(a, (_Async, _Done)) else a
            pending = submitted
            base += len(chunk)
            if not chunk:
                if stop is not None:
                    raise stop
                return

    def score_iterable(self, source, target, max_batch_size=64, batch_type="examples", **kwargs):
        """CTranslate2's score_iterable: a ScoringResult per (source, target) pair of the two iterables, in
        order. An item that is not a token list, or an exception of either iterable, ends the iteration after
        every result before it, with the item's position (``index``)."""
        if max_batch_size < 1:
            raise ValueError("max_batch_size must be greater than 0")
        its = [iter(source), iter(target)]
        ahead = max_batch_size * self._n_translators * 4
        base, stop = 0, None
        while True:
            rows, stop = self._read_ahead(its, ahead, base, ["source", "target"])
            rows = [r for r in rows if r[1] is not None]  # (zip's end: the shorter iterable)
            if rows:
                yield from self.score_batch([r[0] for r in rows], [r[1] for r in rows], max_batch_size=max_batch_size,
                                            batch_type=batch_type, **kwargs)
            base += len(rows)
            if stop is not None:
                raise stop
            if len(rows) < ahead:
                return

    def translate_file(self, source_path, output_path, target_path=None, *, max_batch_size=32, read_batch_size=0,
                       batch_type="examples", with_scores=False, source_tokenize_fn=None, target_tokenize_fn=None,
                       target_detokenize_fn=None, **kwargs):
        """CTranslate2's translate_file: each line of source_path (space-separated tokens, or raw text with
        source_tokenize_fn and target_detokenize_fn) translated into output_path ("score ||| " first with
        with_scores), written to a temporary file and renamed when complete. Returns ExecutionStats."""
        import time
        if bool(source_tokenize_fn) != bool(target_detokenize_fn):
            raise ValueError("source_tokenize_fn and target_detokenize_fn should both be set or none at all")
        if target_path is not None and source_tokenize_fn and not target_tokenize_fn:
            raise ValueError("target_tokenize_fn should be set when passing a target file")
        tokenize = source_tokenize_fn or (lambda line: line.split())
        detokenize = target_detokenize_fn or (lambda tokens: " ".join(tokens))
        start = time.perf_counter()
        with open(source_path, encoding="utf-8") as f:
            src = [tokenize(line.rstrip("\n")) for line in f]
        prefix = None
        if target_path is not None:
            with open(target_path, encoding="utf-8") as f:
                prefix = [(target_tokenize_fn or (lambda line: line.split()))(line.rstrip("\n")) for line in f]
        results = self.translate_batch(src, prefix, max_batch_size=max_batch_size, batch_type=batch_type,
                                       return_scores=with_scores, **kwargs)
        tokens = 0
        tmp = "%s.tmp-%d" % (output_path, os.getpid())
        with open(tmp, "w", encoding="utf-8") as out:
            for r in results:
                hyp = r.hypotheses[0] if r.hypotheses else []
                tokens += len(hyp)
                line = detokenize(hyp)
                out.write(("%f ||| %s\n" % (r.scores[0], line)) if with_scores and r.scores else line + "\n")
        os.replace(tmp, output_path)
        return ExecutionStats(tokens, len(src), (time.perf_counter() - start) * 1000.0)

    def score_file(self, source_path, target_path, output_path, *, max_batch_size=32, read_batch_size=0,
                   batch_type="examples", max_input_length=1024, offset=0, with_tokens_score=False,
                   source_tokenize_fn=None, target_tokenize_fn=None, target_detokenize_fn=None):
        """CTranslate2's score_file: "score ||| target [||| token scores]" per line pair, the score normalized
        by the target length with </s>. Returns ExecutionStats."""
        import time
        if bool(source_tokenize_fn) != bool(target_tokenize_fn) or bool(target_tokenize_fn) != bool(target_detokenize_fn):
            raise ValueError("source_tokenize_fn, target_tokenize_fn, and target_detokenize_fn should all be set or none at all")
        split = lambda line: line.split()
        start = time.perf_counter()
        with open(source_path, encoding="utf-8") as f:
            src = [(source_tokenize_fn or split)(line.rstrip("\n")) for line in f]
        with open(target_path, encoding="utf-8") as f:
            tgt = [(target_tokenize_fn or split)(line.rstrip("\n")) for line in f]
        results = self.score_batch(src, tgt, max_batch_size=max_batch_size, batch_type=batch_type,
                                   max_input_length=max_input_length, offset=offset)
        detokenize = target_detokenize_fn or (lambda tokens: " ".join(tokens))
        tokens = 0
        tmp = "%s.tmp-%d" % (output_path, os.getpid())
        with open(tmp, "w", encoding="utf-8") as out:
            for r, t in zip(results, tgt):
                tokens += len(r.tokens)
                score = sum(r.log_probs) / len(r.log_probs) if r.log_probs else 0.0
                line = "%f ||| %s" % (score, detokenize(t))
                if with_tokens_score:
                    line += " ||| " + " ".join("%f" % x for x in r.log_probs)
                out.write(line + "\n")
        os.replace(tmp, output_path)
        return ExecutionStats(tokens, len(src), (time.perf_counter() - start) * 1000.0)

    def unload_model(self, to_cpu=False):
        """CTranslate2 frees the model's memory; tern keeps it (a .tern model is small and mapped)."""

    def load_model(self, keep_cache=False):
        """Nothing to do: the model stays loaded."""
