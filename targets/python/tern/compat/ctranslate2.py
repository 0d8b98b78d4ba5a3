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

What differs: ``model_path`` is a ``.tern`` file (or a directory holding one); options tern does not have
(coverage penalty, attention, beam sampling) raise ``tern.UnsupportedError`` when set to
anything but CTranslate2's default; ``device`` must be "cpu" or "auto". Pieces the source vocabulary lacks
become ``<unk>``. Sources longer than the Translator's max_source_tokens are cut to it (CTranslate2 cuts at
``max_input_length``).
"""

import concurrent.futures
import itertools
import os
import threading

from .. import _tern
from ..errors import CancelledError, UnsupportedError
from ..serving import Engine

__all__ = ["Translator", "TranslationResult", "GenerationStepResult", "ScoringResult", "set_random_seed"]


class TranslationResult:
    """CTranslate2's TranslationResult: ``hypotheses`` (list of token lists), ``scores`` (list of float; empty
    without return_scores), ``attention`` and ``logits`` (always empty: tern does not return them)."""

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


# translate_batch options tern cannot honour, with CTranslate2's defaults: any other value is refused.
_FIXED = {
    "patience": 1, "coverage_penalty": 0, "return_end_token": False, "prefix_bias_beta": 0,
    "use_vmap": False, "return_logits_vocab": False,
    "replace_unknowns": False,
}
_seed = [0]


def set_random_seed(seed):
    """CTranslate2's set_random_seed: the seed of tern's sampling generator for the calls that follow (with
    the same seed and inputs, the same sampled output on every CPU)."""
    _seed[0] = int(seed) & 0xFFFFFFFFFFFFFFFF


def _find_model(model_path, files):
    if files:
        raise UnsupportedError("files: tern loads a .tern file from model_path")
    path = os.fspath(model_path)
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

    def __init__(self, model_path, device="auto", device_index=0, compute_type="default", inter_threads=1,
                 intra_threads=0, max_queued_batches=0, flash_attention=False, tensor_parallel=False, files=None):
        if device not in ("cpu", "auto"):
            raise UnsupportedError("device %r: tern runs on the CPU" % (device,))
        if device_index not in (0, [0]):
            raise UnsupportedError("device_index %r: tern has one device" % (device_index,))
        self._model = _tern.Model.load(_find_model(model_path, files))
        self._intra_threads = intra_threads
        self._n_translators = max(1, int(inter_threads))
        self._lock = threading.Lock()
        self._max_beam = 0
        self._attention = False  # Translators made with attention buffers (return_attention asked once)
        self._translators = []
        self._engine, self._engine_beam = None, 0
        self._sized_for(max(4, self._model.generation["beam_size"]))
        self._source_index = {p: i for i, p in enumerate(self._model.source_vocab)}
        self._target_vocab = self._model.target_vocab
        self._target_index = {p: i for i, p in enumerate(self._target_vocab)}
        hp = self._model.hparams
        self._unk, self._eos = hp["unk_id"], hp["eos_id"]
        self._unk_target = self._target_index.get("<unk>", self._unk)
        self._max_source = self._model.limits["max_source_tokens"]
        self.device, self.device_index, self.compute_type = "cpu", [0], self._model.weight_dtype
        self.num_translators = len(self._translators)
        self.num_queued_batches = 0
        self.model_is_loaded = True

    def _sized_for(self, beam, attention=False):
        """The Translators, made again with a larger arena when a call asks for more beams or hypotheses
        than they were made for (CTranslate2 takes any beam_size; tern sizes its arena up front)."""
        with self._lock:
            if beam > self._max_beam or (attention and not self._attention):
                self._attention = self._attention or attention
                beam = max(beam, self._max_beam)
                if beam > _tern.MAX_BEAM:
                    raise UnsupportedError("beam_size / num_hypotheses %d: tern's limit is %d" % (beam, _tern.MAX_BEAM))
                self._translators = [_tern.Translator(self._model, threads=self._intra_threads, max_beam=beam, max_n_best=beam,
                                                      attention=self._attention)
                                     for _ in range(self._n_translators)]
                self._max_beam = beam
            return self._translators

    def _engine_for(self, beam):
        """The tern.Engine behind asynchronous=True and translate_iterable: inter_threads replicas of
        intra_threads threads (0: 1), made again for a larger beam."""
        with self._lock:
            if self._engine is None or beam > self._engine_beam:
                if beam > _tern.MAX_BEAM:
                    raise UnsupportedError("beam_size / num_hypotheses %d: tern's limit is %d" % (beam, _tern.MAX_BEAM))
                if self._engine is not None:
                    self._engine.close()
                self._engine = Engine(self._model, replicas=self._n_translators, threads=self._intra_threads,
                                      max_beam=max(beam, 4), max_n_best=max(beam, 4))
                self._engine_beam = max(beam, 4)
            return self._engine

    def _ids(self, tokens, max_input_length):
        if isinstance(tokens, str):
            raise TypeError("source: a list of token lists is needed, got a str in it")
        ids = [self._source_index.get(t, self._unk) for t in tokens]
        if ids and ids[-1] == self._eos:
            ids.pop()
        limit = self._max_source - 1
        if max_input_length:
            limit = min(limit, max_input_length - 1)
        return ids[:limit] + [self._eos]

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

    def translate_batch(self, source, target_prefix=None, *, max_batch_size=0, batch_type="examples", asynchronous=False,
                        beam_size=2, num_hypotheses=1, length_penalty=1, max_input_length=1024, max_decoding_length=256,
                        return_scores=False, callback=None, sampling_topk=1, sampling_topp=1, sampling_temperature=1,
                        repetition_penalty=1, no_repeat_ngram_size=0, min_decoding_length=1, return_alternatives=False,
                        min_alternative_expansion_prob=0, suppress_sequences=None, disable_unk=False,
                        return_attention=False, end_token=None, **options):
        """Translates a batch of token lists; returns a TranslationResult per example (a finished
        AsyncTranslationResult each with asynchronous=True)."""
        prefix_ids = None
        if target_prefix is not None and any(target_prefix):
            if len(target_prefix) != len(source):
                raise ValueError("target_prefix: %d prefixes for %d examples" % (len(target_prefix), len(source)))
            prefix_ids = [self._target_ids(p or [], "target_prefix") for p in target_prefix]
        for name, value in options.items():
            if name not in _FIXED:
                raise TypeError("translate_batch() got an unexpected keyword argument %r" % name)
            if value != _FIXED[name]:
                raise UnsupportedError("%s=%r: tern has no such option (only CTranslate2's default %r)" % (name, value, _FIXED[name]))
        # CTranslate2 samples when sampling_topk is not 1 (0: the whole vocabulary); tern's sampling is greedy
        # search's, with transformers' warpers (temperature, top-k, top-p).
        sampling = {}
        if sampling_topk != 1:
            if beam_size != 1:
                raise UnsupportedError("sampling with beam_size %d: tern samples with beam_size=1 only" % beam_size)
            sampling = dict(do_sample=True, sampling_topk=int(sampling_topk), sampling_topp=float(sampling_topp),
                            sampling_temperature=float(sampling_temperature), seed=_seed[0])
        # CTranslate2's defaults leave the file's rules; another value is the call's own (transformers' processors).
        if repetition_penalty != 1:
            sampling["repetition_penalty"] = float(repetition_penalty)
        if no_repeat_ngram_size != 0:
            sampling["no_repeat_ngram_size"] = int(no_repeat_ngram_size)
        if min_decoding_length != 1:  # CTranslate2 counts tokens before </s>, as tern's min_length does
            sampling["min_length"] = int(min_decoding_length)
        if suppress_sequences:  # token lists of the target vocabulary
            sampling["suppress_sequences"] = [self._target_ids(s, "suppress_sequences") for s in suppress_sequences]
        if disable_unk:
            sampling["disable_unk"] = True
        if return_attention:
            sampling["return_attention"] = True
        if end_token:  # tokens that end a hypothesis besides </s> (tern's end_tokens; </s> always ends one too)
            ends = [end_token] if isinstance(end_token, str) else list(end_token)
            sampling["end_tokens"] = [i for i in self._target_ids(ends, "end_token") if i != self._eos]
        alternatives = {}
        if return_alternatives:  # num_hypotheses first tokens after the prefix, each continued by the search
            alternatives = dict(alternatives=int(num_hypotheses),
                                min_alternative_expansion_prob=float(min_alternative_expansion_prob))
        elif beam_size < 1 or num_hypotheses < 1 or num_hypotheses > beam_size:
            raise ValueError("beam_size %r, num_hypotheses %r: 1 <= num_hypotheses <= beam_size" % (beam_size, num_hypotheses))
        translators = self._sized_for(max(beam_size, num_hypotheses), attention=bool(return_attention))
        ids = [self._ids(s, max_input_length) for s in source]
        groups = self._batches([len(x) for x in ids], max_batch_size, batch_type)
        steps = {}

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
                                               **sampling, **alternatives)
            except CancelledError as stopped:  # the callback returned True: what finished, empty for the rest
                res = stopped.results
            return [self._result(r, return_scores, length_penalty, len(prefixes[k]) if prefixes else 0,
                                 alternatives=("greedy" if beam_size == 1 else "beam") if alternatives else None)
                    for k, r in enumerate(res)]

        if asynchronous and callback is None and prefix_ids is None and not sampling and not alternatives:  # real futures: each example a request of the engine
            engine = self._engine_for(beam_size)
            order = sorted(range(len(ids)), key=lambda i: len(ids[i]))  # similar lengths share calls
            futs = [None] * len(ids)
            for i in order:
                fut = engine.submit_ids([ids[i]], on_error="keep", beam_size=beam_size, n_best=num_hypotheses,
                                        length_penalty=length_penalty, max_length=max_decoding_length,
                                        return_scores=return_scores)
                futs[i] = _Async(fut, lambda rs: self._result(rs[0], return_scores, length_penalty))
            return futs
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

    def _result(self, r, return_scores, length_penalty, prefix=0, alternatives=None):
        hyps, scores = [], []
        for h in (r.hypotheses if r.ok else []):
            hyps.append([self._target_vocab[i] for i in h.ids])
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
                out.attention.append(h.attention[: len(h.ids)].tolist())
        return out

    def generate_tokens(self, source, target_prefix=None, *, max_decoding_length=256, min_decoding_length=1,
                        sampling_topk=1, sampling_topp=1, sampling_temperature=1, return_log_prob=False,
                        repetition_penalty=1, no_repeat_ngram_size=0, disable_unk=False, suppress_sequences=None,
                        max_input_length=1024, **options):
        """CTranslate2's generate_tokens: an iterator of GenerationStepResult for one example (a token list),
        greedy search (or sampling); leaving the loop early stops the translation (tern's
        Translator.generate_tokens)."""
        for name, value in options.items():
            if name not in _FIXED:
                raise TypeError("generate_tokens() got an unexpected keyword argument %r" % name)
            if value != _FIXED[name]:
                raise UnsupportedError("%s=%r: tern has no such option (only CTranslate2's default %r)" % (name, value, _FIXED[name]))
        kw = dict(beam_size=1, max_length=max_decoding_length, return_scores=True)
        if sampling_topk != 1:
            kw.update(do_sample=True, sampling_topk=int(sampling_topk), sampling_topp=float(sampling_topp),
                      sampling_temperature=float(sampling_temperature), seed=_seed[0])
        if repetition_penalty != 1:
            kw["repetition_penalty"] = float(repetition_penalty)
        if no_repeat_ngram_size != 0:
            kw["no_repeat_ngram_size"] = int(no_repeat_ngram_size)
        if min_decoding_length != 1:
            kw["min_length"] = int(min_decoding_length)
        if suppress_sequences:
            kw["suppress_sequences"] = [self._target_ids(s, "suppress_sequences") for s in suppress_sequences]
        if disable_unk:
            kw["disable_unk"] = True
        if target_prefix:
            kw["target_prefix_ids"] = [self._target_ids(target_prefix, "target_prefix")]
        translator = self._sized_for(1)[0]
        for step, ev in enumerate(translator.generate_tokens(self._ids(source, max_input_length), **kw)):
            yield GenerationStepResult(step, 0, ev.token, self._target_vocab[ev.token], ev.last,
                                       float(ev.logprob) if return_log_prob else None)

    def score_batch(self, source, target, *, max_batch_size=0, batch_type="examples", max_input_length=1024, offset=0,
                    asynchronous=False):
        """CTranslate2's score_batch: a ScoringResult per (source, target) pair of token lists (target pieces
        without ``</s>``): each target token's log-probability, ``</s>`` last (tern's Translator.score_ids)."""
        if offset:
            raise UnsupportedError("offset=%r: tern scores every target token" % (offset,))
        if len(source) != len(target):
            raise ValueError("score_batch: %d sources and %d targets" % (len(source), len(target)))
        translator = self._sized_for(self._max_beam)[0]
        ids = [self._ids(s, max_input_length) for s in source]
        tgt = [self._target_ids(t, "target") for t in target]
        out = [None] * len(ids)
        for g in self._batches([len(x) for x in ids], max_batch_size, batch_type):
            res = translator.score_ids([ids[i] for i in g], [tgt[i] for i in g], on_error="keep")
            for i, r in zip(g, res):
                if not r.ok:
                    out[i] = ScoringResult([], [])
                    continue
                h = r.hypotheses[0]
                out[i] = ScoringResult([self._target_vocab[t] for t in h.tokens], [float(x) for x in h.token_logprobs])
        return [_Done(r) for r in out] if asynchronous else out

    def translate_iterable(self, source, target_prefix=None, max_batch_size=32, batch_type="examples", **kwargs):
        """CTranslate2's translate_iterable: a TranslationResult per example of `source` (token lists), in
        order, while it reads ahead (max_batch_size x inter_threads x 4 examples at a time, submitted
        shortest first so that similar lengths share calls)."""
        if target_prefix is not None:
            raise UnsupportedError("target_prefix: translate_iterable takes none here (translate_batch does)")
        if batch_type not in ("examples", "tokens"):
            raise ValueError("batch_type %r: 'examples' or 'tokens'" % (batch_type,))
        it = iter(source)
        ahead = max(1, max_batch_size) * self._n_translators * 4
        pending = []
        while True:
            chunk = list(itertools.islice(it, ahead))
            submitted = self.translate_batch(chunk, asynchronous=True, **kwargs) if chunk else []
            for a in pending:
                yield a.result()
            if not chunk:
                return
            pending = submitted

    def unload_model(self, to_cpu=False):
        """CTranslate2 frees the model's memory; tern keeps it (a .tern model is small and mapped)."""

    def load_model(self, keep_cache=False):
        """Nothing to do: the model stays loaded."""
